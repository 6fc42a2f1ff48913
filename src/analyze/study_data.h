#pragma once
// The trials of one tuning selection as plain data, the input of every study check (torch-free).
// A selection is one sweep ("nadamw/fmnist_mlp": the studies of experiment nadamw, plus those of
// the scientific rounds "nadamw@<name>=<value>", on workload fmnist_mlp) or one study
// ("nadamw/fmnist_mlp/study_2"). A trial's objective is its best validation value of the
// workload's target metric over its evals; diverged and failed trials (and non-finite or missing
// objectives) are infeasible; pending, running and interrupted trials are left out and counted.
// Tests build StudyData by hand; the CLI loads it from a store.
//
//   pacer::StudyStore store("runs/tune.db", {/*create=*/false});
//   pacer::StudyData data = pacer::load_study_data(store, "nadamw/fmnist_mlp");
//   for (const auto& t : data.trials) if (t.feasible()) std::printf("%g\n", *t.objective);
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/eval_record.h"
#include "store/study_store.h"
#include "tune/search_space.h"

namespace pacer {

struct TrialData {
  std::string study;                 // "<experiment>/<workload>/study_<k>"
  std::string experiment;            // "nadamw" or "nadamw@activation=tanh"
  std::string scientific_value;      // "tanh" for the latter; empty without a scientific hyperparameter
  TrialRecord record;                // as the store returns it: index, status (ended), outcome
  std::optional<double> objective;   // set iff feasible
  std::vector<std::pair<std::string, double>> hparams;  // in the trial's JSON order (booleans as 0/1)
  // Its strings (AlgoPerf's "grafting_type": "ADAM"), as JSON writes them: shown with the trial,
  // not ranked (the analyses rank numbers).
  std::vector<std::pair<std::string, std::string>> text_hparams;
  std::vector<EvalRecord> evals;     // by step

  bool feasible() const { return objective.has_value(); }
  std::optional<double> hparam(const std::string& name) const;
  std::string label() const;  // "study_2/trial_5"; "activation=tanh study_2/trial_5" in a round
};

struct StudyData {
  std::string selector;          // as given: "nadamw/fmnist_mlp"
  std::string workload;
  std::string objective_metric;  // "validation/accuracy"
  bool higher_is_better = true;
  std::optional<SearchSpace> space;  // none: self-tuning or an unreadable space
  std::string scientific_name;       // "activation" when the selection holds "@activation=..." rounds
  std::vector<TrialData> trials;     // finished ones, by study then trial
  int64_t unfinished = 0;            // pending, running, interrupted: not analysed

  size_t feasible_count() const;
  // True when a beats b in the objective's direction.
  bool better(double a, double b) const { return higher_is_better ? a > b : a < b; }
  // Feasible trials' positions in `trials`, best first (ties: earlier first).
  std::vector<size_t> ranked_feasible() const;
};

// "nadamw@activation=tanh" -> {"nadamw", "activation", "tanh"}; no '@': {experiment, "", ""}.
struct ExperimentName {
  std::string base, scientific_name, scientific_value;
};
ExperimentName parse_experiment_name(const std::string& experiment);

// The objective of one trial from its evals (best value of `metric`), nullopt when infeasible.
std::optional<double> trial_objective(StoredTrialStatus status, const std::vector<EvalRecord>& evals,
                                      const std::string& metric, bool higher_is_better);

// Studies matching "experiment/workload" (base experiment and its "@" rounds) or
// "experiment/workload/study_k". InputError listing the available sweeps when none matches.
std::vector<StudyRecord> select_sweep_studies(const std::vector<StudyRecord>& all, const std::string& selector);

// Loads the selection (target metric and direction from the workload registry). InputError: no
// matching study, several base experiments mixed by scientific values of different names.
StudyData load_study_data(const StudyStore& store, const std::string& selector);
// The same for studies already chosen (one study by id, as `pacer serve` picks it), labelled `selector`.
StudyData load_study_data(const StudyStore& store, const std::string& selector, const std::vector<StudyRecord>& studies);
// One trial with its latest attempt's evals by step, also while it runs (objective: none until it
// ended, then as in a StudyData).
TrialData load_trial_data(const StudyStore& store, const StudyRecord& study, const TrialRecord& record,
                          const std::string& objective_metric, bool higher_is_better);

}  // namespace pacer
