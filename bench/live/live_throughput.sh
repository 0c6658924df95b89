#!/usr/bin/env bash
# The live scheduler's throughput (BENCHMARKS.md "Live scheduler"): one scheduler, 16 emulated
# workers and one load generator on loopback, all on this machine. Prints the load generator's
# report (sent, outcomes, attainment) and the scheduler's (requests it finished, dispatch overhead
# p50/p99) as one JSON object.
#   bench/live/live_throughput.sh [CLI] [RATE] [SECONDS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cli=${1:-$here/../../build/dev/app/servescope-cli}
rate=${2:-50000}
seconds=${3:-10}
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
export SERVESCOPE_TOKEN=bench-live-throughput-token  # at least 16 bytes, or the daemons refuse it
"$cli" --json live scheduler -s "$here/throughput-scenario.json" --system symphony --warmup 0 \
  --ctrl-delay-us 300 --response-delay-us 300 --listen 127.0.0.1:0 --port-file "$work/port" \
  >"$work/scheduler.json" 2>"$work/scheduler.log" &
scheduler=$!
for _ in $(seq 200); do [ -s "$work/port" ] && break; sleep 0.05; done
port=$(head -1 "$work/port")
for n in $(seq 0 15); do
  "$cli" live worker --connect "127.0.0.1:$port" --node "node-$n" 2>"$work/worker-$n.log" &
  pids+=($!)
done
"$cli" --json live loadgen --connect "127.0.0.1:$port" --rate "$rate" --duration "$seconds" \
  >"$work/loadgen.json" 2>"$work/loadgen.log" || { cat "$work/loadgen.log" >&2; exit 1; }
kill -TERM "$scheduler"
wait "$scheduler"
python3 - "$work/loadgen.json" "$work/scheduler.json" "$rate" <<'PY'
import json, sys
load = json.load(open(sys.argv[1]))
sched = json.load(open(sys.argv[2]))
print(json.dumps({
    "offered_rps": float(sys.argv[3]),
    "sent": load["sent"],
    "send_seconds": round(load["duration_s"], 3),
    "served_rps": round((load["on_time"] + load["late"]) / load["duration_s"], 1),
    "reconciled": load["reconciled"],
    "attainment": round(load["attainment"], 4),
    "dropped": load["dropped"],
    "scheduler_requests": sched["requests"],
    "dispatch_overhead_us": sched["dispatch_overhead_us"],
    "round_trip_ms": load["round_trip_ms"],
}, indent=1))
PY
