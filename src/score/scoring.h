#pragma once
// Scoring of a set of submissions end to end: trials -> time-to-target per trial, study and
// workload -> performance profiles, score, optional geometric-mean speedup -> a ranked result
// that the writers (score/score_outputs.h) and the report (report/) consume.
//
//   pacer::LogTreeSource source({"runs/nadamw", "runs/adamw"});
//   pacer::ScoreOptions options;
//   options.rules = "v0.5";
//   pacer::ScoreResult r = pacer::score_submissions(source, options);
//   std::printf("%s %.4f\n", r.submissions[0].name.c_str(), r.submissions[0].score);
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "score/result_source.h"
#include "score/rules.h"
#include "score/targets.h"
#include "score/time_to_target.h"

namespace pacer {

struct ScoreOptions {
  std::string rules = "v0.6";
  TimeAxis time_axis = TimeAxis::seconds;
  std::string targets_file;  // JSON overriding the built-in targets; empty: none
  std::string reference;     // geometric-mean speedup against this submission; empty: none
  bool self_tuning = false;  // budgets x the rules' self-tuning multiplier
  bool lenient = false;      // a malformed log is a warning and a trial that did not reach
};

struct CurvePoint {
  double time = 0.0;
  double value = 0.0;
};

struct WorkloadScore {
  std::string workload;
  std::optional<double> time;      // median over studies; nullopt: no logs for this workload
  std::vector<int> studies;        // study indices found
  std::vector<double> study_times; // per study, same order
  int trials = 0;
  double scored_time = std::numeric_limits<double>::infinity();  // after the cut-offs
  double ratio = std::numeric_limits<double>::infinity();        // scored / fastest (base workloads)
  std::string reason;              // empty: counts in the profile; else why not
  // The pace (score/pace.h): the median over studies of the study costs; nullopt: no logs.
  std::optional<double> pace_cost;
  std::vector<double> study_pace_costs;  // per study, same order as `studies`
  // The expected pace (score/expected_pace.h): every trial's pace cost with its slot (study, trial
  // index), in study then trial order, and the cell's expected best-of-k over them.
  struct TrialCost {
    int study = 0, trial = 0;
    double cost = 0.0;
  };
  std::vector<TrialCost> trial_costs;
  int best_of_k = 0;                      // k: the most trials a study of this cell holds
  std::optional<double> expected_pace_cost;  // nullopt: no logs
  std::string curve_source;        // the trial plotted: earliest to target, else best value
  std::vector<CurvePoint> curve;   // (time, validation metric) of that trial
};

struct SubmissionScore {
  std::string name;
  int rank = 0;                    // 1 = best; equal scores share a rank
  double score = 0.0;
  std::optional<double> speedup;   // geometric-mean speedup vs ScoreResult::reference
  double pace = 0.0;               // Pacer's second score (score/pace.h): lower is faster
  int pace_rank = 0;               // 1 = the lowest pace; equal paces share a rank
  std::optional<double> pace_speedup;  // pace(reference) / pace
  double expected_pace = 0.0;      // the all-trials score (score/expected_pace.h): lower is faster
  int expected_pace_rank = 0;
  std::optional<double> expected_pace_speedup;  // expected pace(reference) / expected pace
  std::vector<double> rho;         // the performance profile on ScoreResult::tau
  std::vector<WorkloadScore> workloads;  // in ScoreResult::workloads order
  int reached() const;             // workloads whose time is finite
};

struct ScoreResult {
  RulesPreset rules;
  TimeAxis time_axis = TimeAxis::seconds;
  std::string clock = "wall";  // what every scored trial's submission time was measured by
  bool self_tuning = false;
  std::string reference;
  std::vector<ScoringTarget> workloads;     // every column, sorted; time_budget already multiplied
  std::vector<std::string> base_workloads;  // the scored ones (the profile's denominator)
  std::vector<double> tau;
  std::vector<double> pace_budgets;         // per workload column: the pace's budget on the time axis
  std::vector<SubmissionScore> submissions; // leaderboard order
  int stopped_early_trials = 0;             // trials racing stopped (TrialLog::stopped_early)
  std::vector<std::string> warnings;
};

ScoreResult score_submissions(const ResultSource& source, const ScoreOptions& options);
// The same from trials already read; `submissions` fixes the order (and includes any without trials).
ScoreResult score_trials(const std::vector<TrialLog>& trials, const std::vector<std::string>& submissions,
                         const ScoreOptions& options);

}  // namespace pacer
