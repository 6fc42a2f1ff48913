#include "tune/worker_options.h"

namespace pacer {

std::string trial_folder(const std::string& out_dir, const StudyRecord& study, int64_t trial_index,
                         bool experiment_folder) {
  return out_dir + (experiment_folder ? "/" + study.experiment : std::string()) + "/study_" + std::to_string(study.study_index) + "/" + study.workload + "_libtorch/trial_" +
         std::to_string(trial_index);
}

}  // namespace pacer
