#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test: the dev build (warnings are errors),
# then the same tests under AddressSanitizer and UndefinedBehaviorSanitizer (built -O1 -g1: line
# tables are all a sanitizer's stack trace needs, and they compile a quarter faster than -g).
# Exits non-zero on any failure. SERVESCOPE_SKIP_SANITIZERS=1 runs only the dev build.
source "$(dirname "$0")/common.sh"
cd "$SERVESCOPE_ROOT"

ensure_packages
start=$(date +%s)

echo "==> Building (dev preset) in build/dev"
build_preset dev
echo "==> Testing (dev preset)"
ctest --preset dev --parallel "$(nproc)"

if [ "${SERVESCOPE_SKIP_SANITIZERS:-0}" != "1" ]; then
  echo "==> Building (asan preset: AddressSanitizer + UBSan) in build/asan"
  build_preset asan
  echo "==> Testing (asan preset)"
  ctest --preset asan --parallel "$(nproc)"
fi

echo "==> All tests passed in $(( $(date +%s) - start )) s"
