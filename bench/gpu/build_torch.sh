#!/usr/bin/env bash
# Builds servescope-torch on a lent GPU machine against the image's CUDA LibTorch (the PyTorch
# wheel's own headers and CMake package), from the working tree the device tool copied there and
# the bundle's deps/ (scripts/gpu_bundle.sh --torch): that machine has CMake, ninja, a compiler
# and nvcc, but none of the Debian development packages the project builds with.
#
#   bench/gpu/build_torch.sh BUNDLE BUILD_DIR
#
# SERVESCOPE_BUILD_JOBS sets the compile jobs (default: one per core). SERVESCOPE_TORCH_PREFIX overrides where LibTorch's CMake package is looked for (default:
# `python3 -c 'import torch; print(torch.utils.cmake_prefix_path)'`). Prints the program's path
# on success; exits 1 naming the step that failed, with the log of that step on stderr.
set -euo pipefail
bundle=$(cd "${1:?usage: build_torch.sh BUNDLE BUILD_DIR}" && pwd)
build=${2:?usage: build_torch.sh BUNDLE BUILD_DIR}
root=$(cd "$(dirname "$0")/../.." && pwd)
say() { echo "build_torch: $*" >&2; }
fail() {
  say "error: $*"
  exit 1
}

[ -d "$bundle/deps" ] || fail "$bundle has no deps/: make it with scripts/gpu_bundle.sh --torch"
prefix=${SERVESCOPE_TORCH_PREFIX:-}
if [ -z "$prefix" ]; then
  prefix=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)' 2>&1) ||
    fail "python3 cannot import torch to find LibTorch's CMake package: $prefix"
fi
[ -d "$prefix" ] || fail "LibTorch's CMake package folder $prefix does not exist"
say "LibTorch from $prefix"

mkdir -p "$build"
log=$build/configure.log
# Release, the programs only, in unity batches of 8 (about 60 units for that machine's 16 cores);
# the CUDA kernels of servescope-cuda are not needed here (LibTorch brings its own). The deps'
# link names point into the bundle's lib/, whose libraries find each other through their $ORIGIN
# RPATH, which the link step is told of with -rpath-link.
if ! cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF \
  -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=8 \
  -DSERVESCOPE_BUILD_GUI=OFF -DSERVESCOPE_BUILD_BENCHMARKS=OFF -DSERVESCOPE_CUDA=OFF \
  -DCMAKE_PREFIX_PATH="$prefix;$bundle/deps" -DOPENSSL_ROOT_DIR="$bundle/deps" -DZLIB_ROOT="$bundle/deps" \
  -DCMAKE_EXE_LINKER_FLAGS="-Wl,-rpath-link,$bundle/lib" -DCMAKE_BUILD_RPATH="$bundle/lib" >"$log" 2>&1; then
  cat "$log" >&2
  fail "configuring failed (log above, and in $log)"
fi
grep -q '^build app/servescope-torch:' "$build/build.ninja" || {
  cat "$log" >&2
  fail "CMake did not find LibTorch in $prefix (log above): no servescope-torch to build"
}
log=$build/build.log
if ! cmake --build "$build" --target servescope-torch --parallel "${SERVESCOPE_BUILD_JOBS:-$(nproc)}" >"$log" 2>&1; then
  tail -60 "$log" >&2
  fail "building servescope-torch failed (the end of the log above; all of it in $log)"
fi
echo "$build/app/servescope-torch"
