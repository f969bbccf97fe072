#!/usr/bin/env python3
"""The simulator against this machine: for a real loop (the Mandelbrot rows
example, 2 threads bound one per CPU), per-iteration costs are recorded once
(SELFSCHED_PROFILE with chunks, under ss: one row per chunk; the third of
three instances in one process, so warm), then every
technique runs for real (median of --reps runs, the program's own loop time)
and in the simulator on 2 workers with those costs (shared memory: no
latency, a claim of --claim). The scenarios are the application matrix's:
slowcores runs thread 1 at half speed for real (the examples' emulated slow
core); hybrid does the same on an emulated hybrid CPU (hwloc XML: CPU kinds
of capacity 1 and 0.5, so selfsched's VP is 1 and 0.5); nondedicated runs
thread 1 beside a busy process pinned to its CPU, which the kernel gives
about half of it in time slices. All three are simulated with speeds 1 and
0.5. Prints a Markdown table with both makespans and their ratio.

  python3 benchmarks/sim/validate.py --build build [--reps 5]
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

TECHNIQUES = ["static", "ss", "css,8", "gss", "tss", "fss", "fac", "tfss", "fiss", "tap", "af", "awf-b", "auto"]
PROGRAM = ["mandelbrot", "--width", "560", "--height", "420"]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--claim", default="0.3us", help="a claim's cost in the simulation (default 0.3us)")
    parser.add_argument("--scenario", choices=["dedicated", "slowcores", "hybrid", "nondedicated"], default="dedicated",
                        help="slowcores: thread 1 at half speed (SELFSCHED_EXAMPLE_SLOWDOWN=1,0.5); hybrid: the same "
                             "on an emulated hybrid CPU (hwloc XML); nondedicated: a busy process on thread 1's CPU; "
                             "each simulated with --speeds 1:0.5")
    args = parser.parse_args()
    bin_dir = os.path.join(args.build, "bin")
    lib = os.path.join(args.build, "lib", "libselfsched.so")
    cpus = sorted(os.sched_getaffinity(0))[:2]
    if len(cpus) < 2:
        sys.exit("validate.py: needs 2 usable CPUs")
    env = dict(os.environ, OMP_NUM_THREADS="2", OMP_PROC_BIND="true", OMP_PLACES="{%d},{%d}" % tuple(cpus),
               SELFSCHED_SIA="off", SELFSCHED_AUTO_CACHE="off", LD_PRELOAD=lib)
    program = [os.path.join(bin_dir, PROGRAM[0])] + PROGRAM[1:]
    run_env = dict(env)
    speeds = []
    if args.scenario in ("slowcores", "hybrid"):
        run_env["SELFSCHED_EXAMPLE_SLOWDOWN"] = "1,0.5"
    if args.scenario == "hybrid":
        run_env["HWLOC_XMLFILE"] = os.path.join(SOURCE, "tests", "data", "hybrid-2core.xml")
    if args.scenario != "dedicated":
        speeds = ["--speeds", "1:0.5"]
    competitor = None
    with tempfile.TemporaryDirectory() as tmp:
        costs = os.path.join(tmp, "costs.json")
        # Three instances in one process; the costs of the last, warm one.
        subprocess.run(program + ["--steps", "3"],
                       env=dict(env, OMP_SCHEDULE="ss", SELFSCHED_PROFILE=costs, SELFSCHED_PROFILE_CHUNKS="1"),
                       check=True, stdout=subprocess.DEVNULL)
        measured = {t: [] for t in TECHNIQUES}
        if args.scenario == "nondedicated":  # seed 000's resource expensive process, on thread 1's CPU
            competitor = subprocess.Popen(["taskset", "-c", str(cpus[1]), "sh", "-c", "while :; do :; done"])
            time.sleep(0.3)
        try:
            for _ in range(args.reps):
                for t in TECHNIQUES:
                    out = subprocess.run(program, env=dict(run_env, OMP_SCHEDULE=t), check=True, capture_output=True,
                                         text=True).stdout
                    measured[t].append(float(re.search(r"time_s=([0-9.]+)", out).group(1)))
        finally:
            if competitor is not None:
                competitor.kill()
                competitor.wait()
        print("| technique | measured (s) | simulated (s) | simulated / measured |")
        print("| --- | --- | --- | --- |")
        ratios = []
        for t in TECHNIQUES:
            out = subprocess.run([os.path.join(bin_dir, "selfsched-sim"), "--technique", t, "--workers", "2",
                                  "--profile", costs, "--instance", "2", "--latency", "0", "--claim", args.claim] + speeds,
                                 check=True, capture_output=True, text=True).stdout
            simulated = float(out.strip().splitlines()[-1].split("|")[5])
            real = statistics.median(measured[t])
            ratios.append(simulated / real)
            print(f"| {t} | {real:.4f} | {simulated:.4f} | {simulated / real:.2f} |")
        print(f"\nWithin 10%: {sum(1 for r in ratios if abs(r - 1) <= 0.10)} of {len(ratios)}.", file=sys.stdout)


if __name__ == "__main__":
    main()
