#!/usr/bin/env python3
"""auto at 16-128 threads a node, simulated: the runtime's own claims
(omp_ext/team_auto, `selfsched-sim --threads-model real`) beside libomp's
static, dynamic,1, dynamic,16 and guided, on the sim's cost models of the
matrix apps' loops, with loaded, slow and hybrid cores. Prints one
Markdown table: auto's makespan over the best libomp schedule's in each
cell, and their geometric mean.

With --weighted: seed 000 Table 6's question for threads, W-TSS and W-FSS
(told each core's run queue, Q = 2 on a core shared with another process)
over TSS and FSS at 4-12 threads with every other core time-shared.

  python3 benchmarks/sim/threads_auto.py --build build [--weighted]
"""
import argparse
import math
import os
import subprocess

LIBOMP = ["static", "dynamic,1", "dynamic,16", "guided"]
SIZES = [16, 32, 64, 128]
N = 100000
# name -> extra arguments (threads -> list); a loaded core is shared by time
# slices of 4 ms with another process (CFS's slice on this VM is 3-4 ms).
SCENARIOS = {
    "uniform (matmul rows)": lambda t: ["--cost", "uniform"],
    "mandelbrot columns": lambda t: ["--cost", "mandelbrot"],
    "mandelbrot rows": lambda t: ["--cost", "mandelbrot-rows"],
    "adjoint (decreasing)": lambda t: ["--cost", "adjoint"],
    "random (monte carlo)": lambda t: ["--cost", "random"],
    "mandelbrot, 1/4 cores loaded": lambda t: ["--cost", "mandelbrot"] +
        sum((["--timeshare", f"{k}:4ms:4ms"] for k in range(0, t, 4)), []),
    "uniform, slow cores 1:0.5": lambda t: ["--cost", "uniform", "--speeds", "1:0.5"],
    "uniform, hybrid 1:1:0.6:0.6": lambda t: ["--cost", "uniform", "--speeds", "1:1:0.6:0.6"],
}


def rows(sim, threads, schedules, extra):
    """{schedule: makespan} of one `selfsched-sim --threads-model real` run."""
    out = subprocess.run([sim, "--threads-model", "real", "--threads", str(threads), "--technique",
                          ",".join(schedules)] + extra, check=True, capture_output=True, text=True).stdout
    found = {}
    for line in out.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) >= 3 and cells[0].isdigit():
            found[cells[1]] = float(cells[2])
    return found


def auto_table(sim, mean):
    ratios = []
    print("| scenario | " + " | ".join(f"{t} threads" for t in SIZES) + " |")
    print("| --- |" + " --- |" * len(SIZES))
    for name, extra in SCENARIOS.items():
        cells = []
        for t in SIZES:
            r = rows(sim, t, ["auto"] + LIBOMP, ["--n", str(N), "--mean", mean] + extra(t))
            best = min(LIBOMP, key=lambda s: r[s])
            ratios.append(r["auto"] / r[best])
            cells.append(f"{r['auto'] / r[best]:.3f}x ({best})")
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)
    print(f"\ngeometric mean {math.exp(sum(map(math.log, ratios)) / len(ratios)):.4f}x, "
          f"worst {max(ratios):.3f}x over {len(ratios)} cells")


def weighted_table(sim):
    print("| threads | W-TSS over TSS | W-FSS over FSS |")
    print("| --- | --- | --- |")
    for t in [4, 6, 8, 10, 12]:
        loaded = sum((["--timeshare", f"{k}:4ms:4ms"] for k in range(1, t, 2)), [])
        r = rows(sim, t, ["tss", "w-tss", "fss", "w-fss"],
                 ["--cost", "mandelbrot", "--n", "10000", "--mean", "5ms"] + loaded)
        gain = lambda a, w: f"{100 * (r[a] - r[w]) / r[a]:.0f}%"
        print(f"| {t} | {gain('tss', 'w-tss')} | {gain('fss', 'w-fss')} |", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build")
    parser.add_argument("--mean", default="50us", help="mean iteration cost (default 50us)")
    parser.add_argument("--weighted", action="store_true", help="W-TSS / W-FSS with loaded cores instead")
    args = parser.parse_args()
    sim = os.path.join(args.build, "bin", "selfsched-sim")
    if args.weighted:
        weighted_table(sim)
    else:
        auto_table(sim, args.mean)


if __name__ == "__main__":
    main()
