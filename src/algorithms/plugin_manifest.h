#pragma once
// The record a training-algorithm plugin exports through its one C entry point (see
// algorithms/plugin_abi.h for how a plugin defines it). Torch-free, so that reading and
// checking it needs nothing a mismatched library could disagree about: the first field alone
// says whether the rest can be read.
#include <torch/version.h>  // TORCH_VERSION only: no ATen

#include <cstddef>  // with libstdc++: _GLIBCXX_USE_CXX11_ABI

#include "core/export.h"

namespace pacer {

class TrainingAlgorithm;

// Raised whenever the manifest or an interface a plugin implements changes: the test suite's ABI
// check (CTest SdkAbi) fails on such a change until `tools/checks/check_sdk_abi.py LIB --update` records
// it, and that raises this number. The public types' sizes are also checked at a plugin's load
// (layout_fingerprint, algorithms/sdk_layout.h).
// 2: UpdateResult gained grad_norm. 3: UpdateResult gained metrics. 4: the manifest gained
// layout_fingerprint. 5: the per-tensor path (TensorRule, TensorwiseAlgorithm) joined the SDK.
// 6: flat recipes, make_schedule. 7: BaselineAlgorithm folded into TensorwiseAlgorithm; recipes
// gained transforms (weight decay) and a gradient point (SAM). 8: hyperparameter values may be
// booleans and strings (HyperparameterValue; HyperparameterSpec gained any_scalar).
constexpr int kSdkAbiVersion = 8;

struct PACER_API PluginAlgorithm {
  const char* name;
  TrainingAlgorithm* (*create)();  // a new instance, owned by the caller
};

// Laid out so that every field is at the same offset however the plugin was compiled to pack
// its structs (-fpack-struct=N): two 4-byte fields, then 8-byte ones, no padding anywhere. A
// packed plugin's manifest can then still be read, and refused by its layout fingerprint.
struct PACER_API PluginManifest {
  int sdk_abi_version;  // first, so that any future layout can be refused by reading it alone
  int cxx11_abi;        // _GLIBCXX_USE_CXX11_ABI: std::string and friends must match across the boundary
  const char* torch_version;
  const char* compiler;
  const PluginAlgorithm* algorithms;
  long long algorithm_count;
  unsigned long long layout_fingerprint;  // kSdkLayoutFingerprint as the plugin was compiled
};

// The values this build of Pacer was compiled with (what a plugin's manifest must match).
PACER_API PluginManifest host_manifest();

}  // namespace pacer

#define PACER_PLUGIN_ENTRY_POINT "pacer_plugin_manifest"
