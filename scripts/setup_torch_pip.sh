#!/usr/bin/env bash
# Installs a pip PyTorch, every version pinned in scripts/torch-pip/<version>.txt, into the
# project-local virtual environment .venv/torch-<version> (made from Debian's /usr/bin/python3, so
# the Python bridge embeds that Python with this torch). Idempotent: an environment that already
# holds exactly the pinned set is left alone. Debian's packages (scripts/setup.sh) come first: the
# build takes everything but LibTorch and pybind11 from them.
#
#   ./scripts/setup_torch_pip.sh 2.15.0     (make test TORCH=pip calls it)
#   .venv/torch-2.15.0/bin/python -c 'import torch; print(torch.utils.cmake_prefix_path)'
set -euo pipefail
cd "$(dirname "$0")/.."
version=${1:-2.15.0}
pins=scripts/torch-pip/$version.txt
if [ ! -f "$pins" ]; then
  echo "setup: no pinned set for torch $version ($pins); pinned: $(ls scripts/torch-pip | sed 's/\.txt$//' | tr '\n' ' ')" >&2
  exit 2
fi
venv=.venv/torch-$version
stamp=$venv/pacer-pins.txt
if [ -f "$stamp" ] && cmp -s "$stamp" "$pins" && "$venv/bin/python" -c "import torch" 2>/dev/null; then
  echo "setup: $venv holds the pinned torch $version"
  exit 0
fi
echo "setup: installing torch $version and its pinned dependencies into $venv (about 3 GB the first time)"
/usr/bin/python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$pins"
got=$("$venv/bin/python" -c "import torch; print(torch.__version__.split('+')[0])")
if [ "$got" != "$version" ]; then
  echo "setup: $venv has torch $got, not $version" >&2
  exit 1
fi
cp "$pins" "$stamp"
# The CUDA build's CMake config needs a CUDA toolkit (nvcc) to configure; without one a GPU-less
# machine can still build against a CPU wheel (docs/development.md).
if ! command -v nvcc >/dev/null && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "setup: warning: no CUDA toolkit (nvcc); torch $version's CMake config will ask for one" >&2
fi
