#!/usr/bin/env bash
# Packs what a GPU machine needs to build and run Pacer besides LibTorch, from THIS machine's
# Debian packages, into one git-ignored folder that the device tool carries with the working tree
# (`run` with carry: [".devcarry"]; at most 64 MiB): headers and static libraries of CLI11,
# nlohmann-json, SQLite, zlib and libseccomp under .devcarry/prefix (with the CMake configs of the
# two header-only ones, relocatable), and the data of the board's workloads under .devcarry/data
# (Fashion-MNIST's four files, the fortunes corpus). Nothing third-party is committed.
# The device side is tools/gpu/gpu_check.sh (it configures with CMAKE_PREFIX_PATH="<torch>;.devcarry/prefix"
# and PACER_WITH_POSTGRES=OFF, PACER_WITH_SERVE=OFF).
#
#   tools/gpu/pack_device_deps.sh [OUT=.devcarry]     (run here, with scripts/setup.sh's packages installed)
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-.devcarry}
multiarch=$(gcc -dumpmachine)
lib=/usr/lib/$multiarch
need() { for f in "$@"; do [ -e "$f" ] || { echo "pack_device_deps: $f is missing (run scripts/setup.sh)" >&2; exit 2; }; done; }
need /usr/include/CLI/CLI.hpp /usr/include/nlohmann/json.hpp /usr/include/sqlite3.h /usr/include/zlib.h \
     /usr/include/seccomp.h "$lib/libsqlite3.a" "$lib/libz.a" "$lib/libseccomp.a" \
     /usr/share/cmake/CLI11/CLI11Config.cmake /usr/share/cmake/nlohmann_json/nlohmann_jsonConfig.cmake \
     /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz /usr/share/games/fortunes

rm -rf "$out"
mkdir -p "$out/prefix/include" "$out/prefix/lib" "$out/prefix/share/cmake" "$out/data"
cp -r /usr/include/CLI /usr/include/nlohmann "$out/prefix/include/"
cp /usr/include/sqlite3.h /usr/include/sqlite3ext.h /usr/include/zlib.h /usr/include/zconf.h \
   /usr/include/seccomp.h /usr/include/seccomp-syscalls.h "$out/prefix/include/"
# Static libraries: the device's own libc and libstdc++ are newer than this machine's, so code
# built here links there; no shared library of this machine has to be found at run time.
cp "$lib/libsqlite3.a" "$lib/libz.a" "$lib/libseccomp.a" "$out/prefix/lib/"
# Their configs locate the prefix three folders up from themselves: relocatable as they are.
cp -r /usr/share/cmake/CLI11 /usr/share/cmake/nlohmann_json "$out/prefix/share/cmake/"
cp -r /usr/share/datasets/fashion-mnist "$out/data/fashion-mnist"
mkdir -p "$out/data/fortunes"
# The corpus' text files only (not the .dat indexes, not the links to the offensive ones).
find /usr/share/games/fortunes -maxdepth 1 -type f ! -name '*.dat' ! -name '*.u8' -exec cp {} "$out/data/fortunes/" \;
# What was packed, from which packages, for the device's log.
{
  echo "packed $(date -u +%Y-%m-%dT%H:%MZ) on $(. /etc/os-release && echo "$PRETTY_NAME") ($multiarch)"
  dpkg-query -W -f '${Package} ${Version}\n' libcli11-dev nlohmann-json3-dev libsqlite3-dev zlib1g-dev libseccomp-dev \
    dataset-fashion-mnist fortunes 2>/dev/null
} > "$out/MANIFEST"
size=$(du -sm "$out" | cut -f1)
echo "pack_device_deps: $out: ${size} MiB"
cat "$out/MANIFEST"
if [ "$size" -gt 64 ]; then echo "pack_device_deps: over the device tool's 64 MiB" >&2; exit 1; fi
