#!/usr/bin/env python3
"""Cluster mode against one process, on the same two CPUs.

Each application runs as one process of two threads (the reference, with
libselfsched preloaded, schedule as given) and under `selfsched-mpirun
--cluster` as 2 ranks of 1 thread, alternating, --reps times; optionally
again across two namespace nodes (--nodes, as root), with --latency on
their links; and as one process of one thread, a node's share of a
two-node cluster (a region both ranks run whole, replicated, costs each
of two real nodes that much). Reported: medians of the loop time each
program prints (time_s) and of the whole run (start to exit), the ratio
cluster / one process, and cluster / a node's share. Checksums must match. Each application gets a fresh auto cache
(SELFSCHED_AUTO_CACHE), and one untimed run of each kind first: what is
timed is auto's choice as a program's second run finds it (cluster mode's
per-site shared or replicated, the threads' learned schedule).

  python3 benchmarks/cluster/compare.py --build build [--reps 5] [--nodes --latency 100us]
"""
import argparse
import os
import re
import statistics
import subprocess
import tempfile
import time

APPS = {
    "mandelbrot": ["mandelbrot", "--width", "1000", "--height", "2000", "--max-iter", "2000"],
    "adjoint_convolution": ["adjoint_convolution", "--n", "80000"],
    "matmul": ["matmul", "--n", "2000"],
    "monte_carlo": ["monte_carlo", "4000", "40000"],
    "memory_bound": ["memory_bound", "2000000", "20"],
}


def run(cmd, env):
    start = time.monotonic()
    out = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600).stdout
    whole = time.monotonic() - start
    loop = re.search(r"time_s=([0-9.]+)", out)
    check = re.search(r"checksum=(0x[0-9a-f]+)", out)
    if not loop or not check:
        raise SystemExit("run failed: " + " ".join(cmd) + "\n" + out)
    return float(loop.group(1)), whole, check.group(1)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--apps", default=",".join(APPS))
    ap.add_argument("--schedule", default="auto", help="OMP_SCHEDULE of both runs (default auto)")
    ap.add_argument("--nodes", action="store_true", help="the cluster runs across two namespace nodes")
    ap.add_argument("--latency", default="", help="with --nodes: latency of each link, e.g. 100us")
    args = ap.parse_args()
    bin_dir = os.path.join(args.build, "bin")
    lib = os.path.abspath(os.path.join(args.build, "lib", "libselfsched.so"))
    base = dict(os.environ, OMP_SCHEDULE=args.schedule, SELFSCHED_OVERRIDE="dynamic,guided")
    one_env = dict(base, OMP_NUM_THREADS="2", LD_PRELOAD=lib, OMP_PLACES="threads", OMP_PROC_BIND="spread")
    # One node's share: one process with one rank's threads, what a program
    # run on one node of a two-node cluster gets (on two real nodes a
    # replicated region costs each rank that much).
    share_env = dict(base, OMP_NUM_THREADS="1", LD_PRELOAD=lib)
    cluster_env = dict(base, OMP_NUM_THREADS="1")
    mpirun = [os.path.join(bin_dir, "selfsched-mpirun"), "--cluster", "-np", "2"]
    if args.nodes:
        netns = [os.path.join(bin_dir, "selfsched-netns"), "run"]
        if args.latency:
            netns += ["--latency", args.latency]
        mpirun = netns + ["--"] + mpirun
    scenario = "two namespace nodes" + (f", {args.latency} links" if args.latency else "") if args.nodes else "one VM"
    print(f"| app | one process 2x1: loop s | cluster 2 ranks x 1: loop s | loop ratio | whole-run ratio | one process 1x1: loop s | cluster / 1x1 |  ({scenario}, OMP_SCHEDULE={args.schedule}, medians of {args.reps})")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name in args.apps.split(","):
        app = APPS[name]
        program = [os.path.join(bin_dir, app[0])] + app[1:]
        ones, clusters, shares = [], [], []
        cache = os.path.join(tempfile.mkdtemp(prefix="selfsched-compare."), "auto.json")
        one_env["SELFSCHED_AUTO_CACHE"] = cluster_env["SELFSCHED_AUTO_CACHE"] = cache
        share_env["SELFSCHED_AUTO_CACHE"] = cache + ".share"
        run(program, one_env)  # auto learns
        run(mpirun + program, cluster_env)
        run(program, share_env)
        for _ in range(args.reps):
            ones.append(run(program, one_env))
            clusters.append(run(mpirun + program, cluster_env))
            shares.append(run(program, share_env))
        if len({c for _, _, c in ones + clusters + shares}) != 1:
            raise SystemExit(f"{name}: checksums differ: {ones} {clusters} {shares}")
        one_loop = statistics.median(l for l, _, _ in ones)
        cl_loop = statistics.median(l for l, _, _ in clusters)
        one_whole = statistics.median(w for _, w, _ in ones)
        cl_whole = statistics.median(w for _, w, _ in clusters)
        share_loop = statistics.median(l for l, _, _ in shares)
        print(f"| {name} | {one_loop:.3f} | {cl_loop:.3f} | {cl_loop / one_loop:.3f} | {cl_whole / one_whole:.3f} "
              f"| {share_loop:.3f} | {cl_loop / share_loop:.3f} |")


if __name__ == "__main__":
    main()
