#!/usr/bin/env python3
"""GAPBS's own schedule(dynamic,k) loops: libomp's against selfsched's.

The GAP Benchmark Suite (github.com/sbeamer/gapbs) writes its graph kernels'
loops as schedule(dynamic, 64 / 1024 / 16384), chunks its authors tuned. This
script builds the kernels from a GAPBS checkout you give it (nothing of GAPBS
is in this repository), checks that each one verifies under libselfsched, and
then runs pairs: the kernel on stock libomp, then the same binary with
libselfsched preloaded and SELFSCHED_OVERRIDE=dynamic (the loops taken over by
--schedule, default auto, with the authors' k as the minimum chunk). Two
threads bound one per CPU; `--scenario nondedicated` pins a busy process to
thread 1's CPU for the whole run. Each pair's ratio is selfsched's average
trial time over libomp's (the kernels print it); the table gives the median
and range of the ratios.

  git clone https://github.com/sbeamer/gapbs /tmp/gapbs
  python3 benchmarks/real_codes/gapbs.py --gapbs /tmp/gapbs --build build --pairs 7
  python3 benchmarks/real_codes/gapbs.py --gapbs /tmp/gapbs --build build --pairs 7 --scenario nondedicated
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "matrix"))
from appmatrix.config import CLEARED, BadInput, bound_places, usable_cpus  # noqa: E402
from appmatrix.run import Competitor  # noqa: E402

# kernel: (graph size as -g, trials as -n); tc is far costlier per vertex.
KERNELS = {"bfs": (19, 8), "pr": (19, 8), "cc": (19, 8), "bc": (19, 4), "sssp": (19, 8), "tc": (16, 3)}


def build_kernels(gapbs, kernels, work, compiler):
    os.makedirs(work, exist_ok=True)
    for kernel in kernels:
        source = os.path.join(gapbs, "src", kernel + ".cc")
        if not os.path.isfile(source):
            raise BadInput(f"--gapbs {gapbs}: no src/{kernel}.cc there (a GAPBS checkout has src/bfs.cc ...)")
        command = [compiler, "-std=c++11", "-O3", "-fopenmp", source, "-o", os.path.join(work, kernel)]
        try:
            result = subprocess.run(command, capture_output=True, text=True)
        except OSError as error:
            raise BadInput(f"--compiler {compiler}: {error.strerror}")
        if result.returncode != 0:
            raise BadInput(f"{' '.join(command)} failed:\n{result.stderr.strip()[-800:]}")


def run(binary, args, env):
    result = subprocess.run([binary] + args, env=env, capture_output=True, text=True, timeout=600)
    if result.returncode != 0:
        raise BadInput(f"{os.path.basename(binary)} {' '.join(args)} failed ({result.returncode}): "
                       f"{result.stderr.strip()[-300:]}")
    return result.stdout


def average_time(stdout):
    found = re.search(r"^Average Time:\s+([0-9.]+)", stdout, re.MULTILINE)
    if not found:
        raise BadInput("a kernel printed no 'Average Time:' line")
    return float(found.group(1))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gapbs", required=True, help="a GAPBS checkout (its src/*.cc)")
    parser.add_argument("--build", default="build", help="selfsched's build directory (lib/libselfsched.so)")
    parser.add_argument("--lib", help="the libselfsched to preload (default: BUILD/lib/libselfsched.so)")
    parser.add_argument("--schedule", default="auto", help="what takes the loops over (default auto)")
    parser.add_argument("--pairs", type=int, default=7)
    parser.add_argument("--scenario", choices=["dedicated", "nondedicated"], default="dedicated")
    parser.add_argument("--kernels", default=",".join(KERNELS), help="comma-separated, of " + ", ".join(KERNELS))
    parser.add_argument("--work", default="/tmp/selfsched-gapbs", help="where the kernels are built")
    parser.add_argument("--compiler", default=shutil.which("clang++-19") or "clang++")
    args = parser.parse_args()
    try:
        kernels = [k for k in args.kernels.split(",") if k]
        unknown = [k for k in kernels if k not in KERNELS]
        if unknown or not kernels:
            raise BadInput(f"--kernels {args.kernels}: unknown {', '.join(unknown) or '(none given)'}; "
                           f"choose from {', '.join(KERNELS)}")
        if args.pairs < 1:
            raise BadInput(f"--pairs {args.pairs}: at least 1")
        lib = os.path.abspath(args.lib or os.path.join(args.build, "lib", "libselfsched.so"))
        if not os.path.isfile(lib):
            raise BadInput(f"{lib}: no such library (build selfsched first, or give --lib)")
        build_kernels(args.gapbs, kernels, args.work, args.compiler)

        native = {k: v for k, v in os.environ.items() if not CLEARED.match(k)}
        native.update(OMP_NUM_THREADS="2", OMP_PLACES=bound_places(2), OMP_PROC_BIND="true")
        served = dict(native, LD_PRELOAD=lib, OMP_SCHEDULE=args.schedule, SELFSCHED_OVERRIDE="dynamic",
                      SELFSCHED_AUTO_CACHE="off")
        for kernel in kernels:  # each kernel's own verification, its loops served by selfsched
            out = run(os.path.join(args.work, kernel), ["-g", "12", "-n", "1", "-v"], served)
            if not re.search(r"Verification:\s+PASS", out):
                raise BadInput(f"{kernel} did not verify with its loops under {args.schedule}:\n{out[-500:]}")

        competitor = Competitor(usable_cpus(2, "the nondedicated scenario")[1]) if args.scenario == "nondedicated" \
            else None
        rows = []
        if competitor:
            competitor.__enter__()
        try:
            for kernel in kernels:
                scale, trials = KERNELS[kernel]
                kernel_args = ["-g", str(scale), "-n", str(trials)]
                binary = os.path.join(args.work, kernel)
                times = {"libomp": [], "selfsched": []}
                for _ in range(args.pairs):
                    times["libomp"].append(average_time(run(binary, kernel_args, native)))
                    times["selfsched"].append(average_time(run(binary, kernel_args, served)))
                ratios = [s / n for n, s in zip(times["libomp"], times["selfsched"])]
                rows.append((kernel, " ".join(kernel_args), statistics.median(times["libomp"]),
                             statistics.median(times["selfsched"]), statistics.median(ratios), min(ratios),
                             max(ratios)))
                print(f"{kernel}: {rows[-1][4]:.3f}", file=sys.stderr)
        finally:
            if competitor:
                competitor.__exit__(None, None, None)
    except BadInput as error:
        print(f"gapbs.py: {error}", file=sys.stderr)
        return 2

    print(f"GAPBS, 2 threads bound {native['OMP_PLACES']}, scenario `{args.scenario}`, {args.pairs} pairs; "
          f"libselfsched: OMP_SCHEDULE={args.schedule} SELFSCHED_OVERRIDE=dynamic\n")
    print("| kernel | arguments | libomp (s, median) | selfsched (s, median) | ratio, median [range] |")
    print("| --- | --- | --- | --- | --- |")
    for kernel, kernel_args, native_s, served_s, ratio, low, high in rows:
        print(f"| {kernel} | `{kernel_args}` | {native_s:.4f} | {served_s:.4f} | {ratio:.3f} [{low:.3f}, {high:.3f}] |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
