#pragma once
// The lock-step points of a data-parallel trial, in one place. Every rank runs the same loop on
// its shard of each global batch; rank 0 alone evaluates, logs and decides, and the others follow.
// Local (one process): every call returns what it is given. Collective: small allreduces over the
// processes' communicator, at the same points on every rank:
//   - once at set-up: the initial parameters must be identical everywhere;
//   - after every step: the global mean loss, whether rank 0's eval clock says an eval is due
//     and whether rank 0's budget is spent, and whether any rank was asked to stop (Ctrl-C
//     reaches them at different steps);
//   - before an eval: the model state (batch-norm statistics) becomes the mean over ranks;
//   - after an eval: rank 0's decision (stop or go on, the targets reached so far).
//
//   auto sync = pacer::make_rank_sync(plan ? plan->communicator.get() : nullptr, device);
//   pacer::StepConsensus c = sync->after_step(loss, eval_due, budget_spent, stop_requested);
#include <c10/core/Device.h>

#include <memory>
#include <optional>

#include "distributed/communicator.h"
#include "models/network.h"
#include "core/stop_reason.h"

namespace pacer {

struct StepConsensus {
  double loss = 0.0;       // mean over ranks; NaN when any rank's loss is not finite
  bool eval_due = false;   // rank 0's schedule decides
  bool budget_spent = false;  // rank 0's clock decides
  bool stop_requested = false;  // on any rank
};

// What rank 0 decided after an eval.
struct EvalDecision {
  std::optional<StopReason> stop;
  bool validation_target_reached = false;
  bool test_target_reached = false;
};

class RankSync {
 public:
  virtual ~RankSync() = default;
  virtual int rank() const = 0;
  virtual int world_size() const = 0;
  bool lead() const { return rank() == 0; }

  // Error on every rank (naming how many disagree) when the parameters differ from rank 0's.
  virtual void verify_identical_parameters(Network& network) = 0;
  virtual StepConsensus after_step(double loss, bool eval_due, bool budget_spent, bool stop_requested) = 0;
  virtual void before_eval(Network& network) = 0;
  // Rank 0 passes its decision; the others' argument is ignored and rank 0's comes back.
  virtual EvalDecision share_decision(const EvalDecision& mine) = 0;
};

// Local for a null or size-1 communicator; the communicator must outlive the result.
std::unique_ptr<RankSync> make_rank_sync(Communicator* communicator, const c10::Device& device);

}  // namespace pacer
