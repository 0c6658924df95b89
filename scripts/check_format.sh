#!/usr/bin/env bash
# Fails, listing the files, when any C++ file of the tree differs from what clang-format
# (.clang-format at the root) makes of it. Run by ctest as format.clang_format; fix with
#   git ls-files '*.cpp' '*.h' | xargs clang-format -i
set -euo pipefail
root="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
cd "$root"
if ! command -v clang-format >/dev/null 2>&1; then
  echo "clang-format is not installed (scripts/common.sh installs it)" >&2
  exit 1
fi
if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files -- '*.cpp' '*.h')
else
  mapfile -t files < <(find app engine model ui widgets torchexec tests bench -name '*.cpp' -o -name '*.h' | sort)
fi
# One clang-format per 64 files; --Werror makes each difference an "error:" line naming its file.
report=$(printf '%s\0' "${files[@]}" | xargs -0 -n 64 clang-format --dry-run --Werror 2>&1 || true)
mapfile -t bad < <(printf '%s\n' "$report" | sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: error:.*/\1/p' | sort -u)
if [ "${#bad[@]}" -gt 0 ]; then
  printf 'not clang-formatted: %s\n' "${bad[@]}"
  echo "${#bad[@]} of ${#files[@]} files differ from clang-format"
  exit 1
fi
echo "${#files[@]} files clang-formatted"
