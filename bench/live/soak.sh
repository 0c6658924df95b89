#!/usr/bin/env bash
# The live deployment over a long session (BENCHMARKS.md "Live soak"; issue: hours-long sessions):
# one scheduler recording the run (--record), 16 emulated workers, a load generator at RATE
# requests/s for MINUTES, and the GUI following it in its Live tab (under Xvfb), all on this
# machine. Every minute it samples each process's resident memory; the GUI writes its frame times
# (servescope --frame-log). Prints a table per minute and a JSON summary: each process's RSS growth
# after the first 5 minutes (the goal: at most 5 %) and the worst minute's frame-time p99 (the goal:
# under 50 ms). Not a ctest: it runs for an hour by default.
#   bench/live/soak.sh [MINUTES] [RATE] [BUILD_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
minutes=${1:-60}
rate=${2:-10000}
build=${3:-$here/../../build/dev}
cli=$build/app/servescope-cli
gui=$build/app/servescope
command -v xvfb-run >/dev/null || { echo "soak.sh: needs xvfb-run (apt install xvfb xauth)" >&2; exit 2; }
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  echo "soak.sh: logs were in $work (removed)" >&2
  rm -rf "$work"
}
trap cleanup EXIT
export SERVESCOPE_TOKEN=bench-live-soak-token-0123  # at least 16 bytes

"$cli" --json live scheduler -s "$here/throughput-scenario.json" --system symphony --warmup 0 \
  --ctrl-delay-us 300 --response-delay-us 300 --listen 127.0.0.1:0 --port-file "$work/port" \
  --record "$work/record.json" >"$work/scheduler.json" 2>"$work/scheduler.log" &
scheduler=$!
for _ in $(seq 200); do [ -s "$work/port" ] && break; sleep 0.05; done
port=$(head -1 "$work/port")
worker_pids=()
for n in $(seq 0 15); do
  "$cli" live worker --connect "127.0.0.1:$port" --node "node-$n" 2>"$work/worker-$n.log" &
  pids+=($!)
  worker_pids+=($!)
done
xvfb-run -a -s "-screen 0 1600x1000x24" "$gui" --connect "127.0.0.1:$port" --frame-log "$work/frames.csv" \
  >"$work/gui.log" 2>&1 &
pids+=($!)
sleep 5
gui_pid=$(pgrep -n -x servescope || true)
[ -n "$gui_pid" ] || { echo "soak.sh: the GUI did not start:" >&2; cat "$work/gui.log" >&2; exit 1; }
pids+=("$gui_pid")  # xvfb-run does not pass its TERM on
"$cli" --json live loadgen --connect "127.0.0.1:$port" --rate "$rate" --duration "$((minutes * 60 + 30))" \
  --ready-timeout 60 >"$work/loadgen.json" 2>"$work/loadgen.log" &
loadgen=$!

rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0; }
echo "minute,scheduler_kib,workers_kib,loadgen_kib,gui_kib" >"$work/rss.csv"
for m in $(seq 1 "$minutes"); do
  sleep 60
  workers=0
  for p in "${worker_pids[@]}"; do workers=$((workers + $(rss_kib "$p"))); done
  line="$m,$(rss_kib "$scheduler"),$workers,$(rss_kib "$loadgen"),$(rss_kib "$gui_pid")"
  echo "$line" >>"$work/rss.csv"
  echo "soak.sh: minute $line" >&2
done
wait "$loadgen" || { cat "$work/loadgen.log" >&2; exit 1; }
sleep 2
kill -TERM "$scheduler"
scheduler_status=0
wait "$scheduler" || scheduler_status=$?
[ "$scheduler_status" -eq 0 ] || { echo "soak.sh: the scheduler exited with $scheduler_status:" >&2; tail "$work/scheduler.log" >&2; }
python3 - "$work" "$minutes" "$rate" <<'PY'
import csv, json, os, sys
work, minutes, rate = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
rss = list(csv.DictReader(open(f"{work}/rss.csv")))
try:
    frames = list(csv.DictReader(open(f"{work}/frames.csv")))
except FileNotFoundError:
    frames = []
load = json.load(open(f"{work}/loadgen.json"))
base = rss[min(4, len(rss) - 1)]  # the end of minute 5
last = rss[-1]
growth = {k: round(100 * (int(last[k]) - int(base[k])) / max(1, int(base[k])), 1)
          for k in ("scheduler_kib", "workers_kib", "loadgen_kib", "gui_kib")}
print("| minute | scheduler MiB | workers MiB | loadgen MiB | GUI MiB | frame p50 ms | frame p99 ms | frame max ms |")
print("|---|---|---|---|---|---|---|---|")
for i, r in enumerate(rss):
    f = frames[i] if i < len(frames) else {}
    mib = lambda k: f"{int(r[k]) / 1024:.0f}"
    print(f"| {r['minute']} | {mib('scheduler_kib')} | {mib('workers_kib')} | {mib('loadgen_kib')} | {mib('gui_kib')} "
          f"| {f.get('p50_ms', '—')} | {f.get('p99_ms', '—')} | {f.get('max_ms', '—')} |")
print(json.dumps({
    "minutes": minutes, "offered_rps": rate, "sent": load["sent"], "reconciled": load["reconciled"],
    "attainment": round(load["attainment"], 4),
    "rss_growth_after_minute_5_pct": growth,
    "frame_p99_ms_worst_minute": max((float(f["p99_ms"]) for f in frames), default=None),
    "record_mib": round(os.path.getsize(f"{work}/record.json") / 2**20, 1) if os.path.exists(f"{work}/record.json") else None,
}, indent=1))
PY
