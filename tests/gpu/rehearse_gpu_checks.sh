#!/usr/bin/env bash
# ctest gpu.rehearsal: bench/gpu/run_gpu_checks.sh, the script a GPU loan runs, run here the way
# it will run there (from the bundle, in a bare environment: no development packages on the
# library path, no build tree) against the tests' model GPU (tests/support/fake_slot_main.cpp).
# What a loan cannot afford to learn there:
#  - OUT holds at most eight files (what the device tool brings back), the logs among them;
#  - without MPS the steps that need it are skipped with the reason, and the rest still run;
#  - a step killed at its limit leaves what it measured (the co-runs' CSV, row by row).
#   tests/gpu/rehearse_gpu_checks.sh BUILD_DIR FAKE_SLOT
set -euo pipefail
build=${1:?usage: rehearse_gpu_checks.sh BUILD_DIR FAKE_SLOT}
fake_slot=${2:?usage: rehearse_gpu_checks.sh BUILD_DIR FAKE_SLOT}
root=$(cd "$(dirname "$0")/../.." && pwd)
command -v patchelf >/dev/null || { echo "SKIP: patchelf is missing (Debian package patchelf)"; exit 77; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
"$root/scripts/gpu_bundle.sh" --from "$build" "$scratch/bundle" 2>/dev/null
failures=0
problem() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# The machine's tools as a loan finds them, but for the GPU: an nvidia-smi that names one, and
# (for the second run) no MPS control program anywhere.
mkdir -p "$scratch/tools"
cat >"$scratch/tools/nvidia-smi" <<'EOF'
#!/bin/sh
echo "GPU 0: the tests' model GPU (rehearsal; no driver here)"
EOF
chmod +x "$scratch/tools/nvidia-smi"
# rehearse OUT [VAR=VALUE...]: the script in a bare environment, in a session of its own with a
# stopped process in its process group, as ctest's tests that SIGSTOP a worker leave the group it
# runs in. A step's end must not hang that group up: a tee left in it as the child of `timeout`
# (whose own group is another) made the kernel send the group SIGHUP when it ended (the
# orphaned-process-group rule), ctest and every test beside it. The session keeps a regression
# to this run.
rehearse() {
  local out=$1 status=0
  shift
  setsid -w bash -c 'sleep 600 & stopped=$!; kill -STOP "$stopped"; "$@"; rc=$?; kill -KILL "$stopped"; exit "$rc"' \
    stopped env -i HOME="$scratch" TMPDIR="$scratch" PATH="$scratch/tools:/usr/bin:/bin" "$@" \
    "$root/bench/gpu/run_gpu_checks.sh" "$scratch/bundle" "$out" >"$out.log" 2>&1 || status=$?
  [ "$status" -ne 129 ] || problem "$(basename "$out"): a step's end hung up the script's process group (SIGHUP)"
  local files
  files=$(find "$out" -type f | wc -l)
  [ "$files" -le 8 ] || problem "$(basename "$out"): $files files in OUT, the device tool brings back 8"
  [ -s "$out/summary.md" ] || problem "$(basename "$out"): no summary.md"
  [ -s "$out/environment.txt" ] || problem "$(basename "$out"): no environment.txt"
  # The listing first: `tar | grep -q` under pipefail fails at random, when grep has its match and
  # quits before tar has written the rest (tar dies of SIGPIPE).
  local packed
  packed=$(tar -tzf "$out/logs.tar.gz" 2>/dev/null) || packed=
  grep -q 'environment.log' <<<"$packed" || problem "$(basename "$out"): the logs were not packed"
  echo "--- $(basename "$out"): $(ls "$out" | tr '\n' ' ')"
  cat "$out/summary.md"
}

# 1. No MPS: the MPS steps say why they were skipped; the others ran (and, with no GPU, failed or
# skipped on their own terms).
rehearse "$scratch/no-mps"
summary=$scratch/no-mps/summary.md
for step in profile fidelity interference; do
  grep -q "^| $step | skipped: MPS unavailable (no nvidia-cuda-mps-control" "$summary" ||
    problem "no-mps: $step was not skipped for the missing MPS control program"
done
for step in gpu-list device-tests; do
  grep -q "^| $step | \(passed\|failed\)" "$summary" || problem "no-mps: $step did not run"
done
grep -q "ldd servescope-cuda" "$scratch/no-mps/environment.txt" || problem "no-mps: environment.txt lacks ldd"
# The second part runs only after a first part that passed: here its steps failed (no GPU).
grep -q "^| torch-steps | skipped: the first part had [1-9][0-9]* failed steps" "$summary" ||
  problem "no-mps: the torch steps were not skipped after the first part's failures"

# 2. The model GPU stands in for the interference step, slowed to its modelled time, and the
# step's limit runs out once it has measured two co-runs: killed, and those co-runs come back.
# The limit is made to run out (SIGALRM to the step's `timeout`, which is how its timer ends it)
# when the rows are there, not after a fixed time: under load the co-runs' tuning alone took
# longer than any few seconds chosen here. Should no row ever come, the step's own 120 s end it.
(
  for _ in $(seq 1 1200); do
    for csv in "$scratch"/gpu-checks.*/interference/coruns.csv; do
      if [ -f "$csv" ] && [ "$(wc -l <"$csv")" -ge 5 ]; then
        pkill -ALRM -f "^timeout --kill-after=5 [0-9]+ .*measure-interference .*$scratch/" && exit 0
      fi
    done
    sleep 0.1
  done
) &
limiter=$!
rehearse "$scratch/killed" SERVESCOPE_GPU_CHECKS_SLOT="$fake_slot" FAKE_SLOT_SLEEP=1 \
  SERVESCOPE_GPU_CHECKS_LIMITS="interference=120"
kill "$limiter" 2>/dev/null || true
wait "$limiter" 2>/dev/null || true
grep -q "^| interference | killed at its limit" "$scratch/killed/summary.md" ||
  problem "killed: the interference step was not killed at its limit"
rows=$(($(wc -l <"$scratch/killed/coruns.csv" 2>/dev/null || echo 1) - 1))
[ "$rows" -ge 2 ] || problem "killed: coruns.csv has $rows rows; the co-runs measured before the kill were lost"
head -1 "$scratch/killed/coruns.csv" 2>/dev/null | grep -q '^model,batch,size_percent' ||
  problem "killed: coruns.csv has no header"

[ "$failures" -eq 0 ] || {
  for log in "$scratch"/*.log; do
    echo "--- $log"
    tail -40 "$log"
  done
  exit 1
}
echo "rehearsal: at most 8 files each, MPS steps skipped with the reason, a killed step's $rows rows kept"
