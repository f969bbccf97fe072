#!/usr/bin/env python3
"""Stragglers across ranks, with and without copies (SELFSCHED_MPI_RESILIENCE).

The hybrid Mandelbrot (mpi_mandelbrot) on 2 ranks of 1 thread, outer fss,
inner --inner (default ss). Scenarios: both ranks on time; rank 1 at a tenth
of its speed (SELFSCHED_EXAMPLE_SLOWDOWN); rank 1 stopped (SIGSTOP) for
--stop seconds, --stop-at seconds after it starts. Runs of one scenario
alternate between off and duplicate; medians of --reps.

Two yardsticks. T1, one rank alone on the whole image (measured in the same
run): the ideal makespan of the ranks that remain when rank 1 is lost. And a
perfect split of the work over the time the ranks can compute: both on
time T1 / 2; slowed T1 / (1 + 0.1); stopped (T1 + stop) / 2 (rank 1 loses
`stop` seconds of its share).

  python3 benchmarks/mpi/stragglers.py --build build [--reps 3]
"""
import argparse
import os
import re
import statistics
import subprocess
import tempfile
import time

IMAGE = ["--width", "1500", "--height", "1500", "--max-iter", "3000"]


def loop_seconds(out):
    found = re.search(r"time_s=([0-9.]+)", out)
    if not found or " ok=1" not in out:
        raise SystemExit("run failed:\n" + out)
    return float(found.group(1))


def run(mpirun, program, env, ranks, slow=False, stop=None):
    """Loop time on rank 0; `stop` = (after, seconds) SIGSTOPs rank 1."""
    rank1 = [program] + IMAGE
    with tempfile.TemporaryDirectory() as tmp:
        pidfile = os.path.join(tmp, "pid")
        if slow:
            rank1 = ["env", "SELFSCHED_EXAMPLE_SLOWDOWN=0.1"] + rank1
        if stop:
            rank1 = ["sh", "-c", f'echo $$ > {pidfile}; exec "$@"', "rank1"] + rank1
        cmd = [mpirun, "-np", "1", program] + IMAGE
        if ranks == 2:
            cmd += [":", "-np", "1"] + rank1
        job = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if stop:
            while not os.path.exists(pidfile) or not open(pidfile).read().strip():
                time.sleep(0.01)
            pid = int(open(pidfile).read())
            time.sleep(stop[0])
            os.kill(pid, 19)  # SIGSTOP
            time.sleep(stop[1])
            os.kill(pid, 18)  # SIGCONT
        out, _ = job.communicate()
    return loop_seconds(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--inner", default="ss", help="OMP_SCHEDULE: the threads' technique inside outer chunks")
    parser.add_argument("--stop", type=float, default=1.0, help="seconds rank 1 is stopped")
    parser.add_argument("--stop-at", type=float, default=0.5, help="seconds after its start (MPI start-up included)")
    args = parser.parse_args()
    bin_dir = os.path.join(args.build, "bin")
    mpirun, program = os.path.join(bin_dir, "selfsched-mpirun"), os.path.join(bin_dir, "mpi_mandelbrot")
    env = dict(os.environ, OMP_NUM_THREADS="1", OMP_SCHEDULE=args.inner, SELFSCHED_MPI_SCHEDULE="fss")
    env.pop("SELFSCHED_EXAMPLE_SLOWDOWN", None)

    def median(**kw):
        return statistics.median(run(mpirun, program, **kw) for _ in range(args.reps))

    alone = median(env=env, ranks=1)
    scenarios = [("both on time", {}, alone / 2),
                 ("rank 1 at 0.1 of its speed", {"slow": True}, alone / 1.1),
                 (f"rank 1 stopped {args.stop:g} s", {"stop": (args.stop_at, args.stop)}, (alone + args.stop) / 2)]
    print(f"One rank alone (T1): {alone:.3f} s. Inner technique {args.inner}, outer fss, 2 ranks x 1 thread.\n")
    print("| scenario | perfect split (s) | off (s) | duplicate (s) | off / T1 | duplicate / T1 | "
          "duplicate / perfect split |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name, kw, ideal in scenarios:
        times = {"off": [], "duplicate": []}
        for _ in range(args.reps):
            for mode in times:
                times[mode].append(run(mpirun, program, dict(env, SELFSCHED_MPI_RESILIENCE=mode), 2, **kw))
        off, dup = statistics.median(times["off"]), statistics.median(times["duplicate"])
        print(f"| {name} | {ideal:.3f} | {off:.3f} | {dup:.3f} | {off / alone:.2f} | {dup / alone:.2f} | "
              f"{dup / ideal:.2f} |", flush=True)


if __name__ == "__main__":
    main()
