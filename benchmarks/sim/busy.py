#!/usr/bin/env python3
"""A busy process (seed 000's resource-expensive process) that writes down
when it was off its CPU: it spins reading the wall clock, and two readings
more than --gap apart are a time another thread ran there (pinned beside
a loop's thread, that thread's time slice). One line a gap, 'BEGIN END' in
wall-clock nanoseconds (CLOCK_REALTIME, as a profile's wall_begin_s), written
as it resumes. Runs until killed; pin it with taskset.

  taskset -c 1 python3 benchmarks/sim/busy.py GAPS_FILE [--gap SECONDS]
"""
import argparse
import time


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("gaps", help="file the gaps are written to (truncated)")
    parser.add_argument("--gap", type=float, default=200e-6,
                        help="seconds between two clock readings that count as a gap (default 200e-6: a "
                             "reading takes well under a microsecond; alone on its CPU this VM still pauses "
                             "the spinner 20-160 us about every 4 ms, while a thread's time slice beside it "
                             "lasts a millisecond or more)")
    args = parser.parse_args()
    if not args.gap > 0:
        parser.error(f"--gap {args.gap}: must be > 0 seconds")
    gap_ns = int(args.gap * 1e9)
    with open(args.gaps, "w", buffering=1) as out:  # a line is written whole as it ends
        clock = time.time_ns
        last = clock()
        while True:
            now = clock()
            if now - last > gap_ns:
                out.write(f"{last} {now}\n")
            last = now


if __name__ == "__main__":
    main()
