// The combine of K virtual workers alone, without the shards' forward and backward passes: per
// call, a group's bare barrier (what waking K rank threads costs), the mean allreduce and Adasum,
// on buffers of one network's tensor sizes (default: fmnist_mlp's 784-128-128-10), interleaved
// so that machine noise hits all three alike. Prints median and p10/p90 in milliseconds. The ranks
// run as threads, as fibers of one thread, or both interleaved (--scheduling both, the default);
// with both, each combiner's result is first checked to be the same bits either way (exit 1 if not).
//
//   build/bench/bench_in_process_combine --workers 8 --threads 1 --reps 600
//   build/bench/bench_in_process_combine --workers 256 --reps 20 --scheduling both
//   build/bench/bench_in_process_combine --sizes 3000000,1000   # other tensor sizes
#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "distributed/gradient_combiner.h"
#include "distributed/in_process_communicator.h"

namespace {

struct Options {
  int workers = 8, threads = 1, reps = 600;
  std::vector<std::string> schedulings = {"threads", "fibers"};
  std::vector<int64_t> sizes = {784 * 128, 128, 128 * 128, 128, 128 * 10, 10};  // fmnist_mlp
};

int positive(const char* flag, const char* text) {
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (*end != '\0' || v < 1 || v > 1'000'000) throw pacer::InputError(std::string(flag) + ": bad value '" + text + "'");
  return static_cast<int>(v);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) throw pacer::InputError(flag + ": missing value");
    const char* value = argv[++i];
    if (flag == "--workers") o.workers = positive("--workers", value);
    else if (flag == "--threads") o.threads = positive("--threads", value);
    else if (flag == "--reps") o.reps = positive("--reps", value);
    else if (flag == "--scheduling") {
      const std::string v = value;
      if (v != "threads" && v != "fibers" && v != "both") throw pacer::InputError("--scheduling: threads, fibers or both");
      o.schedulings = v == "both" ? std::vector<std::string>{"threads", "fibers"} : std::vector<std::string>{v};
    }
    else if (flag == "--sizes") {
      o.sizes.clear();
      std::string list = value;
      for (size_t at = 0; at <= list.size();) {
        const size_t comma = std::min(list.find(',', at), list.size());
        o.sizes.push_back(positive("--sizes", list.substr(at, comma - at).c_str()));
        at = comma + 1;
      }
    } else {
      throw pacer::InputError("unknown option " + flag);
    }
  }
  return o;
}

double percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(q * static_cast<double>(v.size() - 1))];
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Options o = parse(argc, argv);
    at::set_num_threads(o.threads);
    int64_t total = 0;
    for (int64_t n : o.sizes) total += n;
    std::map<std::string, std::unique_ptr<pacer::InProcessRanks>> ranks;
    for (const auto& name : o.schedulings) {
      ranks[name] = std::make_unique<pacer::InProcessRanks>(
          o.workers, name == "fibers" ? pacer::RankScheduling::fibers : pacer::RankScheduling::threads);
    }
    std::vector<at::Tensor> buffers;
    for (int r = 0; r < o.workers; ++r) buffers.push_back(at::randn({total}));
    const auto mean = pacer::make_gradient_combiner("mean"), adasum = pacer::make_gradient_combiner("adasum");
    const std::vector<std::string> kinds = {"barrier", "mean", "adasum"};
    auto combine = [&](pacer::InProcessRanks& on, const std::string& kind) {
      on.run([&](pacer::Communicator& comm) {
        at::Tensor& mine = buffers[static_cast<size_t>(comm.rank())];
        if (kind == "barrier") comm.barrier();
        else (kind == "mean" ? *mean : *adasum).combine(comm, mine, o.sizes);
      });
    };
    if (ranks.size() == 2) {  // the same inputs, both ways: the same bits on every rank
      for (const std::string kind : {"mean", "adasum"}) {
        std::vector<at::Tensor> inputs, results;
        for (auto& b : buffers) inputs.push_back(b.normal_().clone());
        for (const auto& name : o.schedulings) {
          for (size_t r = 0; r < buffers.size(); ++r) buffers[r].copy_(inputs[r]);
          combine(*ranks[name], kind);
          for (const auto& b : buffers) results.push_back(b.clone());
        }
        for (size_t r = 0; r < buffers.size(); ++r) {
          if (!at::equal(results[r], results[r + buffers.size()])) {
            std::fprintf(stderr, "bench_in_process_combine: %s differs between threads and fibers at rank %zu\n",
                         kind.c_str(), r);
            return 1;
          }
        }
      }
      std::printf("threads and fibers: the same bits on every rank (mean, adasum)\n");
    }
    std::map<std::string, std::vector<double>> ms;
    for (int rep = 0; rep < o.reps; ++rep) {
      for (const auto& name : o.schedulings) {
        for (const auto& kind : kinds) {
          for (auto& b : buffers) b.normal_();
          const auto start = std::chrono::steady_clock::now();
          combine(*ranks[name], kind);
          ms[name + " " + kind].push_back(
              std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
        }
      }
    }
    std::printf("%d virtual workers, %lld floats in %zu tensors, %d intra-op thread(s), %d repetitions\n", o.workers,
                static_cast<long long>(total), o.sizes.size(), o.threads, o.reps);
    for (const auto& name : o.schedulings) {
      for (const auto& kind : kinds) {
        const auto& v = ms[name + " " + kind];
        std::printf("  %-7s %-8s median %.3f ms  (p10 %.3f, p90 %.3f)\n", name.c_str(), kind.c_str(), percentile(v, 0.5),
                    percentile(v, 0.1), percentile(v, 0.9));
      }
    }
    return 0;
  } catch (const pacer::InputError& e) {
    std::fprintf(stderr, "bench_in_process_combine: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_in_process_combine: %s\n", e.what());
    return 1;
  }
}
