#pragma once
// What a training-algorithm plugin exports: one C entry point, `pacer_plugin_manifest`, returning
// the algorithms the shared library defines and a version record (SDK ABI version, the LibTorch
// version and C++ standard-library ABI it was built against, the compiler). `pacer` compares the
// record with its own before it touches anything else in the library and refuses a mismatch with
// both versions named (exit 2), so a plugin built against another SDK or LibTorch never crashes it.
//
// A plugin's whole glue is one macro after its classes:
//
//   class Lion : public pacer::TrainingAlgorithm { ... };
//   PACER_PLUGIN(PACER_ALGORITHM("lion", Lion))
//
// then `pacer run -a ./build/liblion.so ...` (or `-a ./build/liblion.so:lion` when a library
// defines several algorithms).
#include "algorithms/plugin_manifest.h"
#include "algorithms/sdk_layout.h"
#include "algorithms/training_algorithm.h"

// One {name, factory} pair of PACER_PLUGIN.
#define PACER_ALGORITHM(name, Class) \
  pacer::PluginAlgorithm { name, []() -> pacer::TrainingAlgorithm* { return new Class(); } }

#define PACER_PLUGIN(...)                                                                        \
  extern "C" __attribute__((visibility("default"))) const pacer::PluginManifest*                 \
  pacer_plugin_manifest() {                                                                      \
    static const pacer::PluginAlgorithm algorithms[] = {__VA_ARGS__};                            \
    static const pacer::PluginManifest manifest{pacer::kSdkAbiVersion, _GLIBCXX_USE_CXX11_ABI,   \
                                                TORCH_VERSION, __VERSION__, algorithms,          \
                                                static_cast<long long>(sizeof(algorithms) / sizeof(algorithms[0])), \
                                                pacer::kSdkLayoutFingerprint};                   \
    return &manifest;                                                                            \
  }
