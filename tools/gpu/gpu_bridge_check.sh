#!/usr/bin/env bash
# GPU-machine check: the Python bridge built against LibTorch 2.x from the machine's pip
# `torch`, with that torch's Python, by cmake/PacerPython.cmake's own selection; then the examples
# and the glue under that torch. The GPU machines have torch, pybind11, CMake and ninja but not
# the rest of Pacer's Debian dependencies, so only the bridge is built (its references to Pacer
# stay undefined, as in the real build, where the pacer executable provides them).
# nlohmann/json.hpp travels beside it: NLOHMANN_INCLUDE (default .devcarry/, holding nlohmann/).
#   tools/gpu/gpu_bridge_check.sh     (run in the repository root on the GPU machine)
set -uo pipefail
SRC=$PWD
mkdir -p /tmp/bc && cd /tmp/bc
PY=$(command -v python3)
echo "python3: $PY"; $PY -c "import torch, sys; print('torch', torch.__version__, 'python', sys.version.split()[0], 'cuda', torch.cuda.is_available())"
TORCH_DIR=$($PY -c "import torch; print(torch.utils.cmake_prefix_path)")
cat > CMakeLists.txt <<CMAKE
cmake_minimum_required(VERSION 3.25)
project(bridgecheck CXX)
set(CMAKE_CXX_STANDARD 17)
find_package(Torch REQUIRED)
include($SRC/cmake/PacerPython.cmake)
if(NOT PACER_PYTHON_BRIDGE_BUILT)
  message(FATAL_ERROR "bridge not buildable here")
endif()
add_library(pacer_python_bridge MODULE $SRC/src/python_bridge/python_bridge.cpp $SRC/src/python_bridge/python_submission.cpp $SRC/src/python_bridge/python_binding.cpp)
target_include_directories(pacer_python_bridge PRIVATE $SRC/src ${NLOHMANN_INCLUDE:-$SRC/.devcarry})
target_link_libraries(pacer_python_bridge PRIVATE torch \${PACER_TORCH_PYTHON_LIBRARY} \${PACER_PYBIND11_EMBED})
target_compile_definitions(pacer_python_bridge PRIVATE PACER_PYTHON_SOURCE_DIR="$SRC/python")
set_target_properties(pacer_python_bridge PROPERTIES CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
CMAKE
export CUDACXX=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
cmake -S . -B b -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$TORCH_DIR" 2>&1 | grep -v "^-- Looking\|^-- Performing\|^-- Check" | tail -25
time cmake --build b -j 16 2>&1 | tail -30
ls -la b/*.so 2>&1
echo "== undefined symbols of the bridge outside torch/python/std (must be Pacer's own):"
nm -D -u --demangle b/libpacer_python.so 2>/dev/null | grep "pacer::" | head -20
echo "== the examples under plain PyTorch ($($PY -c 'import torch; print(torch.__version__)')), CPU:"
cd $SRC
for w in fmnist_mlp; do
  echo '{"learning_rate": 0.005, "one_minus_beta1": 0.1, "beta2": 0.999, "weight_decay": 0.01, "warmup_factor": 0.05, "label_smoothing": 0.1, "dropout_rate": 0.1}' > /tmp/p.json
  $PY bench/speed/python_submission_peer.py --submission examples/python_submission/nadamw --workload $w --hparams /tmp/p.json --steps 50 --threads 4
done
$PY - <<'PY'
import sys; sys.path.insert(0, "python")
import _pacer_submission as g, torch
from algoperf import random_utils, spec, pytorch_utils
print("glue imports with torch", torch.__version__, "; rng", g.make_rng(2**40 + 5), "; setup", pytorch_utils.pytorch_setup())
data = g.save_state({"x": torch.ones(2), "n": 3})
print("state round trip:", g.load_state({"x": None, "n": 0}, data))
PY
