// `pacer check -a ALGORITHM`: does the algorithm's state() hold everything its updates depend on?
// Argument binding only; the check is train/state_check.h.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>

#include "algorithms/plugin_loader.h"
#include "algorithms/registry.h"
#include "commands.h"
#include "core/error.h"
#include "input_guards.h"
#include "trial_spec_options.h"
#include "runtime/torch_runtime.h"
#include "train/state_check.h"
#include "workloads/registry.h"
#include "catalog/workload_options.h"

namespace pacer::cli {
namespace {

struct CheckArgs {
  std::string workload = "synthetic_regression", algorithm, hparams_file, data_dir, device = "cpu", keep;
  std::vector<std::string> assignments, workload_options;
  StateCheckOptions options;
  bool self_tuning = false;
  int threads = 1;
  int64_t restore_at = 0;
};

// A folder of its own under the system's temporary folder, removed when the check ends unless
// --keep names one.
class WorkFolder {
 public:
  explicit WorkFolder(const std::string& keep) : keep_(!keep.empty()) {
    if (keep_) {
      if (std::filesystem::exists(keep) && !std::filesystem::is_empty(keep)) {
        throw InputError("--keep: " + keep + " is not empty (the check writes a run and its checkpoint there)");
      }
      std::filesystem::create_directories(keep);
      path_ = keep;
      return;
    }
    std::string pattern = (std::filesystem::temp_directory_path() / "pacer_check_XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw Error("cannot create a temporary folder under " + pattern);
    path_ = pattern;
  }
  ~WorkFolder() {
    std::error_code ignored;
    if (!keep_) std::filesystem::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }

 private:
  bool keep_;
  std::string path_;
};

}  // namespace

Action add_check_command(CLI::App& app, const CommandContext& /*context*/) {
  auto a = std::make_shared<CheckArgs>();
  app.add_option("-a,--algorithm", a->algorithm,
                 "Training algorithm: a name (see pacer list), a plugin library (./libx.so) or a Python submission")
      ->required();
  app.add_option("-w,--workload", a->workload, "Workload to train on (small ones are quickest)")->capture_default_str();
  app.add_option("--set", a->assignments, "Set a hyperparameter: name=value (repeatable)");
  app.add_option("--hparams", a->hparams_file, "JSON file with hyperparameters (--set overrides it)");
  app.add_flag("--self-tuning", a->self_tuning, "Run without hyperparameters (a self-tuning submission)");
  app.add_option("--steps", a->options.steps, "Steps of the uninterrupted run")->capture_default_str()->check(positive_number());
  app.add_option("--restore-at", a->restore_at, "Step after which the checkpoint is taken (default: half of --steps)")
      ->check(positive_number());
  app.add_option("--seed", a->options.seed, "Trial seed")->capture_default_str();
  app.add_option("--workload-option", a->workload_options, "Change a model option the workload declares (NAME=VALUE)")
      ->type_name("NAME=VALUE");
  app.add_option("--data-dir", a->data_dir, "Fashion-MNIST folder (default: $PACER_DATA_DIR or the Debian package's)");
  app.add_option("--device", a->device, "cpu, cuda, cuda:N or auto")->capture_default_str();
  app.add_option("--threads", a->threads, "Intra-op CPU threads")->capture_default_str()->check(positive_number());
  app.add_option("--keep", a->keep, "Keep the resumed run's logs and checkpoint in this (new or empty) folder");

  return [a]() -> int {
    auto workload = create_workload(a->workload, parse_workload_options(a->workload_options));
    const std::string name = resolve_algorithm(a->algorithm);  // loads a plugin or submission once
    const std::optional<Hyperparameters> hparams = point_from_options(a->self_tuning, a->hparams_file, a->assignments);
    set_num_threads(a->threads, 1);
    StateCheckOptions options = a->options;
    options.restore_at = a->restore_at > 0 ? a->restore_at : options.steps / 2;
    options.spec.data_dir = a->data_dir;
    options.spec.device = a->device;
    const WorkFolder folder(a->keep);
    options.work_dir = folder.path();

    std::printf("pacer check: %s on %s: %lld steps uninterrupted, and checkpointed after step %lld then resumed in a "
                "fresh instance\n",
                name.c_str(), a->workload.c_str(), static_cast<long long>(options.steps),
                static_cast<long long>(options.restore_at));
    std::fflush(stdout);
    const StateCheckReport r = check_algorithm_state(*workload, [&] { return create_algorithm(name); }, hparams, options);
    std::string entries;
    for (const auto& e : r.entries) entries += (entries.empty() ? "" : ", ") + e;
    std::printf("state():   %s\n", entries.empty() ? "empty" : entries.c_str());
    std::printf("%s:   %s\n", r.passed ? "passed" : "FAILED", r.diagnosis.c_str());
    if (!a->keep.empty()) std::printf("kept:      %s (the resumed run's logs and checkpoint)\n", a->keep.c_str());
    return r.passed ? 0 : 1;
  };
}

}  // namespace pacer::cli
