#!/usr/bin/env bash
# The GPU checks of one loan of a GPU machine (BENCHMARKS.md "GPU execution"), run from the
# bundle scripts/gpu_bundle.sh makes here, so that nothing is built or installed there:
#
#   bench/gpu/run_gpu_checks.sh BUNDLE OUT
#
# Steps, each under `timeout` with its own limit (capped by what is left of the whole run's,
# SERVESCOPE_GPU_CHECKS_SECONDS, default 330 s; a loan is 15 minutes of which a machine's start
# takes one or two), each appending to its log in a work folder as it goes:
#   environment    what the rest relies on: nvidia-smi, the driver, the bundle's libraries (ldd),
#                  cuBLAS, the MPS control program, whether two MPS clients start
#   gpu-list       the GPU and its catalog entry                      (servescope-cuda gpu list)
#   device-tests   calibration error per target; two 50 % MPS slots overlapping (cuda_device_tests)
#   profile        ResNet-50's blocks at MPS shares 1 to 1/4 (profile --device cuda)
#   fidelity       live Symphony and PPipe runs on the GPU beside their simulation
#   interference   co-runs on MPS partitions and gpu-let's fitted coefficients, last: it takes
#                  whatever time is left, and its CSV holds every co-run as soon as it is measured
# Then real models on the GPU through the image's PyTorch, from a bundle made with --torch:
#   torch-build    servescope-torch built there against the PyTorch wheel's CUDA LibTorch: on the
#                  CPU while the first part measures the GPU (its cores but four, lowest priority)
# and, only where the first part passed, with a budget of its own (SERVESCOPE_GPU_TORCH_SECONDS,
# default 150 s):
#   torch-export   ResNet-50 exported into four blocks by the image's torch, the split checked
#   torch-profile  its blocks with real LibTorch at MPS shares 1 to 1/4, a process per share
#                  (profile MODEL_DIR --device cuda; the whole GPU only, without MPS)
#   torch-fidelity a live Symphony run of it on the GPU (live worker --executor torch --device
#                  cuda) beside its simulation (fidelity.py's torch-cuda-symphony)
# Without MPS (no control program, or two clients cannot start) the steps that need it are
# skipped, each saying why, and the others run. A failed or killed step does not stop the rest.
#
# On exit, whatever happened, OUT gets at most eight files (what the device tool brings back):
# summary.md (each step's outcome and time), environment.txt, device-tests.txt,
# resnet50-profile.json, fidelity.md (both parts' runs), coruns.csv, interference.txt, and
# logs.tar.gz with the whole work folder (the torch profile among it) but the exported model.
#
# For the rehearsal here (tests/gpu/rehearse_gpu_checks.sh): SERVESCOPE_GPU_CHECKS_LIMITS="step=s
# …" overrides steps' limits, and SERVESCOPE_GPU_CHECKS_SLOT names a slot program that stands in
# for the GPU in the interference step (measure-interference --slot-program).
set -uo pipefail
bundle=$(cd "${1:?usage: run_gpu_checks.sh BUNDLE OUT}" && pwd) || exit 2
out=${2:?usage: run_gpu_checks.sh BUNDLE OUT}
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
started=$(date +%s)
deadline=$((started + ${SERVESCOPE_GPU_CHECKS_SECONDS:-330}))
packing_s=15 # kept back for stopping MPS and packing
work=$(mktemp -d "${TMPDIR:-/tmp}/gpu-checks.XXXXXX")
summary=$work/summary.md
say() { echo "run_gpu_checks: $*" >&2; }

{
  echo "# GPU checks, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo
  echo "Bundle: $(head -2 "$bundle/MANIFEST" 2>/dev/null | tail -1)"
  echo
  echo "| step | outcome | seconds | limit |"
  echo "|---|---|---|---|"
} >"$summary"
record() { echo "| $1 | $2 | $3 | $4 |" >>"$summary"; }

# --- packing, whatever happens ----------------------------------------------------------------
mps_started=
stop_mps() {
  [ -n "$mps_started" ] || return 0
  # quit -t: clients get that long to end, then the daemon ends anyway; the whole under a timeout.
  echo "quit -t 5" | timeout 15 "$mps_control" >>"$work/environment.log" 2>&1 ||
    echo "MPS: quit did not answer within 15 s" >>"$work/environment.log"
  mps_started=
}
torch_build_pid=
torch_scratch=
stop_torch_build() {
  [ -n "$torch_build_pid" ] || return 0
  kill -- "-$torch_build_pid" 2>/dev/null
  wait "$torch_build_pid" 2>/dev/null
  torch_build_pid=
}
pack() {
  trap - EXIT INT TERM
  stop_torch_build
  stop_mps
  {
    echo
    echo "Whole run: $(($(date +%s) - started)) s (budgets: the first part ${SERVESCOPE_GPU_CHECKS_SECONDS:-330} s," \
      "the second ${SERVESCOPE_GPU_TORCH_SECONDS:-150} s)."
  } >>"$summary"
  cp "$summary" "$out/summary.md"
  local from to
  for pair in environment.log:environment.txt device-tests.log:device-tests.txt \
    profile/resnet50-profile.json:resnet50-profile.json fidelity.md:fidelity.md \
    interference/coruns.csv:coruns.csv interference.log:interference.txt; do
    from=$work/${pair%%:*}
    to=$out/${pair##*:}
    [ -s "$from" ] && cp "$from" "$to"
  done
  # The exported model's TorchScript files are hundreds of MB: the tool brings back 16 MiB a file.
  tar -czf "$out/logs.tar.gz" --exclude='*.pt' -C "$work" . 2>/dev/null || say "could not pack the logs"
  rm -rf "$work" "${torch_scratch:-}"
  say "wrote $(ls "$out" | wc -l) files to $out"
}
trap pack EXIT
trap 'exit 130' INT TERM

# --- steps ------------------------------------------------------------------------------------
limit_of() { # a step's limit: SERVESCOPE_GPU_CHECKS_LIMITS may override it
  local name=$1 seconds=$2 item
  for item in ${SERVESCOPE_GPU_CHECKS_LIMITS:-}; do
    [ "${item%%=*}" = "$name" ] && seconds=${item#*=}
  done
  echo "$seconds"
}
failed_steps=0
# step NAME SECONDS COMMAND...: runs COMMAND under timeout, its output to NAME.log as it comes.
step() {
  local name=$1 limit left begin rc=0 outcome
  limit=$(limit_of "$1" "$2")
  shift 2
  left=$((deadline - $(date +%s) - packing_s))
  [ "$limit" -le "$left" ] || limit=$left
  if [ "$limit" -lt 5 ]; then
    record "$name" "skipped: the run's time is spent" 0 0
    return 0
  fi
  say "$name (at most $limit s)"
  begin=$(date +%s)
  # A pipeline, not `> >(tee ...)`: a substituted tee is the child of `timeout`, which takes a
  # process group of its own, while tee stays in ours; when it ended with a process of our group
  # stopped, the kernel hung up our whole group (the orphaned-process-group rule). Beside ctest's
  # tests that SIGSTOP a worker, that ended the rehearsal, ctest and every test with it.
  timeout --kill-after=5 "$limit" "$@" 2>&1 | tee -a "$work/$name.log" || rc=$?
  local skipped
  skipped=$(grep -o '^\[  SKIPPED \] [A-Za-z][A-Za-z0-9_./]*' "$work/$name.log" 2>/dev/null | sort -u | wc -l)
  [ "$skipped" -gt 0 ] || skipped=
  case $rc in
    0) outcome="passed${skipped:+, $skipped tests skipped (see $name.log)}" ;;
    124 | 137) outcome="killed at its limit; what it wrote so far is kept" ;;
    *) outcome="failed (exit $rc): see $name.log" ;;
  esac
  [ "$rc" -eq 0 ] || failed_steps=$((failed_steps + 1))
  record "$name" "$outcome" $(($(date +%s) - begin)) "$limit"
  return "$rc"
}
skip() { # skip NAME WHY
  say "$1 skipped: $2"
  echo "skipped: $2" >>"$work/$1.log"
  record "$1" "skipped: $2" 0 0
}

# The bundle's programs, with the machine's cuBLAS on the library path (env.sh says where).
# shellcheck source=/dev/null
. "$bundle/env.sh" 2>>"$work/environment.log"
cuda=$bundle/bin/servescope-cuda
cli=$bundle/bin/servescope-cli

# MPS: the control program is on PATH, or where a driver puts it: Debian in /usr/bin, a
# container's driver mount in /usr/local/nvidia/bin.
mps_control=$(command -v nvidia-cuda-mps-control 2>/dev/null)
for dir in /usr/local/nvidia/bin /usr/bin; do
  [ -n "$mps_control" ] || { [ -x "$dir/nvidia-cuda-mps-control" ] && mps_control=$dir/nvidia-cuda-mps-control; }
done
mps_reason=
mps_answers() { echo get_server_list | timeout 5 "$mps_control" >/dev/null 2>&1; }
environment() {
  echo "date: $(date -u)"
  echo "machine: $(uname -a)"
  echo "cores: $(nproc)"
  echo "python3: $(python3 --version 2>&1)"
  echo
  echo "== nvidia-smi"
  timeout 20 nvidia-smi 2>&1 || echo "nvidia-smi failed (exit $?)"
  timeout 20 nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total,compute_mode \
    --format=csv 2>&1
  echo
  echo "== the bundle"
  cat "$bundle/MANIFEST"
  for program in "$bundle"/bin/*; do
    echo "-- ldd $(basename "$program")"
    ldd "$program" 2>&1
  done
  echo
  echo "== MPS"
  echo "control program: ${mps_control:-none on PATH, in /usr/local/nvidia/bin or in /usr/bin}"
  if [ -z "$mps_control" ]; then
    mps_reason="no nvidia-cuda-mps-control on PATH, in /usr/local/nvidia/bin or in /usr/bin"
    return 0
  fi
  # A daemon that answers on the default pipe folder is used as it is; a socket nobody answers on
  # is a dead daemon's, reported and left alone: this run's daemon gets folders of its own.
  local default_pipe=/tmp/nvidia-mps
  if [ -S "$default_pipe/control" ] && CUDA_MPS_PIPE_DIRECTORY=$default_pipe mps_answers; then
    echo "a daemon already answers on $default_pipe: using it"
    export CUDA_MPS_PIPE_DIRECTORY=$default_pipe
  else
    [ -S "$default_pipe/control" ] && echo "stale: $default_pipe/control is there but no daemon answers on it"
    export CUDA_MPS_PIPE_DIRECTORY=$work/mps-pipe CUDA_MPS_LOG_DIRECTORY=$work/mps-log
    mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
    if ! timeout 15 "$mps_control" -d; then
      mps_reason="nvidia-cuda-mps-control -d failed or did not return within 15 s"
      return 0
    fi
    mps_started=1
    local waited=0
    until mps_answers; do
      sleep 0.5
      waited=$((waited + 1))
      if [ "$waited" -ge 20 ]; then
        mps_reason="the MPS daemon started but did not answer get_server_list within 10 s"
        stop_mps
        return 0
      fi
    done
    echo "started a daemon in $CUDA_MPS_PIPE_DIRECTORY (log: $CUDA_MPS_LOG_DIRECTORY)"
  fi
  # Two clients at once, each opening the GPU, allocating and copying: what every MPS step needs.
  local a=0 b=0
  timeout 60 "$bundle/bin/cuda_device_tests" --gtest_filter=CudaDevice.FeatureMapsComeBackWhole >"$work/mps-client-a.log" 2>&1 &
  local pid_a=$!
  timeout 60 "$bundle/bin/cuda_device_tests" --gtest_filter=CudaDevice.FeatureMapsComeBackWhole >"$work/mps-client-b.log" 2>&1 &
  local pid_b=$!
  wait "$pid_a" || a=$?
  wait "$pid_b" || b=$?
  if [ "$a" -eq 0 ] && [ "$b" -eq 0 ] && ! grep -q SKIPPED "$work/mps-client-a.log"; then
    echo "two MPS clients started and ran"
    echo "get_server_list: $(echo get_server_list | timeout 5 "$mps_control" 2>&1 | tr '\n' ' ')"
  else
    mps_reason="two MPS clients did not both run (exit $a and $b; their logs: mps-client-a.log, mps-client-b.log)"
    tail -5 "$work/mps-client-a.log" "$work/mps-client-b.log"
    stop_mps
  fi
}
# environment() sets MPS up in this shell, so it runs here, not under step's timeout; its
# commands carry their own limits.
say "environment"
begin=$(date +%s)
environment >>"$work/environment.log" 2>&1
if [ -n "$mps_reason" ]; then
  echo "MPS: unavailable: $mps_reason" >>"$work/environment.log"
  unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
fi
record environment "${mps_reason:+MPS unavailable: }${mps_reason:-MPS running}" $(($(date +%s) - begin)) "-"
cat "$work/environment.log" >&2

# servescope-torch for the second part, built on the CPU while the first part measures the GPU:
# at the lowest priority, on all cores but four, which the first part's processes keep. Under a
# limit of its own that ends before the first part does, so waiting for it later costs nothing.
torch_reason=
if [ ! -d "$bundle/deps" ]; then
  torch_reason="the bundle was made without --torch (scripts/gpu_bundle.sh --torch)"
elif ! python3 -c 'import torch' >/dev/null 2>&1; then
  torch_reason="python3 cannot import torch: no LibTorch to build against"
else
  torch_scratch=$(mktemp -d "${TMPDIR:-/tmp}/gpu-checks-torch.XXXXXX") # the build and the model: not packed
  torch_build_limit=$(limit_of torch-build 300)
  torch_build_started=$(date +%s)
  say "torch-build (in the background, at most $torch_build_limit s)"
  cores=$(nproc)
  # A session of its own, so that it can be stopped whole (the first part failed, the run ends).
  setsid bash -c 'SERVESCOPE_BUILD_JOBS=$1 timeout --kill-after=5 "$2" nice -n 19 "$3" "$4" "$5" >"$6" 2>&1
    echo $? >"$7"' torch-build $((cores > 8 ? cores - 4 : (cores + 1) / 2)) "$torch_build_limit" \
    "$here/build_torch.sh" "$bundle" "$torch_scratch/build" "$work/torch-build.log" "$work/torch-build.status" &
  torch_build_pid=$!
fi

step gpu-list 20 "$cuda" gpu list --catalog "$work/catalog.json"

# Calibration error per target, feature maps, and (with MPS) two 50 % slots overlapping; the
# overlap test skips itself, saying why, where MPS does not run.
step device-tests 90 "$bundle/bin/cuda_device_tests" --gtest_output=xml:"$work/device-tests.xml"

# The profile fidelity.py would make for its GPU cases (prepare_cuda: four blocks, SLO 10x its
# whole-GPU time, TORCH_SLO_MULTIPLIER there), made once here and left where it looks for it.
mkdir -p "$work/fidelity" "$work/profile"
if [ -n "$mps_reason" ]; then
  skip profile "MPS unavailable ($mps_reason): the shares are MPS partitions"
  skip fidelity "MPS unavailable ($mps_reason): the slots are MPS clients"
else
  step profile 70 "$cuda" profile --arch resnet50 --device cuda --blocks 4 --repeat 20 --slo-multiplier 10 \
    -o "$work/profile/resnet50-profile.json" --scenario-out "$work/profile/resnet50-scenario.json" --nodes 1 &&
    cp "$work/profile/resnet50-profile.json" "$work/fidelity/cuda-profiles.json" &&
    cp "$work/profile/resnet50-scenario.json" "$work/fidelity/cuda-scenario.json"
  step fidelity 100 python3 "$root/bench/live/fidelity.py" --cli "$cli" --runs 1 --seconds 10 \
    --case cuda-symphony --case cuda-ppipe --keep "$work/fidelity" &&
    grep -E '^\|' "$work/fidelity.log" >"$work/fidelity.md"
fi

# Last: it takes what is left. Two batch sizes and two splits (and their mirrors) at 120 ms a
# window: about 130 co-runs.
reference=$bundle/reference/INT_MODEL_CONSTANT.CSV # gpu-let's RTX 2080 Ti coefficients, where here had them
# shellcheck disable=SC2054 # the commas are the options' own lists
interference=("$cuda" measure-interference --gpu 0 -o "$work/interference/coruns.csv"
  --profiles-out "$work/interference/interference.json" --batches 8,32 --sizes 30,50 --window-ms 120)
[ -f "$reference" ] && interference+=(--reference "$reference")
[ -n "${SERVESCOPE_GPU_CHECKS_SLOT:-}" ] && interference+=(--slot-program "$SERVESCOPE_GPU_CHECKS_SLOT" --type model)
mkdir -p "$work/interference"
if [ -n "$mps_reason" ] && [ -z "${SERVESCOPE_GPU_CHECKS_SLOT:-}" ]; then
  skip interference "MPS unavailable ($mps_reason): the co-runs are on MPS partitions"
else
  step interference 240 "${interference[@]}"
fi

# --- second part: real models through the image's PyTorch, only when the first part passed -----
# Its own budget (SERVESCOPE_GPU_TORCH_SECONDS, default 150 s), after the first part's: where
# that part failed, the run ends here and leaves the loan time to run it again.
first_part_failed=$failed_steps
if [ -n "$torch_build_pid" ] && [ "$first_part_failed" -ne 0 ]; then
  stop_torch_build
  record torch-build "stopped: the first part failed" $(($(date +%s) - torch_build_started)) "$torch_build_limit"
elif [ -n "$torch_build_pid" ]; then
  wait "$torch_build_pid" || true
  torch_build_pid=
  rc=$(cat "$work/torch-build.status" 2>/dev/null || echo 1)
  case $rc in
    0) outcome=passed ;;
    124 | 137) outcome="killed at its limit: see torch-build.log" ;;
    *) outcome="failed (exit $rc): see torch-build.log" ;;
  esac
  record torch-build "$outcome (in the background)" $(($(date +%s) - torch_build_started)) "$torch_build_limit"
  [ "$rc" -eq 0 ] || torch_reason="servescope-torch did not build (torch-build.log)"
fi
deadline=$(($(date +%s) + ${SERVESCOPE_GPU_TORCH_SECONDS:-150} + packing_s))
torch_program=$torch_scratch/build/app/servescope-torch
# Run directly, not handed over by servescope-cli, which sets this (app/cli/program_handover.cpp).
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-PASSIVE}
model=$torch_scratch/resnet50
if [ "$first_part_failed" -ne 0 ]; then
  skip torch-steps "the first part had $first_part_failed failed steps"
elif [ -n "$torch_reason" ]; then
  skip torch-steps "$torch_reason"
# ResNet-50 split into four blocks by the image's torch (torch.fx as here), the split checked
# against the whole model: what profiling and serving it on the GPU start from.
elif ! step torch-export 40 python3 "$root/scripts/export_model.py" resnet50 --blocks 4 --input 3x224x224 \
  -o "$model"; then
  skip torch-profile "the export failed"
else
  # Its blocks at MPS shares 1 to 1/4, each share in a process of its own; the whole GPU alone
  # without MPS. Left where fidelity.py looks for it, and in the work folder, which is packed.
  shares=1,2,4
  [ -z "$mps_reason" ] || shares=1
  mkdir -p "$work/torch"
  step torch-profile 60 "$torch_program" profile "$model" --device cuda --shares "$shares" --batches 1,2,4,8 \
    --repeat 20 --slo-multiplier 10 -o "$torch_scratch/torch-cuda-profiles.json" \
    --scenario-out "$torch_scratch/torch-cuda-scenario.json" --nodes 1 &&
    cp "$torch_scratch/torch-cuda-profiles.json" "$torch_scratch/torch-cuda-scenario.json" "$work/torch/"
  # A live Symphony run on the GPU with real LibTorch beside its simulation; its rows join
  # fidelity.md's. fidelity.py keeps its runs' logs in the scratch folder; they are copied here.
  if [ -s "$torch_scratch/torch-cuda-scenario.json" ]; then
    step torch-fidelity 70 python3 "$root/bench/live/fidelity.py" --cli "$torch_program" --runs 1 --seconds 10 \
      --case torch-cuda-symphony --keep "$torch_scratch" &&
      grep -E '^\|' "$work/torch-fidelity.log" >>"$work/fidelity.md"
    (cd "$torch_scratch" && find . -path ./build -prune -o -mindepth 2 -name '*.log' -exec cp --parents -t "$work/torch" {} +) 2>/dev/null || true
  else
    skip torch-fidelity "no profile from torch-profile"
  fi
fi
exit $((failed_steps > 0))
