#!/usr/bin/env bash
# Regenerates docs/screenshots/ from the scripted GUI sessions (offscreen; needs a dev build).
set -euo pipefail
cd "$(dirname "$0")/.."
out="$PWD/docs/screenshots"
mkdir -p "$out"
export QT_QPA_PLATFORM=offscreen SERVESCOPE_SCREENSHOTS_DIR="$out"
build/dev/tests/gui/gui_tests tst_session
build/dev/tests/gui/gui_tests tst_dag_editor
build/dev/tests/gui/gui_tests tst_planning
build/dev/tests/gui/gui_tests tst_cluster_editor
build/dev/tests/gui/gui_tests tst_timeline
build/dev/tests/gui/gui_tests tst_compare
build/dev/tests/gui/gui_tests tst_live
echo "screenshots in $out"
