#!/usr/bin/env python3
"""Dependence loops, mechanisms S and SW: the measurements of docs/results/dependence.md.

    benchmarks/dependence/run_dependence.py [--build build] [--repeat 3]
        [--scenario dedicated,sweep,nondedicated] [--threads 2]

Runs the examples in examples/dependence/ (built in BUILD/bin) and prints
Markdown tables: each cell is the best and the median wall time of REPEAT
runs of the computation (the program's time_s; one run when it takes over
5 s), the first run of each configuration checked bit for bit against the
serial loop (--verify).

Scenarios (threads bound one to a CPU: OMP_PROC_BIND=true and OMP_PLACES={c0},{c1},...
with the first usable CPUs, checked once before the runs):
  dedicated     serial, libomp's doacross (static,1 and dynamic), selfsched's
                doacross (ss, s-ss), and the wavefront API under s-* and sw-*.
  sweep         #SP from 1 x m to 10 x m (m threads), wavefront s-fss / s-tss
                (seed 000 Fig. 8).
  nondedicated  a busy loop pinned to thread 1's CPU (taskset -c CPU sh -c
                'while :; do :; done'), started and stopped by this script; s-X vs sw-X
                (seed 000 Table 8): W from SELFSCHED_WEIGHTS=1,0.5 with the
                run-queue monitor off, and from the run-queue monitor alone.
Wavefront runs use the chunk thresholds of THRESHOLDS (seed 000 Table 4).
"""
import argparse
import os
import re
import signal
import statistics
import subprocess
import sys
import time

APPS = {
    "floyd_steinberg": ["--width", "4000", "--height", "4000"],
    "hydro": ["--loop", "1000", "--n", "5000"],
    "heat_gauss_seidel": ["--rows", "2000", "--cols", "2000", "--sweeps", "20"],
}
SWEEP_APPS = ["floyd_steinberg", "hydro"]
# Lower / upper thresholds on wavefront chunks, about U_c / 10 above as in
# seed 000 Table 4 (10 / 500..1000): without them the tail of tss, and of
# any sw-* technique on a loaded thread, is a run of one-column chunks, each
# paying #SP synchronizations.
THRESHOLDS = {
    "floyd_steinberg": ["--min-chunk", "10", "--max-chunk", "1000"],  # U_c' = 4000 + 2 x 3999
    "hydro": ["--min-chunk", "10", "--max-chunk", "500"],             # U_c' = 4999 + 999
    "heat_gauss_seidel": ["--min-chunk", "10", "--max-chunk", "200"], # U_c = 2000
}


def run(build, app, args, env_extra, verify):
    env = dict(os.environ)
    for k in ("OMP_SCHEDULE", "SELFSCHED_SCHEDULE", "SELFSCHED_WEIGHTS", "SELFSCHED_SYNC_POINTS",
              "SELFSCHED_RUNQUEUE"):
        env.pop(k, None)
    env.update(env_extra)
    extra = THRESHOLDS[app] if "wavefront" in args else []
    command = [os.path.join(build, "bin", app)] + APPS[app] + extra + args + (["--verify"] if verify else [])
    out = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    line = out.stdout.strip()
    if out.returncode != 0 or not line.endswith("ok=1"):
        sys.exit(f"failed: {' '.join(command)} {env_extra}\n{out.stdout}{out.stderr}")
    fields = dict(f.split("=", 1) for f in line.split() if "=" in f)
    return fields


class timing:
    """Best and median of the runs: on a machine shared with other jobs, the
    best run is the one least disturbed."""

    def __init__(self, times):
        self.best, self.median = min(times), statistics.median(times)

    def __str__(self):
        return f"{self.best:.3f} ({self.median:.3f})"


def measure(build, repeat, app, args, env_extra=None):
    env_extra = env_extra or {}
    times, last = [], None
    for r in range(repeat):
        last = run(build, app, args, env_extra, verify=(r == 0))
        times.append(float(last["time_s"]))
        print(f"# {app} {' '.join(args)} {env_extra}: {last}", file=sys.stderr)
        if times[-1] > 5:  # far off the others: one run tells enough
            break
    return timing(times), last


def load_average():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def dedicated(build, repeat, threads):
    configs = [
        ("serial loop", ["--mode", "serial"], {}),
        ("libomp doacross static,1", ["--mode", "doacross"], {"OMP_SCHEDULE": "static,1"}),
        ("libomp doacross dynamic,1", ["--mode", "doacross"], {"OMP_SCHEDULE": "dynamic,1"}),
        ("selfsched doacross ss", ["--mode", "doacross", "--sinks", "plain"], {"OMP_SCHEDULE": "ss"}),
        ("selfsched doacross s-ss", ["--mode", "doacross", "--sinks", "plain"], {"OMP_SCHEDULE": "s-ss"}),
        ("selfsched doacross s-fss", ["--mode", "doacross", "--sinks", "plain"], {"OMP_SCHEDULE": "s-fss"}),
    ] + [(f"wavefront {t}", ["--mode", "wavefront", "--technique", t], {})
         for t in ("s-css", "s-fss", "s-gss", "s-tss", "sw-fss")]
    print(f"\n### Dedicated: {threads} threads, bound (load average at start: {load_average()})\n")
    print("Best (median) time in seconds of the runs; speedup of the best over the serial loop's best.\n")
    apps = list(APPS)
    print("| configuration | " + " | ".join(apps) + " |")
    print("| --- |" + " --- |" * len(apps))
    serial = {}
    for label, args, env in configs:
        cells = []
        for app in apps:
            t, _ = measure(build, repeat, app, args, env)
            if label == "serial loop":
                serial[app] = t.best
            cells.append(f"{t} {serial[app] / t.best:.2f}x")
        print(f"| {label} | " + " | ".join(cells) + " |", flush=True)


def sweep(build, repeat, threads):
    print(f"\n### #SP sweep: wavefront, {threads} threads, bound (load average at start: {load_average()})\n")
    print("Best (median) time in seconds; SI = ceil(U_s / #SP).\n")
    columns = [(app, t) for app in SWEEP_APPS for t in ("s-fss", "s-tss")]
    print("| #SP | " + " | ".join(f"{a} {t}" for a, t in columns) + " |")
    print("| --- |" + " --- |" * len(columns))
    for factor in range(1, 11):
        sp = factor * threads
        cells = []
        for app, t in columns:
            t_sp, last = measure(build, repeat, app,
                                 ["--mode", "wavefront", "--technique", t, "--sync-points", str(sp)])
            cells.append(f"{t_sp}, SI {last['sync_interval']}")
        print(f"| {factor} x m = {sp} | " + " | ".join(cells) + " |", flush=True)


def usable_cpus(threads):
    """The first `threads` CPUs this process may use: thread t is bound to the t-th."""
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < max(threads, 2):
        sys.exit(f"{max(threads, 2)} CPUs needed to bind the threads one to a CPU; this process may use {cpus}")
    return cpus[:threads]


def check_binding(build, threads):
    """Each thread bound to one CPU of its own (libomp's affinity display on a small run), or exit."""
    env = dict(os.environ, OMP_DISPLAY_AFFINITY="TRUE", OMP_AFFINITY_FORMAT="binding-check thread %n cpus %A")
    result = subprocess.run([os.path.join(build, "bin", "floyd_steinberg"), "--width", "64", "--height", "64"],
                            env=env, capture_output=True, text=True, timeout=60)
    bound = dict(re.findall(r"^binding-check thread (\d+) cpus (\S+)$", result.stdout, re.MULTILINE))
    cpus = [bound.get(str(t)) for t in range(threads)]
    if not all(c is not None and c.isdigit() for c in cpus) or len(set(cpus)) != threads:
        sys.exit(f"OMP_PLACES={os.environ['OMP_PLACES']} did not bind each of the {threads} threads to a CPU of "
                 "its own: libomp bound them to " + ", ".join(f"thread {t}: {{{c}}}" for t, c in enumerate(cpus)))


def nondedicated(build, repeat, threads):
    # Its own process group (to stop it), but this session: same scheduler
    # autogroup, so it competes with thread 1 as an equal.
    cpu = usable_cpus(threads)[1]
    hog = subprocess.Popen(["taskset", "-c", str(cpu), "sh", "-c", "while :; do :; done"], process_group=0)
    try:
        time.sleep(0.5)
        print(f"\n### Non-dedicated: {threads} threads bound one to a CPU, a busy loop pinned to thread 1's "
              f"CPU {cpu} "
              f"(load average at start: {load_average()})\n")
        print("Best (median) time in seconds; gain = (T_S - T_SW) / T_S of the best runs (seed 000 Table 8).")
        print("Chunk thresholds of seed 000 Table 4 (THRESHOLDS); the upper one bounds the technique's chunk "
              "before W scales it.\n")
        variants = [("W from SELFSCHED_WEIGHTS=1,0.5", {"SELFSCHED_WEIGHTS": "1,0.5", "SELFSCHED_RUNQUEUE": "false"}),
                    ("W from the run-queue monitor", {})]
        print("| app | technique | S | SW, weights | gain | SW, run queue | gain |")
        print("| --- | --- | --- | --- | --- | --- | --- |")
        for app in SWEEP_APPS:
            for t in ("css", "fss", "gss", "tss"):
                s, _ = measure(build, repeat, app, ["--mode", "wavefront", "--technique", "s-" + t])
                cells = [str(s)]
                for _, env in variants:
                    sw, _ = measure(build, repeat, app, ["--mode", "wavefront", "--technique", "sw-" + t], env)
                    cells += [str(sw), f"{100 * (s.best - sw.best) / s.best:.0f}%"]
                print(f"| {app} | {t} | " + " | ".join(cells) + " |", flush=True)
    finally:
        os.killpg(hog.pid, signal.SIGTERM)
        hog.wait()


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default="build")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--scenario", default="dedicated,sweep,nondedicated")
    a = p.parse_args()
    # Explicit places: OMP_PLACES=cores depends on libomp's reading of the
    # topology (one core of two hardware threads on a 2-vCPU AMD EPYC VM,
    # where both threads would share {0,1}).
    places = ",".join("{%d}" % cpu for cpu in usable_cpus(a.threads))
    os.environ.update({"OMP_NUM_THREADS": str(a.threads), "OMP_PROC_BIND": "true", "OMP_PLACES": places})
    check_binding(a.build, a.threads)
    scenarios = {"dedicated": dedicated, "sweep": sweep, "nondedicated": nondedicated}
    for name in a.scenario.split(","):
        if name not in scenarios:
            sys.exit(f"unknown scenario '{name}'; valid: {', '.join(scenarios)}")
        scenarios[name](a.build, a.repeat, a.threads)


if __name__ == "__main__":
    main()
