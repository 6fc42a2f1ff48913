#pragma once
// How many examples a workload trains on, for the checks a study makes before it writes anything
// (a batch size the training set cannot fill, a budget given in epochs). Loads the workload's data
// (untimed, as a trial's set-up does). Torch-free header for the layers that plan studies.
//
//   const int64_t n = pacer::training_set_size("fmnist_mlp", /*data_dir=*/"", /*device=*/"cpu");  // 60000
#include <cstdint>
#include <string>

namespace pacer {

int64_t training_set_size(const std::string& workload, const std::string& data_dir, const std::string& device);

}  // namespace pacer
