// pacer-train: every pacer command, with LibTorch. The light `pacer` hands the commands that
// train to this program (training_program.h); workers and contained trials are copies of it. Its
// training layer (training_layer.h) is here: what each command does that needs LibTorch.
#include <map>

#include "algorithms/plugin_loader.h"
#include "cli_main.h"
#include "run_command.h"
#include "scale_command.h"
#include "targets_command.h"
#include "training_layer.h"
#include "core/heap_allocator.h"
#include "workloads/training_set_size.h"

namespace {

class PacerTrain : public pacer::cli::TrainingLayer {
 public:
  pacer::cli::CommandAdder command(const std::string& name) const override {
    namespace cli = pacer::cli;
    static const std::map<std::string, cli::CommandAdder> only_training{
        {"tune", cli::add_tune_command},
        {"board", cli::add_board_command},
        {"launch", cli::add_launch_command},
        {"probe", cli::add_probe_command},
        {"check", cli::add_check_command},
        {"contained-trial", cli::add_contained_trial_command},
        {"describe-algorithms", cli::add_describe_algorithms_command},
    };
    const auto it = only_training.find(name);
    return it == only_training.end() ? nullptr : it->second;
  }
  std::vector<pacer::AlgorithmInfo> algorithm_infos(const std::vector<std::string>& values) const override {
    return pacer::named_algorithm_infos(values);
  }
  int run(pacer::cli::RunArgs& args) const override { return pacer::cli::run_trial_command(args); }
  int targets(pacer::cli::TargetsArgs& args) const override { return pacer::cli::run_targets(args); }
  int scale(const pacer::cli::ScaleArgs& args) const override { return pacer::cli::run_scale(args); }
  void declare_algorithm_files(const std::vector<std::string>& values) const override {
    pacer::cli::declare_scale_algorithms(values);
  }
  int64_t training_set_size(const std::string& workload, const std::string& data_dir,
                            const std::string& device) const override {
    return pacer::training_set_size(workload, data_dir, device);
  }
};

}  // namespace

int main(int argc, char** argv) {
  pacer::configure_heap_for_training();
  static const PacerTrain training;
  return pacer::cli::run_cli(argc, argv, &training);
}
