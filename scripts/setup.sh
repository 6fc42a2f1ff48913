#!/usr/bin/env bash
# Installs every build, test and data dependency from Debian packages. Idempotent: packages already
# present are not fetched again, so `make run` / `make test` can call it every time.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  libtorch-dev libopenblas0-pthread libopenblas-dev libgloo-dev
  nlohmann-json3-dev libcli11-dev
  libsqlite3-dev sqlite3 zlib1g-dev
  libpqxx-dev postgresql  # the PostgreSQL study store; its tests start a server of their own
  libcpp-httplib-dev  # pacer serve's HTTP server
  libseccomp-dev  # a contained cpu-clock trial refuses child processes
  googletest libgtest-dev libgmock-dev libbenchmark-dev
  dataset-fashion-mnist fortunes  # fortunes: the English corpus of fortunes_lm
  python3 python3-torch python3-numpy
  python3-venv  # make test TORCH=pip: the pip torch's environment (scripts/setup_torch_pip.sh)
  python3-dev pybind11-dev  # the Python bridge: AlgoPerf submissions in Python (docs/python_submissions.md)
  python3-absl  # AlgoPerf's own submissions import absl.logging
  chromium  # headless check of `pacer report` HTML (tests/report_test.cpp)
  abigail-tools  # the SDK's ABI check (CTest SdkAbi: abidw)
)

# `make fuzz` and `make sanitize` also need clang (and libFuzzer's runtime): ./scripts/setup.sh --fuzz
if [ "${1:-}" = "--fuzz" ]; then
  packages+=(clang libclang-rt-14-dev lld)  # lld: links the sanitizer builds in half GNU ld's time
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup: all packages present"
fi

# OpenBLAS must be the BLAS LibTorch links against (about 11x faster than the reference BLAS on a
# small MLP step). Select it through the alternatives system when both are installed.
arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
for lib in libblas.so.3 liblapack.so.3; do
  alt="${lib}-${arch}"
  target=$(update-alternatives --list "$alt" 2>/dev/null | grep openblas | head -n 1 || true)
  if [ -n "$target" ] && [ "$(readlink -f /etc/alternatives/$alt 2>/dev/null)" != "$(readlink -f "$target")" ]; then
    $SUDO update-alternatives --set "$alt" "$target" >/dev/null
    echo "setup: $alt -> $target"
  fi
done
