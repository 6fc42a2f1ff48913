#pragma once
// The pages of `pacer serve`, compiled into the program (it reads no file to answer a request):
// one HTML shell per page kind, the script that fills it from the JSON routes and polls them
// (serve/dashboard_routes.h), and its style sheet. The script writes store text (names,
// hyperparameters, messages) as text nodes only, never as HTML.
//
//   std::string html = pacer::dashboard_page_html("study", 12, 5000);  // <body data-page="study" data-id="12">
#include <cstdint>
#include <string>

namespace pacer {

// kind: index, study or trial; id: the study's or trial's (0 for the index).
std::string dashboard_page_html(const std::string& kind, int64_t id, int poll_ms);
const std::string& dashboard_js();
const std::string& dashboard_css();
// A short page that says why there is nothing to show (an error, a study not finished yet), with a
// link back to the index; title and message are escaped.
std::string dashboard_message_page(const std::string& title, const std::string& message);

}  // namespace pacer
