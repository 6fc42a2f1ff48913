#include "algorithms/baseline_algorithm.h"

#include "algorithms/update_rules.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>

#include "algorithms/gradient_computer.h"
#include "catalog/algorithm_infos.h"
#include "core/error.h"

namespace pacer {

std::vector<HyperparameterSpec> BaselineAlgorithm::common_specs() { return common_hyperparameter_specs(); }

void BaselineAlgorithm::init_optimizer_state(const Workload& workload, Network& network,
                                             const Hyperparameters* hparams, uint64_t /*seed*/) {
  // Under self-tuning no hyperparameters are given: the algorithm sets its own (its defaults).
  hparams_ = resolve_hyperparameters(hyperparameter_specs(), hparams ? *hparams : Hyperparameters{}, name());
  flat_ = FlatParameters(network);
  schedule_ = make_schedule(hparams_, workload.spec());
  label_smoothing_ = hparams_.get_or("label_smoothing", 0.0);
  dropout_rate_ = hparams_.get_or("dropout_rate", 0.0);
  grad_clip_ = hparams_.get_or("grad_clip", 0.0);
  configure(hparams_);
}

UpdateResult BaselineAlgorithm::update(const Workload& workload, Network& network, const Batch& batch,
                                       const StepContext& context) {
  at::Tensor loss = step_gradients(context, workload, network, batch, {dropout_rate_, label_smoothing_});
  at::NoGradGuard no_grad;
  at::Tensor grad_norm = clip_grad_norm_if(flat_.grads(), grad_clip_);
  apply_update(flat_.values(), flat_.grads(), learning_rate_at(context.step));
  return {loss, false, grad_norm};
}

}  // namespace pacer
