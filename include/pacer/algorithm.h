#pragma once
// The Pacer SDK for training algorithms: everything an out-of-tree algorithm needs, under one
// include. Read this list, the headers it names and examples/algorithm_plugin/; nothing else.
//
//   algorithms/training_algorithm.h  the interface (AlgoPerf's submission API): batch size, state
//                                    init (untimed), data selection, update, prepare_for_eval
//                                    (timed), state save/load
//   algorithms/runner_state.h        StepContext and the read-only RunnerState an algorithm sees
//   algorithms/gradient_computer.h   step_gradients(): the step's gradient, combined over
//                                    data-parallel workers by the framework
//   core/hyperparameters.h           HyperparameterSpec declarations, Hyperparameters values
//   core/hyperparameter_builder.h    pacer::hyperparameter("beta2").defaults_to(0.999).in(0, 1)...:
//                                    declarations by name, not by position
//   workloads/workload.h             the workload view: model_fn, loss_fn, spec (step hint, targets)
//   models/network.h                 parameters, their types (weight, bias, norm scales, ...), buffers
//   models/flat_parameters.h         all parameters and gradients in one buffer each
//   algorithms/schedules.h           the baselines' learning-rate schedules
//   algorithms/update_rules.h        the baselines' update rules (SGD/momentum, Adam family), clipping
//   algorithms/tensor_rule.h         the per-tensor path: a TensorRule updates each parameter tensor
//                                    with its shape and type (what Shampoo, Muon, LAMB need)
//   algorithms/tensorwise_algorithm.h  TensorwiseAlgorithm: a TensorRule plus the built-ins'
//                                    machinery (gradient, clipping, warmup + cosine, state)
//   algorithms/update_transforms.h   steps that compose with any rule: global-norm clipping,
//                                    coupled (L2) and decoupled weight decay
//   algorithms/plugin_abi.h          PACER_PLUGIN(...): the one exported entry point
//
//   #include <pacer/algorithm.h>
//   class SignSgd : public pacer::TrainingAlgorithm { ... };         // the whole interface, or
//   class Lars : public pacer::TensorwiseAlgorithm { ... };          // a per-tensor rule
//   PACER_PLUGIN(PACER_ALGORITHM("sign_sgd", SignSgd), PACER_ALGORITHM("lars", Lars))
#include "algorithms/gradient_computer.h"
#include "algorithms/plugin_abi.h"
#include "algorithms/runner_state.h"
#include "algorithms/schedules.h"
#include "algorithms/tensor_rule.h"
#include "algorithms/tensorwise_algorithm.h"
#include "algorithms/training_algorithm.h"
#include "algorithms/update_rules.h"
#include "algorithms/update_transforms.h"
#include "core/error.h"
#include "core/hyperparameter_builder.h"
#include "core/hyperparameters.h"
#include "models/flat_parameters.h"
#include "models/network.h"
#include "workloads/workload.h"
