#!/usr/bin/env python3
"""Seed 000 Table 6 in the simulator: the gain of W over CSS, GSS, FSS and
TSS on the Mandelbrot set with half the slaves loaded, m = 4 .. 12 slaves.

Seed 000's cluster (sec. 6): slaves alternate "twins" (VP 1) and "kids"
(VP 0.8), every kid overloaded (one competing process: Q = 2, so it gives
the loop 0.4 of a twin); 100 Mbit/s Fast Ethernet; Mandelbrot 10000 x
10000. What the paper does not give is chosen and named below. W knows each
slave's VP / Q, as seed 000's slaves report Q with each request. Gain as
the paper's: (T_A - T_W-A) / T_A. Prints a Markdown table beside the
paper's numbers (Table 6, 10000 x 10000).

  python3 benchmarks/sim/seed000.py --build build
"""
import argparse
import os

from simrun import makespan

PAPER = {  # Table 6, 10000 x 10000: m -> (CSS, GSS, FSS, TSS) gains in %
    4: (27, 50, 18, 33), 6: (38, 54, 37, 34), 8: (43, 57, 52, 32), 10: (48, 53, 52, 35), 12: (43, 52, 52, 34)}
# 10000 rows; 5 ms a row on a twin on average (a guess for a Pentium III);
# a row's 10,000 pixels (1 byte each) back to the master; Ethernet latency.
COMMON = ["--cost", "mandelbrot", "--n", "10000", "--mean", "5ms", "--bandwidth", "12.5e6", "--latency", "100us",
          "--claim", "20us", "--result-bytes", "10000", "--speeds", "1:0.4"]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build")
    args = parser.parse_args()
    sim = os.path.join(args.build, "bin", "selfsched-sim")
    print("| m (slaves) | VP | W-CSS over CSS | W-GSS over GSS | W-FSS over FSS | W-TSS over TSS |")
    print("| --- | --- | --- | --- | --- | --- |")
    for m, paper in PAPER.items():
        cells = []
        for technique, theirs in zip(["css", "gss", "fss", "tss"], paper):
            plain = makespan(sim, ["--technique", technique, "--workers", str(m)] + COMMON)
            weighted = makespan(sim, ["--technique", "w-" + technique, "--workers", str(m)] + COMMON)
            cells.append(f"{100 * (plain - weighted) / plain:.0f}% ({theirs}%)")
        vp = (m // 2) * 1 + (m // 2) * 0.8
        print(f"| {m} | {vp:.1f} | " + " | ".join(cells) + " |")
    print("\nSimulated gain (seed 000 Table 6's, 10000 x 10000, in parentheses).")


if __name__ == "__main__":
    main()
