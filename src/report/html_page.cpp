#include "report/html_page.h"

#include "report/svg_chart.h"
#include "report/xml_escape.h"

namespace pacer {

std::string html_page_head(const std::string& title, const std::string& extra_css, int max_width_px) {
  return "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>" + xml_escape(title) +
         "</title><style>body{font-family:sans-serif;max-width:" + std::to_string(max_width_px) +
         "px;margin:2em auto;color:#222}"
         "table{border-collapse:collapse;margin:0.5em 0 1.5em}td,th{border:1px solid #ccc;padding:3px 8px;"
         "text-align:right;font-size:90%}th{background:#f0f0f0}td.l{text-align:left}" +
         extra_css + "</style></head><body>";
}

}  // namespace pacer
