#!/usr/bin/env python3
"""auto at 16-128 threads a node, simulated: the runtime's own claims
(omp_ext/team_auto, `selfsched-sim --threads-model real`) beside libomp's
static, dynamic,1, dynamic,16 and guided, on the sim's cost models of the
matrix apps' loops, with loaded, slow and hybrid cores. Prints one
Markdown table: auto's makespan over the best libomp schedule's in each
cell, and their geometric mean.

With --recorded: the matrix apps' loops as measured on this machine instead
of the cost models (recorded first into DIR if not there: one thread, every
iteration a chunk of its own, SELFSCHED_PROFILE_CHUNKS), larger than the
matrix's inputs so that 128 threads get 12 or more iterations each.

With --instances K: the loop runs K times (a time-stepped code) and each
cell compares the K-th instance, auto starting from what it learned in the
ones before (as the runtime keeps it per loop site).

With --phases R: where cores are loaded, each schedule's makespan is its
mean over R runs whose time slices begin at R phases spread over a slice
period (the loop starts at an arbitrary point of the other process's
slices, as it does on a real machine); one run at phase 0 otherwise.

With --weighted: seed 000 Table 6's question for threads, W-TSS and W-FSS
(told each core's run queue, Q = 2 on a core shared with another process)
over TSS and FSS at 4-12 threads with every other core time-shared.

  python3 benchmarks/sim/threads_auto.py --build build [--recorded [DIR]] [--instances K] [--phases R] | --weighted
"""
import argparse
import math
import os
import subprocess
import sys

LIBOMP = ["static", "dynamic,1", "dynamic,16", "guided"]
SIZES = [16, 32, 64, 128]
N = 100000
# name -> extra arguments (threads -> list); a loaded core is shared by time
# slices of 4 ms with another process (CFS's slice on this VM is 3-4 ms).
SLICE_MS = 4
SCENARIOS = {
    "uniform (matmul rows)": lambda t: ["--cost", "uniform"],
    "mandelbrot columns": lambda t: ["--cost", "mandelbrot"],
    "mandelbrot rows": lambda t: ["--cost", "mandelbrot-rows"],
    "adjoint (decreasing)": lambda t: ["--cost", "adjoint"],
    "random (monte carlo)": lambda t: ["--cost", "random"],
    "mandelbrot, 1/4 cores loaded": lambda t: ["--cost", "mandelbrot"] + loaded(t),
    "uniform, slow cores 1:0.5": lambda t: ["--cost", "uniform", "--speeds", "1:0.5"],
    "uniform, hybrid 1:1:0.6:0.6": lambda t: ["--cost", "uniform", "--speeds", "1:1:0.6:0.6"],
}


# The loops recorded by --recorded: name -> program and arguments.
RECORDED = {
    "mandelbrot rows": ["mandelbrot", "--width", "400", "--height", "12000"],
    "mandelbrot columns": ["mandelbrot", "--columns", "--width", "20000", "--height", "200"],
    "adjoint convolution": ["adjoint_convolution", "--n", "20000"],
    "matmul": ["matmul", "--n", "1536"],
    "quicksort rows": ["quicksort_rows", "--rows", "12000", "--max-len", "3000"],
}


def loaded(threads):
    """Threads 0, 4, 8 ... share their core in 4 ms slices with another process."""
    return sum((["--timeshare", f"{k}:{SLICE_MS}ms:{SLICE_MS}ms"] for k in range(0, threads, 4)), [])


def at_phase(args, phase):
    """ARGS with every --timeshare's slices begun PHASE (0 to 1) of a period before the loop starts."""
    offset = phase * 2 * SLICE_MS  # into the period: ON, then OFF
    start = "0ms" if offset == 0 else f"-{offset:g}ms" if offset < SLICE_MS else f"{2 * SLICE_MS - offset:g}ms"
    return [f"{a}:{start}" if i > 0 and args[i - 1] == "--timeshare" else a for i, a in enumerate(args)]


def mean_rows(sim, threads, schedules, extra, phases):
    """rows(), each makespan and ideal the mean over PHASES phases of the time slices (one run if none)."""
    runs = [rows(sim, threads, schedules, at_phase(extra, r / phases))
            for r in range(phases if "--timeshare" in extra else 1)]
    return {s: tuple(sum(run[s][i] for run in runs) / len(runs) for i in (0, 1)) for s in schedules}


def record(build, directory):
    """Each RECORDED loop's profile in DIRECTORY (recorded if missing); {scenario: extra arguments}."""
    os.makedirs(directory, exist_ok=True)
    scenarios = {}
    for name, (program, *args) in RECORDED.items():
        path = os.path.join(directory, name.replace(" ", "-") + ".json")
        if not os.path.exists(path):
            print(f"threads_auto: recording {name}", file=sys.stderr, flush=True)
            subprocess.run([os.path.join(build, "bin", "selfsched-run"), "--schedule", "ss", "--chunks", "--profile",
                            path, "--", os.path.join(build, "bin", program)] + args,
                           check=True, capture_output=True, env=dict(os.environ, OMP_NUM_THREADS="1"))
        scenarios[f"recorded: {name}"] = lambda t, path=path: ["--profile", path]
        scenarios[f"recorded: {name}, 1/4 cores loaded"] = lambda t, path=path: ["--profile", path] + loaded(t)
    return scenarios


def rows(sim, threads, schedules, extra):
    """{schedule: (makespan, ideal)} of one `selfsched-sim --threads-model real` run."""
    out = subprocess.run([sim, "--threads-model", "real", "--threads", str(threads), "--technique",
                          ",".join(schedules)] + extra, check=True, capture_output=True, text=True).stdout
    found = {}
    for line in out.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) >= 3 and cells[0].isdigit():
            found[cells[1]] = (float(cells[2]), float(cells[3]))
    return found


def auto_table(sim, scenarios, instances, phases):
    ratios, floors = [], []
    print("| scenario | " + " | ".join(f"{t} threads" for t in SIZES) + " |")
    print("| --- |" + " --- |" * len(SIZES))
    for name, extra in scenarios.items():
        cells = []
        for t in SIZES:
            r = mean_rows(sim, t, ["auto"] + LIBOMP, extra(t) + ["--instances", str(instances)], phases)
            best = min(LIBOMP, key=lambda s: r[s][0])
            ratios.append(r["auto"][0] / r[best][0])
            floors.append(r["auto"][1] / r[best][0])
            cells.append(f"{ratios[-1]:.3f}x ({best})")
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)
    geomean = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs))
    print(f"\ngeometric mean {geomean(ratios):.4f}x, worst {max(ratios):.3f}x over {len(ratios)} cells; "
          f"the ideal (all work spread evenly, claims free) over the best libomp: {geomean(floors):.4f}x")


def weighted_table(sim):
    print("| threads | W-TSS over TSS | W-FSS over FSS |")
    print("| --- | --- | --- |")
    for t in [4, 6, 8, 10, 12]:
        loaded = sum((["--timeshare", f"{k}:{SLICE_MS}ms:{SLICE_MS}ms"] for k in range(1, t, 2)), [])
        r = rows(sim, t, ["tss", "w-tss", "fss", "w-fss"],
                 ["--cost", "mandelbrot", "--n", "10000", "--mean", "5ms"] + loaded)
        gain = lambda a, w: f"{100 * (r[a][0] - r[w][0]) / r[a][0]:.0f}%"
        print(f"| {t} | {gain('tss', 'w-tss')} | {gain('fss', 'w-fss')} |", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build")
    parser.add_argument("--mean", default="50us", help="mean iteration cost (default 50us)")
    parser.add_argument("--recorded", nargs="?", const="", metavar="DIR",
                        help="the matrix apps' recorded loops instead (default DIR: BUILD/sim/profiles)")
    parser.add_argument("--instances", type=int, default=1, help="the loop's runs; the last one is compared (default 1)")
    parser.add_argument("--phases", type=int, default=1,
                        help="loaded cores: each makespan the mean over R phases of their slices (default 1)")
    parser.add_argument("--weighted", action="store_true", help="W-TSS / W-FSS with loaded cores instead")
    args = parser.parse_args()
    if args.instances < 1:
        parser.error(f"--instances {args.instances}: at least 1")
    if args.phases < 1:
        parser.error(f"--phases {args.phases}: at least 1")
    sim = os.path.join(args.build, "bin", "selfsched-sim")
    if args.weighted:
        weighted_table(sim)
    elif args.recorded is not None:
        profiles = args.recorded or os.path.join(args.build, "sim", "profiles")
        auto_table(sim, record(args.build, profiles), args.instances, args.phases)
    else:
        auto_table(sim, {name: lambda t, extra=extra: ["--n", str(N), "--mean", args.mean] + extra(t)
                         for name, extra in SCENARIOS.items()}, args.instances, args.phases)


if __name__ == "__main__":
    main()
