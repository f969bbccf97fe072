#!/usr/bin/env python3
"""A central task pool with a slow or stopped rank, copies off and on.

benchmarks/mpi/pool_stragglers (independent tasks waited out on the wall
clock, so the load of a shared machine barely moves them) on 3 ranks of one
thread: rank 0 serves, ranks 1 and 2 run tasks. Scenarios: rank 2 at a
tenth of its speed; rank 2 stopped (SIGSTOP) for --stop-s seconds in its
third task while it holds another. Each cell is the median over --reps runs
of the pool's work time (rank 0 knows every task done) over the ideal: the
work over the working ranks' capacity (the slow rank a tenth, the stopped
one nothing: stopped longer than the pool takes without it). run_s: when
run returned, which waits for a stopped rank to answer. The load average is
printed with the table.

  python3 benchmarks/mpi/pool_stragglers.py --build build [--reps 3] [--stop-s 3]
"""
import argparse
import os
import re
import statistics
import subprocess


def once(build, resilience, args):
    env = dict(os.environ, SELFSCHED_MPI_RESILIENCE=resilience, OMP_NUM_THREADS="1", OMP_PLACES="threads")
    cmd = [os.path.join(build, "bin", "selfsched-mpirun"), "-np", "3",
           os.path.join(build, "bin", "pool_stragglers")] + args
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
    if "ok=1" not in out:
        raise SystemExit("a result was lost or came twice: " + out)
    fields = dict(re.findall(r"(\w+)=([0-9.]+)", out))
    return {k: float(fields[k]) for k in ("work_s", "run_s", "ideal_s", "copies")}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--tasks", type=int, default=300)
    parser.add_argument("--task-ms", type=float, default=5)
    parser.add_argument("--stop-s", type=float, default=3)
    a = parser.parse_args()
    common = ["--tasks", str(a.tasks), "--task-ms", str(a.task_ms)]
    scenarios = [("rank 2 at 1/10 speed", ["--slow-rank", "2", "--slow-factor", "10"]),
                 (f"rank 2 stopped {a.stop_s:g} s", ["--stop-rank", "2", "--stop-s", str(a.stop_s)])]
    print(f"load average before: {os.getloadavg()[0]:.1f}; {a.tasks} tasks of {a.task_ms:g} ms, 3 ranks x 1 thread, "
          f"medians of {a.reps}")
    print("| scenario | copies off: work / ideal (run_s) | copies on: work / ideal (run_s) | copies made |")
    print("|---|---|---|---|")
    for name, args in scenarios:
        cells = []
        for resilience in ("off", "duplicate"):
            runs = [once(a.build, resilience, common + args) for _ in range(a.reps)]
            ratio = statistics.median(r["work_s"] / r["ideal_s"] for r in runs)
            cells.append(f"{ratio:.2f}x ({statistics.median(r['run_s'] for r in runs):.2f} s)")
            copies = statistics.median(r["copies"] for r in runs)
        print(f"| {name} | {cells[0]} | {cells[1]} | {copies:g} |")
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
