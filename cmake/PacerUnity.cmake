# Unity builds for Pacer's layers and the CLI: CMake compiles a target's sources in batches, each
# batch one translation unit that includes them. The headers every source of a layer repeats
# (CLI11, nlohmann/json, LibTorch's C++ frontend, which the PCH leaves out) and the templates they
# instantiate are then compiled once per batch instead of once per source. Measured on this
# 2-core machine (docs/development.md, "Build time"): nine CLI sources, 251 s one by one, 64 s as
# one unity source. -DPACER_UNITY=OFF builds source by source (what to use to find which source
# of a batch a compile error belongs to, although GCC's messages name the original file).
#
#   pacer_unity(pacer_tune)   # after add_library/add_executable
#
# Sources of one target share a translation unit, so two of them may not define the same name at
# namespace scope, not even in an anonymous namespace: such a clash is a compile error, and the
# fix is a more specific name.
option(PACER_UNITY "Compile each layer and the CLI as unity batches" ON)
set(PACER_UNITY_BATCH_SIZE 8 CACHE STRING "Sources per unity translation unit")

function(pacer_unity target)
  if(PACER_UNITY)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${PACER_UNITY_BATCH_SIZE})
  endif()
endfunction()
