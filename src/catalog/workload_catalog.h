#pragma once
// The registered workloads and suites as `pacer list` shows them: a table with one line per
// workload (metric, targets, budget, step hint, eval period, batch size), their descriptions,
// variants and options, then the suites; or the same as JSON.
//
//   std::fputs(pacer::workload_catalog_text().c_str(), stdout);
//   nlohmann::ordered_json j = pacer::workload_catalog_json();   // {"workloads": [...], "suites": [...]}
#include <nlohmann/json.hpp>

#include <string>

namespace pacer {

std::string workload_catalog_text();
nlohmann::ordered_json workload_catalog_json();

}  // namespace pacer
