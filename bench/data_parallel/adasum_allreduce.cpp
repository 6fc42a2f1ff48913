// One Adasum reduction against one mean allreduce of the same buffers, over a real c10d Gloo
// group, measured in one run: every process of `pacer launch -n P` runs this, alternating the
// combiners on identical inputs (mean; Adasum as configured by default; and each of its two
// algorithms forced: vector halving, whole-vector doubling), so machine noise hits all alike. A
// reduction's time is the slowest rank's (what a training step waits for); the report gives
// min/median/max over the repetitions and the ratio of the medians (default Adasum / mean).
// Rank 0 prints a table and writes JSON.
//
//   build/pacer launch -n 4 -- build/bench/bench_adasum_allreduce --sizes 256K,1M,10M,50M --json out.json
//
// The buffers are split into the tensor sizes of a transformer (width d: blocks of qkv, out,
// two MLP matrices, their biases and two layer norms, the rest one embedding matrix), because
// Adasum works per tensor and many small tensors are part of its real cost.
#include <ATen/ATen.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "core/error.h"
#include "distributed/c10d_communicator.h"
#include "distributed/dist_environment.h"
#include "distributed/gradient_combiner.h"
#include "runtime/torch_runtime.h"

namespace {

int64_t parse_count(const std::string& text) {
  const char last = text.empty() ? '\0' : text.back();
  const double scale = last == 'M' ? 1e6 : last == 'K' || last == 'k' ? 1e3 : 1.0;
  const std::string digits = scale == 1.0 ? text : text.substr(0, text.size() - 1);
  char* end = nullptr;
  const double v = std::strtod(digits.c_str(), &end);
  if (digits.empty() || *end != '\0' || !(v >= 1)) throw pacer::InputError("--sizes: bad size '" + text + "'");
  return static_cast<int64_t>(v * scale);
}

std::vector<int64_t> transformer_tensor_sizes(int64_t total) {
  const int64_t d = total >= 30'000'000 ? 1024 : total >= 5'000'000 ? 512 : 256;
  const std::vector<int64_t> block = {3 * d * d, 3 * d, d * d, d, d, d, 4 * d * d, 4 * d, 4 * d * d, d, d, d};
  int64_t block_total = 0;
  for (int64_t n : block) block_total += n;
  std::vector<int64_t> sizes;
  int64_t used = 0;
  while (used + block_total <= total) {
    sizes.insert(sizes.end(), block.begin(), block.end());
    used += block_total;
  }
  if (used < total) sizes.push_back(total - used);  // the embedding
  return sizes;
}

struct Stats {
  double min = 0, median = 0, max = 0;
};

Stats stats_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return {v.front(), n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]), v.back()};
}

double now_s() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::vector<int64_t> totals = {1'000'000, 10'000'000, 50'000'000};
    int reps = 0;  // 0: by size
    std::string json_path;
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      if (arg == "--sizes" && i + 1 < argc) {
        totals.clear();
        std::string list = argv[++i];
        for (size_t start = 0; start <= list.size();) {
          const size_t comma = std::min(list.find(',', start), list.size());
          totals.push_back(parse_count(list.substr(start, comma - start)));
          start = comma + 1;
        }
      } else if (arg == "--reps" && i + 1 < argc) {
        reps = std::atoi(argv[++i]);
      } else if (arg == "--json" && i + 1 < argc) {
        json_path = argv[++i];
      } else {
        throw pacer::InputError("usage: bench_adasum_allreduce [--sizes 1M,10M,50M] [--reps N] [--json FILE]");
      }
    }
    pacer::set_num_threads(1);
    const pacer::DistEnvironment env = pacer::DistEnvironment::from_environment();
    if (env.world_size < 2) throw pacer::InputError("run under `pacer launch -n P` with P >= 2");
    pacer::C10dCommunicator comm(env, {});
    const int world = comm.size(), rank = comm.rank();
    const bool lead = rank == 0;
    auto mean = pacer::make_gradient_combiner("mean");
    auto adasum = pacer::make_gradient_combiner("adasum");  // picks its algorithm by buffer size
    // Each Adasum algorithm forced, to show where the default's threshold should sit.
    pacer::CombinerOptions halving_only, whole_only;
    halving_only.adasum_whole_vector_bytes = 0;
    whole_only.adasum_whole_vector_bytes = int64_t{1} << 40;
    auto adasum_halving = pacer::make_gradient_combiner("adasum", halving_only);
    auto adasum_whole = pacer::make_gradient_combiner("adasum", whole_only);
    const std::vector<std::pair<std::string, pacer::GradientCombiner*>> combiners = {
        {"mean", mean.get()}, {"adasum", adasum.get()}, {"adasum_halving", adasum_halving.get()},
        {"adasum_whole_vector", adasum_whole.get()}};

    struct Row {
      int64_t floats;
      size_t tensors;
      int reps;
      std::map<std::string, Stats> stats;
    };
    std::vector<Row> rows;
    for (int64_t total : totals) {
      const std::vector<int64_t> numels = transformer_tensor_sizes(total);
      const int r = reps > 0 ? reps : total <= 2'000'000 ? 30 : total <= 20'000'000 ? 10 : 5;
      at::manual_seed(1000 + static_cast<uint64_t>(rank));
      const at::Tensor pristine = at::randn({total});
      at::Tensor buffer = pristine.clone();
      std::map<std::string, std::vector<double>> times;
      for (int rep = -1; rep < r; ++rep) {  // rep -1: warm-up (connections, allocations)
        for (const auto& [label, combiner] : combiners) {
          buffer.copy_(pristine);
          comm.barrier();
          const double start = now_s();
          combiner->combine(comm, buffer, numels);
          const double mine = now_s() - start;
          // The slowest rank's time: a vector with each rank's time in its own slot.
          at::Tensor all = at::zeros({world}, at::kDouble);
          all[rank] = mine;
          comm.allreduce_sum(all);
          if (rep >= 0) times[label].push_back(all.max().item<double>());
        }
      }
      Row row{total, numels.size(), r, {}};
      for (const auto& [label, values] : times) row.stats[label] = stats_of(values);
      rows.push_back(row);
      if (lead) {
        const auto& st = row.stats;
        std::printf("%10lld floats %4zu tensors  medians of %d, ms: mean %.2f  adasum %.2f (halving %.2f, whole-vector "
                    "%.2f)  adasum/mean %.3f\n",
                    static_cast<long long>(total), row.tensors, row.reps, 1e3 * st.at("mean").median,
                    1e3 * st.at("adasum").median, 1e3 * st.at("adasum_halving").median,
                    1e3 * st.at("adasum_whole_vector").median, st.at("adasum").median / st.at("mean").median);
        std::fflush(stdout);
      }
    }
    if (lead && !json_path.empty()) {
      std::ofstream out(json_path);
      out << "{\n  \"processes\": " << world << ",\n  \"backend\": \"" << comm.backend() << "\",\n  \"rows\": [\n";
      for (size_t i = 0; i < rows.size(); ++i) {
        const Row& row = rows[i];
        out << "    {\"floats\": " << row.floats << ", \"tensors\": " << row.tensors << ", \"reps\": " << row.reps;
        for (const auto& [label, st] : row.stats) {
          char line[160];
          std::snprintf(line, sizeof(line), ", \"%s_ms\": {\"min\": %.3f, \"median\": %.3f, \"max\": %.3f}",
                        label.c_str(), 1e3 * st.min, 1e3 * st.median, 1e3 * st.max);
          out << line;
        }
        char ratio[64];
        std::snprintf(ratio, sizeof(ratio), ", \"ratio_median\": %.4f}",
                      row.stats.at("adasum").median / row.stats.at("mean").median);
        out << ratio << (i + 1 < rows.size() ? ",\n" : "\n");
      }
      out << "  ]\n}\n";
      if (!out) throw pacer::Error("cannot write " + json_path);
    }
    return 0;
  } catch (const pacer::InputError& e) {
    std::fprintf(stderr, "bench_adasum_allreduce: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_adasum_allreduce: %s\n", e.what());
    return 1;
  }
}
