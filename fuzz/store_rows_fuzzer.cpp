// Fuzz target: the rows of a study store as another process (or a damaged disk, or a newer
// Pacer) may have left them. A template store holds one study, one finished trial and one eval;
// each input overwrites their text and number columns with fuzzed values through SQLite, then
// reads the store as `pacer study`, `pacer score STORE` and `pacer analyze` do.
#include <fuzzer/FuzzedDataProvider.h>
#include <sqlite3.h>

#include <filesystem>

#include "fuzz_support.h"
#include "score/store_source.h"
#include "store/study_store.h"

namespace {

const std::string& template_store() {
  static const std::string path = [] {
    const std::string p = "/tmp/pacer_fuzz_template_" + std::to_string(getpid()) + ".db";
    std::filesystem::remove(p);
    pacer::StudyStore store(p);
    pacer::StudyDefinition d;
    d.identity = "fuzz-study";
    d.sweep = "fuzz-sweep";
    d.experiment = "fuzz";
    d.workload = "fmnist_mlp";
    d.algorithm = "nadamw";
    d.ruleset = "external";
    d.space_json = R"({"learning_rate": {"min": 1e-4, "max": 1e-2, "scaling": "log"}})";
    d.sampler = "halton";
    d.trial_spec = "{}";
    d.trials = 1;
    auto studies = store.ensure_studies({d}, [](const pacer::StudyRecord&, int64_t, int64_t count, int64_t first_position) {
      std::vector<pacer::NewTrial> trials(count);
      for (int64_t i = 0; i < count; ++i) {
        trials[i].hparams_json = R"({"learning_rate": 0.001})";
        trials[i].position = first_position + i;
      }
      return trials;
    });
    const std::string owner = pacer::StudyStore::make_owner_id();
    auto trial = store.claim_trial({studies[0].id}, owner, 60);
    pacer::EvalRecord e;
    e.step = 10;
    e.accumulated_submission_time = 1.5;
    e.metrics = {{"validation/accuracy", 0.9}};
    store.record_eval(trial->id, owner, trial->attempts, 0, e);
    pacer::TrialOutcome o;
    o.status = pacer::TrialStatus::reached;
    o.steps = 10;
    store.finish_trial(trial->id, owner, o);
    return p;
  }();
  return path;
}

// One UPDATE with a fuzzed value bound as text, integer or real (SQLite is dynamically typed:
// a column declared REAL can hold text written by anything).
void overwrite(sqlite3* db, const char* sql, FuzzedDataProvider& in) {
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr) != SQLITE_OK) __builtin_trap();
  switch (in.ConsumeIntegralInRange(0, 3)) {
    case 0: {
      const std::string text = in.ConsumeRandomLengthString(512);
      sqlite3_bind_text(stmt, 1, text.c_str(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
      break;
    }
    case 1: sqlite3_bind_int64(stmt, 1, in.ConsumeIntegral<int64_t>()); break;
    case 2: sqlite3_bind_double(stmt, 1, in.ConsumeFloatingPoint<double>()); break;
    default: sqlite3_bind_null(stmt, 1); break;
  }
  sqlite3_step(stmt);  // a constraint may refuse the value: the row keeps the old one
  sqlite3_finalize(stmt);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const char* const kColumns[] = {
      "UPDATE studies SET space = ?",        "UPDATE studies SET trial_spec = ?",
      "UPDATE studies SET ruleset = ?",      "UPDATE studies SET experiment = ?",
      "UPDATE studies SET workload = ?",     "UPDATE studies SET study_index = ?",
      "UPDATE studies SET planned_trials = ?", "UPDATE studies SET sampler_seed = ?",
      "UPDATE trials SET hparams = ?",       "UPDATE trials SET status = ?",
      "UPDATE trials SET outcome = ?",       "UPDATE trials SET trial_index = ?",
      "UPDATE trials SET time_to_target = ?", "UPDATE trials SET seed = ?",
      "UPDATE trials SET attempts = ?",      "UPDATE evals SET metrics = ?",
      "UPDATE evals SET global_step = ?",    "UPDATE evals SET submission_time = ?",
      "UPDATE evals SET attempt = ?",        "UPDATE evals SET eval_index = ?",
      "UPDATE evals SET preemption_count = ?",
  };
  const std::string path = "/tmp/pacer_fuzz_" + std::to_string(getpid()) + ".db";
  std::filesystem::copy_file(template_store(), path, std::filesystem::copy_options::overwrite_existing);
  FuzzedDataProvider in(data, size);
  sqlite3* db = nullptr;
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) __builtin_trap();
  const int edits = in.ConsumeIntegralInRange(1, 6);
  for (int i = 0; i < edits && in.remaining_bytes() > 0; ++i) {
    overwrite(db, kColumns[in.ConsumeIntegralInRange<size_t>(0, std::size(kColumns) - 1)], in);
  }
  sqlite3_close(db);

  pacer::fuzz::expect_result_or_error([&] {
    pacer::StudyStore store(path, pacer::StudyStoreOptions{false});
    for (const auto& s : store.studies()) {
      for (const auto& t : store.trials(s.id)) store.evals(t.id);
      store.progress({s.id});
    }
  });
  pacer::fuzz::expect_result_or_error([&] {
    pacer::StoreSource source({path});
    source.trials();
    source.submissions();
  });
  return 0;
}
