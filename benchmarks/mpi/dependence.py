#!/usr/bin/env python3
"""Dependence loops across ranks (selfsched::mpi::wavefront): S against SW
between ranks with one rank loaded (seed 000 Table 8's setting), and what
the messages cost against one rank of the same threads.

2 ranks of 1 thread (MPI_THREAD_FUNNELED: no progress thread on rank 0's
CPU), rank r bound to CPU r (taskset, Open MPI binding off); chunk
thresholds of seed 000 Table 4 (10 and about U_c / 10) on the outer chunks.
Scenarios:
  dedicated  nothing else runs; 1 rank of 2 threads (CPUs 0 and 1: the
             same work, no messages) beside 2 ranks of 1 thread.
  loaded     a busy loop pinned to CPU 1, so rank 1 gets about half of it
             (in time slices of a few ms).
  slow rank  Floyd-Steinberg only: rank 1 does extra arithmetic per pixel
             (--slow-rank 1 --slow-work 32), a steady half speed; its speed
             is measured alone in the same run.
Outer techniques (SELFSCHED_MPI_SCHEDULE): s-fss; sw-fss with the ranks'
weights given (SELFSCHED_WEIGHTS 1 and 0.5, run-queue monitor off); sw-fss
with weights from the run-queue monitor alone. The threads' technique
inside a rank is s-fss. Runs of one scenario alternate between the
variants; medians of --reps. Gain = (T_S - T_SW) / T_S.

  python3 benchmarks/mpi/dependence.py --build build [--reps 5]
"""
import argparse
import os
import re
import statistics
import subprocess

# Sizes, and seed 000 Table 4's thresholds on chunks along u_c (10 and
# about U_c / 10).
APPS = {
    "floyd_steinberg": ["--width", "2000", "--height", "2000", "--min-chunk", "10", "--max-chunk", "200"],
    "hydro": ["--loop", "300", "--n", "3000", "--min-chunk", "10", "--max-chunk", "300"],
    "heat_gauss_seidel": ["--rows", "600", "--cols", "600", "--sweeps", "4", "--min-chunk", "10", "--max-chunk", "60"],
}
# Each rank keeps its cells (the loop alone is timed); heat gathers between
# sweeps, as its next sweep needs.
HYBRID = {"floyd_steinberg": ["--gather", "none"], "hydro": ["--gather", "none"], "heat_gauss_seidel": []}


def seconds_of(out):
    found = re.search(r"time_s=([0-9.]+)", out)
    if not found or " ok=1" not in out:
        raise SystemExit("run failed:\n" + out)
    return float(found.group(1))


def hybrid(mpirun, program, args, env, rank_env=(None, None)):
    """2 ranks of 1 thread, rank r on CPU r; rank_env: extra variables per rank."""
    cmd = [mpirun]
    for r in range(2):
        if r:
            cmd.append(":")
        extra = [f"{k}={v}" for k, v in (rank_env[r] or {}).items()]
        cmd += ["-np", "1", "env"] + extra + ["taskset", "-c", str(r), program] + args + ["--thread-level", "funneled"]
    out = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout
    return seconds_of(out)


def one_rank(mpirun, program, args, env):
    """The same program as 1 rank of 2 threads bound to CPUs 0 and 1: no boundary messages."""
    env = dict(env, OMP_NUM_THREADS="2", OMP_PROC_BIND="true", OMP_PLACES="{0},{1}")
    out = subprocess.run([mpirun, "-np", "1", program] + args + ["--thread-level", "funneled"], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout
    return seconds_of(out)


def one_rank_alone(mpirun, program, args, env):
    """1 rank of 1 thread on CPU 0: the time of the whole loop at one rank's speed."""
    cmd = [mpirun, "-np", "1", "taskset", "-c", "0", program] + args + ["--thread-level", "funneled"]
    out = subprocess.run(cmd, env=dict(env, SELFSCHED_MPI_SCHEDULE="s-fss"), stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True).stdout
    return seconds_of(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--apps", default=",".join(APPS))
    args = parser.parse_args()
    bin_dir = os.path.join(args.build, "bin")
    mpirun = os.path.join(bin_dir, "selfsched-mpirun")
    env = dict(os.environ, OMP_NUM_THREADS="1", SELFSCHED_MPI_TRANSPORT="master")
    for name in ("SELFSCHED_EXAMPLE_SLOWDOWN", "SELFSCHED_WEIGHTS", "SELFSCHED_MPI_SCHEDULE", "OMP_SCHEDULE"):
        env.pop(name, None)
    variants = {
        "S": (dict(env, SELFSCHED_MPI_SCHEDULE="s-fss"), (None, None)),
        "SW, weights": (dict(env, SELFSCHED_MPI_SCHEDULE="sw-fss", SELFSCHED_RUNQUEUE="false"),
                        ({"SELFSCHED_WEIGHTS": "1"}, {"SELFSCHED_WEIGHTS": "0.5"})),
        "SW, run queue": (dict(env, SELFSCHED_MPI_SCHEDULE="sw-fss"), (None, None)),
    }
    apps = args.apps.split(",")

    print("Dedicated: 2 ranks x 1 thread (outer s-fss) against 1 rank x 2 threads (inner s-fss), medians (s).\n")
    print("| app | 1 rank x 2 threads | 2 ranks x 1 thread | ratio |")
    print("| --- | --- | --- | --- |")
    for app in apps:
        t, h = [], []
        for _ in range(args.reps):
            t.append(one_rank(mpirun, os.path.join(bin_dir, "mpi_" + app), APPS[app] + HYBRID[app],
                              variants["S"][0]))
            h.append(hybrid(mpirun, os.path.join(bin_dir, "mpi_" + app), APPS[app] + HYBRID[app], variants["S"][0]))
        mt, mh = statistics.median(t), statistics.median(h)
        print(f"| {app} | {mt:.3f} | {mh:.3f} | {mh / mt:.2f} |", flush=True)

    print("\nLoaded: a busy loop pinned to CPU 1 (rank 1's), medians (s).\n")
    print("| app | S | SW, weights | gain | SW, run queue | gain |")
    print("| --- | --- | --- | --- | --- | --- |")
    busy = subprocess.Popen(["taskset", "-c", "1", "sh", "-c", "while :; do :; done"])
    try:
        for app in apps:
            times = {v: [] for v in variants}
            for _ in range(args.reps):
                for v, (venv, rank_env) in variants.items():
                    times[v].append(
                        hybrid(mpirun, os.path.join(bin_dir, "mpi_" + app), APPS[app] + HYBRID[app], venv, rank_env))
            s = statistics.median(times["S"])
            w = statistics.median(times["SW, weights"])
            q = statistics.median(times["SW, run queue"])
            print(f"| {app} | {s:.3f} | {w:.3f} | {100 * (s - w) / s:.0f}% | {q:.3f} | {100 * (s - q) / s:.0f}% |",
                  flush=True)
    finally:
        busy.kill()

    if "floyd_steinberg" not in apps:
        return
    program = os.path.join(bin_dir, "mpi_floyd_steinberg")
    slow = ["--slow-rank", "1", "--slow-work", "32"]
    base = APPS["floyd_steinberg"] + HYBRID["floyd_steinberg"]
    alone = [(one_rank_alone(mpirun, program, base, env), one_rank_alone(mpirun, program, base + ["--slow-rank", "0",
             "--slow-work", "32"], env)) for _ in range(args.reps)]
    speed = statistics.median(a / b for a, b in alone)
    print(f"\nSlow rank: rank 1 at {speed:.2f} of rank 0's speed (measured alone), medians (s).\n")
    print("| app | S | SW, weights 1 and 0.5 | gain |")
    print("| --- | --- | --- | --- |")
    times = {"S": [], "SW, weights": []}
    for _ in range(args.reps):
        for v in times:
            venv, rank_env = variants[v]
            times[v].append(hybrid(mpirun, program, base + slow, venv, rank_env))
    s, w = statistics.median(times["S"]), statistics.median(times["SW, weights"])
    print(f"| floyd_steinberg | {s:.3f} | {w:.3f} | {100 * (s - w) / s:.0f}% |", flush=True)


if __name__ == "__main__":
    main()
