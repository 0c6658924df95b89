#!/usr/bin/env bash
# Makes the bundle that a lent GPU machine runs (BENCHMARKS.md "GPU execution"): the CUDA
# programs and their device tests, with every shared library they need that such a machine
# lacks, so that nothing has to be built or installed there. That machine has the NVIDIA driver,
# the CUDA toolkit's and PyTorch's cuBLAS, but no Debian development packages (no GLPK, OpenSSL,
# …) and no package registry.
#
#   scripts/gpu_bundle.sh [--from BUILD_DIR] [--torch] [OUT_DIR]
#
# BUILD_DIR (default build/dev, which scripts/run.sh and scripts/test.sh build) must have been
# configured with the CUDA toolkit; the three programs are built there if they are not yet.
# OUT_DIR (default gpu-bundle, ignored by git) is replaced. It holds:
#   bin/   servescope-cli, servescope-cuda, cuda_device_tests: debug sections stripped, RPATH
#          $ORIGIN/../lib (DT_RPATH, which the libraries' own dependencies are looked up by too)
#   lib/   the libraries they need but the C and C++ runtimes, the CUDA driver's and cuBLAS
#   env.sh sourced there: puts the machine's own cuBLAS on the library path, from
#          /usr/local/cuda or the PyTorch environment's nvidia-cublas wheel, and says which
#   reference/ gpu-let's RTX 2080 Ti interference coefficients, where ../shared/data has them
#   MANIFEST the commit, the programs and each library with where it came from
# --torch adds what building servescope-torch there against the image's CUDA LibTorch needs
# (bench/gpu/build_torch.sh; the sources travel with the working tree the device tool copies):
#   deps/  the headers of nlohmann-json, CLI11, GLPK, OpenSSL and zlib, the CMake packages of the
#          first two, and link names for the libraries in lib/ (GLPK, OpenSSL, zlib)
# Carry it with the device tool: `run` with carry ["gpu-bundle"], then
# bench/gpu/run_gpu_checks.sh gpu-bundle "$OUT".
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build/dev
torch_deps=0
while [ $# -gt 0 ]; do
  case "$1" in
    --from)
      build=$(cd "${2:?--from needs a build folder}" && pwd)
      shift 2
      ;;
    --torch)
      torch_deps=1
      shift
      ;;
    *) break ;;
  esac
done
out=${1:-$root/gpu-bundle}
programs=(app/servescope-cli app/servescope-cuda tests/cuda_device_tests) # where the build puts them
say() { echo "gpu_bundle: $*" >&2; }
fail() {
  say "error: $*"
  exit 1
}

for tool in patchelf objcopy readelf ldd; do
  command -v "$tool" >/dev/null || fail "$tool is missing (Debian packages patchelf, binutils, libc-bin)"
done
[ -f "$build/CMakeCache.txt" ] || fail "$build is no configured build folder (run scripts/run.sh or cmake --preset dev)"
grep -q '^build app/servescope-cuda:' "$build/build.ninja" 2>/dev/null ||
  fail "$build was configured without the CUDA toolkit: servescope-cuda is not built there (README \"GPU execution\")"
names=("${programs[@]##*/}")
cmake --build "$build" --target "${names[@]}" >&2 || fail "building ${names[*]} in $build failed"

rm -rf "$out"
mkdir -p "$out/bin" "$out/lib"
manifest=$out/MANIFEST
{
  echo "ServeScope GPU bundle, made $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -n)"
  echo "commit: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$root" diff --quiet 2>/dev/null || echo ' (with local changes)')"
  echo "from: $build"
} >"$manifest"

# What the machine brings: the C and C++ runtimes (backward compatible, and newer ones are there:
# its Python is 3.12, Ubuntu 24.04's, with GCC 14's libstdc++; a bundled older libstdc++ would
# be loaded first and could refuse cuBLAS the symbols it needs), the CUDA driver's libraries,
# and cuBLAS (env.sh finds it). Everything else comes along.
from_the_machine() {
  case "$1" in
    linux-vdso.so.* | ld-linux*.so.* | libc.so.* | libm.so.* | libpthread.so.* | libdl.so.* | librt.so.* | \
      libresolv.so.* | libutil.so.* | libstdc++.so.* | libgcc_s.so.*) return 0 ;;
    libcuda.so.* | libnvidia-*.so.* | libcublas.so.* | libcublasLt.so.*) return 0 ;;
  esac
  return 1
}


# cuBLAS is opened at run time (cudaexec/cublas_library.h) by the soname of the toolkit this
# build used, so ldd does not list it: its name comes from the library CMake found.
cublas_library=$(sed -n 's/^CUDA_cublas_LIBRARY:FILEPATH=//p' "$build/CMakeCache.txt" 2>/dev/null)
cublas=$(readelf -d "$cublas_library" 2>/dev/null | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
[ -n "$cublas" ] || fail "cannot tell cuBLAS's soname: $build/CMakeCache.txt has CUDA_cublas_LIBRARY=${cublas_library:-nothing}"

declare -A copied=()
bundle_libraries_of() {
  local file=$1 name path
  # ldd's "name => path (address)" lines; a "not found" here is a defect of this machine.
  while read -r name _ path _; do
    [ -n "$name" ] || continue
    from_the_machine "$name" && continue
    [ "$path" != "not" ] || fail "$file needs $name, which this machine does not have either"
    [ -z "${copied[$name]:-}" ] || continue
    copied[$name]=1
    cp -L "$path" "$out/lib/$name"
    chmod u+w "$out/lib/$name"
    patchelf --set-rpath '$ORIGIN' "$out/lib/$name"
    echo "lib/$name from $(readlink -f "$path")" >>"$manifest"
  done < <(ldd "$file" | awk '$2 == "=>" { print $1, $2, $3, $4 }')
}

for program in "${programs[@]}"; do
  src=$build/$program
  dst=$out/bin/${program##*/}
  objcopy --strip-debug "$src" "$dst"
  patchelf --force-rpath --set-rpath '$ORIGIN/../lib' "$dst"
  echo "bin/${program##*/} from $src ($(du -h "$dst" | cut -f1))" >>"$manifest"
  bundle_libraries_of "$src"
done
echo "from the machine: the C and C++ runtimes, the CUDA driver, $cublas (opened when a slot starts)" >>"$manifest"

# env.sh: sourced before the programs run there. cudart is linked in statically and the driver's
# libraries are on the loader's path wherever a driver is installed; cuBLAS is where the image put
# the toolkit or PyTorch's wheels.
cat >"$out/env.sh" <<EOF
# Sourced on the GPU machine (scripts/gpu_bundle.sh made it): puts cuBLAS on the library path.
# Says where it found it, or that it found none (the programs then stop naming what is missing).
servescope_bundle=\$(cd "\$(dirname "\${BASH_SOURCE[0]}")" && pwd)
servescope_cublas=
for servescope_dir in "\${SERVESCOPE_CUBLAS_DIR:-}" /usr/local/cuda/lib64 /usr/local/cuda/lib \\
    /usr/local/cuda/targets/x86_64-linux/lib \\
    \$(python3 -c 'import nvidia.cublas, os; print(os.path.join(list(nvidia.cublas.__path__)[0], "lib"))' 2>/dev/null) \\
    /opt/torch/.venv/lib/python3*/site-packages/nvidia/cu*/lib /opt/torch/.venv/lib/python3*/site-packages/nvidia/cublas/lib; do
  if [ -n "\$servescope_dir" ] && [ -e "\$servescope_dir/$cublas" ]; then
    servescope_cublas=\$servescope_dir
    break
  fi
done
if [ -n "\$servescope_cublas" ]; then
  export LD_LIBRARY_PATH="\$servescope_cublas\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
  echo "gpu bundle: $cublas from \$servescope_cublas" >&2
else
  echo "gpu bundle: no $cublas in /usr/local/cuda or the PyTorch environment" \\
    "(set SERVESCOPE_CUBLAS_DIR)" >&2
fi
export PATH="\$servescope_bundle/bin:\$PATH"
EOF

# What configuring and linking servescope-torch needs that the machine lacks, taken from the
# Debian packages this build used: the libraries' own copies in lib/ are what it links against.
if [ "$torch_deps" = 1 ]; then
  deps=$out/deps
  mkdir -p "$deps/include/openssl" "$deps/lib" "$deps/share/cmake"
  for header in nlohmann CLI glpk.h zlib.h zconf.h; do
    [ -e "/usr/include/$header" ] || fail "/usr/include/$header is missing (scripts/test.sh installs its package)"
    cp -r "/usr/include/$header" "$deps/include/"
  done
  cp -r /usr/include/openssl/. /usr/include/x86_64-linux-gnu/openssl/. "$deps/include/openssl/"
  # nlohmann-json's and CLI11's packages find their headers relative to themselves.
  for package in nlohmann_json CLI11; do
    [ -d "/usr/share/cmake/$package" ] || fail "/usr/share/cmake/$package is missing"
    cp -r "/usr/share/cmake/$package" "$deps/share/cmake/"
  done
  for link in glpk ssl crypto z; do
    so=
    for file in "$out/lib/lib$link.so."*; do
      [ -e "$file" ] && so=${file##*/} && break
    done
    [ -n "$so" ] || fail "lib/ has no lib$link.so.*: the programs no longer link it, and build_torch.sh still does"
    ln -s "../../lib/$so" "$deps/lib/lib$link.so"
  done
  echo "deps/ headers and CMake packages from /usr (nlohmann-json, CLI11, GLPK, OpenSSL, zlib); link names into lib/" >>"$manifest"
fi

# gpu-let's RTX 2080 Ti interference coefficients, for measure-interference to compare with: read
# from ../shared/data where it is beside the checkout (the device tool does not carry ../shared).
# The bundle is a build output, ignored by git: the reference data never enters the repository.
reference=$root/../shared/data/glet/resource/2080ti/INT_MODEL_CONSTANT.CSV
if [ -f "$reference" ]; then
  mkdir -p "$out/reference"
  cp "$reference" "$out/reference/"
  echo "reference/INT_MODEL_CONSTANT.CSV from $reference" >>"$manifest"
fi

size=$(du -sm "$out" | cut -f1)
echo "size: $size MiB" >>"$manifest"
[ "$size" -lt 60 ] || fail "the bundle is $size MiB: the device tool carries 64 MiB with the whole working tree"
say "wrote $out ($size MiB): $(ls "$out/bin" | tr '\n' ' ')and $(ls "$out/lib" | wc -l) libraries"
