#!/usr/bin/env python3
"""The transports across "nodes" with network latency (selfsched-netns: two
network namespaces, Open MPI over TCP only, --latency added on each node's
link: tc netem where the kernel has it, else selfsched-delayline; a frame
between two nodes crosses two links).

1. Per-claim cost: claim_cost, 2 ranks of 1 thread (one per node), outer ss
   (every iteration an outer chunk of 100 us), latency hiding off.
2. The hybrid Mandelbrot's loop on emulated dedicated ranks
   (mandelbrot_rows: each row's real cost waited out on the wall clock, so
   4 ranks on 2 CPUs behave as 4 processors), 2 nodes of 2 ranks, rank 1
   (on node 2) at half speed, outer css,4 (150 chunks) and fss (a dozen):
   master (rank 0 serves everyone; rma falls back to it across nodes),
   hier (a node master per node, batches from rank 0).
Medians of --reps runs, configurations interleaved round by round.

  python3 benchmarks/mpi/latency.py --build build [--reps 3]   # as root, ~3 min
"""
import argparse
import os
import re
import statistics
import subprocess

LATENCIES = ["0", "50us", "200us"]
ROWS = ["--width", "400", "--height", "600", "--max-iter", "2000", "--serial-s", "2", "--rank-speed", "1:0.5"]


def field(out, name):
    found = re.search(name + r"=([^ \n]+)", out)
    if not found:
        raise SystemExit(f"no {name} in:\n{out}")
    return found.group(1)


def netns(bin_dir, latency, env, ranks, command):
    cmd = [os.path.join(bin_dir, "selfsched-netns"), "run"]
    if latency != "0":
        cmd += ["--latency", latency]
    cmd += ["--", os.path.join(bin_dir, "selfsched-mpirun"), "-np", str(ranks)] + command
    done = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if done.returncode == 77:
        raise SystemExit("selfsched-netns skipped (needs root and ip netns):\n" + done.stdout)
    return done.stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build")
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    bin_dir = os.path.join(args.build, "bin")
    env = dict(os.environ, OMP_NUM_THREADS="1", OMP_SCHEDULE="static", SELFSCHED_MPI_LOAD="false")
    for name in ("SELFSCHED_EXAMPLE_SLOWDOWN", "SELFSCHED_WEIGHTS", "SELFSCHED_MPI_SCHEDULE",
                 "SELFSCHED_MPI_TRANSPORT", "SELFSCHED_MPI_PREFETCH"):
        env.pop(name, None)

    print("Per-claim cost, 2 ranks x 1 thread on 2 nodes, outer ss, 1000 outer chunks of 100 us, latency hiding off;"
          " medians (us).\n")
    print("| latency per link | transport (in use) | claim on rank 0 | claim on rank 1 | loop per chunk |")
    print("| --- | --- | ---: | ---: | ---: |")
    for latency in LATENCIES:
        for transport in ("master", "rma", "hier"):
            runs = []
            for _ in range(args.reps):
                out = netns(bin_dir, latency, dict(env, SELFSCHED_MPI_TRANSPORT=transport, SELFSCHED_MPI_PREFETCH="0"),
                            2, [os.path.join(bin_dir, "claim_cost"), "--n", "1000", "--work-us", "100",
                                "--repeat", "1"])
                claims = [float(x) for x in field(out, "rank_claim_us_median").split(",")]
                runs.append((claims[0], claims[1], float(field(out, "per_chunk_us_median")), field(out, "transport")))
            c0 = statistics.median(r[0] for r in runs)
            c1 = statistics.median(r[1] for r in runs)
            per = statistics.median(r[2] for r in runs)
            print(f"| {latency} | {transport} ({runs[-1][3]}) | {c0:.1f} | {c1:.1f} | {per:.1f} |", flush=True)

    print("\nmandelbrot_rows (600 rows, 2 s on one full-speed processor), 2 nodes x 2 ranks, rank 1 at half speed"
          " (ideal 2 / 3.5 = 0.571 s); medians (s).\n")
    print("| latency per link | outer | master | hier | hier / master |")
    print("| --- | --- | ---: | ---: | ---: |")
    program = os.path.join(bin_dir, "mandelbrot_rows")
    for latency in LATENCIES:
        for outer in ("css,4", "fss"):
            times = {"master": [], "hier": []}
            for _ in range(args.reps):
                for transport in times:
                    out = netns(bin_dir, latency, dict(env, SELFSCHED_MPI_TRANSPORT=transport,
                                                       SELFSCHED_MPI_SCHEDULE=outer), 4, [program] + ROWS)
                    if " ok=1" not in out:
                        raise SystemExit("run failed:\n" + out)
                    times[transport].append(float(field(out, "time_s")))
            m, h = statistics.median(times["master"]), statistics.median(times["hier"])
            print(f"| {latency} | {outer} | {m:.3f} | {h:.3f} | {h / m:.2f} |", flush=True)


if __name__ == "__main__":
    main()
