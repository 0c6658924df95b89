#!/usr/bin/env bash
# clang-tidy (.clang-tidy's checks) over the C++ files a change touches: those that differ from
# BASE (default: origin/main, or HEAD~1 without a remote), or the files given. Needs the dev
# build's compile_commands.json (scripts/test.sh or cmake --preset dev makes it). Exits non-zero
# when a check finds something. Debian's clang-tidy 14 parses with clang 14, which lacks some C++20
# the GCC build uses (lambdas capturing structured bindings, parts of <ranges>); its front-end
# errors on such files are listed, not counted.
set -euo pipefail
source "$(dirname "$0")/common.sh"
cd "$SERVESCOPE_ROOT"
command -v clang-tidy >/dev/null || { echo "clang-tidy is missing: apt-get install clang-tidy" >&2; exit 2; }
[ -f build/dev/compile_commands.json ] || { echo "build/dev/compile_commands.json is missing: cmake --preset dev" >&2; exit 2; }
if [ $# -gt 0 ]; then
  files=("$@")
else
  base=${BASE:-$(git rev-parse -q --verify origin/main || git rev-parse HEAD~1)}
  mapfile -t files < <(git diff --name-only --diff-filter=AM "$base" -- '*.cpp' | grep -v '^build/' || true)
fi
[ ${#files[@]} -gt 0 ] || { echo "no C++ sources changed"; exit 0; }
echo "==> clang-tidy on ${#files[@]} file(s)"
status=0
printf '%s\n' "${files[@]}" | xargs -P "$(nproc)" -n 1 clang-tidy -p build/dev --quiet 2>/dev/null \
  | tee /tmp/servescope-tidy.$$ || true
if grep -qE "warning: .*\[(bugprone|performance|modernize)-" /tmp/servescope-tidy.$$; then status=1; fi
if grep -q "clang-diagnostic-error" /tmp/servescope-tidy.$$; then
  echo "note: clang 14 could not parse some files (C++20 it lacks); their checks did not run:" >&2
  grep "clang-diagnostic-error" /tmp/servescope-tidy.$$ | cut -d: -f1 | sort -u >&2
fi
rm -f /tmp/servescope-tidy.$$
exit $status
