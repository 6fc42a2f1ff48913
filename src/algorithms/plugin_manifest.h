#pragma once
// The record a training-algorithm plugin exports through its one C entry point (see
// algorithms/plugin_abi.h for how a plugin defines it). Torch-free, so that reading and
// checking it needs nothing a mismatched library could disagree about: the first field alone
// says whether the rest can be read.
#include <torch/version.h>  // TORCH_VERSION only: no ATen

#include <cstddef>  // with libstdc++: _GLIBCXX_USE_CXX11_ABI

namespace pacer {

class TrainingAlgorithm;

// Raised whenever the layout of the manifest or an interface a plugin implements changes.
// 2: UpdateResult gained grad_norm. 3: UpdateResult gained metrics.
constexpr int kSdkAbiVersion = 3;

struct PluginAlgorithm {
  const char* name;
  TrainingAlgorithm* (*create)();  // a new instance, owned by the caller
};

struct PluginManifest {
  int sdk_abi_version;  // first, so that any future layout can be refused by reading it alone
  const char* torch_version;
  int cxx11_abi;  // _GLIBCXX_USE_CXX11_ABI: std::string and friends must match across the boundary
  const char* compiler;
  const PluginAlgorithm* algorithms;
  int algorithm_count;
};

// The values this build of Pacer was compiled with (what a plugin's manifest must match).
PluginManifest host_manifest();

}  // namespace pacer

#define PACER_PLUGIN_ENTRY_POINT "pacer_plugin_manifest"
