#!/usr/bin/env python3
"""Seed 000 Tables 6 and 8 in the simulator: the gain of W over CSS, GSS,
FSS and TSS on the Mandelbrot set (Table 6), and of SW over S on the
Floyd-Steinberg dependence loop (Table 8), with half the slaves loaded,
m = 4 .. 12 slaves.

Seed 000's cluster (sec. 6): slaves alternate "twins" (VP 1) and "kids"
(VP 0.8), every kid overloaded (one competing process: Q = 2, so it gives
the loop 0.4 of a twin); 100 Mbit/s Fast Ethernet; Mandelbrot 10000 x
10000. What the paper does not give is chosen and named below. W knows each
slave's VP / Q, as seed 000's slaves report Q with each request. Gain as
the paper's: (T_A - T_W-A) / T_A. Prints a Markdown table beside the
paper's numbers (Table 6, 10000 x 10000).

Table 8 (sec. 6, Table 4): Floyd-Steinberg with U_s = 15000 rows (the
synchronization dimension) and U_c = 5000, 10000 or 15000 columns (the
chunk dimension), #SP = 3m, lower / upper chunk thresholds 10 and 500, 750
or 1000, CSS with chunks of U_c / 2m; gain (T_S-A - T_SW-A) / T_S-A. Not
given, chosen: 0.1 us a point on a twin; each interval's boundary is 16
bytes a row (the diffused error of the chunk's last column).

  python3 benchmarks/sim/seed000.py --build build [--table 6|8]
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


# Table 8, Floyd-Steinberg: (U_c, upper threshold) -> VP -> (CSS, GSS, FSS, TSS) gains of SW over S in %
PAPER_8 = {
    (5000, 500): {3.6: (39, 47, 43, 45), 5.4: (42, 43, 44, 44), 7.2: (37, 40, 35, 40), 9: (34, 27, 34, 36),
                  10.8: (31, 23, 28, 35)},
    (10000, 750): {3.6: (44, 46, 45, 42), 5.4: (41, 42, 44, 45), 7.2: (39, 45, 38, 42), 9: (37, 40, 37, 38),
                   10.8: (36, 30, 36, 38)},
    (15000, 1000): {3.6: (50, 46, 45, 43), 5.4: (41, 48, 44, 43), 7.2: (41, 42, 41, 42), 9: (39, 43, 40, 41),
                    10.8: (38, 36, 38, 39)},
}
ROWS = 15000           # U_s
POINT_SECONDS = 1e-7   # a point on a twin
NETWORK = ["--bandwidth", "12.5e6", "--latency", "100us", "--claim", "20us", "--speeds", "1:0.4"]


def table_8(sim):
    print("| U_s x U_c | m (slaves) | VP | SW-CSS over S-CSS | SW-GSS over S-GSS | SW-FSS over S-FSS | SW-TSS over S-TSS |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for (columns, upper), rows in PAPER_8.items():
        for vp, paper in rows.items():
            m = round(vp / 0.9)  # half twins (VP 1), half kids (VP 0.8)
            common = ["--workers", str(m), "--n", str(columns), "--rows", str(ROWS), "--cost", "uniform",
                      "--mean", f"{ROWS * POINT_SECONDS}", "--sync-points", str(3 * m), "--boundary-bytes", "16",
                      "--max-chunk", str(upper)] + NETWORK
            cells = []
            for technique, theirs in zip(["css", "gss", "fss", "tss"], paper):
                k = max(10, columns // (2 * m)) if technique == "css" else 10
                s_time = makespan(sim, ["--technique", f"s-{technique},{k}"] + common)
                sw_time = makespan(sim, ["--technique", f"sw-{technique},{k}"] + common)
                cells.append(f"{100 * (s_time - sw_time) / s_time:.0f}% ({theirs}%)")
            print(f"| {ROWS} x {columns} | {m} | {vp:g} | " + " | ".join(cells) + " |")
    print("\nSimulated gain of SW over S (seed 000 Table 8's, Floyd-Steinberg, in parentheses).")


def table_6(sim):
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


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build")
    parser.add_argument("--table", choices=["6", "8", "both"], default="both")
    args = parser.parse_args()
    sim = os.path.join(args.build, "bin", "selfsched-sim")
    if args.table in ("6", "both"):
        table_6(sim)
    if args.table in ("8", "both"):
        if args.table == "both":
            print()
        table_8(sim)


if __name__ == "__main__":
    main()
