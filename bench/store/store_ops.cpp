// Latency of the study store's operations on a fresh store file: claim, record_eval, heartbeat,
// finish (each one IMMEDIATE transaction, WAL mode, synchronous=NORMAL), as bench/store/store_overhead.sh
// uses them to express the store's cost per trial and per eval against real trial times.
//
//   build/bench/bench_store_ops [TRIALS=200] [EVALS_PER_TRIAL=20] [DIR=/tmp] > ops.json
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <unistd.h>
#include <vector>

#include "store/study_store.h"

namespace {

double now_ms() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

}  // namespace

int main(int argc, char** argv) {
  const int trials = argc > 1 ? std::atoi(argv[1]) : 200;
  const int evals = argc > 2 ? std::atoi(argv[2]) : 20;
  const std::string dir = argc > 3 ? argv[3] : "/tmp";
  const std::string path = dir + "/pacer_store_ops_" + std::to_string(getpid()) + ".db";
  std::map<std::string, std::vector<double>> times;
  {
    pacer::StudyStore store(path);
    pacer::StudyDefinition d;
    d.identity = d.sweep = "bench";
    d.experiment = "bench";
    d.workload = "synthetic_regression";
    d.algorithm = "sgd";
    d.ruleset = "external";
    d.trial_spec = "{}";
    d.trials = trials;
    auto studies = store.ensure_studies({d}, [](const pacer::StudyRecord&, int64_t, int64_t count, int64_t first) {
      std::vector<pacer::NewTrial> out(static_cast<size_t>(count));
      for (int64_t i = 0; i < count; ++i) {
        out[i].position = first + i;
        out[i].hparams_json = R"({"learning_rate":0.1,"weight_decay":0.0})";
      }
      return out;
    });
    const std::vector<int64_t> ids = {studies[0].id};
    const std::string owner = pacer::StudyStore::make_owner_id();
    const pacer::Metrics metrics = {{"train/loss", 0.25},     {"validation/loss", 0.2431}, {"validation/num_examples", 2048},
                                    {"test/loss", 0.2577},     {"test/num_examples", 2048}};
    for (int t = 0; t < trials; ++t) {
      double start = now_ms();
      auto trial = store.claim_trial(ids, owner, 60.0);
      times["claim"].push_back(now_ms() - start);
      for (int e = 0; e < evals; ++e) {
        pacer::EvalRecord eval;
        eval.step = 100 * e;
        eval.metrics = metrics;
        start = now_ms();
        store.record_eval(trial->id, owner, trial->attempts, e, eval);
        times["record_eval"].push_back(now_ms() - start);
      }
      start = now_ms();
      store.heartbeat(trial->id, owner, 60.0);
      times["heartbeat"].push_back(now_ms() - start);
      pacer::TrialOutcome outcome;
      outcome.status = pacer::TrialStatus::reached;
      start = now_ms();
      store.finish_trial(trial->id, owner, outcome);
      times["finish"].push_back(now_ms() - start);
    }
  }
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);

  std::printf("{\n  \"trials\": %d,\n  \"evals_per_trial\": %d,\n  \"ops_ms\": {", trials, evals);
  bool first = true;
  for (auto& [name, v] : times) {
    std::sort(v.begin(), v.end());
    std::printf("%s\n    \"%s\": {\"min\": %.4f, \"median\": %.4f, \"max\": %.4f, \"count\": %zu}", first ? "" : ",",
                name.c_str(), v.front(), v[v.size() / 2], v.back(), v.size());
    first = false;
  }
  std::printf("\n  }\n}\n");
  return 0;
}
