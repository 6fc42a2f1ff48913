#pragma once
// Reads finished trials from a study store (SQLite) for scoring: each trial's eval measurements
// become a TrialLog with the reference columns (score = accumulated submission time,
// global_step, validation/..., ...). The submission is the study's experiment name. Trials still
// pending or running are left out: they have no result yet. Only the studies of one ruleset are
// read (scoring never mixes external and self-tuning results); those of the other are counted in
// warnings(). Two sweeps that would give one submission the same workload study (the same
// experiment name run with other settings) are an InputError suggesting `pacer tune --name`.
//
//   pacer::StoreSource source({"runs/tune.db"});
//   pacer::ScoreResult r = pacer::score_submissions(source, options);
#include <string>
#include <vector>

#include "score/result_source.h"
#include "store/study_store.h"

namespace pacer {

class StoreSource : public ResultSource {
 public:
  // InputError: missing or not a store, or a name collision.
  // `options`: how long to wait for a busy or unreachable store (pacer serve waits less); always read-only.
  explicit StoreSource(std::vector<std::string> store_paths, bool self_tuning = false,
                       StudyStoreOptions options = StudyStoreOptions::reading());
  std::vector<TrialLog> trials() const override;
  std::vector<std::string> submissions() const override;

  // True for a postgresql:// URI, or a file that starts with the SQLite header (so `pacer score`
  // can take log folders and stores mixed).
  static bool is_store_file(const std::string& path);
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  std::vector<std::string> paths_;
  std::vector<TrialLog> trials_;
  std::vector<std::string> submissions_;
  std::vector<std::string> warnings_;
};

// Several sources read as one (log folders and stores side by side).
class CombinedSource : public ResultSource {
 public:
  void add(std::vector<TrialLog> trials, std::vector<std::string> submissions);
  std::vector<TrialLog> trials() const override { return trials_; }
  std::vector<std::string> submissions() const override { return submissions_; }

 private:
  std::vector<TrialLog> trials_;
  std::vector<std::string> submissions_;
};

}  // namespace pacer
