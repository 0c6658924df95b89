#!/usr/bin/env bash
# Installs what is missing, builds, and opens the GUI on the built-in demo project. Without a
# display it prints the CLI demo instead. Extra arguments go to the GUI (e.g. a project file).
# It builds only what it runs, the GUI and the CLI, in the same tree as scripts/test.sh
# (build/dev, optimised with debug info), which builds the rest (tests, benchmarks, the LibTorch
# and CUDA helpers): running one after the other compiles nothing twice.
source "$(dirname "$0")/common.sh"
cd "$SERVESCOPE_ROOT"

ensure_packages
echo "==> Building the GUI and the CLI (dev preset) in build/dev"
build_targets dev servescope servescope-cli

bin="$SERVESCOPE_ROOT/build/dev/app"
echo "==> Binaries: $bin/servescope and $bin/servescope-cli (export PATH=\"$bin:\$PATH\" to call them by name)"
if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; then
  exec "$bin/servescope" "$@"
fi
echo "==> No display: the CLI demo (run with a display for the GUI)"
exec "$bin/servescope-cli" demo
