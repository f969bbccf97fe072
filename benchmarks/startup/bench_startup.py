#!/usr/bin/env python3
"""What loading libselfsched costs a short program (make bench-startup).

The program (startup_loop.c: one 1,000-iteration schedule(runtime) loop on
2 threads) runs alone and with libselfsched preloaded, alternately, in three
cases:

  empty-library  a library with nothing in it preloaded instead: the floor,
                 what preloading any library costs on this machine
  forwarded   no selfsched technique: the loop is libomp's
  fixed       OMP_SCHEDULE=fss
  auto-warm   OMP_SCHEDULE=auto, auto's cache warmed by earlier runs

"Alone" is the same program without the library and without OMP_SCHEDULE
(libomp's own default schedule). Each round runs both, in alternating
order; the added cost is the median of the per-round differences, of the
wall time and of the process's CPU time (user + system). Then
valgrind --tool=callgrind counts the instructions of one whole run of each
(alone and with), which do not depend on the machine's load.

  benchmarks/startup/bench_startup.py --build build [--rounds 40] [--no-callgrind]
"""
import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

EXPECTED = "249750.0"  # sum of 0.5 * i over i < 1000: every iteration once
CASES = [
    # name, environment added to the run with the library, target (ms)
    ("empty-library", {}, None),
    ("forwarded", {}, 0.3),
    ("fixed", {"OMP_SCHEDULE": "fss"}, 0.5),
    ("auto-warm", {"OMP_SCHEDULE": "auto"}, 1.0),
]


def base_environment(cache):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("SELFSCHED_", "OMP_", "KMP_", "LD_PRELOAD"))}
    env.update(OMP_NUM_THREADS="2", SELFSCHED_AUTO_CACHE=cache)
    return env


def run_once(program, env):
    """(wall time, CPU time) of one run in ms; fails on a wrong result. The
    CPU time (user + system, all threads, from the kernel's accounting of
    the reaped child) is what the process itself spent: on a machine shared
    with other work it moves far less than the wall time, which includes
    waiting for a CPU."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter_ns()
    done = subprocess.run([program], env=env, capture_output=True, text=True)
    wall = (time.perf_counter_ns() - start) / 1e6
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1e3
    if done.returncode != 0 or done.stdout.strip() != EXPECTED:
        sys.exit(f"bench_startup: {program} printed {done.stdout.strip()!r} (expected {EXPECTED}), "
                 f"exit {done.returncode}: {done.stderr.strip()}")
    return wall, cpu


def paired_runs(program, alone, loaded, rounds):
    """Alternating rounds: lists of (wall, cpu) alone and with the library."""
    runs_alone, runs_with = [], []
    for r in range(rounds):
        if r % 2 == 0:
            runs_alone.append(run_once(program, alone))
            runs_with.append(run_once(program, loaded))
        else:
            runs_with.append(run_once(program, loaded))
            runs_alone.append(run_once(program, alone))
    return runs_alone, runs_with


def summary(runs_alone, runs_with, k):
    """Medians of measure k (0 wall, 1 CPU) and of the per-round differences."""
    alone = [r[k] for r in runs_alone]
    loaded = [r[k] for r in runs_with]
    differences = [w - a for a, w in zip(alone, loaded)]
    return {"alone": statistics.median(alone), "with": statistics.median(loaded),
            "added": statistics.median(differences)}


def callgrind_instructions(program, env, workdir):
    """Instructions of one whole run. libomp's idle threads wait passively
    here: callgrind runs one thread at a time, and a spinning thread's count
    would depend on when it is switched."""
    env = dict(env, OMP_WAIT_POLICY="passive")
    out = os.path.join(workdir, "callgrind.out")
    done = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", program],
                          env=env, capture_output=True, text=True)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if done.returncode != 0 or found is None or done.stdout.strip() != EXPECTED:
        sys.exit(f"bench_startup: callgrind run failed: {done.stderr[-2000:]}")
    return int(found.group(1))


def stripped_copies(build, workdir):
    """valgrind 3.19 cannot read clang 19's DWARF 5: copies without debug info."""
    copies = []
    for source in (os.path.join(build, "bin", "startup_loop"), os.path.join(build, "lib", "libselfsched.so")):
        target = os.path.join(workdir, os.path.basename(source))
        subprocess.run(["objcopy", "--strip-debug", os.path.realpath(source), target], check=True)
        copies.append(target)
    return copies


def measure_case(name, extra, program, library, rounds, workdir, copies):
    """Paired timings of one case, and its instruction counts when `copies`
    (the stripped program and libselfsched) are given. `library`: the paths
    of libselfsched and of the empty library."""
    cache = os.path.join(workdir, f"auto-cache-{name}.json") if name == "auto-warm" else "off"
    alone = base_environment(cache)
    loaded = dict(alone, LD_PRELOAD=library[name == "empty-library"], **extra)
    for _ in range(3):  # warms auto's cache, the page cache and the loader's
        run_once(program, loaded)
    runs_alone, runs_with = paired_runs(program, alone, loaded, rounds)
    result = {"wall": summary(runs_alone, runs_with, 0), "cpu": summary(runs_alone, runs_with, 1)}
    if copies:
        stripped_program, stripped_library = copies
        result["ir_alone"] = callgrind_instructions(stripped_program, alone, workdir)
        preloaded = library[1] if name == "empty-library" else stripped_library
        result["ir_with"] = callgrind_instructions(stripped_program, dict(loaded, LD_PRELOAD=preloaded), workdir)
    return result


def print_table(results, rounds, callgrind):
    print(f"\n{rounds} paired rounds per case, ms: medians alone / with the library preloaded (libselfsched; "
          "the empty library in its row), and the median of the per-round differences (added); wall time, "
          "then the process's CPU time")
    head = "| case | wall alone | wall with | wall added | CPU alone | CPU with | CPU added | target |"
    rule = "|---|---|---|---|---|---|---|---|"
    if callgrind:
        head += " instructions alone | with | added |"
        rule += "---|---|---|"
    print(head)
    print(rule)
    for name, _, target in CASES:
        wall, cpu = results[name]["wall"], results[name]["cpu"]
        row = (f"| {name} | {wall['alone']:.2f} | {wall['with']:.2f} | **{wall['added']:.2f}** | "
               f"{cpu['alone']:.2f} | {cpu['with']:.2f} | **{cpu['added']:.2f}** | "
               f"{'' if target is None else f'<= {target}'} |")
        if callgrind:
            r = results[name]
            row += f" {r['ir_alone']:,} | {r['ir_with']:,} | {r['ir_with'] - r['ir_alone']:,} |"
        print(row)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default="build")
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--no-callgrind", action="store_true")
    args = parser.parse_args()
    build = os.path.realpath(args.build)
    program = os.path.join(build, "bin", "startup_loop")
    # (libselfsched, the empty library)
    library = (os.path.realpath(os.path.join(build, "lib", "libselfsched.so")),
               os.path.join(build, "lib", "libstartup_empty_library.so"))
    for needed in (program, *library):
        if not os.path.exists(needed):
            sys.exit(f"bench_startup: {needed} is missing (make bench-startup builds it)")
    use_callgrind = not args.no_callgrind and shutil.which("valgrind") is not None
    if not args.no_callgrind and not use_callgrind:
        print("bench_startup: valgrind not installed (apt-get install valgrind): no instruction counts")
    print(f"load average before: {os.getloadavg()[0]:.2f}, CPUs: {os.cpu_count()}")
    results = {}
    with tempfile.TemporaryDirectory(prefix="bench-startup-") as workdir:
        copies = stripped_copies(build, workdir) if use_callgrind else None
        for name, extra, _ in CASES:
            results[name] = measure_case(name, extra, program, library, args.rounds, workdir, copies)
            print(f"{name}: added {results[name]['wall']['added']:.2f} ms wall, "
                  f"{results[name]['cpu']['added']:.2f} ms CPU", flush=True)
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    print_table(results, args.rounds, use_callgrind)


if __name__ == "__main__":
    main()
