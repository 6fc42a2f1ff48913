# The Python bridge (src/python_bridge, docs/python_submissions.md): AlgoPerf submissions written in
# Python run inside pacer through embedded Python and torch's own Python bindings. It must be
# built against the Python whose `torch` is the LibTorch Pacer links (Debian: /usr/bin/python3 with
# python3-torch; a LibTorch from a pip `torch` package: that package's Python). Without Python's
# development files, pybind11 or libtorch_python the bridge is left out with a message, and
# `-a submission.py` says what to install.
option(PACER_PYTHON "Build the Python bridge for AlgoPerf submissions written in Python" ON)

# The interpreter: the first of these whose torch has this LibTorch's major.minor version. A
# python3 earlier on PATH (pyenv, a venv) usually has no torch, or another one.
if(NOT Python3_EXECUTABLE)
  string(REGEX MATCH "^[0-9]+\\.[0-9]+" pacer_torch_mm "${Torch_VERSION}")
  foreach(candidate /usr/bin/python3 python3)
    find_program(pacer_python_candidate NAMES ${candidate} NO_CACHE)
    if(pacer_python_candidate)
      execute_process(COMMAND ${pacer_python_candidate} -c "import torch; print(torch.__version__)"
                      OUTPUT_VARIABLE pacer_py_torch OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
      if(rc EQUAL 0 AND pacer_py_torch MATCHES "^${pacer_torch_mm}")
        set(Python3_EXECUTABLE ${pacer_python_candidate} CACHE FILEPATH "Python whose torch matches LibTorch")
        break()
      endif()
    endif()
    unset(pacer_python_candidate)
  endforeach()
endif()

set(PACER_PYTHON_BRIDGE_BUILT OFF)
if(PACER_PYTHON)
  find_package(Python3 COMPONENTS Interpreter Development.Embed)
  find_library(PACER_TORCH_PYTHON_LIBRARY torch_python HINTS "${TORCH_INSTALL_PREFIX}/lib")
  # pybind11: the copy a pip `torch` ships in its include folder (the one torch._C itself was
  # built with; Debian's pybind11-dev, seen by any build here, is another version), else Debian's.
  set(pacer_torch_pybind11 OFF)
  if(NOT TORCH_INSTALL_PREFIX STREQUAL "/usr" AND EXISTS "${TORCH_INSTALL_PREFIX}/include/pybind11/embed.h")
    set(pacer_torch_pybind11 ON)
  else()
    find_package(pybind11 CONFIG QUIET)
  endif()
  set(PACER_PYBIND11_EMBED pybind11::embed)
  if((pacer_torch_pybind11 OR NOT pybind11_FOUND) AND Python3_Development.Embed_FOUND AND EXISTS "${TORCH_INSTALL_PREFIX}/include/pybind11/embed.h")
    add_library(pacer_pybind11_embed INTERFACE)
    target_include_directories(pacer_pybind11_embed INTERFACE "${TORCH_INSTALL_PREFIX}/include")
    target_link_libraries(pacer_pybind11_embed INTERFACE Python3::Python)
    set(PACER_PYBIND11_EMBED pacer_pybind11_embed)
    set(pybind11_FOUND ON)
  endif()
  set(missing "")
  if(NOT Python3_Development.Embed_FOUND)
    list(APPEND missing "Python's development files (python3-dev)")
  endif()
  if(NOT pybind11_FOUND)
    list(APPEND missing "pybind11 (pybind11-dev)")
  endif()
  if(NOT PACER_TORCH_PYTHON_LIBRARY)
    list(APPEND missing "libtorch_python")
  endif()
  if(missing)
    list(JOIN missing ", " missing)
    message(STATUS "pacer: the Python bridge is not built (missing ${missing}); ./scripts/setup.sh installs them")
  else()
    set(PACER_PYTHON_BRIDGE_BUILT ON)
    message(STATUS "pacer: Python bridge with ${Python3_EXECUTABLE} (${Python3_VERSION}), ${PACER_TORCH_PYTHON_LIBRARY}")
  endif()
endif()
