#!/usr/bin/env python3
"""Simulator against live deployment: the fidelity benchmark (issue 19 §1; BENCHMARKS.md).

Each case runs one scenario, plan, rate and data-plane options twice: in the simulator
(`servescope-cli simulate`) and live (a `live scheduler`, one emulated `live worker` per server and
a `live loadgen`, all on this machine over loopback). Every case is repeated with seeds 1..N; the
report gives each run, and per case the mean live − simulated difference of SLO attainment (in
points) and goodput (in %) with a 95 % confidence interval (Student's t over the runs).

    bench/live/fidelity.py [--cli PATH] [--runs N] [--seconds S] [--case NAME ...] [--write]

--write regenerates the measured section of docs/reproduction/fidelity.md (between its
"fidelity-benchmark" markers); without it the Markdown goes to standard output.
Timing is the point here, so this is a benchmark and never a ctest: run it on an idle machine.
"""
import argparse
import datetime
import json
import math
import os
import platform
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
DOC = os.path.join(ROOT, "docs", "reproduction", "fidelity.md")
BEGIN, END = "<!-- fidelity-benchmark: begin -->", "<!-- fidelity-benchmark: end -->"
# The daemons read it from the environment: a token on the command line is visible to every user
# (ps), and one shorter than 16 bytes is refused.
TOKEN = "fidelity-bench-token-0b7e"

SYMPHONY = ["-s", "builtin:projects/demo.json", "-w", "mixed-37", "--system", "symphony",
            "--ctrl-delay-us", "300", "--response-delay-us", "300"]
PPIPE = ["-s", "builtin:projects/ppipe-demo.json", "--response-delay-us", "300"]

# name: (title, options shared by both runs, rate in req/s, needs the PPipe plan)
CASES = {
    "symphony-3000": ("Symphony, demo, 3,000 req/s", SYMPHONY, 3000, False),
    "symphony-9000": ("Symphony, demo, 9,000 req/s (60 %)", SYMPHONY, 9000, False),
    "ppipe-1500": ("PPipe plan, ppipe-demo, 1,500 req/s (66 %)", PPIPE, 1500, True),
    "ppipe-1800": ("PPipe plan, ppipe-demo, 1,800 req/s (80 %)", PPIPE, 1800, True),
}

# Two-sided 95 % quantiles of Student's t for 1..30 degrees of freedom.
T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
       2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
       2.052, 2.048, 2.045, 2.042]


def mean_ci(values):
    """Mean and the half-width of its 95 % confidence interval (NaN for one value)."""
    m = statistics.fmean(values)
    if len(values) < 2:
        return m, float("nan")
    t = T95[min(len(values) - 1, len(T95)) - 1]
    return m, t * statistics.stdev(values) / math.sqrt(len(values))


def cli_json(cli, args, timeout):
    out = subprocess.run([cli, "--json", *args], capture_output=True, text=True, timeout=timeout)
    if out.returncode != 0:
        sys.exit(f"error: {' '.join(args[:3])}… exited {out.returncode}: {out.stderr.strip()}")
    return json.loads(out.stdout)


def wait_for(predicate, seconds, what):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.02)
    sys.exit(f"error: timed out waiting for {what}")


def read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except FileNotFoundError:
        return ""


def live_run(cli, work, options, rate, seconds, seed):
    """One live run: scheduler, workers, load generator; returns the load generator's report."""
    run_dir = tempfile.mkdtemp(dir=work)  # each run its own port file and log
    port_file = os.path.join(run_dir, "port")
    err = os.path.join(run_dir, "scheduler.log")
    procs = []
    with open(err, "w") as log:
        scheduler = subprocess.Popen(
            [cli, "--json", "live", "scheduler", *options, "--warmup", "0", "--listen", "127.0.0.1:0",
             "--port-file", port_file],
            stdout=subprocess.DEVNULL, stderr=log)
    try:
        wait_for(lambda: read(port_file).endswith("\n") or scheduler.poll() is not None, 60, "the scheduler")
        if scheduler.poll() is not None:
            sys.exit(f"error: the scheduler exited: {read(err)}")
        port = read(port_file).split()[0]
        wait_for(lambda: "waiting for workers:" in read(err), 30, "the scheduler's worker list")
        nodes = re.search(r"waiting for workers:([^\n]*)", read(err)).group(1).split()
        for n in nodes:
            procs.append(subprocess.Popen(
                [cli, "live", "worker", "--connect", f"127.0.0.1:{port}", "--node", n],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        wait_for(lambda: read(err).count("joined") >= len(nodes), 60, "the workers")
        load = cli_json(cli, ["live", "loadgen", "--connect", f"127.0.0.1:{port}",
                              "--rate", str(rate), "--duration", str(seconds), "--seed", str(seed)],
                        timeout=seconds + 120)
        if not load.get("reconciled"):
            sys.exit(f"error: a live run did not reconcile: {json.dumps(load)}")
        return load
    finally:
        scheduler.send_signal(signal.SIGTERM)
        try:
            scheduler.wait(30)
        except subprocess.TimeoutExpired:
            scheduler.kill()
        for p in procs:
            p.terminate()
        for p in procs:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cli", default=os.path.join(ROOT, "build", "dev", "app", "servescope-cli"))
    parser.add_argument("--runs", type=int, default=5, help="runs per case, seeds 1..N (default 5)")
    parser.add_argument("--seconds", type=float, default=10, help="seconds of load per run (default 10)")
    parser.add_argument("--case", action="append", choices=sorted(CASES), help="repeatable; default: all")
    parser.add_argument("--write", action="store_true", help="regenerate docs/reproduction/fidelity.md")
    args = parser.parse_args()
    os.environ["SERVESCOPE_TOKEN"] = TOKEN  # every daemon started from here inherits it
    if not os.access(args.cli, os.X_OK):
        sys.exit(f"error: {args.cli} is not built (cmake --build --preset dev)")
    cases = args.case or list(CASES)
    rows, summary = [], []
    with tempfile.TemporaryDirectory() as work:
        plan = None
        if any(CASES[c][3] for c in cases):
            plan = os.path.join(work, "ppipe-plan.json")
            cli_json(args.cli, ["plan", *PPIPE[:2], "--system", "ppipe", "--partitions", "2", "-o", plan], 600)
        for name in cases:
            title, options, rate, needs_plan = CASES[name]
            options = options + (["--plan", plan] if needs_plan else [])
            d_att, d_good = [], []
            for seed in range(1, args.runs + 1):
                sim = cli_json(args.cli, ["simulate", *options, "--warmup", "0", "--rate", str(rate),
                                          "-d", str(args.seconds), "--seed", str(seed)], 600)["summary"]
                load = live_run(args.cli, work, options, rate, args.seconds, seed)
                sa, la = sim["slo_attainment"], load["attainment"]
                sg, lg = sim["goodput_rps"], load["goodput_rps"]
                d_att.append(100 * (la - sa))
                d_good.append(100 * (lg / sg - 1) if sg > 0 else float("nan"))
                rows.append(f"| {title} | {seed} | {100 * sa:.2f} % | {100 * la:.2f} % | {d_att[-1]:+.2f} pt | "
                            f"{sg:,.1f} | {lg:,.1f} | {d_good[-1]:+.2f} % |")
                print(rows[-1], file=sys.stderr, flush=True)
            (ma, ha), (mg, hg) = mean_ci(d_att), mean_ci(d_good)
            summary.append(f"| {title} | {len(d_att)} | {ma:+.2f} pt ± {ha:.2f} | "
                           f"[{ma - ha:+.2f}, {ma + ha:+.2f}] | {mg:+.2f} % ± {hg:.2f} | "
                           f"[{mg - hg:+.2f}, {mg + hg:+.2f}] |")
    cpu = next((l.split(":", 1)[1].strip() for l in read("/proc/cpuinfo").splitlines()
                if l.startswith("model name")), platform.processor())
    text = "\n".join([
        BEGIN,
        f"Measured {datetime.date.today().isoformat()} with `bench/live/fidelity.py --runs {args.runs} "
        f"--seconds {args.seconds:g}` on {os.cpu_count()} × {cpu} ({platform.system()} "
        f"{platform.release()}), `dev` build. Differences are live − simulated; ± is the half-width "
        "of the 95 % confidence interval of the mean (Student's t over the runs).",
        "",
        "| case | runs | attainment difference (mean ± CI) | 95 % CI | goodput difference (mean ± CI) | 95 % CI |",
        "|---|---|---|---|---|---|",
        *summary,
        "",
        "Every run (seed = run number, the same seed in both):",
        "",
        "| case | seed | simulated attainment | live attainment | difference | simulated goodput | "
        "live goodput | difference |",
        "|---|---|---|---|---|---|---|---|",
        *rows,
        END,
    ])
    if not args.write:
        print(text)
        return
    doc = read(DOC)
    if BEGIN not in doc or END not in doc:
        sys.exit(f"error: {DOC} has no {BEGIN} … {END} section to regenerate")
    doc = doc[:doc.index(BEGIN)] + text + doc[doc.index(END) + len(END):]
    tmp = DOC + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(doc)
    os.replace(tmp, DOC)
    print(f"wrote {DOC}", file=sys.stderr)


if __name__ == "__main__":
    main()
