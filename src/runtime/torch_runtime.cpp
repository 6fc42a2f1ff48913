#include "runtime/torch_runtime.h"

#include <ATen/Context.h>
#include <ATen/Parallel.h>
#include <c10/util/Exception.h>
#if defined(PACER_WITH_CUDA)
#include <c10/cuda/CUDACachingAllocator.h>
#endif
#include <dlfcn.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <thread>

#include <new>
#include <torch/cuda.h>
#include <torch/version.h>

#include "core/device_choice.h"
#include "core/error.h"

namespace pacer {

std::string torch_version() { return TORCH_VERSION; }

bool cuda_available() { return torch::cuda::is_available(); }

c10::Device resolve_device(const std::string& name, int local_rank) {
  if (name == "auto" || name.empty()) {
    if (!cuda_available()) return c10::Device(c10::DeviceType::CPU);
    return c10::Device(device_for_rank(name, local_rank, static_cast<int>(torch::cuda::device_count())));
  }
  if (name == "cpu") return c10::Device(c10::DeviceType::CPU);
  if (name.rfind("cuda", 0) == 0) {
    if (!cuda_available()) {
      throw InputError("--device " + name + ": this LibTorch build has no CUDA or no GPU is visible");
    }
    try {
      return c10::Device(device_for_rank(name, local_rank, static_cast<int>(torch::cuda::device_count())));
    } catch (const std::exception&) {
      throw InputError("--device " + name + ": expected cuda or cuda:N");
    }
  }
  throw InputError("--device " + name + ": expected auto, cpu, cuda or cuda:N");
}

namespace {
std::atomic<int64_t> synchronization_count{0};
}  // namespace

void synchronize(const c10::Device& device) {
  synchronization_count.fetch_add(1, std::memory_order_relaxed);
  if (device.is_cuda()) torch::cuda::synchronize(device.index());
}

int64_t synchronizations() { return synchronization_count.load(std::memory_order_relaxed); }

bool use_deterministic_kernels(const c10::Device& device) {
  if (!device.is_cuda()) return false;
  ::setenv("CUBLAS_WORKSPACE_CONFIG", ":4096:8", /*overwrite=*/0);
  at::globalContext().setDeterministicAlgorithms(true, /*warn_only=*/false);
  return true;
}

int available_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

int set_num_threads(int threads, int processes_on_machine) {
  if (threads <= 0) {
    // OMP_NUM_THREADS, as LibTorch's own default honours it (sanitizer runs pin it to 1), else a
    // fair share of the CPUs.
    const char* omp = std::getenv("OMP_NUM_THREADS");
    char* end = nullptr;
    const long from_env = omp ? std::strtol(omp, &end, 10) : 0;
    threads = (omp && end != omp && *end == '\0' && from_env > 0 && from_env <= 4096)
                  ? static_cast<int>(from_env)
                  : std::max(1, available_cpus() / std::max(1, processes_on_machine));
  }
  at::set_num_threads(threads);
  // at::set_num_threads sets OpenMP's (and MKL's) threads but not OpenBLAS's own pool, which
  // LibTorch's matrix products run on when Debian's OpenBLAS is the BLAS: without this, --threads 1
  // still multiplies on every core, and two workers oversubscribe the machine. Looked up at run
  // time, so another BLAS (or none) needs no code here.
  using SetBlasThreads = void (*)(int);
  if (auto set_blas = reinterpret_cast<SetBlasThreads>(::dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))) {
    set_blas(threads);
  }
  return threads;
}

int num_threads() { return at::get_num_threads(); }

void reset_peak_device_memory(const c10::Device& device) {
#if defined(PACER_WITH_CUDA)
  if (device.is_cuda()) c10::cuda::CUDACachingAllocator::resetPeakStats(device.index() < 0 ? 0 : device.index());
#else
  (void)device;
#endif
}

std::optional<int64_t> peak_device_memory(const c10::Device& device) {
#if defined(PACER_WITH_CUDA)
  if (device.is_cuda()) {
    const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(device.index() < 0 ? 0 : device.index());
    return stats.allocated_bytes[0].peak;  // [0]: all pools
  }
#else
  (void)device;
#endif
  return std::nullopt;
}

bool is_out_of_memory(const std::exception& e) {
  if (dynamic_cast<const c10::OutOfMemoryError*>(&e)) return true;
  if (dynamic_cast<const std::bad_alloc*>(&e)) return true;
  const std::string what = e.what();
  return what.find("out of memory") != std::string::npos || what.find("DefaultCPUAllocator: can't allocate") != std::string::npos;
}

}  // namespace pacer
