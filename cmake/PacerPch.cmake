# Precompiled headers for the targets that use LibTorch. ATen's headers cost about 8 s of every
# translation unit that includes them (62 of Pacer's sources, tests and benchmarks); a PCH parses
# them once per build. GCC accepts a PCH only when it was built with the same code-generation
# flags (-fPIC for the static layers, the default PIE for executables, the sanitizers, the build
# type's -O), so each kind has one donor target whose PCH the others reuse (REUSE_FROM). Clang also
# refuses a PCH built with another default visibility (-fvisibility=hidden, the layers' and the
# executables'), where gcc says nothing: pacer_use_torch_pch checks it at configure time, since
# only CI's clang builds would otherwise find out.
# -DPACER_PCH=OFF builds without them (docs/development.md has the measured difference).
option(PACER_PCH "Precompile LibTorch's headers once per build" ON)

if(PACER_PCH)
  # VISIBILITY: hidden or default (the CXX_VISIBILITY_PRESET of the targets that reuse it).
  function(pacer_pch_donor name header pic visibility)
    add_library(${name} OBJECT ${CMAKE_SOURCE_DIR}/cmake/pch/pch_donor.cpp)
    target_link_libraries(${name} PRIVATE torch ${ARGN})
    target_compile_options(${name} PRIVATE -Wall -Wextra)
    set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ${pic})
    if(visibility STREQUAL "hidden")
      set_target_properties(${name} PROPERTIES CXX_VISIBILITY_PRESET hidden)
    endif()
    target_precompile_headers(${name} PRIVATE ${CMAKE_SOURCE_DIR}/cmake/pch/${header})
  endfunction()
  pacer_pch_donor(pacer_pch_layers torch_pch.h ON hidden)
  pacer_pch_donor(pacer_pch_executables torch_pch.h OFF hidden)
endif()

# pacer_use_torch_pch(TARGET [DONOR]): TARGET compiles with the donor's PCH (default: the layers'
# for libraries, the executables' for executables).
function(pacer_use_torch_pch target)
  if(NOT PACER_PCH)
    return()
  endif()
  # ARGV1 only when given: a function called from another function sees the caller's ARGVn.
  set(donor "")
  if(ARGC GREATER 1)
    set(donor ${ARGV1})
  endif()
  if(NOT donor)
    get_target_property(type ${target} TYPE)
    if(type STREQUAL "EXECUTABLE")
      set(donor pacer_pch_executables)
    else()
      set(donor pacer_pch_layers)
    endif()
  endif()
  # Visibility set after this call would escape the check: set it before.
  get_target_property(wanted ${target} CXX_VISIBILITY_PRESET)
  get_target_property(given ${donor} CXX_VISIBILITY_PRESET)
  if(NOT wanted)
    set(wanted default)
  endif()
  if(NOT given)
    set(given default)
  endif()
  if(NOT wanted STREQUAL given)
    message(FATAL_ERROR "pacer_use_torch_pch(${target}): ${target} compiles with ${wanted} visibility "
                        "but ${donor}'s precompiled header with ${given}; clang refuses the mix "
                        "(set CXX_VISIBILITY_PRESET before this call, or use another donor)")
  endif()
  target_precompile_headers(${target} REUSE_FROM ${donor})
endfunction()
