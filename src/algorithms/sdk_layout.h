#pragma once
// A fingerprint of how the types a plugin shares with pacer are laid out (the SDK's public types:
// their sizes and alignments), folded into one number at compile time in both builds. PACER_PLUGIN
// records the plugin's in its manifest; pacer compares it with its own before it touches anything
// else in the library and refuses a difference, naming both. It catches what a forgotten SDK ABI
// bump or other layout-changing compile flags (-fpack-struct, -malign-double on 32-bit targets)
// would let through as a crash. A change that keeps every size and alignment (fields reordered, a
// virtual function added to TrainingAlgorithm) is what the test suite's ABI check (SdkAbi) finds.
//
//   static_assert(pacer::kSdkLayoutFingerprint != 0, "computed at compile time");
#include <cstdint>

#include "algorithms/gradient_computer.h"
#include "algorithms/plugin_manifest.h"
#include "algorithms/runner_state.h"
#include "algorithms/schedules.h"
#include "algorithms/tensor_rule.h"
#include "algorithms/tensorwise_algorithm.h"
#include "algorithms/training_algorithm.h"
#include "algorithms/update_rules.h"
#include "algorithms/update_transforms.h"
#include "core/eval_record.h"
#include "core/hyperparameters.h"
#include "data/batch.h"
#include "models/flat_parameters.h"
#include "models/network.h"
#include "workloads/workload.h"
#include "catalog/workload_spec.h"

namespace pacer {
namespace sdk_layout_detail {

// FNV-1a over the 8 bytes of v.
constexpr uint64_t mix(uint64_t h, uint64_t v) {
  for (int i = 0; i < 8; ++i) {
    h ^= (v >> (8 * i)) & 0xffu;
    h *= 1099511628211ull;
  }
  return h;
}

template <typename... T>
constexpr uint64_t layout_of() {
  uint64_t h = 1469598103934665603ull;
  ((h = mix(mix(h, sizeof(T)), alignof(T))), ...);
  return h;
}

}  // namespace sdk_layout_detail

// Every type of the SDK's headers that crosses the boundary (by value, by reference or as a base).
// One list for the two checks: the fingerprint below (sizes and alignments, at a plugin's load)
// and the ABI check of the test suite (fields, their offsets and types, virtual functions and
// their vtable slots: tests/abi/sdk_surface.cpp, tools/checks/check_sdk_abi.py).
#define PACER_SDK_BOUNDARY_TYPES                                                                                  \
  PluginManifest, PluginAlgorithm, TrainingAlgorithm, UpdateResult, RunnerState, StepContext, GradientComputer,   \
      LossSettings, Batch, Hyperparameters, HyperparameterSpec, Metrics, EvalRecord, WorkloadSpec, WorkloadContext, \
      LossOutput, Workload, Network, ParamSlice, FlatParameters, LearningRateSchedule, SgdOptions, SgdState,       \
      AdamOptions, AdamState, TensorInfo, TensorRule, TensorwiseRecipe, TensorwiseAlgorithm, StatelessTransform,  \
      GlobalNormClip, CoupledWeightDecay, DecoupledWeightDecay
constexpr uint64_t kSdkLayoutFingerprint = sdk_layout_detail::layout_of<PACER_SDK_BOUNDARY_TYPES>();

}  // namespace pacer
