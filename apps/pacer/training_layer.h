#pragma once
// What only pacer-train does, said in one place: the commands that only train, and the training
// halves of the commands that also have a light one (list, run, targets, scale). The light pacer
// has no training layer (CommandContext::training is null) and hands a command that needs one to
// pacer-train (training_program.h); pacer-train's main gives every command its own
// (train_main.cpp). Torch-free: the light commands include it to ask whether they have one.
//
//   if (!context.training) return Outcome::hand_on("run trains");
//   return context.training->run(args);
#include <cstdint>
#include <string>
#include <vector>

#include "catalog/algorithm_infos.h"
#include "commands.h"

namespace pacer::cli {

struct RunArgs;
struct ScaleArgs;
struct TargetsArgs;

class TrainingLayer {
 public:
  virtual ~TrainingLayer() = default;

  // The adder of a command that only trains (tune, board, launch, probe, check and the hidden
  // ones); null for any other name.
  virtual CommandAdder command(const std::string& name) const = 0;

  // list: the infos of the algorithms the -a values name (every one when none), plugins and Python
  // submissions loaded.
  virtual std::vector<AlgorithmInfo> algorithm_infos(const std::vector<std::string>& values) const = 0;
  // run: the trial (in a contained copy of this program for untrusted code), its summary, its exit
  // status.
  virtual int run(RunArgs& args) const = 0;
  // targets: the whole procedure over the store, then the record.
  virtual int targets(TargetsArgs& args) const = 0;
  // scale: the whole study; --no-run: the algorithm files declared (from a contained process) and
  // the training set's size (it loads the workload's data).
  virtual int scale(const ScaleArgs& args) const = 0;
  virtual void declare_algorithm_files(const std::vector<std::string>& values) const = 0;
  virtual int64_t training_set_size(const std::string& workload, const std::string& data_dir,
                                    const std::string& device) const = 0;
};

}  // namespace pacer::cli
