#pragma once
// One trial's logged evals (eval_measurements.csv, or later a row set of the study store), plus
// where it belongs: submission, workload, study, trial.
//
//   const std::vector<double>* acc = trial.column("validation/accuracy");  // nullptr when absent
//   if (!trial.problem.empty()) { /* malformed: counts as not reaching the target */ }
#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace pacer {

struct TrialLog {
  std::string submission;  // the submission folder's name
  std::string workload;    // framework suffix dropped: "fmnist_mlp", "imagenet_resnet"
  int study = 0;
  int trial = 0;
  std::string source;      // the file it came from, for messages
  // What its submission times were measured by: "wall" (AlgoPerf's; logs that do not say) or
  // "cpu" (pacer --clock cpu). Scoring never mixes the two.
  std::string clock = "wall";
  int threads = 0;  // the intra-op threads it ran with; 0: not recorded (AlgoPerf's logs, older stores)
  size_t rows = 0;         // evals logged
  // Racing stopped it before its target or budget (a store's status "stopped"): its pace cost is
  // an upper bound, which the expected pace's all-trials estimate notes in a warning.
  bool stopped_early = false;
  // Read from a study store, where a column no eval recorded is a metric not measured (a trial that
  // failed before its first eval has none): such a trial never reaches, where a log file without
  // the column is malformed.
  bool from_store = false;
  // Every column by name; empty cells and "nan" are NaN.
  std::map<std::string, std::vector<double>> columns;
  // Per column, the first cell that is not a number: "<file>:<line>: ..." (checked only for the
  // columns scoring reads, so unrelated junk in reference logs does not block scoring).
  std::map<std::string, std::string> bad_cells;
  std::string problem;     // non-empty: the whole file is unusable ("<file>:<line>: why")

  const std::vector<double>* column(const std::string& name) const {
    auto it = columns.find(name);
    return it == columns.end() ? nullptr : &it->second;
  }
};

}  // namespace pacer
