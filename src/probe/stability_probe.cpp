#include "probe/stability_probe.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>

#include "algorithms/registry.h"
#include "algorithms/training_algorithm.h"
#include "core/error.h"
#include "core/format.h"
#include "runtime/torch_runtime.h"
#include "train/trial_runner.h"
#include "workloads/registry.h"
#include "workloads/workload.h"

namespace pacer {
namespace {

// Every step's training loss and gradient norm (eval steps included).
class StepRecorder : public TrialObserver {
 public:
  explicit StepRecorder(StabilityRun& run) : run_(run) {}
  bool wants_steps() const override { return true; }
  void on_step(const StepReport& r) override { add(r.training_loss, r.grad_norm); }
  void on_eval(const EvalReport& r) override { add(r.training_loss, r.grad_norm); }

 private:
  void add(double loss, double grad_norm) {
    run_.losses.push_back(loss);
    if (!std::isnan(grad_norm)) run_.grad_norms.push_back(grad_norm);
  }
  StabilityRun& run_;
};

bool declares(const AlgorithmInfo& info, const std::string& name) {
  return std::any_of(info.hyperparameters.begin(), info.hyperparameters.end(),
                     [&](const HyperparameterSpec& h) { return h.name == name; });
}

struct ProbeContext {
  Workload& workload;
  const std::string& algorithm;
  const AlgorithmInfo& info;
  const Hyperparameters& base;  // resolved: learning rate replaced per run
  const StabilityProbeOptions& options;
};

StabilityRun run_one(const ProbeContext& c, double lr, int64_t warmup_steps, double grad_clip) {
  StabilityRun run;
  run.learning_rate = lr;
  run.warmup_steps = warmup_steps;
  run.grad_clip = grad_clip;
  Hyperparameters hp = c.base;
  hp.set("learning_rate", lr);
  if (declares(c.info, "warmup_factor")) {
    const double step_hint = static_cast<double>(std::max<int64_t>(1, c.workload.spec().step_hint));
    hp.set("warmup_factor", std::min(1.0, static_cast<double>(warmup_steps) / step_hint));
  }
  if (declares(c.info, "grad_clip")) hp.set("grad_clip", grad_clip);
  const int64_t steps = c.options.steps + warmup_steps;
  TrialOptions t;
  t.seed = c.options.seed;
  t.spec.device = c.options.device;
  t.spec.data_dir = c.options.data_dir;
  t.spec.max_steps = steps;
  t.spec.eval_every_steps = steps;  // evals only after the first and the last step
  t.spec.eval_splits = {EvalSplit::validation};
  t.spec.stop_at_targets = false;
  t.spec.time_budget = 1e9;
  t.spec.batch_size = c.options.batch_size;
  t.observers.push_back(std::make_shared<StepRecorder>(run));
  auto algorithm = create_algorithm(c.algorithm);
  const TrialResult result = run_trial(c.workload, *algorithm, hp, t);
  if (result.status == TrialStatus::failed) throw Error("stability probe run at learning rate " + format_4g(lr) + " failed: " + result.message);
  if (result.diverged()) {
    run.diverged = true;
    run.message = result.message;
    run.losses.push_back(std::numeric_limits<double>::quiet_NaN());  // the step that diverged
  }
  return run;
}

std::string describe(const StabilityRun& run, const RunAssessment& a) {
  std::string s = "lr " + format_4g(run.learning_rate);
  if (run.warmup_steps > 0) s += ", warmup " + std::to_string(run.warmup_steps);
  if (run.grad_clip > 0) s += ", clip " + format_4g(run.grad_clip);
  s += ": " + a.reason;
  if (a.stable) s += " (loss " + format_4g(a.initial_loss) + " -> " + format_4g(a.final_loss) + ")";
  if (!a.spikes.empty()) s += ", " + std::to_string(a.spikes.size()) + " loss spike(s)";
  return s;
}

void say(const StabilityProbeOptions& o, const std::string& line) {
  if (o.progress) o.progress->log(line);
}

// The learning rates to sweep: the given ones, or a geometric range around the point's inside the
// declared range; each checked against that range before any run.
std::vector<double> sweep_rates(const AlgorithmInfo& info, const Hyperparameters& base, const std::string& algorithm_name,
                                const StabilityProbeOptions& o) {
  std::vector<double> rates = o.learning_rates;
  if (rates.empty()) {
    const double lr = base.get("learning_rate");
    // The default top of the sweep stays inside the declared range (sgd: 0.5 x 64 = 32 > 10).
    double top = lr * 64.0;
    for (const auto& h : info.hyperparameters) {
      if (h.name == "learning_rate" && top >= h.max) top = h.max_excluded ? h.max * (1 - 1e-9) : h.max;
    }
    rates = geometric_learning_rates(o.lr_min > 0 ? o.lr_min : lr / 8.0, o.lr_max > 0 ? o.lr_max : top, o.factor);
  }
  std::sort(rates.begin(), rates.end());
  for (double lr : rates) {
    if (!(lr > 0) || !std::isfinite(lr)) throw InputError("--learning-rates: positive finite values (got " + format_4g(lr) + ")");
    // Out of the algorithm's range: said now, not when the sweep reaches it.
    Hyperparameters h = base;
    h.set("learning_rate", lr);
    resolve_hyperparameters(info.hyperparameters, h, algorithm_name);
  }
  return rates;
}

// Warmups at the first unstable learning rate, shortest first, until one makes it stable.
void test_warmups(const ProbeContext& c, double unstable, StabilityProbeReport& r) {
  const StabilityProbeOptions& o = c.options;
  std::vector<int64_t> warmups = o.warmup_steps;
  if (warmups.empty()) {
    for (int64_t w : {o.steps / 100, o.steps / 10, o.steps}) {
      w = std::max<int64_t>(1, w);
      if (std::find(warmups.begin(), warmups.end(), w) == warmups.end()) warmups.push_back(w);
    }
  }
  std::sort(warmups.begin(), warmups.end());
  if (!declares(c.info, "warmup_factor")) {
    r.warmup_advice = "algorithm '" + c.algorithm + "' has no warmup_factor hyperparameter: warmup not tested";
    return;
  }
  for (int64_t w : warmups) {
    if (o.progress) o.progress->update("stability probe: warmup " + std::to_string(w) + " at " + format_4g(unstable));
    r.warmup_runs.push_back(run_one(c, unstable, w, 0.0));
    r.warmup_assessments.push_back(assess_run(r.warmup_runs.back(), o.rules));
    say(o, describe(r.warmup_runs.back(), r.warmup_assessments.back()));
    if (r.warmup_assessments.back().stable) {
      r.recommended_warmup_steps = w;
      break;
    }
  }
  const double step_hint = static_cast<double>(std::max<int64_t>(1, r.step_hint));
  r.warmup_advice = r.recommended_warmup_steps
                        ? "a linear warmup of " + std::to_string(*r.recommended_warmup_steps) +
                              " steps makes learning rate " + format_4g(unstable) +
                              " stable (tested; warmup_factor = " + format_4g(*r.recommended_warmup_steps / step_hint) +
                              " of the step hint " + std::to_string(r.step_hint) + ")"
                        : "no tested warmup (up to " + std::to_string(warmups.back()) +
                              " steps) makes learning rate " + format_4g(unstable) + " stable: try clipping, or stay below " +
                              (r.verdict.largest_stable ? format_4g(*r.verdict.largest_stable) : std::string("the sweep"));
}

// Clipping at the playbook's 90th percentile of a stable run's gradient norms (the best one).
void test_clipping(const ProbeContext& c, double unstable, StabilityProbeReport& r) {
  const StabilityProbeOptions& o = c.options;
  const StabilityRun* reference = nullptr;
  for (const auto& run : r.sweep)
    if (r.verdict.best && run.learning_rate == *r.verdict.best) reference = &run;
  if (!o.test_clipping) {
    r.clipping_advice = "clipping not tested (--no-clipping)";
  } else if (!declares(c.info, "grad_clip")) {
    r.clipping_advice = "algorithm '" + c.algorithm + "' has no grad_clip hyperparameter: clipping not tested";
  } else if (!reference || reference->grad_norms.empty()) {
    r.clipping_advice = "no stable run with gradient norms to set a clipping threshold from";
  } else {
    r.clip_threshold = percentile(reference->grad_norms, 90.0);
    if (o.progress) o.progress->update("stability probe: clipping at " + format_4g(*r.clip_threshold));
    r.clip_run = run_one(c, unstable, 0, *r.clip_threshold);
    r.clip_assessment = assess_run(*r.clip_run, o.rules);
    say(o, describe(*r.clip_run, *r.clip_assessment));
    const double clipped = r.clip_assessment->clipped_fraction;
    r.clipping_advice = "grad_clip " + format_4g(*r.clip_threshold) + " (90th percentile of the gradient norms at lr " +
                        format_4g(reference->learning_rate) + ") " +
                        (r.clip_assessment->stable ? "makes" : "does not make") + " learning rate " + format_4g(unstable) +
                        " stable; it clipped " + format_4g(100.0 * clipped) + "% of the steps" +
                        (clipped > 0.5 ? " (more than half: too aggressive, it acts as a lower learning rate)" : "");
  }
}

}  // namespace

std::vector<double> geometric_learning_rates(double lr_min, double lr_max, double factor) {
  if (!(lr_min > 0) || !(lr_max >= lr_min) || !(factor > 1.0) || !std::isfinite(lr_max)) {
    throw InputError("learning-rate sweep: need 0 < --lr-min <= --lr-max and --lr-factor > 1 (got " + format_4g(lr_min) + ", " +
                     format_4g(lr_max) + ", " + format_4g(factor) + ")");
  }
  std::vector<double> rates;
  for (double lr = lr_min; lr <= lr_max * (1 + 1e-9); lr *= factor) {
    // It used to stop at 64 silently, sweeping less than the range asked for.
    if (rates.size() == 64) {
      throw InputError("learning-rate sweep: " + format_4g(lr_min) + " to " + format_4g(lr_max) + " by a factor of " + format_4g(factor) +
                       " is more than 64 runs; raise --lr-factor or narrow --lr-min/--lr-max");
    }
    rates.push_back(lr);
  }
  return rates;
}

void check_stability_probe_options(const StabilityProbeOptions& o) {
  if (o.steps < 10) throw InputError("--steps: the stability probe needs at least 10 steps per run");
  for (int64_t w : o.warmup_steps) {
    if (w <= 0) throw InputError("--warmups: warmup lengths are positive step counts (got " + std::to_string(w) + ")");
  }
}

StabilityProbeReport run_stability_probe(const std::string& workload_name, const std::string& algorithm_name,
                                         const StabilityProbeOptions& o) {
  check_stability_probe_options(o);
  const AlgorithmInfo info = algorithm_info(algorithm_name);
  if (!declares(info, "learning_rate")) {
    throw InputError("algorithm '" + algorithm_name + "' has no learning_rate hyperparameter to sweep");
  }
  const Hyperparameters base = resolve_hyperparameters(info.hyperparameters, o.hparams, algorithm_name);
  const std::vector<double> rates = sweep_rates(info, base, algorithm_name, o);
  auto workload = create_workload(workload_name, o.workload_options);
  const ProbeContext c{*workload, algorithm_name, info, base, o};

  StabilityProbeReport r;
  r.workload = workload_name;
  r.algorithm = algorithm_name;
  r.device = resolve_device(o.device).str();  // what ran, not "auto"
  r.steps = o.steps;
  r.step_hint = workload->spec().step_hint;
  r.batch_size = o.batch_size ? *o.batch_size : create_algorithm(algorithm_name)->batch_size(workload->spec());
  for (double lr : rates) {
    if (o.progress) o.progress->update("stability probe: learning rate " + format_4g(lr));
    r.sweep.push_back(run_one(c, lr, 0, 0.0));
    r.sweep_assessments.push_back(assess_run(r.sweep.back(), o.rules));
    say(o, describe(r.sweep.back(), r.sweep_assessments.back()));
  }
  r.verdict = learning_rate_verdict(r.sweep, o.rules);
  say(o, r.verdict.explanation);
  if (!r.verdict.divergence_point) {
    r.warmup_advice = "no unstable learning rate in the sweep: nothing for warmup to fix";
    r.clipping_advice = "no unstable learning rate in the sweep: nothing for clipping to fix";
  } else {
    test_warmups(c, *r.verdict.divergence_point, r);
    say(o, r.warmup_advice);
    test_clipping(c, *r.verdict.divergence_point, r);
    say(o, r.clipping_advice);
  }
  if (o.progress) o.progress->finish();
  return r;
}

std::string StabilityProbeReport::to_json() const {
  auto number = [](double v) { return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(); };
  auto run_json = [&](const StabilityRun& run, const RunAssessment& a) {
    nlohmann::ordered_json j;
    j["learning_rate"] = run.learning_rate;
    j["warmup_steps"] = run.warmup_steps;
    j["grad_clip"] = run.grad_clip;
    j["stable"] = a.stable;
    j["reason"] = a.reason;
    j["initial_loss"] = number(a.initial_loss);
    j["final_loss"] = number(a.final_loss);
    j["max_loss"] = number(a.max_loss);
    j["spikes"] = a.spikes;
    if (run.grad_clip > 0) j["clipped_fraction"] = a.clipped_fraction;
    if (!run.grad_norms.empty()) {
      j["grad_norm"] = {{"p50", number(percentile(run.grad_norms, 50))},
                        {"p90", number(percentile(run.grad_norms, 90))},
                        {"max", number(percentile(run.grad_norms, 100))}};
    }
    auto& losses = j["train/loss"] = nlohmann::ordered_json::array();
    for (double l : run.losses) losses.push_back(number(l));
    auto& norms = j["train/grad_norm"] = nlohmann::ordered_json::array();
    for (double n : run.grad_norms) norms.push_back(number(n));
    return j;
  };
  auto opt = [&](const std::optional<double>& v) { return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(); };
  nlohmann::ordered_json j;
  j["kind"] = "stability_probe";
  j["workload"] = workload;
  j["algorithm"] = algorithm;
  j["device"] = device;
  j["steps"] = steps;
  j["batch_size"] = batch_size;
  j["step_hint"] = step_hint;
  j["verdict"] = {{"largest_stable_learning_rate", opt(verdict.largest_stable)},
                  {"divergence_learning_rate", opt(verdict.divergence_point)},
                  {"best_learning_rate", opt(verdict.best)},
                  {"explanation", verdict.explanation}};
  auto& sweep_json = j["sweep"] = nlohmann::ordered_json::array();
  for (size_t i = 0; i < sweep.size(); ++i) sweep_json.push_back(run_json(sweep[i], sweep_assessments[i]));
  auto& warm = j["warmup"] = nlohmann::ordered_json::object();
  warm["recommended_warmup_steps"] =
      recommended_warmup_steps ? nlohmann::ordered_json(*recommended_warmup_steps) : nlohmann::ordered_json();
  warm["advice"] = warmup_advice;
  auto& wr = warm["runs"] = nlohmann::ordered_json::array();
  for (size_t i = 0; i < warmup_runs.size(); ++i) wr.push_back(run_json(warmup_runs[i], warmup_assessments[i]));
  auto& clip = j["clipping"] = nlohmann::ordered_json::object();
  clip["threshold"] = opt(clip_threshold);
  clip["advice"] = clipping_advice;
  clip["run"] = clip_run ? run_json(*clip_run, *clip_assessment) : nlohmann::ordered_json();
  return j.dump(1);
}

}  // namespace pacer
