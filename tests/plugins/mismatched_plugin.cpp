// A plugin built against another SDK ABI or LibTorch version, deliberately (the versions come from
// the build: see tests/CMakeLists.txt). pacer must refuse it naming both versions, without calling
// anything else in it.
#include "algorithms/plugin_manifest.h"

extern "C" __attribute__((visibility("default"))) const pacer::PluginManifest* pacer_plugin_manifest() {
  static const pacer::PluginManifest manifest{MISMATCHED_SDK_ABI, _GLIBCXX_USE_CXX11_ABI, MISMATCHED_TORCH_VERSION,
                                              __VERSION__, nullptr, 0, 0};
  return &manifest;
}
