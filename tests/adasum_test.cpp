// The Adasum operator, the distributed combiners over the in-process communicator (every worker
// count, power of two or not, against the tree reference), and the launcher environment.
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>

#include <thread>

#include <cfloat>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "core/error.h"
#include "distributed/adasum.h"
#include "distributed/dist_environment.h"
#include "distributed/fiber_scheduler.h"
#include "distributed/gradient_combiner.h"
#include "distributed/in_process_communicator.h"

namespace pacer {
namespace {

at::Tensor vec(std::vector<float> v) { return at::tensor(v, at::kFloat); }

double max_relative_error(const at::Tensor& got, const at::Tensor& want) {
  const at::Tensor g = got.to(at::kDouble), w = want.to(at::kDouble);
  return ((g - w).abs() / w.abs().clamp_min(1e-300)).max().item<double>();
}

TEST(AdasumOperatorTest, ReferencePairFromThePaper) {
  const at::Tensor c = adasum(vec({1, 0}), vec({1, 1}), {2});
  EXPECT_FLOAT_EQ(c[0].item<float>(), 1.25f);
  EXPECT_FLOAT_EQ(c[1].item<float>(), 0.75f);
}

TEST(AdasumOperatorTest, OrthonormalInputsGiveTheirSumAtEveryDepth) {
  at::manual_seed(3);
  for (int p : {2, 4, 8}) {
    const at::Tensor q = std::get<0>(at::linalg_qr(at::randn({16, 16}, at::kDouble))).to(at::kFloat);
    std::vector<at::Tensor> inputs;
    for (int i = 0; i < p; ++i) inputs.push_back(q.select(1, i).contiguous());
    const at::Tensor got = adasum_tree_reference(inputs, {16});
    const at::Tensor sum = at::stack(inputs).sum(0);
    EXPECT_LT((got - sum).abs().max().item<float>(), 1e-5f) << p << " workers";
  }
}

TEST(AdasumOperatorTest, ParallelInputsGiveTheirMeanAtEveryDepth) {
  at::manual_seed(4);
  const at::Tensor g = at::randn({33});
  for (int p : {2, 4, 8, 16}) {
    std::vector<at::Tensor> inputs;
    double scale_sum = 0.0;
    for (int i = 0; i < p; ++i) {
      const double c = 0.5 + 0.25 * i;
      scale_sum += c;
      inputs.push_back(g * c);
    }
    const at::Tensor got = adasum_tree_reference(inputs, {33});
    EXPECT_LT(max_relative_error(got, g * (scale_sum / p)), 1e-5) << p << " workers";
  }
}

TEST(AdasumOperatorTest, ExtremeMagnitudesGiveTheMeanWithoutOverflow) {
  at::manual_seed(5);
  const at::Tensor unit = at::rand({64}) + 0.5;  // entries in [0.5, 1.5)
  for (double magnitude : {static_cast<double>(FLT_MAX) / 2.0, static_cast<double>(FLT_MIN) * 4.0}) {
    const at::Tensor a = (unit.to(at::kDouble) * magnitude).to(at::kFloat);
    const at::Tensor b = (unit.to(at::kDouble) * magnitude * 0.5).to(at::kFloat);  // parallel to a
    const at::Tensor got = adasum(a, b, {64});
    ASSERT_TRUE(at::isfinite(got).all().item<bool>()) << magnitude;
    const at::Tensor want = (a.to(at::kDouble) + b.to(at::kDouble)) / 2.0;
    EXPECT_LT(max_relative_error(got, want), 100 * FLT_EPSILON) << magnitude;
  }
}

TEST(AdasumOperatorTest, PerTensorDiffersFromWholeVector) {
  // Tensor 1: equal inputs (mean); tensor 2: opposite inputs (they cancel). As one vector the
  // inputs are orthogonal, so the whole-vector operator would return their plain sum.
  const at::Tensor a = vec({1, 0, 0, 1}), b = vec({1, 0, 0, -1});
  const at::Tensor per_tensor = adasum(a, b, {2, 2});
  const at::Tensor whole = adasum(a, b, {4});
  EXPECT_TRUE(at::allclose(per_tensor, vec({1, 0, 0, 0})));
  EXPECT_TRUE(at::allclose(whole, vec({2, 0, 0, 0})));
}

TEST(AdasumOperatorTest, ZeroInputs) {
  const at::Tensor b = vec({3, -4});
  EXPECT_TRUE(at::equal(adasum(at::zeros({2}), b, {2}), b));
  EXPECT_TRUE(at::equal(adasum(b, at::zeros({2}), {2}), b));
  EXPECT_TRUE(at::equal(adasum(at::zeros({2}), at::zeros({2}), {2}), at::zeros({2})));
}

TEST(AdasumOperatorTest, SizesMustCoverTheBuffer) {
  EXPECT_THROW(adasum(vec({1, 2, 3}), vec({1, 2, 3}), {2}), Error);
}

// Random per-worker buffers of several tensors (odd sizes, so halves do not align with tensors).
std::vector<at::Tensor> worker_buffers(int p, int64_t total, uint64_t seed) {
  at::manual_seed(seed);
  const at::Tensor common = at::randn({total});
  std::vector<at::Tensor> out;
  for (int r = 0; r < p; ++r) out.push_back(common + 0.7 * at::randn({total}));  // correlated, like gradients
  return out;
}

// Forces each Adasum algorithm whatever the buffer size.
constexpr CombinerOptions kHalving{/*bucket_bytes=*/40, /*adasum_whole_vector_bytes=*/0,
                                   /*adasum_whole_vector_bytes_in_process=*/0};
constexpr CombinerOptions kWholeVector{/*bucket_bytes=*/40, /*adasum_whole_vector_bytes=*/int64_t{1} << 40,
                                       /*adasum_whole_vector_bytes_in_process=*/int64_t{1} << 40};

void expect_combined(const std::string& name, int p, const std::vector<int64_t>& numels,
                     const CombinerOptions& options = kHalving) {
  int64_t total = 0;
  for (auto n : numels) total += n;
  const std::vector<at::Tensor> inputs = worker_buffers(p, total, 100 + p);
  std::vector<at::Tensor> buffers;
  for (const auto& t : inputs) buffers.push_back(t.clone());
  auto combiner = make_gradient_combiner(name, options);  // 40-byte buckets: several of them
  run_in_process(p, [&](Communicator& comm) { combiner->combine(comm, buffers[static_cast<size_t>(comm.rank())], numels); });
  at::Tensor want;
  if (name == "adasum") want = adasum_tree_reference(inputs, numels);
  else want = at::stack(inputs).sum(0) / (name == "mean" ? p : 1);
  for (int r = 0; r < p; ++r) {
    EXPECT_LT((buffers[static_cast<size_t>(r)] - want).abs().max().item<float>(), 2e-5f)
        << name << ", " << p << " workers, rank " << r;
    EXPECT_TRUE(at::equal(buffers[static_cast<size_t>(r)], buffers[0])) << "ranks disagree: " << name << " p=" << p;
  }
}

TEST(AdasumCombinerTest, InProcessVhddEqualsTheTreeReferenceForEveryWorkerCount) {
  for (int p = 1; p <= 8; ++p) expect_combined("adasum", p, {7, 130, 1, 45}, kHalving);
}

TEST(AdasumCombinerTest, InProcessWholeVectorDoublingEqualsTheTreeReferenceForEveryWorkerCount) {
  for (int p = 1; p <= 8; ++p) expect_combined("adasum", p, {7, 130, 1, 45}, kWholeVector);
}

TEST(AdasumCombinerTest, DefaultOptionsOnGradientSizedBuffers) {
  expect_combined("adasum", 4, {60, 40}, CombinerOptions{});
  expect_combined("adasum", 3, {1'000'000, 500'000}, CombinerOptions{});
}

TEST(AdasumCombinerTest, BuffersSmallerThanTheWorkerCount) {
  for (const CombinerOptions& options : {kHalving, kWholeVector}) {
    expect_combined("adasum", 8, {3}, options);
    expect_combined("adasum", 5, {1, 1}, options);
  }
}

TEST(AdasumCombinerTest, NonPowerOfTwoFoldsTheHighRanksFirst) {
  // The documented tree for 3 workers: Adasum(Adasum(g0, g2), g1).
  const std::vector<at::Tensor> g = worker_buffers(3, 20, 9);
  const at::Tensor want = adasum(adasum(g[0], g[2], {20}), g[1], {20});
  EXPECT_TRUE(at::allclose(adasum_tree_reference(g, {20}), want));
}

TEST(AllreduceCombinerTest, MeanAndSumInBuckets) {
  for (int p : {1, 2, 3, 4}) {
    expect_combined("mean", p, {7, 130, 1, 45});
    expect_combined("sum", p, {7, 130, 1, 45});
  }
  EXPECT_THROW(make_gradient_combiner("median"), InputError);
}

// The communicator's contract holds whether the ranks are threads or fibers of one thread.
class InProcessCommunicatorTest : public ::testing::TestWithParam<RankScheduling> {};

TEST_P(InProcessCommunicatorTest, AFailingRankAbortsTheOthers) {
  EXPECT_THROW(run_in_process(3,
                              [](Communicator& comm) {
                                if (comm.rank() == 1) throw InputError("worker 1 failed");
                                at::Tensor t = at::ones({4});
                                comm.allreduce_sum(t);  // would wait forever for rank 1
                              }, GetParam()),
               InputError);
}

// A rank waiting in recv (on its own inbox, not the group's barrier) is woken by another's
// failure; a message to a rank outside the group, or to itself, is an Error rather than a wait.
TEST_P(InProcessCommunicatorTest, AWaitingReceiverIsAbortedAndAPeerOutsideTheGroupIsAnError) {
  EXPECT_THROW(run_in_process(3,
                              [](Communicator& comm) {
                                if (comm.rank() == 2) throw InputError("worker 2 failed");
                                at::Tensor t = at::zeros({4});
                                if (comm.rank() == 0) comm.recv(t, 2, 7);  // rank 2 never sends
                              }, GetParam()),
               InputError);
  for (int peer : {-1, 2, 0}) {
    try {
      run_in_process(2, [&](Communicator& comm) {
        at::Tensor t = at::zeros({4});
        if (comm.rank() == 0) comm.send(t, peer, 1);
      }, GetParam());
      ADD_FAILURE() << "a send to peer " << peer << " was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("no peer " + std::to_string(peer)), std::string::npos) << e.what();
    }
  }
}

// Exchanges between every pair of 8 ranks, each woken only by its own messages, deliver every
// tensor to the right rank (the Adasum combiner's pattern: rank ^ d at each level).
TEST_P(InProcessCommunicatorTest, PairwiseExchangesReachTheirRank) {
  InProcessRanks ranks(8, GetParam());
  for (int round = 0; round < 20; ++round) {
    std::vector<std::vector<float>> got(8);
    ranks.run([&](Communicator& comm) {
      for (int d = 1; d < 8; d *= 2) {
        at::Tensor out = at::full({3}, static_cast<float>(100 * comm.rank() + d)), in = at::empty({3});
        comm.exchange(out, in, comm.rank() ^ d, d);
        got[static_cast<size_t>(comm.rank())].push_back(in[0].item<float>());
      }
    });
    for (int r = 0; r < 8; ++r) {
      EXPECT_EQ(got[static_cast<size_t>(r)], (std::vector<float>{100.0f * (r ^ 1) + 1, 100.0f * (r ^ 2) + 2,
                                                                  100.0f * (r ^ 4) + 4}));
    }
  }
}

// An exchange reads the partner's tensor in place, so a rank whose `in` overlaps its own `out`
// (a swap in one buffer, or two overlapping windows) must not write `in` before the partner has
// read `out`; and an exchange meets a partner that sends and receives instead.
TEST_P(InProcessCommunicatorTest, ExchangesWithOverlappingBuffersOrAPlainSendAndRecvDeliverWhatWasSent) {
  InProcessRanks ranks(2, GetParam());
  for (int round = 0; round < 20; ++round) {
    std::vector<at::Tensor> swapped(2), windows(2), mixed(2);
    ranks.run([&](Communicator& comm) {
      const int r = comm.rank(), peer = 1 - r;
      at::Tensor buf = at::arange(6, at::kFloat) + 10.0f * static_cast<float>(r);
      comm.exchange(buf, buf, peer, 1);  // the same tensor out and in
      swapped[static_cast<size_t>(r)] = buf;
      at::Tensor win = at::arange(6, at::kFloat) + 10.0f * static_cast<float>(r);
      at::Tensor in = win.narrow(0, 2, 4);
      comm.exchange(win.narrow(0, 0, 4), in, peer, 2);  // elements 2, 3 are sent and overwritten
      windows[static_cast<size_t>(r)] = win;
      at::Tensor got = at::zeros({3});
      if (r == 0) {
        comm.exchange(at::full({3}, 7.0f), got, peer, 3);
      } else {
        comm.send(at::full({3}, 9.0f), peer, 3);
        comm.recv(got, peer, 3);
      }
      mixed[static_cast<size_t>(r)] = got;
    });
    for (int r = 0; r < 2; ++r) {
      const float theirs = 10.0f * static_cast<float>(1 - r), mine = 10.0f * static_cast<float>(r);
      EXPECT_TRUE(at::equal(swapped[static_cast<size_t>(r)], at::arange(6, at::kFloat) + theirs)) << "rank " << r;
      const std::vector<float> want = {mine, mine + 1, theirs, theirs + 1, theirs + 2, theirs + 3};
      EXPECT_TRUE(at::equal(windows[static_cast<size_t>(r)], at::tensor(want))) << "rank " << r;
    }
    EXPECT_TRUE(at::equal(mixed[0], at::full({3}, 9.0f)));
    EXPECT_TRUE(at::equal(mixed[1], at::full({3}, 7.0f)));
  }
}

// Each rank sums its share of the elements: shares that are empty (fewer elements than ranks) or
// uneven still give every rank the same bits as one rank-order sum.
TEST_P(InProcessCommunicatorTest, AllreduceSharesGiveTheRankOrderSumOnEveryRank) {
  for (int64_t numel : {int64_t{1}, int64_t{5}, int64_t{1001}}) {
    std::vector<at::Tensor> buffers;
    for (int r = 0; r < 8; ++r) buffers.push_back(at::randn({numel}, at::kFloat) * std::pow(10.0f, static_cast<float>(r % 4)));
    at::Tensor want = buffers[0].clone();
    for (int r = 1; r < 8; ++r) want.add_(buffers[static_cast<size_t>(r)]);
    run_in_process(8, [&](Communicator& comm) { comm.allreduce_sum(buffers[static_cast<size_t>(comm.rank())]); }, GetParam());
    for (const auto& b : buffers) EXPECT_TRUE(at::equal(b, want)) << numel << " elements";
  }
}

// A rank that fails while the ranks read each other's tensors (here: buffers of different sizes,
// against the contract) makes every rank throw, and none leaves, freeing its tensor, while
// another still reads it (a use after free under AddressSanitizer otherwise).
TEST_P(InProcessCommunicatorTest, AFailureWhileRanksReadEachOthersTensorsIsAnErrorOnEveryRank) {
  for (int round = 0; round < 20; ++round) {
    for (int size : {2, 3}) {
      EXPECT_ANY_THROW(run_in_process(size, [](Communicator& comm) {
        at::Tensor t = at::ones({comm.rank() == 0 ? 4 : 8});
        comm.allreduce_sum(t);
      }, GetParam()));
      EXPECT_ANY_THROW(run_in_process(size, [](Communicator& comm) {
        at::Tensor t = at::ones({comm.rank() == 0 ? 4 : 8});
        comm.broadcast(t, 0);
      }, GetParam()));
    }
  }
}

// Virtual workers run a step's combine on the same threads every step (a new thread per step made
// LibTorch rebuild its global thread pool each time); a failing step leaves the ranks usable.
TEST_P(InProcessCommunicatorTest, RanksKeepTheirThreadsAcrossRunsAndSurviveAFailedRun) {
  InProcessRanks ranks(3, GetParam());
  std::vector<std::thread::id> first(3), later(3);
  ranks.run([&](Communicator& comm) { first[static_cast<size_t>(comm.rank())] = std::this_thread::get_id(); });
  EXPECT_EQ(first[0], std::this_thread::get_id());  // rank 0 is the caller
  if (GetParam() == RankScheduling::threads) {
    EXPECT_NE(first[1], first[2]);
  } else {  // fibers: every rank on the caller's thread
    EXPECT_EQ(first[1], std::this_thread::get_id());
    EXPECT_EQ(first[2], std::this_thread::get_id());
  }
  EXPECT_THROW(ranks.run([](Communicator& comm) {
                 if (comm.rank() == 2) throw InputError("rank 2 failed");
                 at::Tensor t = at::ones({4});
                 comm.allreduce_sum(t);
               }),
               InputError);
  for (int round = 0; round < 50; ++round) {
    std::vector<at::Tensor> buffers;
    for (int r = 0; r < 3; ++r) buffers.push_back(at::full({5}, static_cast<float>(r + round)));
    ranks.run([&](Communicator& comm) {
      later[static_cast<size_t>(comm.rank())] = std::this_thread::get_id();
      comm.allreduce_sum(buffers[static_cast<size_t>(comm.rank())]);
    });
    for (const auto& b : buffers) ASSERT_TRUE(at::equal(b, at::full({5}, static_cast<float>(3 + 3 * round))));
  }
  EXPECT_EQ(first, later);
}

INSTANTIATE_TEST_SUITE_P(RanksAs, InProcessCommunicatorTest,
                         ::testing::Values(RankScheduling::threads, RankScheduling::fibers),
                         [](const ::testing::TestParamInfo<RankScheduling>& info) {
                           return std::string(info.param == RankScheduling::threads ? "Threads" : "Fibers");
                         });

// Fibers run round robin from rank 0, each until it yields or returns; a body's exception
// reaches the caller after all have ended; the scheduler is reusable; yield() outside a fiber is
// an Error. Ranks as fibers leave the caller's grad mode as it was.
TEST(FiberSchedulerTest, RoundRobinUntilAllReturnAndErrorsReachTheCaller) {
  FiberScheduler fibers(3);
  for (int round = 0; round < 3; ++round) {
    std::vector<std::string> order;
    fibers.run([&](int rank) {
      for (int i = 0; i <= rank; ++i) {
        order.push_back(std::to_string(rank) + ":" + std::to_string(i));
        FiberScheduler::yield();
      }
    });
    EXPECT_EQ(order, (std::vector<std::string>{"0:0", "1:0", "2:0", "1:1", "2:1", "2:2"}));
  }
  int finished = 0;
  EXPECT_THROW(fibers.run([&](int rank) {
                 FiberScheduler::yield();
                 if (rank == 1) throw InputError("rank 1 failed");
                 ++finished;
               }),
               InputError);
  EXPECT_EQ(finished, 2);  // the others still ran to their end
  EXPECT_FALSE(FiberScheduler::on_fiber());
  EXPECT_THROW(FiberScheduler::yield(), Error);

  at::GradMode::set_enabled(true);
  std::vector<at::Tensor> buffers(4, at::ones({3}));
  for (auto& b : buffers) b = b.clone();
  run_in_process(4, [&](Communicator& comm) { comm.allreduce_sum(buffers[static_cast<size_t>(comm.rank())]); },
                 RankScheduling::fibers);
  EXPECT_TRUE(at::GradMode::is_enabled());
  EXPECT_TRUE(at::equal(buffers[3], at::full({3}, 4.0f)));
}

TEST(DistEnvironmentTest, ReadsTorchrunOpenMpiAndSlurmConventions) {
  auto from = [](std::map<std::string, std::string> vars) {
    return DistEnvironment::from_lookup([vars](const char* name) -> const char* {
      auto it = vars.find(name);
      return it == vars.end() ? nullptr : it->second.c_str();
    });
  };
  DistEnvironment none = from({});
  EXPECT_EQ(none.world_size, 1);
  EXPECT_EQ(none.source, "none");
  DistEnvironment t = from({{"RANK", "2"}, {"WORLD_SIZE", "4"}, {"LOCAL_RANK", "0"}, {"MASTER_ADDR", "10.0.0.1"},
                            {"MASTER_PORT", "1234"}, {"SLURM_PROCID", "7"}, {"SLURM_NTASKS", "8"}});
  EXPECT_EQ(t.source, "torchrun");
  EXPECT_EQ(t.rank, 2);
  EXPECT_EQ(t.world_size, 4);
  EXPECT_EQ(t.local_rank, 0);
  EXPECT_EQ(t.local_world_size, 4);  // not said: all ranks counted as local (never oversubscribes)
  EXPECT_EQ(t.master_addr, "10.0.0.1");
  EXPECT_EQ(t.master_port, 1234);
  DistEnvironment m = from({{"OMPI_COMM_WORLD_RANK", "1"}, {"OMPI_COMM_WORLD_SIZE", "2"},
                            {"OMPI_COMM_WORLD_LOCAL_RANK", "1"}});
  EXPECT_EQ(m.source, "openmpi");
  EXPECT_EQ(m.rank, 1);
  EXPECT_EQ(m.master_addr, "127.0.0.1");
  EXPECT_EQ(m.master_port, 29500);
  DistEnvironment s = from({{"SLURM_PROCID", "3"}, {"SLURM_NTASKS", "4"}, {"SLURM_LOCALID", "1"}});
  EXPECT_EQ(s.source, "slurm");
  EXPECT_EQ(s.rank, 3);
  EXPECT_EQ(s.local_rank, 1);
  DistEnvironment two_nodes = from({{"RANK", "3"}, {"WORLD_SIZE", "4"}, {"LOCAL_RANK", "1"}, {"LOCAL_WORLD_SIZE", "2"}});
  EXPECT_EQ(two_nodes.local_world_size, 2);

  auto error_of = [&](std::map<std::string, std::string> vars) -> std::string {
    try {
      from(vars);
    } catch (const InputError& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_NE(error_of({{"RANK", "4"}, {"WORLD_SIZE", "4"}}).find("RANK='4'"), std::string::npos);
  EXPECT_NE(error_of({{"RANK", "0"}, {"WORLD_SIZE", "two"}}).find("WORLD_SIZE='two'"), std::string::npos);
  EXPECT_NE(error_of({{"RANK", "0"}}).find("WORLD_SIZE is not set"), std::string::npos);
  // The local size is a hint: clamped to the job, ignored when malformed (never fatal).
  EXPECT_EQ(from({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "1"}, {"SLURM_NTASKS_PER_NODE", "4"}}).local_world_size, 1);
  EXPECT_EQ(from({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"LOCAL_WORLD_SIZE", "4(x2)"}}).local_world_size, 2);
  EXPECT_NE(error_of({{"RANK", "0"}, {"WORLD_SIZE", "1"}, {"MASTER_PORT", "99999"}}).find("MASTER_PORT"),
            std::string::npos);
}

}  // namespace
}  // namespace pacer
