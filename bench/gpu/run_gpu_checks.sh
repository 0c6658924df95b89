#!/usr/bin/env bash
# Issue 27's measurements on a machine with an NVIDIA GPU (README "GPU execution"), in one go:
# builds what they need (no GUI), starts the MPS control daemon, and writes every figure that
# BENCHMARKS.md and docs/reproduction/fidelity.md quote into OUT_DIR:
#   gpu-list.txt, catalog.json        the GPU and its catalog entry        (gpu list --catalog)
#   device-tests.txt                  calibration error per target; two 50 % slots' overlap
#                                     (tests/cuda/cuda_device_test.cpp, ctest label gpu)
#   interference.txt, coruns.csv,     co-runs at 20:80, 40:60, 50:50 and their mirrors, the fitted
#   interference.json                 coefficients beside gpu-let's RTX 2080 Ti ones, validation error
#   resnet50-profile.json             block profile at MPS shares 1, 1/2, 1/3, 1/4 (calibrated kernels)
#   fidelity.md                       live PPipe and Symphony runs on the GPU beside their simulation
# Not a ctest: it needs a GPU and takes about ten minutes.
#   bench/gpu/run_gpu_checks.sh [OUT_DIR] [BUILD_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-$root/gpu-checks}
build=${2:-$root/build/gpu}
mkdir -p "$out"
log() { echo "run_gpu_checks: $*" >&2; }

nvidia-smi -L >"$out/nvidia-smi.txt" 2>&1 || { log "no GPU here (nvidia-smi -L failed)"; cat "$out/nvidia-smi.txt" >&2; exit 1; }
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSERVESCOPE_BUILD_GUI=OFF \
    -DSERVESCOPE_BUILD_BENCHMARKS=OFF -DSERVESCOPE_CUDA=ON >"$out/configure.log" 2>&1 ||
    { tail -30 "$out/configure.log" >&2; exit 1; }
fi
log "building"
cmake --build "$build" --parallel "$(nproc)" --target servescope-cli servescope-cuda cuda_device_tests \
  >"$out/build.log" 2>&1 || { tail -30 "$out/build.log" >&2; exit 1; }
cli=$build/app/servescope-cli

# MPS: the slots' shares are its active-thread percentages. Started here when it is not running.
export CUDA_MPS_PIPE_DIRECTORY=${CUDA_MPS_PIPE_DIRECTORY:-/tmp/nvidia-mps}
export CUDA_MPS_LOG_DIRECTORY=${CUDA_MPS_LOG_DIRECTORY:-/tmp/nvidia-mps-log}
mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
if [ ! -S "$CUDA_MPS_PIPE_DIRECTORY/control" ]; then
  if command -v nvidia-cuda-mps-control >/dev/null; then
    nvidia-cuda-mps-control -d && sleep 1
    started_mps=1
  else
    log "nvidia-cuda-mps-control is not installed: the MPS checks will say so"
  fi
fi
stop_mps() { [ -n "${started_mps:-}" ] && echo quit | nvidia-cuda-mps-control || true; }
trap stop_mps EXIT

log "gpu list"
"$cli" gpu list --catalog "$out/catalog.json" | tee "$out/gpu-list.txt"
log "device tests (calibration, MPS overlap)"
"$build/tests/cuda_device_tests" 2>&1 | tee "$out/device-tests.txt" || true
log "measure-interference"
reference=$root/../shared/data/glet/resource/2080ti/INT_MODEL_CONSTANT.CSV
"$cli" measure-interference --gpu 0 -o "$out/coruns.csv" --profiles-out "$out/interference.json" \
  $([ -f "$reference" ] && echo --reference "$reference") 2>&1 | tee "$out/interference.txt" || true
log "profile resnet50 at shares 1 to 1/4"
"$cli" profile --arch resnet50 --device cuda -o "$out/resnet50-profile.json" 2>&1 | tail -5 || true
log "live runs on the GPU beside their simulation"
python3 "$root/bench/live/fidelity.py" --cli "$cli" --runs 3 --seconds 10 --case cuda-symphony --case cuda-ppipe \
  >"$out/fidelity.md" 2>"$out/fidelity.log" || tail -20 "$out/fidelity.log" >&2
cat "$out/fidelity.md"
