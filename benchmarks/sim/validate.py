#!/usr/bin/env python3
"""The simulator against this machine: for a real loop (the Mandelbrot rows
example, 2 threads bound one per CPU), per-iteration costs are recorded once
(SELFSCHED_PROFILE with chunks, under ss: one row per chunk; the third of
three instances in one process, so warm), then every
technique runs for real (median of --reps runs, the program's own loop time)
and in the simulator on 2 workers with those costs (shared memory: no
latency, a claim of --claim). --scenario slowcores runs thread 1 at half
speed for real (the examples' emulated slow core) and in the simulator. Prints a Markdown table with both makespans
and their ratio.

  python3 benchmarks/sim/validate.py --build build [--reps 5]
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

TECHNIQUES = ["static", "ss", "css,8", "gss", "tss", "fss", "fac", "tfss", "fiss", "tap", "af", "awf-b", "auto"]
PROGRAM = ["mandelbrot", "--width", "560", "--height", "420"]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--claim", default="0.3us", help="a claim's cost in the simulation (default 0.3us)")
    parser.add_argument("--scenario", choices=["dedicated", "slowcores"], default="dedicated",
                        help="slowcores: thread 1 at half speed (SELFSCHED_EXAMPLE_SLOWDOWN=1,0.5; --speeds 1:0.5)")
    args = parser.parse_args()
    bin_dir = os.path.join(args.build, "bin")
    lib = os.path.join(args.build, "lib", "libselfsched.so")
    env = dict(os.environ, OMP_NUM_THREADS="2", OMP_PROC_BIND="true", OMP_PLACES="{0},{1}", SELFSCHED_SIA="off",
               SELFSCHED_AUTO_CACHE="off", LD_PRELOAD=lib)
    program = [os.path.join(bin_dir, PROGRAM[0])] + PROGRAM[1:]
    run_env = dict(env)
    speeds = []
    if args.scenario == "slowcores":
        run_env["SELFSCHED_EXAMPLE_SLOWDOWN"] = "1,0.5"
        speeds = ["--speeds", "1:0.5"]
    with tempfile.TemporaryDirectory() as tmp:
        costs = os.path.join(tmp, "costs.json")
        # Three instances in one process; the costs of the last, warm one.
        subprocess.run(program + ["--steps", "3"],
                       env=dict(env, OMP_SCHEDULE="ss", SELFSCHED_PROFILE=costs, SELFSCHED_PROFILE_CHUNKS="1"),
                       check=True, stdout=subprocess.DEVNULL)
        measured = {t: [] for t in TECHNIQUES}
        for _ in range(args.reps):
            for t in TECHNIQUES:
                out = subprocess.run(program, env=dict(run_env, OMP_SCHEDULE=t), check=True, capture_output=True,
                                     text=True).stdout
                measured[t].append(float(re.search(r"time_s=([0-9.]+)", out).group(1)))
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
