#pragma once
// The one place that touches LibTorch APIs which differ between 1.13 (Debian, CPU) and 2.x
// (CUDA builds), or that depend on how LibTorch was built.
//
//   c10::Device device = pacer::resolve_device("auto");   // cuda when built with CUDA and a GPU is present
//   pacer::synchronize(device);                            // before reading a clock
#include <c10/core/Device.h>

#include <cstdint>
#include <exception>
#include <optional>
#include <string>

namespace pacer {

std::string torch_version();  // e.g. "1.13.0"
bool cuda_available();
// "auto", "cpu", "cuda" or "cuda:N". InputError for anything else, or cuda without CUDA. "auto" and
// "cuda" are the local rank's own GPU (core/device_choice.h).
c10::Device resolve_device(const std::string& name, int local_rank = 0);
// Waits for queued device work so that wall-clock timing covers it (no-op on CPU).
void synchronize(const c10::Device& device);
// How many times synchronize() was called in this process, on any device: a test hook (every clock
// read of a trial follows one, train/synchronized_clock.h).
int64_t synchronizations();
// On a GPU, the same run twice gives the same numbers only with deterministic kernels: turns on
// LibTorch's deterministic algorithms (an op without one fails, naming itself) and, unless set,
// CUBLAS_WORKSPACE_CONFIG=:4096:8, which cuBLAS reads when it starts. Nothing on a CPU, whose
// kernels are deterministic already (CPU numerics stay as they are). Returns whether it did.
bool use_deterministic_kernels(const c10::Device& device);
// Intra-op CPU threads (LibTorch's pools and OpenBLAS's), always set explicitly: left to
// LibTorch's lazy default, the evals of fmnist_cnn ran 1.4x slower on this machine with the same
// thread count reported. threads <= 0: OMP_NUM_THREADS when set, else the CPUs this process may
// use shared evenly by `processes_on_machine` (tuning workers, ranks on this node). Returns the
// count set.
int set_num_threads(int threads, int processes_on_machine = 1);
int available_cpus();  // sched_getaffinity's count (taskset, cgroup cpusets), at least 1
int num_threads();

// Peak device memory since the last reset, from the CUDA caching allocator (bytes); nullopt on
// CPU or in builds without CUDA (there the process's peak RSS is the measure).
void reset_peak_device_memory(const c10::Device& device);
std::optional<int64_t> peak_device_memory(const c10::Device& device);
// LibTorch's out-of-memory error (CUDA allocator or a failed CPU allocation).
bool is_out_of_memory(const std::exception& e);

}  // namespace pacer
