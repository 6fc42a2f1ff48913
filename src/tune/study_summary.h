#pragma once
// Results of tuning studies by the AlgoPerf rules, read from the study store (torch-free):
// per study the best trial (earliest eval index reaching the target; ties: smaller time), per
// sweep (one workload of one tuning run) the median over studies, unfinished or infinite studies
// included as infinity.
//
//   auto sweeps = pacer::summarize_studies(store, store.studies());
//   for (const auto& s : sweeps) std::printf("%s %g\n", s.workload.c_str(), s.median_time);
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "store/study_store.h"

namespace pacer {

struct StudySummary {
  StudyRecord study;
  std::vector<TrialRecord> trials;
  std::optional<int64_t> best_trial;  // trial index (1-based) of the best trial; none reached
  double time_to_target = std::numeric_limits<double>::infinity();  // of the best trial
  std::optional<int64_t> steps_to_target;
  StudyProgress progress;
};

struct SweepSummary {
  std::string sweep, experiment, workload, algorithm, ruleset;
  std::vector<StudySummary> studies;  // by study index
  double median_time = std::numeric_limits<double>::infinity();  // median over studies (inf counts)
  bool finished() const;
};

// Groups `studies` by sweep, in order of first appearance.
std::vector<SweepSummary> summarize_studies(const StudyStore& store, const std::vector<StudyRecord>& studies);

// Text tables for `pacer study list` / `pacer study show` and the end of `pacer tune`.
std::string format_sweeps_table(const std::vector<SweepSummary>& sweeps);
std::string format_study_details(const SweepSummary& sweep);
// The same as JSON (`pacer study list/show --json`, `pacer tune --json`): per sweep its studies
// and their trials; not reached / unfinished times are null, seeds strings (64-bit).
std::string sweeps_json_text(const std::vector<SweepSummary>& sweeps);
// One CSV row per trial (`pacer study export --csv`): the sweep, study, whether it is the study's
// best, the trial's results, then one hp.NAME column per hyperparameter seen; not reached and
// missing values are empty cells.
std::string trials_csv_text(const std::vector<SweepSummary>& sweeps);

}  // namespace pacer
