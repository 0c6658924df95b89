#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test: the dev build (warnings are errors),
# then the tests of the Qt-free layers and the CLI under AddressSanitizer and
# UndefinedBehaviorSanitizer (the GUI's QTest suites run in the dev build only; README "Quick
# start"). Both trees are built with line tables only (-g1): they are all a stack trace needs,
# and they compile a fifth to a quarter faster than -g.
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
  echo "==> Building (asan preset: AddressSanitizer + UBSan, no GUI) in build/asan"
  build_preset asan
  echo "==> Testing (asan preset)"
  ctest --preset asan --parallel "$(nproc)"
fi

echo "==> All tests passed in $(( $(date +%s) - start )) s"
