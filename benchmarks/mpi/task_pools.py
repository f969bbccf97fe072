#!/usr/bin/env python3
"""Task pool strategies measured on this machine, as seed 001 reports them:
seed 001's global optimization (mpi_global_opt, shekel10, an expensive f)
under each strategy, for several ranks x threads, with every rank equal and
with rank 1 at half speed, on shared memory and (as root) across two
network-namespace nodes. Median time of --reps runs; the range of the
working ranks' utilization and the master's or mediator's, from the median
run.

  python3 benchmarks/mpi/task_pools.py --build build [--reps 3]
"""
import argparse
import os
import re
import subprocess

STRATEGIES = ["central", "mediation", "hier-mediation", "receiver", "sender"]
CONFIGS = [(2, 2), (3, 1), (4, 1)]  # ranks, threads per rank
PROGRAM = ["--function", "shekel10", "--work", "3000"]


def once(cmd, env):
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
    util = re.search(r" utilization=([0-9.]+)\.\.([0-9.]+)", out)
    return {"time": float(re.search(r"time_s=([0-9.]+)", out).group(1)),
            "util": (float(util.group(1)), float(util.group(2))),
            "server": float(re.search(r"server_utilization=([0-9.]+)", out).group(1))}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build")
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    bin_dir = os.path.join(args.build, "bin")
    mpirun, program = os.path.join(bin_dir, "selfsched-mpirun"), os.path.join(bin_dir, "mpi_global_opt")
    netns = os.path.join(bin_dir, "selfsched-netns")
    cases = [(r, t, slow, False) for r, t in CONFIGS for slow in (False, True)]
    if os.geteuid() == 0:
        cases += [(4, 1, False, True), (4, 1, True, True)]
    print("| ranks x threads | ranks | strategy | time (s) | utilization | master / mediator |")
    print("| --- | --- | --- | --- | --- | --- |")
    for ranks, threads, slow, nodes in cases:
        for strategy in STRATEGIES:
            env = dict(os.environ, OMP_NUM_THREADS=str(threads))
            cmd = [mpirun, "-np", str(ranks), program, "--strategy", strategy] + PROGRAM
            if slow:
                cmd += ["--slow-rank", "1:0.5"]
            if nodes:
                cmd = [netns, "run", "--"] + cmd
            runs = sorted((once(cmd, env) for _ in range(args.reps)), key=lambda r: r["time"])
            r = runs[len(runs) // 2]
            where = f"{ranks} x {threads}" + (" (2 nodes)" if nodes else "")
            speeds = "rank 1 at 0.5" if slow else "equal"
            server = "-" if strategy in ("receiver", "sender") else f"{r['server']:.2f}"  # receiver: no master
            print(f"| {where} | {speeds} | {strategy} | {r['time']:.3f} | {r['util'][0]:.2f}..{r['util'][1]:.2f} | "
                  f"{server} |", flush=True)


if __name__ == "__main__":
    main()
