#!/usr/bin/env python3
"""A straggler under every outer technique: does it hold the loop?

The hybrid Mandelbrot's shared loop, 600 x 2400 (2,400 rows) as in issue 44,
on 2 ranks of 1 thread; rank 1 runs at a tenth of its speed, undeclared (no
weights). Inner technique --inner (default static, the OpenMP default:
without a bound on the inner chunks one thread takes its whole outer chunk
in one claim). One column per transport:resilience pair, one row per outer
technique of the catalog; each cell is the loop time on rank 0 (the loop
and the checkpoint that ends it, so a rank still running holds it) over the
ideal makespan, work / capacity = T1 / (1 + 0.1), T1 the loop time of one
full-speed rank alone on the image, measured again for each row (the
machine's load changes during a run); medians of --reps runs. Issue 44's
target with copies on: <= 1.3.

--program rows (default): benchmarks/mpi/mandelbrot_rows, each row's real
  cost waited out on the wall clock, scaled so that one full-speed rank takes
  --serial-s for the image; rank 1 waits 10x as long (--rank-speed 1:0.1).
  Mostly load-independent (a busy machine wakes the sleeping rows late: T1
  then exceeds --serial-s).
--program mandelbrot: the real kernel (mpi_mandelbrot --verify), rank 1
  under SELFSCHED_EXAMPLE_SLOWDOWN=0.1 (busy spinning). Follows the load.

  python3 benchmarks/mpi/straggler_techniques.py --build build [--reps 1]
      [--program rows|mandelbrot] [--techniques fss,af,awf-c]
      [--columns master:off,master:duplicate,hier:duplicate]
"""
import argparse
import os
import re
import statistics
import subprocess

CATALOG = ["static", "ss", "css:8", "gss", "tss", "fss", "fac", "tfss", "fiss", "viss", "mfsc", "fsc", "tap", "rnd",
           "pls", "wf", "dtss", "dfss", "dgss", "awf", "awf-b", "awf-c", "awf-d", "awf-e", "af", "bold", "auto"]


def field(out, name):
    found = re.search(name + r"=([0-9.]+)", out)
    if not found or "ok=1" not in out:
        raise SystemExit("run failed:\n" + out)
    return float(found.group(1))


class Job:
    def __init__(self, args):
        bin_dir = os.path.join(args.build, "bin")
        self.mpirun = os.path.join(bin_dir, "selfsched-mpirun")
        self.args = args
        image = ["--width", str(args.width), "--height", str(args.height)]
        if args.program == "rows":
            self.program = [os.path.join(bin_dir, "mandelbrot_rows")] + image + ["--serial-s", str(args.serial_s)]
            self.slow_rank = ["--rank-speed", "1:0.1"]
        else:
            self.program = [os.path.join(bin_dir, "mpi_mandelbrot")] + image + ["--verify"]
            self.slow_rank = []

    def seconds(self, env, ranks=2):
        if ranks == 1:
            cmd = [self.mpirun, "-np", "1"] + self.program
        elif self.args.program == "rows":
            cmd = [self.mpirun, "-np", "2"] + self.program + self.slow_rank
        else:
            cmd = [self.mpirun, "-np", "1"] + self.program + [":", "-np", "1", "env",
                                                                "SELFSCHED_EXAMPLE_SLOWDOWN=0.1"] + self.program
        done = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=900)
        return field(done.stdout, "time_s")

    def alone(self, env):
        return statistics.median(self.seconds(dict(env, SELFSCHED_MPI_SCHEDULE="fss"), 1)
                                 for _ in range(self.args.reps))


def column_env(env, column):
    transport, resilience = column.split(":")
    # hier with a node per rank: rank 1's chunks come through its own node master.
    return dict(env, SELFSCHED_MPI_TRANSPORT=transport, SELFSCHED_MPI_RESILIENCE=resilience,
                SELFSCHED_MPI_NODE_SIZE="1")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build")
    parser.add_argument("--reps", type=int, default=1)
    parser.add_argument("--program", choices=["rows", "mandelbrot"], default="rows")
    parser.add_argument("--width", type=int, default=600)
    parser.add_argument("--height", type=int, default=2400)
    parser.add_argument("--serial-s", type=float, default=2.0, help="rows: one full-speed rank on the image")
    parser.add_argument("--inner", default="static", help="OMP_SCHEDULE: the threads' technique inside outer chunks")
    parser.add_argument("--techniques", default=",".join(CATALOG), help="outer techniques (css:8 for css,8)")
    parser.add_argument("--columns", default="master:off,master:duplicate,hier:duplicate",
                        help="transport:resilience pairs")
    args = parser.parse_args()
    job = Job(args)
    env = dict(os.environ, OMP_NUM_THREADS="1", OMP_SCHEDULE=args.inner)
    env.pop("SELFSCHED_EXAMPLE_SLOWDOWN", None)
    columns = args.columns.split(",")

    print(f"{args.program}, {args.width} x {args.height}, 2 ranks x 1 thread, rank 1 at 0.1 of its speed, inner "
          f"{args.inner}; loop time / (T1 / 1.1), medians of {args.reps}.\n")
    print("| outer | T1 (s) | " + " | ".join(columns) + " |")
    print("| --- | --- |" + " --- |" * len(columns))
    worst = {column: (0.0, "") for column in columns}
    for technique in args.techniques.split(","):
        outer = technique.replace(":", ",")
        alone = job.alone(env)
        ideal = alone / 1.1
        cells = [f"{alone:.3f}"]
        for column in columns:
            env_here = dict(column_env(env, column), SELFSCHED_MPI_SCHEDULE=outer)
            ratio = statistics.median(job.seconds(env_here) for _ in range(args.reps)) / ideal
            worst[column] = max(worst[column], (ratio, outer))
            cells.append(f"{ratio:.2f}")
        print(f"| {outer} | " + " | ".join(cells) + " |", flush=True)
    print("| worst | | " + " | ".join(f"{worst[c][0]:.2f} ({worst[c][1]})" for c in columns) + " |")


if __name__ == "__main__":
    main()
