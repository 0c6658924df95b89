#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test: the dev build (warnings are errors),
# then the tests of the Qt-free layers and the CLI under AddressSanitizer and
# UndefinedBehaviorSanitizer (which tests run where: README "Quick start"), whose tree builds
# beside the dev build and tests. Both trees are built in unity batches with line tables only (-g1);
# BENCHMARKS.md "Build and test time" has what each step takes on the CI machine type. Prints
# each step's time, and exits non-zero on any failure.
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

# Dev: four times as many tests as cores, as most of the GUI, CLI, live and torch tests wait on
# files, sockets and processes (on 2 cores, 2026-11-29: 152 s at -j4, 135 s at -j6, 126 s at
# -j8 with the CPU idle 17 s of 252). Sanitizers: twice as many as cores. A test that starts a
# deployment starts first (tests/CMakeLists.txt, PROCESSES): run last, each ran nearly alone,
# its daemons waiting on each other while a core idled.
dev_jobs=$((4 * $(nproc)))
asan_jobs=$((2 * $(nproc)))

# The sanitizer tree builds from the start, beside the dev build and then the dev tests, at the
# lowest priority: it takes the CPU that they leave idle (the dev build waits on moc, libraries
# and links about a seventh of its time; the tests wait on processes and files about a fifth),
# and gives it back whenever they want it. Its own session and process group, so that a failed
# dev step stops it too; a new session is a new scheduler autogroup on Linux, whose niceness is
# what counts against the rest (its processes' own `nice` counts only among themselves).
asan_build=""
stop_asan_build() { [ -z "$asan_build" ] || kill -- "-$asan_build" 2>/dev/null || true; }
trap stop_asan_build EXIT
if [ "${SERVESCOPE_SKIP_SANITIZERS:-0}" != "1" ]; then
  mkdir -p build
  echo "==> Building (asan preset: AddressSanitizer + UBSan, no GUI) in build/asan, beside the dev" \
    "build and tests at the lowest priority (log: build/asan-build.log)"
  setsid nice -n 19 bash -c '{ echo 19 >/proc/self/autogroup; } 2>/dev/null
    cmake --preset asan >/dev/null && cmake --build --preset asan --parallel "$(nproc)"' \
    >build/asan-build.log 2>&1 &
  asan_build=$!
fi

echo "==> Building (dev preset) in build/dev"
build_preset dev
step_done "dev build"

echo "==> Testing (dev preset)"
ctest --preset dev --parallel "$dev_jobs"
step_done "dev tests"

if [ -n "$asan_build" ]; then
  echo "==> Waiting for the asan build"
  status=0
  wait "$asan_build" || status=$?
  asan_build=""
  cat build/asan-build.log
  if [ "$status" -ne 0 ]; then
    echo "error: the asan build failed (exit $status; log above and in build/asan-build.log)" >&2
    exit 1
  fi
  step_done "asan build (what was left after the dev tests)"
  echo "==> Testing (asan preset)"
  ctest --preset asan --parallel "$asan_jobs"
  step_done "asan tests"
fi

echo "==> All tests passed in $(($(date +%s) - start)) s"
