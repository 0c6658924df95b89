# Sourced by scripts/run.sh and scripts/test.sh: installs the Debian packages ServeScope needs,
# when they are missing, and knows where the source tree is.
set -euo pipefail

SERVESCOPE_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export SERVESCOPE_ROOT

# Everything comes from Debian bookworm, in two sets: what building the GUI and the CLI needs
# (scripts/run.sh), and what only the tests and the other programs need (scripts/test.sh adds
# them; on a fresh machine they are most of the download, LibTorch alone several hundred MB).
# mold links the fifty-odd executables several times faster than GNU ld
# (cmake/ServeScopeWarnings.cmake). fonts-dejavu-core gives the GUI text to render, offscreen
# too. zlib and OpenSSL's libcrypto (deflate and base64) pack the timelines a project keeps;
# libssl is the live deployment's TLS. GoogleTest, Google Benchmark and python3 are there because
# configuring the tree needs them; qt6-qpa-plugins holds the xcb platform the window opens on.
SERVESCOPE_PACKAGES=(
  cmake ninja-build g++ pkg-config ccache mold python3
  qt6-base-dev qt6-base-dev-tools qt6-charts-dev qt6-svg-dev libqt6opengl6-dev libgl-dev qt6-qpa-plugins
  libglpk-dev nlohmann-json3-dev libcli11-dev libgtest-dev libbenchmark-dev zlib1g-dev libssl-dev
  fonts-dejavu-core
)
# clang-format checks the code's layout (ctest format.clang_format). LibTorch and PyTorch with
# torchvision (CPU builds) run real models: scripts/export_model.py and torchexec/. LibTorch calls
# the system BLAS, which is Debian's reference one unless OpenBLAS is installed: with it a batch-1
# ResNet-18 block runs 8x faster (43 ms -> 5 ms for the whole model at 32x32). help2man writes the
# man pages from the programs' --help; lintian, appstreamcli and desktop-file-validate check the
# Debian package, the AppStream file and the launcher (ctest packaging.*). xvfb and xauth run GUI
# tests in a real window (xvfb-run); ffmpeg writes playback videos and ffprobe counts their frames
# in the tests. iproute2 makes the network namespaces the live tests across hosts run in, and
# systemd's systemd-analyze checks the packaged units (ctest packaging.lintian). patchelf points
# the GPU bundle's programs at the libraries they carry (scripts/gpu_bundle.sh, ctest gpu.bundle).
SERVESCOPE_TEST_PACKAGES=(
  clang-format
  libtorch-dev python3-torch python3-torchvision libopenblas0-pthread
  help2man lintian appstream desktop-file-utils
  xvfb xauth ffmpeg
  iproute2 systemd patchelf
)

missing_packages() {
  local missing=()
  for p in "${SERVESCOPE_PACKAGES[@]}" "$@"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
      missing+=("$p")
    fi
  done
  echo "${missing[@]:-}"
}

ensure_packages() {
  local missing
  missing=$(missing_packages "$@")
  [ -z "$missing" ] && return 0
  echo "==> Installing missing packages: $missing"
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
      sudo=(sudo)
    else
      echo "error: need root or sudo to install: $missing" >&2
      exit 1
    fi
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -qq
  # shellcheck disable=SC2086
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends $missing
}

# ccache's depend mode: on a miss it reads the compiler's own dependency file (-MD, which Ninja
# asks for) instead of running the preprocessor once more per unit, which a clean clone's
# first build (CI's) pays for every unit.
export CCACHE_DEPEND=${CCACHE_DEPEND:-1}

# Configure and build one CMake preset.
build_preset() {
  local preset=$1
  shift
  cmake --preset "$preset" -S "$SERVESCOPE_ROOT" "$@" >/dev/null
  cmake --build --preset "$preset" --parallel "$(nproc)"
}

# Configure one CMake preset and build only the named targets.
build_targets() {
  local preset=$1
  shift
  cmake --preset "$preset" -S "$SERVESCOPE_ROOT" >/dev/null
  cmake --build --preset "$preset" --parallel "$(nproc)" --target "$@"
}
