#pragma once
// The opening of Pacer's self-contained HTML pages (analysis, probes, scaling): doctype, title and
// the shared style sheet (readable tables, right-aligned numbers, td.l left-aligned), plus the
// page's own CSS rules. No scripts, no network.
//
//   std::string html = pacer::html_page_head("Pacer stability probe", ".bad{color:#a00}") + body + "</body></html>\n";
#include <string>

namespace pacer {

// Everything up to and including <body>; `title` is escaped, `extra_css` inserted as is.
std::string html_page_head(const std::string& title, const std::string& extra_css = "", int max_width_px = 1100);

}  // namespace pacer
