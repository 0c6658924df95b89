#!/usr/bin/env bash
# Installs what is missing, builds, and opens the GUI on the built-in demo project. Without a
# display it prints the CLI demo instead. Extra arguments go to the GUI (e.g. a project file).
source "$(dirname "$0")/common.sh"
cd "$SERVESCOPE_ROOT"

ensure_packages
echo "==> Building (release preset) in build/release"
build_preset release

bin="$SERVESCOPE_ROOT/build/release/app"
if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; then
  exec "$bin/servescope" "$@"
fi
echo "==> No display: the CLI demo (run with a display for the GUI)"
exec "$bin/servescope-cli" demo
