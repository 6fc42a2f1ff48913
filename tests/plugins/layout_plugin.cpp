// A plugin whose SDK types are laid out differently from pacer's: tests/CMakeLists.txt compiles it
// with -fpack-struct=4, which packs every struct with 8-byte members (tensors, doubles, pointers)
// to 4-byte alignment. Its manifest is otherwise right, so only the layout fingerprint can tell;
// pacer must refuse it before calling anything in it.
#include "algorithms/sdk_layout.h"

extern "C" __attribute__((visibility("default"))) const pacer::PluginManifest* pacer_plugin_manifest() {
  static const pacer::PluginManifest manifest{pacer::kSdkAbiVersion, _GLIBCXX_USE_CXX11_ABI, TORCH_VERSION,
                                              __VERSION__, nullptr, 0, pacer::kSdkLayoutFingerprint};
  return &manifest;
}
