# Which linker links Pacer's executables. A build links about 90 of them (the tests, the
# benchmarks, pacer), each against LibTorch and every static layer: GNU ld (bfd) spends 3.7 s on
# one Release test executable and 6.7 s under ASan, gold and lld about 1.5 s and 3 s
# (docs/development.md, "Build time"). `auto` takes lld where it is installed (setup.sh --fuzz
# installs it with clang), else gold (in binutils, so always there with build-essential), else the
# compiler's default. lld rather than gold under ASan: gold cannot export ASan's local check
# symbols and warns about each of them.
set(PACER_LINKER "auto" CACHE STRING "Linker for executables and modules: auto, lld, gold, bfd or default")
set_property(CACHE PACER_LINKER PROPERTY STRINGS auto lld gold bfd default)

include(CheckLinkerFlag)
function(pacer_linker_works name result)
  check_linker_flag(CXX "-fuse-ld=${name}" ${result})
  set(${result} ${${result}} PARENT_SCOPE)
endfunction()

set(pacer_chosen_linker "")
if(PACER_LINKER STREQUAL "auto")
  foreach(candidate lld gold)
    pacer_linker_works(${candidate} PACER_LINKER_${candidate}_WORKS)
    if(PACER_LINKER_${candidate}_WORKS)
      set(pacer_chosen_linker ${candidate})
      break()
    endif()
  endforeach()
elseif(NOT PACER_LINKER STREQUAL "default")
  pacer_linker_works(${PACER_LINKER} PACER_LINKER_${PACER_LINKER}_WORKS)
  if(NOT PACER_LINKER_${PACER_LINKER}_WORKS)
    message(FATAL_ERROR "PACER_LINKER=${PACER_LINKER}: the compiler cannot link with -fuse-ld=${PACER_LINKER}")
  endif()
  set(pacer_chosen_linker ${PACER_LINKER})
endif()
if(pacer_chosen_linker)
  add_link_options(-fuse-ld=${pacer_chosen_linker})
  message(STATUS "Pacer: linking with ${pacer_chosen_linker} (PACER_LINKER=${PACER_LINKER})")
else()
  message(STATUS "Pacer: linking with the compiler's default linker (PACER_LINKER=${PACER_LINKER})")
endif()
