// The arithmetic of one Adasum step against the arithmetic of one allreduce step, per element,
// on one core (google/benchmark): the double-precision dot products and the combination of two
// float buffers vs the float sum an allreduce does. Explains where bench_adasum_allreduce's
// difference comes from on a machine where compute, not the network, is the limit.
//
//   build/bench/bench_adasum_kernels --benchmark_min_time=0.2
#include <ATen/ATen.h>
#include <benchmark/benchmark.h>

#include "distributed/adasum.h"
#include "runtime/torch_runtime.h"

namespace {

void BM_AdasumDots(benchmark::State& state) {
  const at::Tensor a = at::randn({state.range(0)}), b = at::randn({state.range(0)});
  for (auto _ : state) benchmark::DoNotOptimize(pacer::adasum_dots(a, b));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void BM_AdasumCombine(benchmark::State& state) {
  const at::Tensor a = at::randn({state.range(0)}), b = at::randn({state.range(0)});
  at::Tensor out = at::empty_like(a);
  for (auto _ : state) pacer::adasum_combine(out, a, b, 0.7, 0.6);
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void BM_AllreduceSumStep(benchmark::State& state) {  // the peer: what a reduce step computes
  at::Tensor a = at::randn({state.range(0)});
  const at::Tensor b = at::randn({state.range(0)});
  for (auto _ : state) a.add_(b);
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

BENCHMARK(BM_AdasumDots)->Arg(1 << 20)->Arg(5'000'000);
BENCHMARK(BM_AdasumCombine)->Arg(1 << 20)->Arg(5'000'000);
BENCHMARK(BM_AllreduceSumStep)->Arg(1 << 20)->Arg(5'000'000);

}  // namespace

int main(int argc, char** argv) {
  pacer::set_num_threads(1);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}
