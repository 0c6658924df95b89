#!/usr/bin/env bash
# Builds the Debian package from a configured and built tree (cpack) and checks it with lintian:
# any error or warning fails, each printed with lintian's explanation (the overrides the package
# ships, packaging/lintian-overrides, say why they do not apply). Run by ctest as
# packaging.lintian; by hand: scripts/check_package.sh build/dev
set -euo pipefail
build=${1:?usage: check_package.sh BUILD_DIR}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cpack --config "$build/CPackConfig.cmake" -B "$out" >"$out/cpack.log" 2>&1 || {
  cat "$out/cpack.log" >&2
  exit 1
}
deb=$(find "$out" -maxdepth 1 -name '*.deb' | head -1)
[ -n "$deb" ] || { echo "cpack made no .deb (log: $out/cpack.log)" >&2; exit 1; }
echo "package: $(basename "$deb"), $(du -h "$deb" | cut -f1)"
# --fail-on warning: a warning is as much a defect of the package as an error.
lintian --info --fail-on error,warning "$deb"
echo "lintian: clean"
