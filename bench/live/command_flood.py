#!/usr/bin/env python3
"""What a flood of control commands from one peer costs the others (BENCHMARKS.md "Command flood").

One scheduler (bench/live/throughput-scenario.json, Symphony, 16 emulated workers, as the
throughput benchmark runs it) and one load generator at RATE req/s for SECONDS, on loopback,
twice per repetition: once quiet, once while a GUI connection
sends 1,000,000 `status` commands with 10,000 `apply-plan` among them as fast as the socket
takes them. Prints, per run, the load generator's attainment and the scheduler's open files and
peak memory, and the flooded runs' attainment change against the quiet ones.

    bench/live/command_flood.py [--cli PATH] [--rate 10000] [--seconds 20] [--repeat 2]
"""
import argparse
import json
import os
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

TOKEN = "bench-command-flood-token"
HERE = os.path.dirname(os.path.abspath(__file__))


def frame(sequence, kind, payload):
    return struct.pack("<IBI", len(payload), kind, sequence) + payload


def flood(port, stop, sent):
    """A GUI that floods, reading whatever comes back so that it is never dropped as slow."""
    s = socket.create_connection(("127.0.0.1", port))
    hello = json.dumps({"token": TOKEN, "role": "gui", "name": "flood"}).encode()
    s.sendall(b"SSCOPE" + struct.pack("<H", 2) + frame(0, 1, hello))
    s.settimeout(0.0)
    status = b'{"command":"status"}'
    plans = [b'{"command":"apply-plan","system":"eager"}', b'{"command":"apply-plan","system":"symphony"}']
    sequence = 1
    for round_ in range(10_000):
        if stop.is_set():
            break
        burst = bytearray(frame(sequence, 5, plans[round_ % 2]))
        sequence += 1
        for _ in range(100):
            burst += frame(sequence, 5, status)
            sequence += 1
        view = memoryview(burst)
        while view:
            try:
                view = view[s.send(view):]
            except BlockingIOError:
                time.sleep(0.0005)
            try:
                while s.recv(1 << 20):
                    pass
            except BlockingIOError:
                pass
        sent[0] += 101
    while not stop.is_set():  # keep reading until the run ends
        try:
            if not s.recv(1 << 20):
                break
        except BlockingIOError:
            time.sleep(0.01)
    s.close()


def run(cli, rate, seconds, flooded, work):
    env = dict(os.environ, SERVESCOPE_TOKEN=TOKEN)
    port_file = os.path.join(work, "port")
    if os.path.exists(port_file):
        os.remove(port_file)
    sched = subprocess.Popen([cli, "--json", "live", "scheduler", "-s", os.path.join(HERE, "throughput-scenario.json"),
                              "--system", "symphony", "--warmup", "0", "--ctrl-delay-us", "300",
                              "--response-delay-us", "300", "--listen", "127.0.0.1:0",
                              "--port-file", port_file, "--record", os.path.join(work, "record.json")],
                             stdout=subprocess.PIPE, stderr=open(os.path.join(work, "scheduler.log"), "w"), env=env)
    for _ in range(400):
        if os.path.exists(port_file) and open(port_file).read().count("\n") >= 2:
            break
        time.sleep(0.05)
    port = int(open(port_file).read().split()[0])
    log = open(os.path.join(work, "scheduler.log")).read()
    nodes = log.split("waiting for workers:")[1].split("\n")[0].split()
    workers = [subprocess.Popen([cli, "live", "worker", "--connect", f"127.0.0.1:{port}", "--node", n],
                                stderr=subprocess.DEVNULL, env=env) for n in nodes]
    time.sleep(1.5)
    stop, sent = threading.Event(), [0]
    flooder = threading.Thread(target=flood, args=(port, stop, sent)) if flooded else None
    fds = []
    sampling = threading.Event()

    def sample():
        while not sampling.is_set():
            try:
                fds.append(len(os.listdir(f"/proc/{sched.pid}/fd")))
            except OSError:
                pass
            time.sleep(0.5)

    sampler = threading.Thread(target=sample)
    sampler.start()
    if flooder:
        flooder.start()
    load = subprocess.run([cli, "--json", "live", "loadgen", "--connect", f"127.0.0.1:{port}", "--rate", str(rate),
                           "--duration", str(seconds)], capture_output=True, text=True, env=env)
    stop.set()
    if flooder:
        flooder.join()
    sampling.set()
    sampler.join()
    peak_kib = 0
    for line in open(f"/proc/{sched.pid}/status"):
        if line.startswith("VmHWM:"):
            peak_kib = int(line.split()[1])
    sched.terminate()
    report = json.loads(sched.communicate(timeout=120)[0])
    for w in workers:
        w.terminate()
        w.wait()
    result = json.loads(load.stdout)
    return {"flooded": flooded, "commands_sent": sent[0], "attainment": result["attainment"],
            "sent": result["sent"], "lost": result["lost"], "loadgen_exit": load.returncode,
            "scheduler_fds_min": min(fds), "scheduler_fds_max": max(fds), "scheduler_peak_mib": peak_kib // 1024,
            "commands_limited": report["commands_limited"], "plan_switches": report["plan_switches"],
            "plan_switches_limited": report["plan_switches_limited"],
            "recording_complete": report.get("recording", {}).get("complete")}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cli", default=os.path.join(HERE, "../../build/dev/app/servescope-cli"))
    parser.add_argument("--rate", type=float, default=10000)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for _ in range(args.repeat):
            for flooded in (False, True):
                rows.append(run(args.cli, args.rate, args.seconds, flooded, work))
                print(json.dumps(rows[-1]), file=sys.stderr)
    quiet = [r["attainment"] for r in rows if not r["flooded"]]
    loud = [r["attainment"] for r in rows if r["flooded"]]
    print(json.dumps({"runs": rows, "quiet_attainment": quiet, "flooded_attainment": loud,
                      "change_points": round(100 * (sum(loud) / len(loud) - sum(quiet) / len(quiet)), 2)}, indent=1))


if __name__ == "__main__":
    main()
