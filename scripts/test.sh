#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test: the dev build (warnings are errors),
# then the tests of the Qt-free layers and the CLI under AddressSanitizer and
# UndefinedBehaviorSanitizer (which tests run where: README "Quick start"). Both trees are built
# with line tables only (-g1); BENCHMARKS.md "Build and test time" has what each step
# takes on the CI machine type. Prints each step's time, and exits non-zero on any failure.
# SERVESCOPE_SKIP_SANITIZERS=1 runs only the dev build.
source "$(dirname "$0")/common.sh"
cd "$SERVESCOPE_ROOT"

ensure_packages "${SERVESCOPE_TEST_PACKAGES[@]}"
start=$(date +%s)
step_start=$start
step_done() {
  local now
  now=$(date +%s)
  echo "==> $1 took $((now - step_start)) s"
  step_start=$now
}

# Dev: twice as many tests as cores, as most of the GUI, CLI and torch tests wait on files and
# processes. Sanitizers: as many as cores. A test that starts a deployment takes two of these
# slots (tests/CMakeLists.txt, PROCESSES).
dev_jobs=$((2 * $(nproc)))
asan_jobs=$(nproc)

echo "==> Building (dev preset) in build/dev"
build_preset dev
step_done "dev build"
echo "==> Testing (dev preset)"
ctest --preset dev --parallel "$dev_jobs"
step_done "dev tests"

if [ "${SERVESCOPE_SKIP_SANITIZERS:-0}" != "1" ]; then
  echo "==> Building (asan preset: AddressSanitizer + UBSan, no GUI) in build/asan"
  build_preset asan
  step_done "asan build"
  echo "==> Testing (asan preset)"
  ctest --preset asan --parallel "$asan_jobs"
  step_done "asan tests"
fi

echo "==> All tests passed in $(($(date +%s) - start)) s"
