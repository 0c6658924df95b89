#!/usr/bin/env bash
# Builds the Debian package from a configured and built tree (cpack) and checks it with lintian:
# any error or warning fails, each printed with lintian's explanation (the overrides the package
# ships, packaging/lintian-overrides, say why they do not apply). Run by ctest as
# packaging.lintian; by hand: scripts/check_package.sh build/dev
set -euo pipefail
build=${1:?usage: check_package.sh BUILD_DIR}
# cpack builds the tree's preinstall target first: in a stale tree it relinked the programs that
# other tests were starting at that moment ("cannot start .../servescope-cli"). A check builds
# nothing, so a stale tree is refused instead (Ninja's dry run; the presets use Ninja).
if grep -q '^CMAKE_GENERATOR:INTERNAL=Ninja$' "$build/CMakeCache.txt" 2>/dev/null; then
  ninja=$(sed -n 's/^CMAKE_MAKE_PROGRAM:FILEPATH=//p' "$build/CMakeCache.txt")
  pending=$("${ninja:-ninja}" -C "$build" -n 2>&1 | grep -c '^\[' || true)
  if [ "$pending" -gt 0 ]; then
    echo "$build is not up to date (ninja would run $pending steps): build it before this check" >&2
    exit 1
  fi
fi
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

# servescope-cuda needs cuBLAS from the CUDA toolkit, which no Debian package provides: the
# package leaves it out (app/CMakeLists.txt), or its dependencies could not be stated.
# (The listing first: `dpkg-deb | grep -q` under pipefail fails when grep quits early.)
contents=$(dpkg-deb -c "$deb")
if grep -q 'usr/bin/servescope-cuda$' <<<"$contents"; then
  echo "the package holds servescope-cuda, which needs cuBLAS from outside Debian" >&2
  exit 1
fi
echo "programs: $(awk '/usr\/bin\// { n = split($NF, p, "/"); printf "%s ", p[n] }' <<<"$contents")"

# The systemd units as installed: systemd-analyze verify against the package's own files (the
# binary they start, unpacked) beside this machine's units (the targets they order against). It
# exits 0 on unknown keys and values it ignores, so any output at all fails the check.
if command -v systemd-analyze >/dev/null; then
  root="$out/root"
  dpkg-deb -x "$deb" "$root"
  units="$root/usr/lib/systemd/system"
  [ -f "$units/servescope-scheduler.service" ] || { echo "the package has no servescope-scheduler.service" >&2; exit 1; }
  cp -rn /lib/systemd/system/. "$units/"
  said=$(systemd-analyze verify --root="$root" --man=no servescope-scheduler.service servescope-worker@a100-0.service 2>&1) ||
    { echo "$said" >&2; exit 1; }
  [ -z "$said" ] || { echo "systemd-analyze verify:" >&2; echo "$said" >&2; exit 1; }
  echo "systemd units: verified"
else
  echo "systemd units: not verified (no systemd-analyze here)"
fi
