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

With --baseline LIB (another libselfsched.so, e.g. main's, built in
another tree), each libselfsched case also runs with LIB preloaded in the
same rounds, so that the two libraries are compared side by side under the
same load: the table gets LIB's added cost and instructions beside this
build's.

  benchmarks/startup/bench_startup.py --build build [--rounds 40] [--no-callgrind] [--baseline LIB]
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


def paired_runs(program, environments, rounds):
    """Rounds of one run per environment, the order rotated every round (so
    that no environment always runs first): one list of (wall, cpu) per
    environment, environments[0] being the program alone."""
    runs = [[] for _ in environments]
    for r in range(rounds):
        for k in range(len(environments)):
            which = (k + r) % len(environments)
            runs[which].append(run_once(program, environments[which]))
    return runs


def summary(runs_alone, runs_with, k):
    """Medians of measure k (0 wall, 1 CPU) and of the per-round differences."""
    alone = [r[k] for r in runs_alone]
    loaded = [r[k] for r in runs_with]
    differences = [w - a for a, w in zip(alone, loaded)]
    return {"alone": statistics.median(alone), "with": statistics.median(loaded),
            "added": statistics.median(differences)}


def callgrind_instructions(program, env, workdir, runs=3):
    """Instructions of a whole run, the median of `runs`. libomp's idle
    threads wait passively here: callgrind runs one thread at a time, and a
    spinning thread's count would depend on when it is switched. What is
    left of that (the two threads meeting at the loop's end) moves a run's
    count by up to 2%; the median keeps one run's luck out of the table."""
    env = dict(env, OMP_WAIT_POLICY="passive")
    out = os.path.join(workdir, "callgrind.out")
    counts = []
    for _ in range(runs):
        done = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", program],
                              env=env, capture_output=True, text=True)
        found = re.search(r"Collected : (\d+)", done.stderr)
        if done.returncode != 0 or found is None or done.stdout.strip() != EXPECTED:
            sys.exit(f"bench_startup: callgrind run failed: {done.stderr[-2000:]}")
        counts.append(int(found.group(1)))
    return int(statistics.median(counts))


def stripped_copies(sources, workdir):
    """valgrind 3.19 cannot read clang 19's DWARF 5: copies without debug
    info, each in a folder of its own (the libraries share a name)."""
    copies = []
    for k, source in enumerate(sources):
        folder = os.path.join(workdir, f"stripped-{k}")
        os.makedirs(folder, exist_ok=True)
        target = os.path.join(folder, os.path.basename(source))
        subprocess.run(["objcopy", "--strip-debug", os.path.realpath(source), target], check=True)
        copies.append(target)
    return copies


def installed_copies(sources, workdir):
    """The libraries as an install leaves them: copied, each in a folder of
    its own. A linker writes its output out of order, and the page cache
    keeps such a file in small pieces: mapping it at every start costs
    0.04-0.08 ms more here than mapping a copy of the same bytes, which
    would be measured as the library's cost."""
    copies = []
    for k, source in enumerate(sources):
        folder = os.path.join(workdir, f"installed-{k}")
        os.makedirs(folder, exist_ok=True)
        target = os.path.join(folder, os.path.basename(source))
        shutil.copyfile(os.path.realpath(source), target)
        os.chmod(target, 0o755)
        copies.append(target)
    return copies


def measure_case(name, extra, program, libraries, rounds, workdir, copies):
    """Paired timings of one case, and its instruction counts when `copies`
    (the stripped program, then a stripped copy of each library) are given.
    `libraries`: what the case preloads, in turn (libselfsched, then the
    baseline if any; the empty library in its own case)."""
    alone = base_environment("off")
    # Each library its own cache, as a user has: one library's writes (a
    # rename over the file starts writing it out) must not be waited on by
    # the other's next replacement of the same file.
    caches = [os.path.join(workdir, f"auto-cache-{name}-{k}.json") if name == "auto-warm" else "off"
              for k in range(len(libraries))]
    loaded = [dict(alone, LD_PRELOAD=library, SELFSCHED_AUTO_CACHE=cache, **extra)
              for library, cache in zip(libraries, caches)]
    for environment in loaded:
        for _ in range(3):  # warms auto's cache, the page cache and the loader's
            run_once(program, environment)
    runs = paired_runs(program, [alone, *loaded], rounds)
    result = {"with": []}
    ir_alone = callgrind_instructions(copies[0], alone, workdir) if copies else None
    for k, environment in enumerate(loaded):
        one = {"wall": summary(runs[0], runs[k + 1], 0), "cpu": summary(runs[0], runs[k + 1], 1)}
        if copies:
            one["ir_alone"] = ir_alone
            one["ir_with"] = callgrind_instructions(copies[0], dict(environment, LD_PRELOAD=copies[k + 1]), workdir)
        result["with"].append(one)
    return result


def print_table(results, rounds, callgrind, baseline):
    print(f"\n{rounds} paired rounds per case, ms: medians alone / with the library preloaded (libselfsched; "
          "the empty library in its row), and the median of the per-round differences (added); wall time, "
          "then the process's CPU time")
    head = "| case | wall alone | wall with | wall added | CPU alone | CPU with | CPU added | target |"
    rule = "|---|---|---|---|---|---|---|---|"
    if callgrind:
        head += " instructions alone | with | added |"
        rule += "---|---|---|"
    if baseline:
        head += " baseline: wall added | CPU added |" + (" instructions added |" if callgrind else "")
        rule += "---|---|" + ("---|" if callgrind else "")
    print(head)
    print(rule)
    for name, _, target in CASES:
        ours = results[name]["with"][0]
        wall, cpu = ours["wall"], ours["cpu"]
        row = (f"| {name} | {wall['alone']:.2f} | {wall['with']:.2f} | **{wall['added']:.2f}** | "
               f"{cpu['alone']:.2f} | {cpu['with']:.2f} | **{cpu['added']:.2f}** | "
               f"{'' if target is None else f'<= {target}'} |")
        if callgrind:
            row += f" {ours['ir_alone']:,} | {ours['ir_with']:,} | {ours['ir_with'] - ours['ir_alone']:,} |"
        if baseline:
            if len(results[name]["with"]) > 1:
                other = results[name]["with"][1]
                row += f" {other['wall']['added']:.2f} | {other['cpu']['added']:.2f} |"
                if callgrind:
                    row += f" {other['ir_with'] - other['ir_alone']:,} |"
            else:
                row += " | |" + (" |" if callgrind else "")
        print(row)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default="build")
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--no-callgrind", action="store_true")
    parser.add_argument("--baseline", help="another libselfsched.so, measured beside this build's")
    args = parser.parse_args()
    build = os.path.realpath(args.build)
    program = os.path.join(build, "bin", "startup_loop")
    # (libselfsched, the empty library)
    library = (os.path.realpath(os.path.join(build, "lib", "libselfsched.so")),
               os.path.join(build, "lib", "libstartup_empty_library.so"))
    for needed in (program, *library):
        if not os.path.exists(needed):
            sys.exit(f"bench_startup: {needed} is missing (make bench-startup builds it)")
    baseline = os.path.realpath(args.baseline) if args.baseline else None
    if baseline and not os.path.isfile(baseline):
        sys.exit(f"bench_startup: --baseline {args.baseline}: no such file (give another build's libselfsched.so)")
    use_callgrind = not args.no_callgrind and shutil.which("valgrind") is not None
    if not args.no_callgrind and not use_callgrind:
        print("bench_startup: valgrind not installed (apt-get install valgrind): no instruction counts")
    print(f"load average before: {os.getloadavg()[0]:.2f}, CPUs: {os.cpu_count()}")
    results = {}
    with tempfile.TemporaryDirectory(prefix="bench-startup-") as workdir:
        # libselfsched, the empty library, the baseline if any
        installed = installed_copies([*library, *([baseline] if baseline else [])], workdir)
        ours, empty_library = [installed[0], *installed[2:]], installed[1]
        copies = stripped_copies([program, *ours], workdir) if use_callgrind else None
        for name, extra, _ in CASES:
            if name == "empty-library":
                libraries, case_copies = [empty_library], copies and [copies[0], empty_library]
            else:
                libraries, case_copies = ours, copies
            results[name] = measure_case(name, extra, program, libraries, args.rounds, workdir, case_copies)
            added = results[name]["with"][0]
            print(f"{name}: added {added['wall']['added']:.2f} ms wall, {added['cpu']['added']:.2f} ms CPU",
                  flush=True)
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    print_table(results, args.rounds, use_callgrind, baseline is not None)


if __name__ == "__main__":
    main()
