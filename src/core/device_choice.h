#pragma once
// Which device a process trains on, and what a device rules out, without LibTorch (the runtime
// layer turns the name into a c10::Device; these rules are tested on any machine).
//
//   pacer::device_for_rank("auto", /*local_rank=*/3, /*cuda_devices=*/4);   // "cuda:3"
//   pacer::check_clock_for_device(pacer::ClockKind::cpu, "cuda:0");         // InputError
#include <string>

#include "core/clock.h"

namespace pacer {

// "auto" (with GPUs) and "cuda" mean the rank's own GPU: local_rank modulo the GPUs of this
// machine, so that the ranks `pacer launch` or torchrun start on one machine do not all share
// cuda:0. "cuda:N" and "cpu" are kept as given; "auto" without GPUs is "cpu".
std::string device_for_rank(const std::string& requested, int local_rank, int cuda_devices);

bool is_cuda_device_name(const std::string& device);  // "cuda", "cuda:N"

// InputError for --clock cpu on a GPU: this process's CPU time there counts the host launching
// kernels, not the training.
void check_clock_for_device(ClockKind clock, const std::string& device);

}  // namespace pacer
