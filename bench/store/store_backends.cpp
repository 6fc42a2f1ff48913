// Claims per second and store time per trial with N worker processes sharing one study store,
// SQLite or PostgreSQL: the parent plans N x TRIALS trials, forks N workers (each with its own
// connection, as `pacer tune` workers have), and every worker loops claim -> EVALS record_eval ->
// heartbeat -> finish until nothing is left. One JSON object on stdout; bench/store/store_backends.sh
// runs it for each backend and worker count in one go.
//
//   build/bench/bench_store_backends LOCATION WORKERS [TRIALS_PER_WORKER=100] [EVALS=20]
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "store/store_database.h"
#include "store/study_store.h"

namespace {

double now_s() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

struct WorkerTotals {
  int trials = 0;
  double store_s = 0.0, claim_s = 0.0;
};

WorkerTotals work(const std::string& location, int64_t study_id, int evals) {
  WorkerTotals totals;
  pacer::StudyStore store(location);
  const std::string owner = pacer::StudyStore::make_owner_id();
  const pacer::Metrics metrics = {
      {"train/loss", 0.25}, {"validation/loss", 0.2431}, {"validation/num_examples", 2048}, {"test/loss", 0.2577}};
  for (;;) {
    double start = now_s();
    auto trial = store.claim_trial({study_id}, owner, 60.0);
    const double claim = now_s() - start;
    if (!trial) break;
    totals.claim_s += claim;
    totals.store_s += claim;
    start = now_s();
    for (int e = 0; e < evals; ++e) {
      pacer::EvalRecord eval;
      eval.step = 100 * e;
      eval.metrics = metrics;
      store.record_eval(trial->id, owner, trial->attempts, e, eval);
    }
    store.heartbeat(trial->id, owner, 60.0);
    pacer::TrialOutcome outcome;
    outcome.status = pacer::TrialStatus::reached;
    store.finish_trial(trial->id, owner, outcome);
    totals.store_s += now_s() - start;
    ++totals.trials;
  }
  return totals;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s LOCATION WORKERS [TRIALS_PER_WORKER] [EVALS]\n", argv[0]);
    return 2;
  }
  const std::string location = argv[1];
  const int workers = std::atoi(argv[2]);
  const int per_worker = argc > 3 ? std::atoi(argv[3]) : 100;
  const int evals = argc > 4 ? std::atoi(argv[4]) : 20;
  int64_t study_id = 0;
  {
    pacer::StudyStore store(location);
    pacer::StudyDefinition d;
    d.identity = d.sweep = "bench";
    d.experiment = "bench";
    d.workload = "synthetic_regression";
    d.algorithm = "sgd";
    d.ruleset = "external";
    d.trial_spec = "{}";
    d.trials = int64_t{workers} * per_worker;
    study_id = store.ensure_studies({d}, [](const pacer::StudyRecord&, int64_t, int64_t count, int64_t first) {
      std::vector<pacer::NewTrial> out(static_cast<size_t>(count));
      for (int64_t i = 0; i < count; ++i) {
        out[i].position = first + i;
        out[i].hparams_json = R"({"learning_rate":0.1,"weight_decay":0.0})";
      }
      return out;
    })[0].id;
  }
  // Each worker reports its totals through a pipe of its own.
  std::vector<int> reads;
  std::vector<pid_t> pids;
  const double start = now_s();
  for (int w = 0; w < workers; ++w) {
    int fds[2];
    if (pipe(fds) != 0) return 1;
    const pid_t pid = fork();
    if (pid == 0) {
      close(fds[0]);
      WorkerTotals totals;
      try {
        totals = work(location, study_id, evals);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "worker %d: %s\n", w, e.what());
        _exit(1);
      }
      const bool sent = write(fds[1], &totals, sizeof(totals)) == static_cast<ssize_t>(sizeof(totals));
      _exit(sent ? 0 : 1);
    }
    close(fds[1]);
    reads.push_back(fds[0]);
    pids.push_back(pid);
  }
  WorkerTotals all;
  bool failed = false;
  for (int w = 0; w < workers; ++w) {
    WorkerTotals totals;
    if (read(reads[w], &totals, sizeof(totals)) != static_cast<ssize_t>(sizeof(totals))) failed = true;
    int status = 0;
    waitpid(pids[w], &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) failed = true;
    all.trials += totals.trials;
    all.store_s += totals.store_s;
    all.claim_s += totals.claim_s;
  }
  const double wall = now_s() - start;
  if (failed || all.trials != workers * per_worker) {
    std::fprintf(stderr, "bench_store_backends: %d of %d trials done, a worker failed\n", all.trials,
                 workers * per_worker);
    return 1;
  }
  std::printf(
      "{\"backend\": \"%s\", \"workers\": %d, \"trials\": %d, \"evals_per_trial\": %d, \"wall_s\": %.4f, "
      "\"trials_per_s\": %.1f, \"claim_ms_mean\": %.4f, \"store_ms_per_trial\": %.4f}\n",
      pacer::is_postgres_uri(location) ? "postgresql" : "sqlite", workers, all.trials, evals, wall, all.trials / wall,
      1000.0 * all.claim_s / all.trials, 1000.0 * all.store_s / all.trials);
  return 0;
}
