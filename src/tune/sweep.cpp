#include "tune/sweep.h"

#include <nlohmann/json.hpp>

#include <map>

#include "catalog/plugin_records.h"
#include "catalog/algorithm_infos.h"
#include "core/error.h"
#include "core/seed.h"
#include "catalog/workload_specs.h"

namespace pacer {
namespace {

// Samplers whose points form a fixed set give every study the same points (as the reference
// does for lists); unbounded sequences give each study the next, distinct, points.
bool continues_sequence(const std::string& sampler) { return sampler != "list" && sampler != "grid"; }

nlohmann::ordered_json sweep_identity(const SweepSpec& s) {
  nlohmann::ordered_json id;
  id["experiment"] = s.experiment;
  id["workload"] = s.workload;
  id["algorithm"] = s.algorithm;
  id["ruleset"] = to_string(s.ruleset);
  id["space"] = s.space ? nlohmann::ordered_json::parse(s.space->to_json()) : nlohmann::ordered_json();
  id["sampler"] = s.space ? s.sampler : "";
  id["sampler_seed"] = s.sampler_options.seed;
  id["grid_points"] = s.sampler == "grid" ? s.sampler_options.grid_points : 0;
  id["seed"] = s.seed;
  // Halton points of a seed other than 0 are rotated since this key was added: a store planned
  // before holds other points under the same seed, so those studies are not this sweep's.
  if (s.space && (s.sampler == "halton" || s.sampler == "quasi_random") && s.sampler_options.seed != 0) {
    id["halton_rotation"] = 1;
  }
  // The TrialSpec; the key predates the name and stays: renaming it would re-key every stored study.
  id["trial_settings"] = nlohmann::ordered_json::parse(s.trial.to_json());
  // An algorithm from a plugin: the library and its content, so a rebuilt library starts new
  // studies instead of being mixed into the old ones. (Absent for built-ins: identities as before.)
  if (const LoadedPlugin* plugin = plugin_of(s.algorithm)) {
    id["algorithm_library"] = plugin->path;
    id["algorithm_library_hash"] = plugin->content_hash;
  }
  return id;
}

}  // namespace

void validate_sweep(const SweepSpec& s) {
  workload_spec(s.workload).validate_options(s.trial.workload_options);  // InputError listing valid names
  const AlgorithmInfo algorithm = algorithm_info(s.algorithm);  // InputError listing valid names
  if (s.studies < 1) throw InputError("--studies must be at least 1");
  if (s.first_study < 1 || s.first_study > s.studies) throw Error("sweep: first study outside 1..studies");
  if (s.trials < 1) throw InputError("--trials must be at least 1");
  if (s.ruleset == Ruleset::self) {
    if (s.space) throw InputError("self-tuning takes no search space (--space)");
    if (s.trials != 1) throw InputError("self-tuning runs one trial per study (got --trials " + std::to_string(s.trials) + ")");
    return;
  }
  if (!s.space) throw InputError("external tuning needs a search space (--space FILE, e.g. spaces/" + s.algorithm + ".json)");
  validate_search_space(*s.space, algorithm.hyperparameters, s.algorithm, s.space_origin);
  if (s.space->is_list() && s.sampler != "list") {
    throw InputError(s.space_origin + ": a list of points runs with --sampler list (got '" + s.sampler + "')");
  }
  auto sampler = make_sampler(s.sampler, s.sampler_options);
  if (auto capacity = sampler->capacity(*s.space); capacity && *capacity < s.trials) {
    throw InputError(s.space_origin + ": the " + s.sampler + " sampler has " + std::to_string(*capacity) +
                     " points, fewer than --trials " + std::to_string(s.trials));
  }
}

uint64_t trial_seed(uint64_t seed, int study, int64_t index) {
  return derive_seed(derive_seed(seed, static_cast<uint64_t>(study)), static_cast<uint64_t>(index));
}

std::vector<StudyDefinition> sweep_definitions(const std::vector<SweepSpec>& sweeps) {
  std::vector<StudyDefinition> definitions;
  for (const auto& s : sweeps) {
    validate_sweep(s);
    const auto sweep_id = sweep_identity(s);
    for (int k = s.first_study; k <= s.studies; ++k) {
      StudyDefinition d;
      auto id = sweep_id;
      id["study"] = k;
      d.identity = id.dump();
      d.sweep = sweep_id.dump();
      d.experiment = s.experiment.empty() ? s.algorithm : s.experiment;
      d.workload = s.workload;
      d.algorithm = s.algorithm;
      d.ruleset = to_string(s.ruleset);
      d.study_index = k;
      d.space_json = s.space ? s.space->to_json() : "";
      d.sampler = s.space ? s.sampler : "";
      d.sampler_seed = s.sampler_options.seed;
      d.trial_spec = s.trial.to_json();
      d.trials = s.trials;
      definitions.push_back(d);
    }
  }
  return definitions;
}

std::vector<StudyRecord> find_sweep_studies(const StudyStore& store, const std::vector<SweepSpec>& sweeps) {
  std::map<std::string, StudyRecord> stored;
  for (auto& study : store.studies()) stored.emplace(study.identity, study);
  std::vector<StudyRecord> found;
  for (const auto& d : sweep_definitions(sweeps)) {
    if (auto it = stored.find(d.identity); it != stored.end()) found.push_back(it->second);
  }
  return found;
}

std::vector<StudyRecord> plan_sweeps(StudyStore& store, const std::vector<SweepSpec>& sweeps) {
  const std::vector<StudyDefinition> definitions = sweep_definitions(sweeps);
  std::map<std::string, const SweepSpec*> by_identity;
  size_t next = 0;
  for (const auto& s : sweeps) {
    for (int k = s.first_study; k <= s.studies; ++k) by_identity[definitions[next++].identity] = &s;
  }

  auto make_trials = [&](const StudyRecord& study, int64_t first_index, int64_t count,
                         int64_t first_position) -> std::vector<NewTrial> {
    const SweepSpec& s = *by_identity.at(study.identity);
    std::vector<NewTrial> trials(static_cast<size_t>(count));
    for (int64_t i = 0; i < count; ++i) trials[i].seed = trial_seed(s.seed, study.study_index, first_index + i);
    if (!s.space) return trials;  // self-tuning: no hyperparameters
    // Paired points: study k's point i is the sequence's point (k - 1) x trials + i - 1 whatever
    // else the store holds, so a study planned on its own (a newcomer's extension of a board's
    // algorithm) draws the board's points. (A board planned whole gets the same from the store's
    // counter.) Other samplers continue the store's own sequence.
    const int64_t position = s.sampler == "paired_halton" ? (study.study_index - 1) * s.trials + (first_index - 1)
                             : continues_sequence(s.sampler) ? first_position
                                                             : first_index - 1;
    auto sampler = make_sampler(s.sampler, s.sampler_options);
    std::vector<Hyperparameters> points = sampler->sample(*s.space, position, count);
    // The reference shuffles the points with an unseeded generator; we shuffle with a seed
    // derived from (sampler seed, study, first trial) and record the positions, so the order
    // is reproducible. Fixed sets (list, grid) keep their order, as in the reference.
    std::vector<int64_t> order(static_cast<size_t>(count));
    for (int64_t i = 0; i < count; ++i) order[i] = i;
    if (continues_sequence(s.sampler)) {
      order = seeded_permutation(count, derive_seed(derive_seed(s.sampler_options.seed, study.study_index),
                                                    static_cast<uint64_t>(first_index)));
    }
    for (int64_t i = 0; i < count; ++i) {
      trials[i].hparams_json = points[static_cast<size_t>(order[i])].to_json(-1);
      trials[i].position = position + order[i];
    }
    return trials;
  };
  return store.ensure_studies(definitions, make_trials);
}

}  // namespace pacer
