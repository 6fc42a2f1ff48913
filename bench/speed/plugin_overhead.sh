#!/usr/bin/env bash
# Plugin overhead: builds the example plugin out of tree against the build tree's SDK package,
# then runs bench_plugin_overhead (the plugin against the same source compiled in, one process,
# alternating rounds). Builds nothing of Pacer itself: build it first.
#
#   bench/speed/plugin_overhead.sh [BUILD_DIR=build] [OUT_DIR=runs/bench]
#   env: STEPS (300), ROUNDS (5), THREADS (1)
set -euo pipefail
BUILD_DIR=$(cd "${1:-build}" && pwd)
OUT_DIR=${2:-runs/bench}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BENCH=$BUILD_DIR/bench/bench_plugin_overhead
[[ -x $BENCH ]] || { echo "plugin_overhead.sh: $BENCH not found; build it first" >&2; exit 2; }
mkdir -p "$OUT_DIR"
PLUGIN_BUILD=$(mktemp -d)
trap 'rm -rf "$PLUGIN_BUILD"' EXIT
cmake -S "$HERE/../../examples/algorithm_plugin" -B "$PLUGIN_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$BUILD_DIR" >/dev/null
cmake --build "$PLUGIN_BUILD" >/dev/null
"$BENCH" "$PLUGIN_BUILD/libsignum.so" "$OUT_DIR/plugin_overhead.json" "${STEPS:-300}" "${ROUNDS:-5}" "${THREADS:-1}"
