#!/usr/bin/env python3
"""The simulator against this machine: for the application matrix's loops
(--app; 2 threads bound one per CPU), every technique runs for real and in
the simulator on 2 workers (shared memory: no latency, a claim of --claim).

Each run is preceded by its own recordings (SELFSCHED_PROFILE with chunks,
under ss: one iteration per chunk), so that a change of this shared
machine's speed is in both as far as it can be. Three recordings, the
scenario's busy process stopped for the first two: one thread alone gives
the per-iteration costs; two threads give the memory share (selfsched-sim
--memory: thread 0's iterations beside a second busy thread over twice
their time alone; a loop that streams memory costs more per iteration
beside a second thread) and thread 1's CPU's speed against thread 0's;
two threads in the scenario give thread 1's speed in it. A fourth
recording follows the run: two threads again. This VM's speed for the
matrix product's loop moves between levels about 1.6x apart, each CPU on its
own, often within a few hundred ms; where a thread's speed in the two-thread
recordings before and after the run is more than 10% apart, or thread 0
ran faster beside thread 1 than alone, the speed changed around the run
and its costs are not known: such runs are kept, counted, and the ratio
is also given over the runs that held still. The scenarios are the
application matrix's: slowcores runs thread 1 at half speed for real (the
examples' emulated slow core); hybrid does the same on an emulated hybrid CPU (hwloc
XML: CPU kinds of capacity 1 and 0.5, so selfsched's VP is 1 and 0.5);
nondedicated runs thread 1 beside a busy process pinned to its CPU, which
the kernel gives about half of it in time slices: the busy process
(busy.py) writes down when it was off its CPU, and thread 1 is simulated
in those slices as they fell in the run (selfsched-sim --timeshare
1:FILE; libomp's own static, which leaves no loop start to place them
against, at thread 1's recorded speed). The techniques are told
what selfsched tells them: under hybrid the CPU kinds (1:0.5), otherwise
equal powers (the run queue's Q reaches only the w-* techniques).

Which thread asks first varies between real runs and decides, for a
decreasing technique on 2 threads, who gets the costly middle rows; beside
a busy process a thread may also start a whole time slice late. Each real
run's start is read from its profile (when each thread began its first
chunk) and the simulation starts the later worker that much later
(selfsched-sim --late; threads that began within a microsecond of each
other are ordered by who got the loop's first iteration, as claims are
handed out in order); the chunks (start, size) and who ran them are
compared run by run. The measured makespan is the loop's, from its start
to its last chunk's end (selfsched's profile; for libomp's own static, its
slowest thread's time in the loop), as simulated; the program's time, also
shown, adds the parallel region's start and end.

Prints a Markdown table per app and scenario: median measured and
simulated makespans, the median over repetitions of their ratio, the
recorded memory share and speed, the runs with equal chunks, and the
program's time (--runs: and every run's); with several, a summary.

  python3 benchmarks/sim/validate.py --build build [--reps 5] [--app NAME|all] [--scenario NAME|all] [--runs]
"""
import argparse
import collections
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

TECHNIQUES = ["static", "ss", "css,8", "gss", "tss", "fss", "fac", "tfss", "fiss", "tap", "af", "awf-b", "auto"]
# The application matrix's single-instance loops (benchmarks/matrix/auto.json)
# whose iterations cost microseconds or more; the fine-grained ones (70-150
# ns an iteration) cannot have their costs recorded one iteration a chunk.
APPS = {
    "mandelbrot": ["mandelbrot", "--width", "560", "--height", "420"],
    "adjoint_convolution": ["adjoint_convolution", "--n", "14000"],
    "matmul": ["matmul", "--n", "512"],
    "quicksort_rows": ["quicksort_rows", "--rows", "1200", "--max-len", "3000"],
    "costliest first": ["synthetic", "--n", "20000", "--work", "100", "--profile", "decreasing"],
}
SCENARIOS = ["dedicated", "slowcores", "hybrid", "nondedicated"]
# One real run and what was recorded around it: the costs' profile, the
# memory share, thread 1's CPU's speed beside thread 0's, thread 1's speed
# in the scenario, its time slices in the run beside the busy process (a
# file for selfsched-sim --timeshare, or None), when thread 1 began after
# thread 0, the run's chunks (None: libomp ran the loop), and whether the
# machine's speed held still around it (steady()).
RealRun = collections.namedtuple("RealRun", "costs share cpu speed slices skew chunks held")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--claim", default="0.3us", help="a claim's cost in the simulation (default 0.3us)")
    parser.add_argument("--app", choices=list(APPS) + ["all"], default="mandelbrot")
    parser.add_argument("--runs", action="store_true",
                        help="also print every run: measured and simulated loop, their ratio and its recordings")
    parser.add_argument("--scenario", choices=SCENARIOS + ["all"], default="dedicated",
                        help="slowcores: thread 1 at half speed (SELFSCHED_EXAMPLE_SLOWDOWN=1,0.5); hybrid: the same "
                             "on an emulated hybrid CPU (hwloc XML); nondedicated: a busy process on thread 1's CPU; "
                             "each simulated with thread 1's speed as recorded")
    args = parser.parse_args()
    cpus = sorted(os.sched_getaffinity(0))[:2]
    if len(cpus) < 2:
        sys.exit("validate.py: needs 2 usable CPUs")
    summary = []
    for app in APPS if args.app == "all" else [args.app]:
        for scenario in SCENARIOS if args.scenario == "all" else [args.scenario]:
            print(f"\n## {app}, `{scenario}`\n")
            ratios, held, unsteady = validate(args, cpus, APPS[app], scenario)
            within, held_within = within_10(ratios), within_10(r for r in held if r is not None)
            cells_held = sum(1 for r in held if r is not None)
            summary.append((app, scenario, within, len(ratios), min(ratios), max(ratios), held_within, cells_held,
                            unsteady))
            print(f"\nWithin 10%: {within} of {len(ratios)}; over the runs that held still, {held_within} of "
                  f"{cells_held}.")
    if len(summary) > 1:
        print("\n## Summary\n\n| app | scenario | within 10% | simulated / measured | within 10% over the runs that "
              "held still | runs where it did not |")
        print("| --- | --- | --- | --- | --- | --- |")
        for app, scenario, within, count, lo, hi, held_within, cells_held, unsteady in summary:
            print(f"| {app} | `{scenario}` | {within} of {count} | {lo:.2f}-{hi:.2f} | {held_within} of {cells_held} | "
                  f"{unsteady} |")
        def total(k):
            return sum(row[k] for row in summary)
        print(f"\nAll: {total(2)} of {total(3)} within 10%; over the runs that held still, {total(6)} of {total(7)}; "
              f"the machine's speed changed around {total(8)} of {args.reps * len(TECHNIQUES) * len(summary)} runs.")


def within_10(ratios):
    return sum(1 for r in ratios if abs(r - 1) <= 0.10)


def validate(args, cpus, command, scenario):
    """Prints one app's table in one scenario; returns its techniques' ratios,
    their ratios over the runs that held still (steady(); None where none
    did), and around how many runs the machine's speed changed."""
    bin_dir = os.path.join(args.build, "bin")
    lib = os.path.join(args.build, "lib", "libselfsched.so")
    env = dict(os.environ, OMP_NUM_THREADS="2", OMP_PROC_BIND="true", OMP_PLACES="{%d},{%d}" % tuple(cpus),
               SELFSCHED_SIA="off", SELFSCHED_AUTO_CACHE="off", LD_PRELOAD=lib)
    program = [os.path.join(bin_dir, command[0])] + command[1:]
    run_env = dict(env)
    powers = []
    if scenario in ("slowcores", "hybrid"):
        run_env["SELFSCHED_EXAMPLE_SLOWDOWN"] = "1,0.5"
    if scenario == "hybrid":
        run_env["HWLOC_XMLFILE"] = os.path.join(SOURCE, "tests", "data", "hybrid-2core.xml")
        powers = ["--powers", "1:0.5"]  # selfsched's VP from the CPU kinds
    if scenario in ("slowcores", "nondedicated"):
        # The slowdown is the program's own, the busy process is seen only
        # as the run queue's Q, which reaches the w-* techniques alone: the
        # techniques here are told equal powers (VP).
        powers = ["--powers", "1"]
    competitor = None
    with tempfile.TemporaryDirectory() as tmp:
        measured = {t: [] for t in TECHNIQUES}
        real_runs = {t: [] for t in TECHNIQUES}  # per run: its costs, its start skew, its chunks
        program_time = {t: [] for t in TECHNIQUES}  # the program's own time: the loop and its parallel region
        profile = os.path.join(tmp, "run.json")
        gaps = os.path.join(tmp, "gaps.txt")  # when the busy process was off thread 1's CPU
        if scenario == "nondedicated":  # seed 000's resource expensive process, on thread 1's CPU
            competitor = subprocess.Popen(["taskset", "-c", str(cpus[1]), sys.executable,
                                           os.path.join(SOURCE, "benchmarks", "sim", "busy.py"), gaps])
            time.sleep(0.3)
        try:
            def quiet_recording(path, threads, places):
                """An ss recording, one iteration a chunk, the busy process stopped."""
                if competitor is not None:
                    competitor.send_signal(signal.SIGSTOP)
                subprocess.run(program, env=dict(env, OMP_NUM_THREADS=threads, OMP_PLACES=places, OMP_SCHEDULE="ss",
                                                 SELFSCHED_PROFILE=path, SELFSCHED_PROFILE_CHUNKS="1"),
                               check=True, stdout=subprocess.DEVNULL)
                if competitor is not None:
                    competitor.send_signal(signal.SIGCONT)

            for rep in range(args.reps):
                for t in TECHNIQUES:
                    costs, beside, after, slowed = (os.path.join(tmp, f"{name}-{rep}-{t}.json")
                                                    for name in ("costs", "beside", "after", "slowed"))
                    sliced = os.path.join(tmp, f"slices-{rep}-{t}.txt") if competitor is not None else None
                    quiet_recording(costs, "1", "{%d}" % cpus[0])
                    quiet_recording(beside, "2", env["OMP_PLACES"])
                    alone = iteration_times(costs)  # read once: every speed below is against it
                    before = speeds_beside(alone, iteration_times(beside))
                    share, cpu = memory_share(before), cpu_speed(before)
                    speed = cpu
                    if scenario != "dedicated":  # thread 1's speed in the scenario, under ss as `beside`
                        subprocess.run(program, env=dict(run_env, OMP_SCHEDULE="ss", SELFSCHED_PROFILE=slowed,
                                                         SELFSCHED_PROFILE_CHUNKS="1"),
                                       check=True, stdout=subprocess.DEVNULL)
                        speed = thread_speed(alone, iteration_times(slowed), 1) / before[0]
                    seen = os.path.getsize(gaps) if sliced else 0
                    out = subprocess.run(program, env=dict(run_env, OMP_SCHEDULE=t, SELFSCHED_PROFILE=profile,
                                                           SELFSCHED_PROFILE_CHUNKS="1"),
                                         check=True, capture_output=True, text=True).stdout
                    if sliced:
                        time.sleep(0.05)  # the last gap is written as the busy process resumes
                        sliced = slices_in(gaps, seen, profile, sliced)
                    quiet_recording(after, "2", env["OMP_PLACES"])
                    held = steady(before, speeds_beside(alone, iteration_times(after)))
                    skew, makespan, chunks = from_profile(profile)
                    if makespan is None:  # libomp ran the loop: its slowest thread's time in the loop
                        makespan = max(float(b) for b in re.search(r"busy_s=([0-9.,]+)", out).group(1).split(","))
                    measured[t].append(makespan)
                    program_time[t].append(float(re.search(r"time_s=([0-9.]+)", out).group(1)))
                    real_runs[t].append(RealRun(costs, share, cpu, speed, sliced, skew, chunks, held))
        finally:
            if competitor is not None:
                competitor.kill()
                competitor.wait()
        print("| technique | measured loop (s) | simulated (s) | simulated / measured | ... over the runs that held "
              "still | thread 1 started after thread 0 (ms, median) | memory share (median) | thread 1's speed (median) "
              "| runs with the same chunks | ... and threads | program's time (s) |")
        print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        ratios, held_ratios = [], []
        for t in TECHNIQUES:
            skews = [run.skew for run in real_runs[t]]
            runs = [(simulate(bin_dir, t, run.costs, workers(run) + powers + ["--memory", f"{run.share:.4f}"],
                              args.claim), run.chunks)
                    for run in real_runs[t]]
            # The same chunks (start, size), and the same threads running them.
            same = [[c[:2] for c in real] == [c[:2] for c in sim] for (_, sim), real in runs if real is not None]
            same_threads = [real == sim for (_, sim), real in runs if real is not None]
            simulated = [makespan for (makespan, _), _ in runs]
            ratio = statistics.median(s / m for s, m in zip(simulated, measured[t]))
            held = [s / m for s, m, run in zip(simulated, measured[t], real_runs[t]) if run.held]
            ratios.append(ratio)
            held_ratios.append(statistics.median(held) if held else None)
            print(f"| {t} | {statistics.median(measured[t]):.4f} | {statistics.median(simulated):.4f} | "
                  f"{ratio:.2f} | {f'{held_ratios[-1]:.2f}' if held else '-'} ({len(held)} of {len(simulated)}) | "
                  f"{statistics.median(skews) * 1e3:+.2f} | "
                  f"{statistics.median(run.share for run in real_runs[t]):.2f} | "
                  f"{statistics.median(run.speed for run in real_runs[t]):.2f} | "
                  f"{f'{sum(same)} of {len(same)} | {sum(same_threads)}' if same else '(libomp) | '} | "
                  f"{statistics.median(program_time[t]):.4f} |")
            if args.runs:
                for run, m, s in zip(real_runs[t], measured[t], simulated):
                    slicing = "slices (ms): " + slice_lengths(run.slices, m) if run.slices else ""
                    print(f"|   run | {m:.4f} | {s:.4f} | {s / m:.2f} | {'held' if run.held else 'unsteady'} | "
                          f"{run.skew * 1e3:+.2f} | {run.share:.2f} | {run.speed:.2f} | {slicing} | | |")
        unsteady = sum(1 for t in TECHNIQUES for run in real_runs[t] if not run.held)
        print(f"\nRuns around which this machine's speed changed: {unsteady} of {args.reps * len(TECHNIQUES)}.")
        return ratios, held_ratios, unsteady


def first_loop(path):
    """A profile's first loop; None if selfsched ran none (libomp's own static)."""
    with open(path) as f:
        sites = json.load(f)["sites"]
    return sites[0]["loops"][0] if sites else None


def speeds_beside(alone, beside):
    """Threads 0 and 1's speeds in a two-thread recording against the
    one-thread recording `alone` (thread 0's CPU), both as iteration_times():
    what the memory share, thread 1's CPU's speed and steady() are read from."""
    return thread_speed(alone, beside, 0), thread_speed(alone, beside, 1)


def memory_share(speeds):
    """selfsched-sim's --memory for the two workers of this machine: thread
    0's iterations beside a second busy thread over twice their time alone
    (the same CPU: what the second thread's share of memory adds), at most 1."""
    return min(1.0, 1 / (2 * speeds[0]))


def cpu_speed(speeds):
    """Thread 1's CPU's speed, as a fraction of thread 0's: their speeds
    beside each other (which share the memory's slowdown) over their
    iterations' times alone on thread 0's CPU. This VM's two CPUs are not
    always as fast as each other."""
    return speeds[1] / speeds[0]


def steady(before, after):
    """Whether this machine kept its speed over a run and its recordings
    (speeds_beside() of the two-thread recordings before and after it):
    each thread's speed within 10%, and thread 0 not faster beside a second
    thread than alone (10% allowed). This VM's speed for the matrix product
    moves between levels about 1.6x apart, each CPU on its own, often within
    a few hundred ms, and a run's costs are only known if it held."""
    return before[0] <= 1.10 and all(abs(later / earlier - 1) <= 0.10 for earlier, later in zip(before, after))


def iteration_times(path):
    """An ss recording's iterations: first iteration -> (thread, seconds)."""
    return {c["start"]: (c["thread"], c["end_s"] - c["begin_s"]) for c in first_loop(path)["chunks"]}


def thread_speed(times, with_other, thread):
    """A thread's speed in one recording against another (both under ss: one
    iteration a chunk; both as iteration_times()): the time its iterations
    took in `times` over the time they took in `with_other`."""
    mine = [i for i, (who, _) in with_other.items() if who == thread]
    took = sum(with_other[i][1] for i in mine)
    return sum(times[i][1] for i in mine) / took if took > 0 else 1.0


def slices_in(gaps, seen, profile, path):
    """Thread 1's time slices in a run beside the busy process: the gaps
    busy.py wrote to `gaps` after byte `seen`, in seconds from the loop's
    start in `profile` (a slice under way at the start from 0), written to
    `path` for selfsched-sim --timeshare 1:FILE. Returns path, or None if
    selfsched ran no loop (libomp's own static) or no slice fell in it."""
    loop = first_loop(profile)
    if loop is None:
        return None
    with open(gaps) as f:
        # Whole lines only (busy.py may be writing one at either end): from
        # the newline before byte `seen` to the last newline.
        f.seek(max(seen - 1, 0))
        lines = f.read().split("\n")
        whole = lines[1:-1] if seen > 0 else lines[:-1]
    begin = loop["wall_begin_s"]
    slices = [(max(int(b) * 1e-9 - begin, 0.0), int(e) * 1e-9 - begin) for b, e in (line.split() for line in whole)]
    slices = [(b, e) for b, e in slices if e > b]
    if not slices:
        return None
    with open(path, "w") as f:
        f.writelines(f"{b:.9f} {e:.9f}\n" for b, e in slices)
    return path


def slice_lengths(path, until):
    """A slices file's run and stopped lengths up to `until` seconds, in ms:
    '1.2 +4.0 4.0 +3.9 2.1' (a stop as +)."""
    with open(path) as f:
        slices = [tuple(float(x) for x in line.split()) for line in f]
    parts, end = [], 0.0
    for b, e in slices:
        if b >= until:
            break
        if b > end:
            parts.append(f"+{(b - end) * 1e3:.1f}")
        parts.append(f"{(e - b) * 1e3:.1f}")
        end = e
    return " ".join(parts)


def workers(run):
    """selfsched-sim's options for the two workers of a real run: beside the
    busy process, thread 1 at its CPU's speed in its time slices as they
    fell; otherwise, and where they are not known (libomp's own static
    leaves no loop start), thread 1 at its recorded speed. Either starts
    when the real one did. The two share one memory."""
    options = ["--node-workers", "2"] + late(run.skew)
    if run.slices is not None:
        return options + ["--speeds", f"1:{run.cpu:.4f}", "--timeshare", f"1:{run.slices}"]
    return options + ["--speeds", f"1:{run.speed:.4f}"]


def late(skew):
    """--late for the worker that started `skew` seconds after the other
    (thread 1 when > 0)."""
    return ["--late", f"{1 if skew > 0 else 0}:{abs(skew)}"] if skew != 0 else []


def simulate(bin_dir, technique, costs, options, claim):
    """The simulated makespan and chunks (start, size, worker) of one run:
    its costs (one thread's, alone) on the workers `options` describe."""
    with tempfile.TemporaryDirectory() as tmp:
        result = os.path.join(tmp, "run.json")
        out = subprocess.run([os.path.join(bin_dir, "selfsched-sim"), "--technique", technique, "--workers", "2",
                              "--profile", costs, "--latency", "0", "--claim", claim, "--chunks",
                              "--json", result] + options,
                             check=True, capture_output=True, text=True).stdout
        with open(result) as f:
            makespan = json.load(f)[0]["makespan_s"]
    chunks = sorted((int(start), int(size), int(worker))
                    for start, size, worker in re.findall(r"chunk start=(\d+) size=(\d+) worker=(\d+)", out))
    return makespan, chunks


def from_profile(profile):
    """How much later thread 1 began its first chunk than thread 0 (seconds),
    the loop's makespan (from its start to its last chunk's end) and its
    chunks (start, size, thread); 0, None and None for a loop libomp ran
    itself (OMP_SCHEDULE=static)."""
    loop = first_loop(profile)
    if loop is None:
        return 0, None, None
    first = {}
    for c in loop["chunks"]:
        first[c["thread"]] = min(first.get(c["thread"], c["begin_s"]), c["begin_s"])
    # A thread that ran no chunk started after the loop's end, for all it did.
    skew = first.get(1, loop["makespan_s"]) - first.get(0, loop["makespan_s"])
    # Threads that ask within a microsecond of each other: the clocks read
    # after the claims may tie or cross; with claims handed out in order, the
    # thread holding the loop's first iteration asked first.
    if abs(skew) < 1e-6 and loop["chunks"]:
        first_claim = min(loop["chunks"], key=lambda c: c["start"])["thread"]
        skew = max(abs(skew), 1e-9) * (1 if first_claim == 0 else -1)
    return skew, loop["makespan_s"], sorted((c["start"], c["size"], c["thread"]) for c in loop["chunks"])


if __name__ == "__main__":
    main()
