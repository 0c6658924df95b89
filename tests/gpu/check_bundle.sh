#!/usr/bin/env bash
# ctest gpu.bundle: scripts/gpu_bundle.sh's bundle, made from this build tree, is what a lent GPU
# machine can run without a package: each program starts in a bare environment (with the
# bundle's env.sh, which finds cuBLAS), and the loader resolves every library it needs either in
# the bundle or among what that machine brings (the C and C++ runtimes, the CUDA driver, cuBLAS).
# With --torch, deps/ holds the headers and link names building servescope-torch there needs.
#   tests/gpu/check_bundle.sh BUILD_DIR
set -euo pipefail
build=${1:?usage: check_bundle.sh BUILD_DIR}
root=$(cd "$(dirname "$0")/../.." && pwd)
command -v patchelf >/dev/null || { echo "SKIP: patchelf is missing (Debian package patchelf)"; exit 77; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
bundle=$out/gpu-bundle
"$root/scripts/gpu_bundle.sh" --from "$build" --torch "$bundle"
cat "$bundle/MANIFEST"
failures=0
problem() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# Started with nothing from this shell: no PATH, no LD_LIBRARY_PATH.
bare() { env -i HOME="$out" bash -c ". '$bundle/env.sh' 2>/dev/null; $1"; }
for check in "servescope-cli --version" "servescope-cuda --version" "cuda_device_tests --gtest_list_tests"; do
  said=$(bare "$check" 2>&1) || problem "'$check' in a bare environment: $said"
done

# The programs open cuBLAS when a slot starts (cudaexec/cublas_library.h): env.sh must find it
# where the toolkit this tree was built with put it.
said=$(env -i HOME="$out" bash -c ". '$bundle/env.sh'" 2>&1)
[[ "$said" == "gpu bundle: libcublas.so."*" from /"* ]] || problem "env.sh found no cuBLAS here: $said"

machine='^(linux-vdso|ld-linux|libc|libm|libpthread|libdl|librt|libresolv|libutil|libstdc\+\+|libgcc_s|libcuda|libnvidia-[a-z-]*|libcublas|libcublasLt)\.so'
for program in "$bundle"/bin/*; do
  while read -r name arrow path _; do
    [ "$arrow" = "=>" ] || continue
    if [[ "$name" =~ $machine ]]; then
      continue
    elif [ "$path" = "not" ]; then
      problem "$(basename "$program") needs $name, which the bundle lacks"
    elif [[ "$(readlink -f "$path")" != "$bundle/lib/"* ]]; then
      problem "$(basename "$program") loads $name from $path, not from the bundle"
    fi
  done < <(bare "ldd '$program'")
done
for lib in "$bundle"/lib/*; do
  [ "$(patchelf --print-rpath "$lib")" = '$ORIGIN' ] || problem "$(basename "$lib")'s RPATH is not \$ORIGIN"
done

# --torch: what bench/gpu/build_torch.sh configures and links servescope-torch with there.
for file in include/nlohmann/json.hpp include/CLI/CLI.hpp include/glpk.h include/openssl/ssl.h \
  include/openssl/opensslconf.h include/zlib.h share/cmake/nlohmann_json/nlohmann_jsonConfig.cmake \
  share/cmake/CLI11/CLI11Config.cmake; do
  [ -s "$bundle/deps/$file" ] || problem "deps/$file is missing"
done
for link in glpk ssl crypto z; do
  target=$(readlink -e "$bundle/deps/lib/lib$link.so") || problem "deps/lib/lib$link.so leads nowhere"
  [[ "${target:-}" == "$bundle/lib/"* ]] || problem "deps/lib/lib$link.so is not one of the bundle's libraries"
done

size=$(du -sm "$bundle" | cut -f1)
[ "$size" -lt 60 ] || problem "the bundle is $size MiB; the device tool carries 64 MiB in all"
[ "$failures" -eq 0 ] || exit 1
echo "bundle: $size MiB, every program starts bare and loads nothing from this machine but its runtimes"
