#pragma once
// Escaping text for HTML and SVG: every page and chart Pacer writes puts names from outside
// (submissions, workloads, hyperparameters, file paths) into markup. Torch-free.
//
//   html << "<td>" << pacer::xml_escape(trial.submission) << "</td>";   // "a<b" -> "a&lt;b"
#include <string>

namespace pacer {

// & < > " ' replaced by their entities: safe in element text and in quoted attribute values.
std::string xml_escape(const std::string& text);

}  // namespace pacer
