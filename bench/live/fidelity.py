#!/usr/bin/env python3
"""Simulator against live deployment: the fidelity benchmark (docs/reproduction/fidelity.md;
BENCHMARKS.md).

Each case runs one scenario, plan, rate and data-plane options twice: in the simulator
(`servescope-cli simulate`) and live (a `live scheduler`, one `live worker` per server and a
`live loadgen`, all on this machine over loopback). Every case is repeated with seeds 1..N; the
report gives each run, and per case the mean live − simulated difference of SLO attainment (in
points) and goodput (in %) with a 95 % confidence interval (Student's t over the runs).

The emulated cases hold each batch for its profiled time. The real-compute cases (README
"Real models") export torchvision models into blocks (scripts/export_model.py), measure them on
this CPU (`servescope-cli profile`), and run the workers with `--executor torch`: every batch runs
the model's blocks with LibTorch, feature maps are the real tensors, and one output in 50 is
checked against the whole model.

    bench/live/fidelity.py [--cli PATH] [--runs N] [--seconds S] [--case NAME ...] [--write] [--keep DIR]

--write regenerates the measured section of docs/reproduction/fidelity.md (between its
"fidelity-benchmark" markers); without it the Markdown goes to standard output.
Timing is the point here, so this is a benchmark and never a ctest: run it on an idle machine.
"""
import argparse
import contextlib
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
# Real compute: (title, the fraction of the measured or planned capacity offered). Their scenarios,
# plans and rates are made at run time from this machine's measurements (prepare_torch). The
# planned cases serve the PPipe planner's own plan for one CPU, whose slots share its cores: what
# the profile's measured contention between slots predicts.
TORCH_CASES = {
    "torch-symphony": ("Symphony on real compute: resnet18 + mobilenet_v3_small (3x64x64), 1 CPU", 0.5),
    "torch-ppipe": ("PPipe 2-partition plan on real compute: resnet18 (3x64x64) across 2 workers", 0.5),
    "torch-ppipe-planned-50": ("PPipe, the planner's own plan on real compute: resnet18 (3x64x64), 1 CPU", 0.5),
    "torch-ppipe-planned-90": ("PPipe, the planner's own plan on real compute: resnet18 (3x64x64), 1 CPU", 0.9),
    # Calibrated (issue 46): a CALIBRATION_SECONDS live run at half the profile's capacity is
    # recorded, `calibrate` fits the profiles and the slots' contention to it, the plan is made
    # again on the calibrated scenario, and both sides then run on it at the calibrated capacity.
    "torch-symphony-cal-50": ("Symphony on real compute, calibrated: resnet18 + mobilenet_v3_small, 1 CPU", 0.5),
    "torch-symphony-cal-90": ("Symphony on real compute, calibrated: resnet18 + mobilenet_v3_small, 1 CPU", 0.9),
    "torch-ppipe-cal-50": ("PPipe, the planner's own plan on real compute, calibrated: resnet18, 1 CPU", 0.5),
    "torch-ppipe-cal-90": ("PPipe, the planner's own plan on real compute, calibrated: resnet18, 1 CPU", 0.9),
}
CALIBRATION_SECONDS = 60
CALIBRATION_SEED = 101  # apart from the measured runs' seeds 1..N
FIXED_POINT_ROUNDS = 6  # calibration runs at most for the calibrated PPipe plan
FIXED_POINT_LOAD = 0.15  # how far a plan's RECALIBRATION_LOAD may be from the load calibrated
RECALIBRATION_LOAD = 0.9  # of a re-plan's capacity: the heavier load evaluated
LOOP_SECONDS = 10  # the emulated cases' recorded run, whose loop the simulated side draws
SIM_OPTIONS = {}  # case: what only the simulated side is given (what a calibration run measured)
# On a GPU (README "GPU execution"; needs servescope-cuda and a GPU, so never in the default set):
# ResNet-50 profiled on this GPU with calibrated kernels (`profile --arch resnet50 --device cuda`),
# served by `live worker --executor cuda`, one MPS client per slot, every batch real GPU work.
CUDA_CASES = {
    "cuda-symphony": "Symphony on a GPU: resnet50 (calibrated kernels), 1 GPU",
    "cuda-ppipe": "PPipe plan on a GPU: resnet50 (calibrated kernels), 1 GPU in MPS slots",
}
# On a GPU with real LibTorch (a servescope-torch built against a CUDA LibTorch as --cli, as
# bench/gpu/build_torch.sh builds it): ResNet-50 exported into four blocks here by this python3's
# torch and torchvision, profiled on the GPU (`profile MODEL_DIR --device cuda`), served by
# `live worker --executor torch --device cuda`. Symphony plans whole GPUs, which a torch worker's
# slots use as they are (its CUDA streams do not partition a GPU as MPS processes do).
TORCH_CUDA_CASES = {
    "torch-cuda-symphony": "Symphony on a GPU with real LibTorch: resnet50 (3x224x224), 1 GPU",
}
TORCH_LOAD = 0.5  # of the measured capacity
TORCH_SLO_MULTIPLIER = 10
TORCH_INPUT = "3x64x64"
PYTHON_WITH_TORCH = "/usr/bin/python3"  # Debian's, where python3-torch installs

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


def cli_json(cli, args, timeout, accept=(0,)):
    out = subprocess.run([cli, "--json", *args], capture_output=True, text=True, timeout=timeout)
    if out.returncode not in accept:
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


def profiled(cli, work, arch, nodes):
    """Exports `arch` into 4 blocks and measures it here; returns (folder, profiles, scenario)."""
    folder = os.path.join(work, arch)
    profiles = os.path.join(work, f"{arch}-{nodes}-profiles.json")
    scenario = os.path.join(work, f"{arch}-{nodes}-scenario.json")
    if os.path.exists(scenario):  # made for an earlier case of this run
        with open(profiles) as f, open(scenario) as g:
            return folder, json.load(f)["models"][0], json.load(g)
    if not os.path.exists(os.path.join(folder, "servescope-model.json")):
        subprocess.run([PYTHON_WITH_TORCH, os.path.join(ROOT, "scripts", "export_model.py"), arch, "--blocks", "4",
                        "--input", TORCH_INPUT, "-o", folder], check=True, capture_output=True)
    # SLO: 10 x the whole model alone at batch 1. At the profiler's default 5 x, PPipe's plan
    # batches so close to the SLO that the live stages' 20-30 % longer runs (two stages, the
    # scheduler and the load generator share two cores; each was profiled alone) make most
    # requests late, and the comparison measures that edge rather than the system.
    subprocess.run([cli, "profile", folder, "--batches", "1-8", "--shares", "1,2",
                    "--slo-multiplier", str(TORCH_SLO_MULTIPLIER),
                    "-o", profiles, "--scenario-out", scenario, "--nodes", str(nodes)],
                   check=True, capture_output=True)
    with open(profiles) as f, open(scenario) as g:
        return folder, json.load(f)["models"][0], json.load(g)


def best_rps(model, share, blocks=None):
    """Best throughput of `blocks` (default all) on one device at `share`: the largest
    b / Σ blocks' median over the profiled batches b."""
    table = next(t for t in model["tables"] if t["share"] == share)
    rows = table["latency_us"][blocks[0]:blocks[1]] if blocks else table["latency_us"]
    batches = table.get("batches") or list(range(1, len(rows[0]) + 1))
    return max(b / (sum(row[i] for row in rows) * 1e-6) for i, b in enumerate(batches))


def calibrated(cli, work, base, options, rate, worker_args, measured, name=None):
    """The case `base` run live once for CALIBRATION_SECONDS at `rate` with its record, and its
    scenario calibrated on that record (`calibrate --scenario-out`); cached in `work` under `name`
    (default `base`-calibrated). Returns the calibrated scenario's path, the calibrated profiles by
    model, and the file of how late the live scheduler's loop was in that run (loop_of)."""
    name = name or base + "-calibrated"
    scenario = os.path.join(work, name + ".json")
    profiles = os.path.join(work, name + "-profiles.json")
    loop = os.path.join(work, name + "-loop.json")
    if not os.path.exists(scenario) or not os.path.exists(loop):
        load = live_run(cli, work, options, rate, CALIBRATION_SECONDS, CALIBRATION_SEED, worker_args, measured)
        loop_of(load["record"], loop)
        report = cli_json(cli, ["calibrate", load["record"], *options, "-o", profiles, "--scenario-out", scenario],
                          600)
        for e in report["entries"]:
            if e["refit"]:
                print(f"calibrated {e['model']} {e.get('blocks', 'whole')} {e['share']} batch {e['batch']}: "
                      f"{e['before_p50_us'] / 1000:.2f} -> {e['after_p50_us'] / 1000:.2f} ms "
                      f"({e['runs']} batches)", file=sys.stderr, flush=True)
        for k in report.get("spells", []):
            print(f"spells of {k['gpu']}: {k['before_us'] / 1000:.1f} -> {k['after_us'] / 1000:.1f} ms "
                  f"({k['pairs']} pairs, ranks correlated {k['lag1']:.2f})", file=sys.stderr, flush=True)
        for k in report["contention"]:
            print(f"contention {k['share']} batch {k['batch']}: x{k['before']:.2f} -> x{k['after']:.2f} "
                  f"({k['beside']} beside, {k['alone']} alone{'' if k['fitted'] else '; kept'})",
                  file=sys.stderr, flush=True)
    with open(scenario) as f:
        return scenario, {m["name"]: m for m in json.load(f)["profiles"]}, loop


def loop_of(record, path):
    """Keeps a recorded run's `scheduler` block in `path`: how late its decisions were and how long
    its orders, reports and feature maps travelled, which the simulated side draws
    (`simulate --decision-lateness --hops`; docs/reproduction/fidelity.md)."""
    with open(record) as f:
        loop = json.load(f)["scheduler"]
    with open(path, "w") as f:
        json.dump(loop, f)
    parts = [f"{what} {loop[key]['p50']:.0f} µs at the median, {loop[key]['p99']:.0f} at p99"
             for what, key in (("decisions", "dispatch_overhead_us"), ("batch hops", "batch_hop_us"),
                               ("transfers beyond their links", "transfer_overhead_us")) if loop[key]["count"]]
    print(f"{os.path.basename(record)}: " + "; ".join(parts), file=sys.stderr, flush=True)


def loop_options(cli, work, name, options, rate):
    """The simulated side's options for case `name`: its decisions and hops as late as a live run of
    its own, recorded once for LOOP_SECONDS at seed CALIBRATION_SEED (cached in `work`)."""
    path = os.path.join(work, name + "-loop.json")
    if not os.path.exists(path):
        record = os.path.join(tempfile.mkdtemp(dir=work), "loop-run.json")
        live_run(cli, work, options + ["--record", record], rate, LOOP_SECONDS, CALIBRATION_SEED)
        loop_of(record, path)
    return loop_flags(path)


def loop_flags(path):
    """`simulate`'s options drawing the decisions and hops that the loop file `path` holds (a run
    whose batches were all ordered ahead of their start, as Symphony's are, has no batch hops)."""
    with open(path) as f:
        loop = json.load(f)
    if "batch_hop_us" not in loop:
        sys.exit(f"error: {path} is from before records kept the loop's hops; delete it (and a calibrated "
                 f"scenario beside it) to record it again")
    flags = ["--decision-lateness", path] if loop["dispatch_overhead_us"]["count"] else []
    if loop["batch_hop_us"]["count"] or loop["transfer_overhead_us"]["count"]:
        flags += ["--hops", path]
    return flags


def read_json(path):
    with open(path) as f:
        return json.load(f)


def plan_slots(doc):
    """A plan's shape: each partition's blocks and its slots' share of a device."""
    return sorted((tuple(p["blocks"]), p["gpus"] * p.get("vgpus", 1), p.get("vgpu_divisor", 1))
                  for pipeline in doc["pipelines"] for p in pipeline["partitions"])


def plan_stages(doc):
    """A one-pipeline plan's slots in placement order (each partition's vGPUs in turn) and the
    blocks each runs."""
    stages, slot = {}, 0
    for part in doc["pipelines"][0]["partitions"]:
        for _ in range(part["gpus"] * part.get("vgpus", 1)):
            stages[slot] = tuple(part["blocks"])
            slot += 1
    return stages


def prepare_torch(cli, work, name):
    """The case's scenario file, options, rate and worker arguments, from measurements made here."""
    load = TORCH_CASES[name][1]
    if name.startswith("torch-symphony-cal") or name.startswith("torch-ppipe-cal"):
        base = "torch-symphony" if name.startswith("torch-symphony") else "torch-ppipe-planned-50"
        options, rate, worker_args, measured = prepare_torch(cli, work, base)
        path, profiles, loop = calibrated(cli, work, base, options, rate,
                                          ["--executor", "torch", "--check-every", "50", *worker_args], measured)
        # The simulated side's decisions and hops are as late as the calibration run's were, drawn
        # per event (`simulate --decision-lateness --hops`): the live scheduler shares the cores
        # with the workers, so its timers fire late and its messages wait for a core, and a
        # deferred batch that was due is no longer reachable (docs/reproduction/fidelity.md).
        SIM_OPTIONS[name] = loop_flags(loop)
        if base == "torch-symphony":
            # The calibrated scenario's own capacity: Symphony's plan at the calibrated p99.
            options = ["-s", path, "--system", "symphony"]
            capacity = cli_json(cli, ["simulate", *options, "-d", "1", "--warmup", "0"], 600)["config"]
            return options, load * capacity["nominal_capacity_rps"], worker_args, (profiles, {})
        # A calibration measures the slots it ran at the load it ran, and with a core kept busy a
        # slot's tail grows with its load: a re-plan onto slots the run never ran (their times
        # carried from the nearest share it did), or one whose 90 % is not the load that was
        # calibrated, is calibrated again on a run of its own. The loads bisect (geometrically)
        # between one that was too light (its re-plan promised more) and one too heavy, until a
        # plan's RECALIBRATION_LOAD is within FIXED_POINT_LOAD of the load its profiles ran at
        # (docs/reproduction/fidelity.md, "Calibrating the plan that is served").
        served, ran_at, light, heavy = read_json(options[options.index("--plan") + 1]), rate, 0.0, math.inf
        for round_ in range(2, FIXED_POINT_ROUNDS + 2):
            plan = os.path.join(work, f"torch-ppipe-calibrated-plan-{round_}.json")
            # Planned again whenever the scenario was calibrated again: a plan of an older
            # calibration would be served at its capacity, not the calibrated scenario's.
            if not os.path.exists(plan) or os.path.getmtime(plan) < os.path.getmtime(path):
                cli_json(cli, ["plan", "-s", path, "--system", "ppipe", "-o", plan], 600)
            doc = read_json(plan)
            stages = plan_stages(doc)
            capacity = sum(p["assigned_rps"] for p in doc["pipelines"])
            wanted = RECALIBRATION_LOAD * capacity
            if plan_slots(doc) != plan_slots(served):
                light, heavy = 0.0, math.inf  # another plan: what was learnt of the loads is not its
            elif abs(wanted / ran_at - 1) <= FIXED_POINT_LOAD:
                break
            elif wanted > ran_at:
                light = max(light, ran_at)
            else:
                heavy = min(heavy, ran_at)
            if round_ > FIXED_POINT_ROUNDS:
                print(f"calibration stopped after {FIXED_POINT_ROUNDS} runs: the last plan's "
                      f"{RECALIBRATION_LOAD:.0%} is {wanted:.1f} req/s, its profiles ran at {ran_at:.1f}",
                      file=sys.stderr, flush=True)
                break
            ran_at = wanted if light < wanted < heavy else math.sqrt(light * heavy)
            print(f"calibrating again at {ran_at:.1f} req/s: the re-plan serves {plan_slots(doc)} at "
                  f"{capacity:.1f} req/s, its profiles ran {plan_slots(served)}", file=sys.stderr, flush=True)
            path, profiles, loop = calibrated(cli, work, base, ["-s", path, "--plan", plan], ran_at,
                                              ["--executor", "torch", "--check-every", "50", *worker_args],
                                              (profiles, stages), name=f"{base}-calibrated-{round_}")
            SIM_OPTIONS[name] = loop_flags(loop)
            served = doc
        return ["-s", path, "--plan", plan], load * capacity, worker_args, (profiles, stages)
    if name.startswith("torch-ppipe-planned"):
        r18, p18, scenario = profiled(cli, work, "resnet18", 1)
        path = os.path.join(work, name + ".json")
        with open(path, "w") as f:
            json.dump(scenario, f)
        plan = os.path.join(work, name + "-plan.json")
        cli_json(cli, ["plan", "-s", path, "--system", "ppipe", "-o", plan], 600)
        with open(plan) as f:
            doc = json.load(f)
        rate = load * sum(p["assigned_rps"] for p in doc["pipelines"])
        return ["-s", path, "--plan", plan], rate, ["--models", r18], ({"resnet18": p18}, plan_stages(doc))
    if name == "torch-symphony":
        r18, p18, scenario = profiled(cli, work, "resnet18", 1)
        mob, pmob, _ = profiled(cli, work, "mobilenet_v3_small", 1)
        scenario["profiles"].append(pmob)
        scenario["workloads"][0].update(name="mix", popularity="equal",
                                        targets=[{"model": "resnet18"}, {"model": "mobilenet_v3_small"}])
        # Half the requests of each: the device's time per request is the mean of the two.
        rate = load / (0.5 / best_rps(p18, "1") + 0.5 / best_rps(pmob, "1"))
        path = os.path.join(work, "torch-symphony.json")
        with open(path, "w") as f:
            json.dump(scenario, f)
        profiles = {"resnet18": p18, "mobilenet_v3_small": pmob}
        return ["-s", path, "--system", "symphony"], rate, ["--models", r18, mob], (profiles, {})
    r18, p18, scenario = profiled(cli, work, "resnet18", 2)
    path = os.path.join(work, "torch-ppipe.json")
    with open(path, "w") as f:
        json.dump(scenario, f)
    plan = os.path.join(work, "torch-ppipe-plan.json")
    cli_json(cli, ["plan", "-s", path, "--system", "ppipe", "-o", plan], 600)
    with open(plan) as f:
        doc = json.load(f)
    # Two CPUs' worth of servers on one 2-core machine: each partition gets half the CPU (one
    # thread, share 1/2, as profiled) on its own server, so the two stages run side by side
    # without taking each other's cores. The planner rightly keeps so small a model whole on
    # two devices; the cut is made here, after block 2 of 4.
    pipeline = doc["pipelines"][0]
    part = pipeline["partitions"][0]
    halves = []
    for blocks in ([0, 2], [2, 4]):
        half = dict(part)
        half.update(blocks=blocks, gpus=1, vgpus=1, vgpu_divisor=2)
        halves.append(half)
    pipeline["partitions"] = halves
    # The slower stage bounds the pipeline: its best rate at share 1/2 over its blocks.
    rate = load * min(best_rps(p18, "1/2", (0, 2)), best_rps(p18, "1/2", (2, 4)))
    pipeline["assigned_rps"] = rate
    with open(plan, "w") as f:
        json.dump(doc, f)
    # Slots in placement order: the first partition's vGPU, then the second's.
    return ["-s", path, "--plan", plan], rate, ["--models", r18], ({"resnet18": p18}, {0: (0, 2), 1: (2, 4)})


def prepare_cuda(cli, work, name):
    """The GPU case's scenario file, options, rate and worker arguments, from this GPU's profile."""
    scenario = os.path.join(work, "cuda-scenario.json")
    profiles = os.path.join(work, "cuda-profiles.json")
    if not os.path.exists(scenario):
        subprocess.run([cli, "profile", "--arch", "resnet50", "--device", "cuda", "--blocks", "4", "--repeat", "20",
                        "--slo-multiplier", str(TORCH_SLO_MULTIPLIER), "-o", profiles, "--scenario-out", scenario,
                        "--nodes", "1"], check=True, stdout=subprocess.DEVNULL)  # its progress on stderr, as it goes
    with open(profiles) as f:
        model = json.load(f)["models"][0]
    worker_args = ["--executor", "cuda", "--profiles", scenario]
    if name == "cuda-symphony":
        rate = TORCH_LOAD * best_rps(model, "1")
        return ["-s", scenario, "--system", "symphony"], rate, worker_args, ({"resnet50": model}, {})
    plan = os.path.join(work, "cuda-ppipe-plan.json")
    cli_json(cli, ["plan", "-s", scenario, "--system", "ppipe", "-o", plan], 600)
    with open(plan) as f:
        planned = json.load(f)
    rate = TORCH_LOAD * sum(p.get("assigned_rps", 0) for p in planned["pipelines"]) or TORCH_LOAD * best_rps(model, "1")
    # A stage's batches run only its blocks: the ratio against whole-model times would mislead.
    return ["-s", scenario, "--plan", plan], rate, worker_args, None


def prepare_torch_cuda(cli, work, name):
    """The real-LibTorch GPU case: the model exported and profiled once in `work` (where
    bench/gpu/run_gpu_checks.sh has already made them), then its scenario, rate and workers."""
    folder = os.path.join(work, "resnet50")
    scenario = os.path.join(work, "torch-cuda-scenario.json")
    profiles = os.path.join(work, "torch-cuda-profiles.json")
    if not os.path.exists(os.path.join(folder, "servescope-model.json")):
        subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "export_model.py"), "resnet50", "--blocks", "4",
                        "--input", "3x224x224", "-o", folder], check=True, stdout=subprocess.DEVNULL)
    if not os.path.exists(scenario):
        subprocess.run([cli, "profile", folder, "--device", "cuda", "--shares", "1", "--batches", "1,2,4,8",
                        "--repeat", "20", "--slo-multiplier", str(TORCH_SLO_MULTIPLIER), "-o", profiles,
                        "--scenario-out", scenario, "--nodes", "1"], check=True, stdout=subprocess.DEVNULL)
    with open(profiles) as f:
        model = json.load(f)["models"][0]
    rate = TORCH_LOAD * best_rps(model, "1")
    worker_args = ["--executor", "torch", "--device", "cuda", "--check-every", "50", "--models", folder]
    return ["-s", scenario, "--system", "symphony"], rate, worker_args, ({"resnet50": model}, {})


def batch_time_ratio(record, measured):
    """A live run's batches on real compute against the profile: the median over batches of
    (its time on the slot / the profile's median for its model, batch size, share and blocks),
    and the total time on the slots against the total the profile predicts (a heavy tail moves
    the second, not the first). The measurement that explains a gap: the simulator runs every
    batch at the profile's median."""
    profiles, stages = measured
    with open(record) as f:
        timeline = json.load(f)["timeline"]
    ix = {c: i for i, c in enumerate(timeline["columns"])}
    ratios, live_total, profiled_total = [], 0.0, 0.0
    for span in timeline["spans"]:
        gpu, size = span[ix["gpu"]], span[ix["size"]]
        model = profiles[timeline["models"][span[ix["model"]]]]
        table = next(t for t in model["tables"] if t["share"] == timeline["gpu_shares"][gpu])
        lo, hi = stages.get(gpu, (0, len(table["latency_us"])))
        profiled = sum(row[size - 1] for row in table["latency_us"][lo:hi])
        took = span[ix["end_us"]] - span[ix["start_us"]]
        ratios.append(took / profiled)
        live_total += took
        profiled_total += profiled
    if not ratios:
        return float("nan"), float("nan")
    return statistics.median(ratios), live_total / profiled_total


def live_run(cli, work, options, rate, seconds, seed, worker_args=(), measured=None):
    """One live run: scheduler, workers, load generator; returns the load generator's report
    (with `batch_time_ratio` when `measured` gives the profiles to compare batch times with)."""
    run_dir = tempfile.mkdtemp(dir=work)  # each run its own port file and log
    port_file = os.path.join(run_dir, "port")
    err = os.path.join(run_dir, "scheduler.log")
    procs = []
    with open(err, "w") as log:
        scheduler = subprocess.Popen(
            [cli, "--json", "live", "scheduler", *options, "--warmup", "0", "--listen", "127.0.0.1:0",
             *(["--record", os.path.join(run_dir, "run.json")] if measured else []),
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
                [cli, "live", "worker", "--connect", f"127.0.0.1:{port}", "--node", n, *worker_args],
                stdout=subprocess.DEVNULL, stderr=open(os.path.join(run_dir, f"worker-{n}.log"), "w")))
        wait_for(lambda: read(err).count("joined") >= len(nodes), 60, "the workers")
        # Exit 3 is a finished run that lost requests (docs/protocol.md): a live outcome to report.
        load = cli_json(cli, ["live", "loadgen", "--connect", f"127.0.0.1:{port}",
                              "--rate", str(rate), "--duration", str(seconds), "--seed", str(seed)],
                        timeout=seconds + 120, accept=(0, 3))
        if not load.get("reconciled"):
            sys.exit(f"error: a live run did not reconcile: {json.dumps(load)}")
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
        # A worker on real compute that found a wrong output stops with exit 1: the run is void.
        failed = [p for p in procs if p.returncode not in (0, -signal.SIGTERM, 143)]
        if failed:
            logs = "".join(read(os.path.join(run_dir, f)) for f in os.listdir(run_dir) if f.startswith("worker-"))
            sys.exit(f"error: a worker failed: {logs[-2000:]}")
    # A worker whose report is overdue is planned without until it answers; what the plane cannot
    # place meanwhile is dropped as worker-lost, so the run's lost requests are read beside them.
    load["late_workers"] = read(err).count(" is late with batch ")
    load["record"] = os.path.join(run_dir, "run.json")
    if measured:  # the scheduler wrote its record as it stopped
        load["batch_time_ratio"] = batch_time_ratio(os.path.join(run_dir, "run.json"), measured)
    return load


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cli", default=os.path.join(ROOT, "build", "dev", "app", "servescope-cli"))
    parser.add_argument("--runs", type=int, default=5, help="runs per case, seeds 1..N (default 5)")
    parser.add_argument("--seconds", type=float, default=10, help="seconds of load per run (default 10)")
    parser.add_argument("--case", action="append",
                        choices=sorted(CASES) + sorted(TORCH_CASES) + sorted(CUDA_CASES) + sorted(TORCH_CUDA_CASES),
                        help="repeatable; default: all but the GPU ones (the real-compute ones need "
                        "servescope-torch; the cuda-* ones servescope-cuda and a GPU; the torch-cuda-* ones "
                        "a servescope-torch built against a CUDA LibTorch as --cli, and a GPU)")
    parser.add_argument("--write", action="store_true", help="regenerate docs/reproduction/fidelity.md")
    parser.add_argument("--busy-core", action="store_true", help="keep one core busy with another process for "
                        "the whole benchmark (profiling and calibration included), as a loaded machine")
    parser.add_argument("--keep", metavar="DIR", help="work in DIR and keep it: each live run's scheduler "
                        "and worker logs, the plan, the exported models (default: a temporary folder)")
    args = parser.parse_args()
    os.environ["SERVESCOPE_TOKEN"] = TOKEN  # every daemon started from here inherits it
    if not os.access(args.cli, os.X_OK):
        sys.exit(f"error: {args.cli} is not built (cmake --build --preset dev)")
    cases = args.case or list(CASES) + list(TORCH_CASES)
    busy = None
    if args.busy_core:  # a process that spins on one core until the benchmark ends
        busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        import atexit
        atexit.register(busy.kill)
    rows, summary, slower, losses = [], [], [], []
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
    with contextlib.nullcontext(os.path.abspath(args.keep)) if args.keep else tempfile.TemporaryDirectory() as work:
        plan = None
        if any(c in CASES and CASES[c][3] for c in cases):
            plan = os.path.join(work, "ppipe-plan.json")
            cli_json(args.cli, ["plan", *PPIPE[:2], "--system", "ppipe", "--partitions", "2", "-o", plan], 600)
        for name in cases:
            worker_args, measured = [], None
            if name in TORCH_CASES:
                title, load = TORCH_CASES[name]
                options, rate, worker_args, measured = prepare_torch(args.cli, work, name)
                worker_args = ["--executor", "torch", "--check-every", "50", *worker_args]
                title += f", {rate:,.1f} req/s ({100 * load:.0f} %)"
            elif name in CUDA_CASES:
                options, rate, worker_args, measured = prepare_cuda(args.cli, work, name)
                title = CUDA_CASES[name] + f", {rate:,.1f} req/s ({100 * TORCH_LOAD:.0f} %)"
            elif name in TORCH_CUDA_CASES:
                options, rate, worker_args, measured = prepare_torch_cuda(args.cli, work, name)
                title = TORCH_CUDA_CASES[name] + f", {rate:,.1f} req/s ({100 * TORCH_LOAD:.0f} %)"
            else:
                title, options, rate, needs_plan = CASES[name]
                options = options + (["--plan", plan] if needs_plan else [])
                SIM_OPTIONS[name] = loop_options(args.cli, work, name, options, rate)
            if busy:
                title += ", one core busy"
            d_att, d_good, ratios, totals = [], [], [], []
            for seed in range(1, args.runs + 1):
                sim = cli_json(args.cli, ["simulate", *options, *SIM_OPTIONS.get(name, []), "--warmup", "0",
                                          "--rate", str(rate),
                                          "-d", str(args.seconds), "--seed", str(seed)], 600)["summary"]
                load = live_run(args.cli, work, options, rate, args.seconds, seed, worker_args, measured)
                if measured:
                    ratios.append(load["batch_time_ratio"][0])
                    totals.append(load["batch_time_ratio"][1])
                sa, la = sim["slo_attainment"], load["attainment"]
                sg, lg = sim["goodput_rps"], load["goodput_rps"]
                d_att.append(100 * (la - sa))
                d_good.append(100 * (lg / sg - 1) if sg > 0 else float("nan"))
                rows.append(f"| {title} | {seed} | {100 * sa:.2f} % | {100 * la:.2f} % | {d_att[-1]:+.2f} pt | "
                            f"{sg:,.1f} | {lg:,.1f} | {d_good[-1]:+.2f} % |")
                print(rows[-1], file=sys.stderr, flush=True)
                if load.get("lost", 0):
                    losses.append(f"- {title}, seed {seed}: {load['lost']:,} requests lost "
                                  f"({load['dropped_by_reason']['worker-lost']:,} as worker-lost), "
                                  f"with {load['late_workers']} late-worker events in the scheduler's log.")
            (ma, ha), (mg, hg) = mean_ci(d_att), mean_ci(d_good)
            summary.append(f"| {title} | {len(d_att)} | {ma:+.2f} pt ± {ha:.2f} | "
                           f"[{ma - ha:+.2f}, {ma + ha:+.2f}] | {mg:+.2f} % ± {hg:.2f} | "
                           f"[{mg - hg:+.2f}, {mg + hg:+.2f}] |")
            if ratios:
                (mr, hr), (mt, ht) = mean_ci(ratios), mean_ci(totals)
                slower.append(f"| {title} | {len(ratios)} | {mr:.2f} ± {hr:.2f} | {mt:.2f} ± {ht:.2f} |")
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
        *([
            "Real compute: each live batch's time on its slot against the profile's median for its "
            "model, batch size, share and blocks: the median of that ratio over a run's batches, and "
            "the run's total time on the slots against the total the profile predicts (mean ± CI "
            "over the runs). The simulator draws every batch from the profile's measured distribution "
            "(`--runtime sample`; the median where a profile keeps none) and slows batches on slots of one "
            "device by the profile's measured contention between them (`--contention measured`).",
            "",
            "| case | runs | live / profiled, median batch | live / profiled, total slot time |",
            "|---|---|---|---|",
            *slower,
            "",
        ] if slower else []),
        "Every run (seed = run number, the same seed in both):",
        "",
        "| case | seed | simulated attainment | live attainment | difference | simulated goodput | "
        "live goodput | difference |",
        "|---|---|---|---|---|---|---|---|",
        *rows,
        *([
            "",
            "Live runs that lost requests (the load generator's exit 3; they count as dropped above). "
            "A worker more than max(50 ms, half the batch) past a batch's end is planned without until "
            "it answers, and what the plane cannot place meanwhile is dropped as worker-lost:",
            "",
            *losses,
        ] if losses else []),
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
