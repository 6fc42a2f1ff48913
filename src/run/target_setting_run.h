#pragma once
// `pacer targets` as a library call: the whole target-setting procedure (tune/target_setting.h)
// over a study store, resumable: the quasi-random search, the re-runs of the best point, and the
// timing run of that point alone, each a stored study run by the tuning worker.
//
//   pacer::TargetSetter setter(options);                       // InputError for bad options
//   pacer::StudyStore store("runs/targets.db");
//   pacer::WorkerOptions worker;                                 // progress, Ctrl-C
//   std::optional<nlohmann::ordered_json> record = pacer::set_targets(setter, store, worker);
//   if (record) std::fputs(pacer::target_summary(*record, setter.options(), "").c_str(), stdout);
#include <nlohmann/json.hpp>

#include <optional>
#include <string>

#include "store/study_store.h"
#include "tune/target_setting.h"
#include "run/tuning_worker.h"

namespace pacer {

// Runs what the store does not hold yet and returns the target record; nullopt when
// `worker.stop_requested` stopped it first (the same call resumes).
std::optional<nlohmann::ordered_json> set_targets(const TargetSetter& setter, StudyStore& store,
                                                  const WorkerOptions& worker);

// The line the procedure starts with: algorithms x points, steps, re-runs, the store.
std::string target_setting_headline(const TargetSetter& setter, const std::string& store_path);

}  // namespace pacer
