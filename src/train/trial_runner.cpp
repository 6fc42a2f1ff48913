#include "train/trial_runner.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <memory>
#include <sstream>

#include "core/error.h"
#include "core/seed.h"
#include "data/batch_stream.h"
#include "runtime/torch_runtime.h"
#include "train/gradient_norms.h"
#include "train/model_state_sync.h"
#include "train/noise_scale.h"
#include "train/trial_writer.h"

namespace pacer {
namespace {

// Data parallelism needs the same starting point everywhere: compare rank 0's checksum (sum and
// sum of squares, in double) with every rank's, and fail on all ranks if any differs.
void verify_identical_parameters(Communicator& comm, Network& network) {
  double sum = 0.0, squares = 0.0;
  for (const auto& p : network.parameters()) {
    const at::Tensor d = p.detach().to(at::kDouble);
    sum += d.sum().item<double>();
    squares += d.pow(2).sum().item<double>();
  }
  const auto options = at::TensorOptions().dtype(at::kDouble).device(network.parameters().front().device());
  at::Tensor mine = at::tensor({sum, squares}, at::TensorOptions().dtype(at::kDouble)).to(options.device());
  at::Tensor root = mine.clone();
  comm.broadcast(root, 0);
  const bool differs = !at::equal(mine, root);
  at::Tensor mismatches = at::tensor({differs ? 1.0 : 0.0}, at::TensorOptions().dtype(at::kDouble)).to(options.device());
  comm.allreduce_sum(mismatches);
  if (mismatches.item<double>() > 0) {
    throw Error("rank " + std::to_string(comm.rank()) + ": the initial parameters differ between ranks (" +
                std::to_string(static_cast<int>(mismatches.item<double>())) +
                " rank(s) disagree with rank 0's checksum); all ranks must build the model from the same seed");
  }
}

// What rank 0 decides after an eval, sent to the other ranks.
struct EvalDecision {
  bool out_of_time = false, goal_reached = false, targets_reached = false, diverged = false;
};

EvalDecision share_eval_decision(Communicator& comm, const EvalDecision& mine, const c10::Device& device) {
  at::Tensor flags = at::tensor({mine.out_of_time ? 1.0 : 0.0, mine.goal_reached ? 1.0 : 0.0,
                                 mine.targets_reached ? 1.0 : 0.0, mine.diverged ? 1.0 : 0.0},
                                at::TensorOptions().dtype(at::kDouble)).to(device);
  comm.allreduce_sum(flags);  // only rank 0 contributes
  flags = flags.cpu();
  const double* f = flags.data_ptr<double>();
  return {f[0] > 0, f[1] > 0, f[2] > 0, f[3] > 0};
}

bool parameters_finite(Network& network) {
  for (const auto& p : network.parameters()) {
    if (!at::isfinite(p).all().item<bool>()) return false;
  }
  return true;
}

std::string format_seconds(double s) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(1) << s << "s";
  return out.str();
}

}  // namespace

TrialResult run_trial(Workload& workload, TrainingAlgorithm& algorithm, const std::optional<Hyperparameters>& hparams,
                      const TrialOptions& options) {
  SteadyClock steady;
  Clock& clock = options.clock ? *options.clock : steady;
  const WorkloadSpec& spec = workload.spec();
  const c10::Device device = resolve_device(options.device);

  // ---- Untimed set-up: hyperparameters, data, model, optimizer state, input pipeline.
  std::optional<Hyperparameters> resolved;
  if (hparams) resolved = resolve_hyperparameters(algorithm.hyperparameter_specs(), *hparams, algorithm.name());

  TrialResult result;
  result.workload = spec.name;
  result.algorithm = algorithm.name();
  result.seed = options.seed;
  result.batch_size = options.batch_size ? *options.batch_size : algorithm.batch_size(spec);
  result.time_budget = options.time_budget ? *options.time_budget : spec.max_runtime_sec * options.budget_multiplier;
  if (result.batch_size <= 0) throw InputError("batch size must be positive");
  // The loop looks steps up by binary search.
  for (size_t i = 0; i < options.eval_at_steps.size(); ++i) {
    if (options.eval_at_steps[i] < 1 || (i > 0 && options.eval_at_steps[i] <= options.eval_at_steps[i - 1])) {
      throw InputError("eval steps must be positive and strictly increasing (at position " + std::to_string(i) + ")");
    }
  }
  if (!(result.time_budget > 0)) throw InputError("time budget must be positive");

  // Data parallel over processes: every rank runs this loop in lockstep on its shard of each
  // global batch; rank 0 alone evaluates, logs and writes, and its decisions are shared.
  const DataParallelPlan* plan = options.data_parallel.get();
  Communicator* comm = plan && plan->processes() > 1 ? plan->communicator.get() : nullptr;
  const int rank = comm ? comm->rank() : 0;
  const int world = comm ? comm->size() : 1;
  if (plan && result.batch_size % plan->workers() != 0) {
    throw InputError("batch size " + std::to_string(result.batch_size) + " does not split into " +
                     std::to_string(plan->workers()) + " equal worker shards");
  }
  const bool lead = rank == 0;

  std::unique_ptr<TrialWriter> writer;
  if (!options.out_dir.empty() && lead) {
    writer = std::make_unique<TrialWriter>(options.out_dir);
    writer->write_hparams(resolved ? *resolved : Hyperparameters{});
    TrialMetadata meta{spec, algorithm.name(), options.seed, device.str(), num_threads(), result.batch_size,
                       result.time_budget,
                       !options.eval_at_steps.empty()
                           ? std::to_string(options.eval_at_steps.size()) + " given steps up to " +
                                 std::to_string(options.eval_at_steps.back())
                       : options.eval_every_steps > 0 ? "every " + std::to_string(options.eval_every_steps) + " steps"
                                                    : "every " + std::to_string(spec.eval_period_sec) + " s",
                       !hparams.has_value()};
    writer->write_metadata(meta);
  }

  workload.load({options.data_dir, device});
  std::shared_ptr<Network> network = workload.init_model(derive_seed(options.seed, SeedStream::model_init), device);
  algorithm.init_optimizer_state(workload, *network, resolved ? &*resolved : nullptr,
                                 derive_seed(options.seed, SeedStream::optimizer));
  if (plan) algorithm.set_data_parallel(options.data_parallel);
  if (comm) verify_identical_parameters(*comm, *network);
  BatchStream stream(workload.dataset(EvalSplit::train),
                     {result.batch_size, options.seed, /*rank=*/rank, /*world_size=*/world, options.prefetch});

  // The noise-scale probe draws its own batches, so the training data order is unchanged.
  std::unique_ptr<BatchStream> noise_stream;
  NoiseScaleEstimator noise_scale;
  if (options.noise_scale_shards > 0) {
    if (options.noise_scale_shards < 2 || result.batch_size % options.noise_scale_shards != 0) {
      throw InputError("--noise-scale: the batch size " + std::to_string(result.batch_size) +
                       " must split into " + std::to_string(options.noise_scale_shards) + " (>= 2) equal shards");
    }
    noise_stream = std::make_unique<BatchStream>(
        workload.dataset(EvalSplit::train),
        BatchStreamOptions{result.batch_size, derive_seed(options.seed, SeedStream::data_order) + 1, 0, 1, 0});
  }

  const std::vector<EvalSplit> splits = options.eval_splits.empty()
                                             ? std::vector<EvalSplit>{EvalSplit::train, EvalSplit::validation, EvalSplit::test}
                                             : options.eval_splits;
  const bool validation_evaluated =
      std::find(splits.begin(), splits.end(), EvalSplit::validation) != splits.end();
  RunnerState state;
  state.time_budget = result.time_budget;
  const std::string val_key = "validation/" + spec.target_metric;
  Progress* progress = lead ? options.progress : nullptr;
  auto log = [&](const std::string& line) {
    if (progress) progress->log(line);
  };

  // ---- The timed loop.
  synchronize(device);
  const double start = clock.now();
  double last_step_end = start;
  state.last_eval_time = start;
  bool time_remaining = true;
  bool training_complete = false;
  bool goal_reached = false;
  bool stop_everywhere = false;  // processes: some rank was asked to stop (Ctrl-C)
  std::string stop_reason;
  try {
    while (true) {
      if (options.stop_at_targets && state.validation_goal_reached && state.test_goal_reached) {
        stop_reason = "targets_reached";
        break;
      }
      if (!time_remaining) {
        stop_reason = "budget";
        break;
      }
      if (training_complete) {
        stop_reason = "training_complete";
        break;
      }
      if (options.max_steps > 0 && state.step >= options.max_steps) {
        stop_reason = "max_steps";
        break;
      }
      if (goal_reached) {
        stop_reason = "goal_reached";
        break;
      }
      if (stop_everywhere || (!comm && options.stop_requested && options.stop_requested->load())) {
        stop_reason = "interrupted";
        break;
      }
      StepContext context{state.step, derive_seed(options.seed, static_cast<uint64_t>(state.step)), &state};
      at::manual_seed(derive_seed(context.step_seed, SeedStream::dropout));  // dropout etc. per step
      Batch batch = algorithm.select_data(stream, context);
      UpdateResult update = algorithm.update(workload, *network, batch, context);
      synchronize(device);
      const double step_end = clock.now();
      state.accumulated_submission_time += step_end - last_step_end;
      state.step += 1;
      training_complete = update.training_complete;

      double loss = update.loss.defined() ? update.loss.item<double>() : 0.0;
      bool eval_due =
          state.step == 1 || training_complete || (options.max_steps > 0 && state.step >= options.max_steps) ||
          (!options.eval_at_steps.empty()
               ? std::binary_search(options.eval_at_steps.begin(), options.eval_at_steps.end(), state.step)
           : options.eval_every_steps > 0 ? state.step % options.eval_every_steps == 0
                                          : step_end - state.last_eval_time >= spec.eval_period_sec);
      if (comm) {  // one small allreduce: the global loss, rank 0's eval clock, anyone's stop request
        const bool stop_here = options.stop_requested && options.stop_requested->load();
        at::Tensor flags = at::tensor({std::isfinite(loss) ? loss : 0.0, std::isfinite(loss) ? 0.0 : 1.0,
                                       lead && eval_due ? 1.0 : 0.0, stop_here ? 1.0 : 0.0},
                                      at::TensorOptions().dtype(at::kDouble)).to(device);
        comm->allreduce_sum(flags);
        flags = flags.cpu();
        const double* f = flags.data_ptr<double>();
        loss = f[1] > 0 ? NAN : f[0] / world;
        eval_due = f[2] > 0;
        stop_everywhere = f[3] > 0;
      }
      if (!std::isfinite(loss)) {
        result.diverged = true;
        result.message = "non-finite training loss at step " + std::to_string(state.step);
        stop_reason = "diverged";
        log(result.message);
        break;
      }

      // Batch-norm statistics were updated on each rank's shard: evaluate with their mean.
      if (eval_due && comm) average_model_state(*comm, *network);
      if (eval_due && !lead) {  // wait for rank 0's eval and take its decisions
        const EvalDecision d = share_eval_decision(*comm, EvalDecision{}, device);
        time_remaining = !d.out_of_time;
        goal_reached = d.goal_reached;
        state.validation_goal_reached = state.test_goal_reached = d.targets_reached;
        if (d.diverged) {
          result.diverged = true;
          result.message = "diverged (rank 0's eval)";
          stop_reason = "diverged";
          break;
        }
      } else if (eval_due) {
        StepContext eval_context{state.step, context.step_seed, &state};
        const double prepare_start = clock.now();
        algorithm.prepare_for_eval(workload, *network, eval_context);
        synchronize(device);
        state.accumulated_submission_time += clock.now() - prepare_start;
        time_remaining = state.accumulated_submission_time < state.time_budget;

        const double eval_start = clock.now();
        EvalRecord record;
        record.step = state.step;
        record.accumulated_submission_time = state.accumulated_submission_time;
        for (EvalSplit split : splits) {
          for (const auto& [name, value] : workload.evaluate(*network, split)) {
            record.metrics[std::string(to_string(split)) + "/" + name] = value;
          }
        }
        if (noise_stream) {
          const Batch probe = noise_stream->next();
          noise_scale.add(measure_gradient_norms(workload, *network, probe, options.noise_scale_shards));
          record.metrics["train/noise_scale"] = noise_scale.b_simple().value_or(NAN);
        }
        const bool finite_params = parameters_finite(*network);
        bool finite_losses = true;  // every evaluated loss: the divergence signal when validation is skipped
        for (const auto& [key, value] : record.metrics) {
          if (key.size() > 5 && key.compare(key.size() - 5, 5, "/loss") == 0 && !std::isfinite(value)) finite_losses = false;
        }
        const double val = record.metrics.count(val_key) ? record.metrics[val_key] : NAN;
        const double test = record.metrics.count("test/" + spec.target_metric) ? record.metrics["test/" + spec.target_metric] : NAN;
        // Goals are sticky; the in-run check is strict, as in the reference.
        if (std::isfinite(val) && spec.reached(val, spec.validation_target, true)) state.validation_goal_reached = true;
        if (std::isfinite(test) && spec.reached(test, spec.test_target, true)) state.test_goal_reached = true;
        synchronize(device);
        const double eval_end = clock.now();
        state.accumulated_eval_time += eval_end - eval_start;
        record.accumulated_eval_time = state.accumulated_eval_time;
        record.accumulated_logging_time = state.accumulated_logging_time;
        record.total_duration = eval_end - start;

        const double logging_start = clock.now();
        state.evals.push_back(record);
        if (writer) writer->append_eval(record);
        if (options.on_eval) options.on_eval(record);
        std::ostringstream line;
        line << "eval step " << state.step << " | time " << format_seconds(state.accumulated_submission_time) << "/"
             << format_seconds(state.time_budget) << " | " << val_key << " " << std::setprecision(4) << val
             << " (target " << spec.validation_target << ") | loss " << std::setprecision(4) << loss;
        log(line.str());
        state.accumulated_logging_time += clock.now() - logging_start;
        state.last_eval_time = clock.now();

        if (options.goal && record.metrics.count(options.goal->metric)) {
          const double v = record.metrics[options.goal->metric];
          if (options.goal->higher_is_better ? v > options.goal->value : v < options.goal->value) goal_reached = true;
        }
        const bool eval_diverged = !finite_params || !finite_losses || (validation_evaluated && !std::isfinite(val));
        if (comm) {
          share_eval_decision(*comm,
                              {!time_remaining, goal_reached,
                               state.validation_goal_reached && state.test_goal_reached, eval_diverged},
                              device);
        }
        if (eval_diverged) {
          result.diverged = true;
          result.message = !finite_params ? "non-finite parameters at step " + std::to_string(state.step)
                           : !finite_losses ? "non-finite eval loss at step " + std::to_string(state.step)
                                            : "non-finite validation metric at step " + std::to_string(state.step);
          stop_reason = "diverged";
          log(result.message);
          break;
        }
      } else if (progress && progress->wants_update()) {
        std::ostringstream status;
        status << "step " << state.step << " | time " << format_seconds(state.accumulated_submission_time) << "/"
               << format_seconds(state.time_budget) << " | loss " << std::setprecision(4) << loss;
        if (!state.evals.empty()) status << " | " << val_key << " " << state.evals.back().metrics[val_key];
        progress->update(status.str());
      }
      last_step_end = clock.now();
    }
  } catch (const InputError&) {
    throw;
  } catch (const std::exception& e) {
    result.status = TrialStatus::failed;
    result.stop_reason = "error";
    result.message = e.what();
  }
  if (progress) progress->finish();

  result.steps = state.step;
  result.accumulated_submission_time = state.accumulated_submission_time;
  result.accumulated_eval_time = state.accumulated_eval_time;
  result.accumulated_logging_time = state.accumulated_logging_time;
  result.total_duration = clock.now() - start;
  result.evals = state.evals;
  compute_targets(spec, result);
  if (result.stop_reason.empty()) {
    result.stop_reason = stop_reason;
    if (stop_reason == "interrupted") {
      result.status = TrialStatus::failed;
      result.message = "interrupted";
    } else if (result.time_to_target) result.status = TrialStatus::reached;
    else if (result.diverged) result.status = TrialStatus::diverged;
    else result.status = TrialStatus::not_reached;
  }
  if (writer) writer->write_result(result);
  return result;
}

}  // namespace pacer
