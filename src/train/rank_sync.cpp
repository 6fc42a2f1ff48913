#include "train/rank_sync.h"

#include <ATen/ATen.h>

#include <cmath>

#include "core/error.h"
#include "train/model_state_sync.h"

namespace pacer {
namespace {

class LocalRankSync : public RankSync {
 public:
  int rank() const override { return 0; }
  int world_size() const override { return 1; }
  void verify_identical_parameters(Network&) override {}
  StepConsensus after_step(double loss, bool eval_due, bool budget_spent, bool stop_requested) override {
    return {loss, eval_due, budget_spent, stop_requested};
  }
  void before_eval(Network&) override {}
  EvalDecision share_decision(const EvalDecision& mine) override { return mine; }
};

class CollectiveRankSync : public RankSync {
 public:
  CollectiveRankSync(Communicator& comm, c10::Device device) : comm_(comm), device_(device) {}
  int rank() const override { return comm_.rank(); }
  int world_size() const override { return comm_.size(); }

  // Compare rank 0's checksum (sum and sum of squares, in double) with every rank's.
  void verify_identical_parameters(Network& network) override {
    double sum = 0.0, squares = 0.0;
    for (const auto& p : network.parameters()) {
      const at::Tensor d = p.detach().to(at::kDouble);
      sum += d.sum().item<double>();
      squares += d.pow(2).sum().item<double>();
    }
    at::Tensor mine = values({sum, squares});
    at::Tensor root = mine.clone();
    comm_.broadcast(root, 0);
    at::Tensor mismatches = values({at::equal(mine, root) ? 0.0 : 1.0});
    comm_.allreduce_sum(mismatches);
    const double disagree = mismatches.item<double>();
    if (disagree > 0) {
      throw Error("rank " + std::to_string(comm_.rank()) + ": the initial parameters differ between ranks (" +
                  std::to_string(static_cast<int>(disagree)) +
                  " rank(s) disagree with rank 0's checksum); all ranks must build the model from the same seed");
    }
  }

  // One small allreduce per step: the loss sum, a non-finite flag, rank 0's eval clock and
  // anyone's stop request.
  StepConsensus after_step(double loss, bool eval_due, bool budget_spent, bool stop_requested) override {
    const bool finite = std::isfinite(loss);
    at::Tensor flags = values({finite ? loss : 0.0, finite ? 0.0 : 1.0, lead() && eval_due ? 1.0 : 0.0,
                               stop_requested ? 1.0 : 0.0, lead() && budget_spent ? 1.0 : 0.0});
    comm_.allreduce_sum(flags);
    flags = flags.cpu();
    const double* f = flags.data_ptr<double>();
    return {f[1] > 0 ? NAN : f[0] / comm_.size(), f[2] > 0, f[4] > 0, f[3] > 0};
  }

  // Batch-norm statistics were updated on each rank's shard: evaluate with their mean.
  void before_eval(Network& network) override { average_model_state(comm_, network); }

  EvalDecision share_decision(const EvalDecision& mine) override {
    const bool lead_rank = lead();
    const double code = lead_rank && mine.stop ? static_cast<double>(static_cast<int>(*mine.stop) + 1) : 0.0;
    at::Tensor flags = values({code, lead_rank && mine.validation_target_reached ? 1.0 : 0.0,
                               lead_rank && mine.test_target_reached ? 1.0 : 0.0});
    comm_.allreduce_sum(flags);  // only rank 0 contributes
    flags = flags.cpu();
    const double* f = flags.data_ptr<double>();
    EvalDecision d;
    if (f[0] > 0) d.stop = static_cast<StopReason>(static_cast<int>(std::lround(f[0])) - 1);
    d.validation_target_reached = f[1] > 0;
    d.test_target_reached = f[2] > 0;
    return d;
  }

 private:
  at::Tensor values(std::initializer_list<double> v) const {
    return at::tensor(std::vector<double>(v), at::TensorOptions().dtype(at::kDouble)).to(device_);
  }
  Communicator& comm_;
  c10::Device device_;
};

}  // namespace

std::unique_ptr<RankSync> make_rank_sync(Communicator* communicator, const c10::Device& device) {
  if (!communicator || communicator->size() <= 1) return std::make_unique<LocalRankSync>();
  return std::make_unique<CollectiveRankSync>(*communicator, device);
}

}  // namespace pacer
