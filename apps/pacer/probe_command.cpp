// pacer probe: the playbook's batch-size probe (throughput, memory, bottleneck) and, with
// --stability, its training-instability probe (largest stable learning rate, warmup and
// clipping advice). Table on stdout, JSON + HTML in --out.
#include <cstdio>
#include <memory>

#include "algorithms/plugin_loader.h"
#include "algorithms/registry.h"
#include "commands.h"
#include "input_guards.h"
#include "trial_spec_options.h"
#include "core/error.h"
#include "core/output_folder.h"
#include "core/progress.h"
#include "probe/memory_meter.h"
#include "probe/probe_page.h"
#include "runtime/torch_runtime.h"
#include "workloads/registry.h"
#include "catalog/workload_options.h"

namespace pacer::cli {
namespace {

// What the options bind: each probe's own options straight into the library's structs; what
// both take (the point, the workload options, device, data, seed) is filled in by run_probe.
struct ProbeArgs {
  std::string workload, algorithm, out = "runs/probe", hparams_file, memory_limit, clock = "wall";
  ProbeSetup setup;  // what both probes take; the point, workload options and progress filled in by run_probe
  std::vector<std::string> assignments, workload_options;
  bool stability = false, no_clipping = false, quiet = false, overwrite = false;
  int threads = 0;
  int64_t steps = 0, batch_size = 0;  // --steps: per batch size, or per stability run; 0: the default
  ThroughputProbeOptions throughput;
  StabilityProbeOptions stability_probe;
};

int run_probe(ProbeArgs& a) {
  const std::string algorithm = resolve_algorithm(a.algorithm);
  a.setup.hparams = *point_from_options(false, a.hparams_file, a.assignments);
  a.setup.workload_options = parse_workload_options(a.workload_options);
  workload_spec(a.workload).validate_options(a.setup.workload_options);  // unknown workload or option: before --out
  if (!a.memory_limit.empty()) a.throughput.memory_limit_bytes = parse_memory_size(a.memory_limit);
  a.throughput.clock = parse_clock_option(a.clock);
  // The stability probe's runs are measured in steps: a clock there would be accepted and silently unused.
  if (a.stability && a.throughput.clock != ClockKind::wall)
    throw InputError("--clock: the stability probe counts steps, not time; --clock applies to the batch-size probe");
  if (a.steps > 0) a.stability_probe.steps = a.steps;
  if (a.steps > 0) a.throughput.measure_steps = static_cast<int>(a.steps);
  if (a.batch_size > 0) a.stability_probe.batch_size = a.batch_size;
  a.stability_probe.test_clipping = !a.no_clipping;
  if (a.stability) check_stability_probe_options(a.stability_probe);
  resolve_device(a.setup.device);  // a bad device is an input error before any work
  set_num_threads(a.threads);
  Progress progress(a.quiet ? Progress::Mode::quiet : Progress::auto_detect());
  a.setup.progress = &progress;
  static_cast<ProbeSetup&>(a.stability_probe) = static_cast<ProbeSetup&>(a.throughput) = a.setup;
  // Before any work: an unwritable --out, or one holding an earlier probe's result.
  const std::string name = a.stability ? "stability" : "probe";
  prepare_output_folder(a.out, "--out", {name + ".json", name + ".html"}, a.overwrite);
  if (a.stability) {
    const StabilityProbeReport report = run_stability_probe(a.workload, algorithm, a.stability_probe);
    std::fputs(format_stability_probe(report).c_str(), stdout);
    write_stability_probe(report, a.out);
  } else {
    const ThroughputProbeReport report = run_throughput_probe(a.workload, algorithm, a.throughput);
    std::fputs(format_throughput_probe(report).c_str(), stdout);
    write_throughput_probe(report, a.out);
  }
  std::printf("wrote %s/%s.json and %s/%s.html\n", a.out.c_str(), name.c_str(), a.out.c_str(), name.c_str());
  return 0;
}

}  // namespace

Action add_probe_command(CLI::App& app, const CommandContext& /*context*/) {
  auto a = std::make_shared<ProbeArgs>();
  app.add_option("-w,--workload", a->workload, "Workload (see pacer list)")->required();
  app.add_option("-a,--algorithm", a->algorithm, "Training algorithm: a name, a plugin library or a Python submission (.py or its folder)")->required();
  app.add_option("--set", a->assignments, "Set a hyperparameter: name=value (repeatable)");
  app.add_option("--hparams", a->hparams_file, "JSON file with hyperparameters (--set overrides it)");
  app.add_option("--workload-option", a->workload_options, "A model option of the workload: NAME=VALUE (repeatable)");
  app.add_flag("--overwrite", a->overwrite, "Replace an earlier probe's files in --out (else they are refused)");
  app.add_option("-o,--out", a->out, "Folder for probe.json/probe.html (stability.json/stability.html)")
      ->capture_default_str();
  app.add_option("--device", a->setup.device, "auto, cpu, cuda or cuda:N")->capture_default_str();
  app.add_option("--data-dir", a->setup.data_dir, "Fashion-MNIST folder (default: $PACER_DATA_DIR or the Debian package's)");
  app.add_option("--threads", a->threads, "Intra-op CPU threads (default: LibTorch's)")->check(non_negative_number());
  app.add_option("--seed", a->setup.seed, "Seed of the model and data order")->capture_default_str();
  app.add_option("--steps", a->steps,
                 "Measured steps per batch size (default 20), or with --stability steps per run (default 200)")
      ->check(positive_number());
  app.add_flag("-q,--quiet", a->quiet, "Only the table and the verdict");
  add_clock_option(app, a->clock);
  auto* batch = app.add_option_group("batch-size probe");
  batch->add_option("--min-batch-size", a->throughput.min_batch_size, "Smallest batch size (then x2)")->check(positive_number())
      ->capture_default_str();
  batch->add_option("--max-batch-size", a->throughput.max_batch_size, "Largest batch size tried")->check(positive_number())
      ->capture_default_str();
  batch->add_option("--batch-sizes", a->throughput.batch_sizes, "Exactly these batch sizes (ascending, comma-separated)")
      ->delimiter(',');
  batch->add_option("--warmup-steps", a->throughput.warmup_steps, "Untimed steps before measuring each batch size")
      ->check(non_negative_number())->capture_default_str();
  batch->add_option("--seconds", a->throughput.max_seconds, "Time limit of the measured steps per batch size")
      ->check(positive_number())->capture_default_str();
  batch->add_option("--memory-limit", a->memory_limit,
                    "A batch size whose peak memory exceeds this does not fit (512M, 8G); CUDA out-of-memory is "
                    "caught in any case");
  auto* stability_group = app.add_option_group("stability probe");
  stability_group->add_flag("--stability", a->stability,
                   "Training-instability probe: learning-rate sweep, largest stable rate, warmup and clipping advice");
  stability_group->add_option("--learning-rates", a->stability_probe.learning_rates, "Exactly these learning rates (comma-separated)")
      ->delimiter(',');
  // 0 would mean "the default" inside: a 0 given here is refused, not silently replaced.
  stability_group->add_option("--lr-min", a->stability_probe.lr_min, "Smallest swept learning rate (default: the algorithm's default / 8)")
      ->check(positive_number());
  stability_group->add_option("--lr-max", a->stability_probe.lr_max, "Largest swept learning rate (default: the algorithm's default x 64)")
      ->check(positive_number());
  stability_group->add_option("--lr-factor", a->stability_probe.factor, "Ratio between swept learning rates")->capture_default_str();
  stability_group->add_option("--warmups", a->stability_probe.warmup_steps, "Warmup lengths (steps) to test at the divergence point "
                                               "(default: steps/100, steps/10, steps)")
      ->delimiter(',');
  stability_group->add_flag("--no-clipping", a->no_clipping, "Do not test gradient clipping");
  stability_group->add_option("--batch-size", a->batch_size, "Batch size of the stability runs (default: the algorithm's)")
      ->check(positive_number());

  return [a]() -> int { return run_probe(*a); };
}

}  // namespace pacer::cli
