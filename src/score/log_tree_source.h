#pragma once
// Reads trials from log folders. Each submission folder is scanned recursively for
// eval_measurements.csv; the reference layout is
//   <submission>/study_<k>/<workload>_<framework>/trial_<i>/eval_measurements.csv
// and a single `pacer run --out DIR` folder works too. The workload is the path component named
// <workload>_<pytorch|jax|libtorch> (suffix dropped), else "workload.name" of a meta_data_*.json
// beside the CSV; study and trial come from study_<k> / trial_<i> components (default 0).
//
//   pacer::LogTreeSource source({"runs/nadamw", "runs/adamw"});
//   for (const auto& t : source.trials()) std::cout << t.workload << " " << t.study << "\n";
#include <string>
#include <vector>

#include "score/result_source.h"

namespace pacer {

class LogTreeSource : public ResultSource {
 public:
  // Throws InputError for a path that is not a folder, a duplicate submission name, or a folder
  // without any eval_measurements.csv. A CSV whose workload cannot be told (a stray
  // study_k/trial_j folder outside any <workload>_<framework> folder, as the published AlgoPerf
  // v0.5 tree has) is skipped, as the reference scorer skips it, and counted in warnings().
  explicit LogTreeSource(std::vector<std::string> submission_dirs);

  std::vector<TrialLog> trials() const override;
  std::vector<std::string> submissions() const override;
  // After trials(): one line per kind of skipped file, with the count and an example.
  const std::vector<std::string>& warnings() const { return warnings_; }

  // "<workload>_<framework>" -> "<workload>"; empty when the name has no framework suffix.
  static std::string strip_framework(const std::string& folder_name);

 private:
  std::vector<std::string> dirs_, names_;
  mutable std::vector<std::string> warnings_;
};

}  // namespace pacer
