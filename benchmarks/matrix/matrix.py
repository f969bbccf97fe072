#!/usr/bin/env python3
"""The application matrix: apps x scenarios x schedules, on this machine.

    benchmarks/matrix/matrix.py (--quick | --full | --config FILE) [--build DIR]
        [--out DIR] [--programs DIR] [--reps N] [--no-gantt] [--no-progress]

Runs the example programs (examples/README.md) under libomp's own schedules
and selfsched's techniques, in the scenarios of DESIGN.md ("Heterogeneity on
one machine"), several repetitions each, interleaved: within a scenario,
repetition r runs every app under every schedule, in an order rotated by r,
before repetition r + 1 starts. So schedules are compared inside one run on
a machine whose background load drifts, and only ratios and medians are
reported.

Per (scenario, app, schedule): the median loop time (the program's time_s);
its ratio to the best libomp schedule (the libomp schedule with the smallest
median in the same scenario and app), taken per repetition and then the
median; its ratio to the ideal time, likewise; and the imbalance (max / mean
busy time per thread, the profile's imbalance_max_over_mean, from the
program's busy_s because libomp's own loops have no selfsched profile). The
ideal time of a scenario, app and repetition is

    ideal = W / sum_t s_t,   W = median over the runs of sum_t s_t busy_t

where busy_t is thread t's wall time inside iterations (the program's busy_s)
and s_t its nominal relative speed in the scenario (1 on a free core, 0.5 on
a core shared with one busy process or slowed to half): W is the loop's work
in seconds of a full-speed core, spread perfectly over the scenario's
capacity, with no scheduling cost. The median is over the runs of the app in
that repetition, all schedules, so the work a schedule adds inside the
iterations (cache misses, false sharing) counts against it.

Outputs in --out: matrix.json (config, machine, load, every run, the cells),
matrix.md (the tables), charts/ (Gantt charts of the best and worst selfsched
technique per scenario and app, drawn by selfsched-report from a profiled
run). The generated tables live there only (benchmarks/results/matrix/NAME
when they are kept); pages of docs/results/ link to them. Exit status: 0, 1 when a run
failed (crashed, self-check failed, checksum differs between schedules), 2 on
bad input. Python 3 standard library only.

A config (quick.json, full.json, ...) is JSON: name, title, description;
threads (2); repetitions; run_timeout_s; scenarios: names of the built-in
ones below, or objects {name, extends, description, env, speeds}; apps:
[{name, program (default: name), args, k (the chunk of libomp's
"dynamic,{k}"), gantt (true: charts of the best and worst selfsched
technique; or a list of techniques)}]; libomp: OMP_SCHEDULE values run without
libselfsched; selfsched: technique names run with it preloaded (OMP_SCHEDULE;
"auto" is then selfsched's), or {"catalog": true, "extra": [...]} for every technique
selfsched-chunks lists; comparisons: [{base, variant, seed}] for paired gains.
"""
import argparse
import json
import os
import platform
import shutil
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # the appmatrix package beside this file
from appmatrix.config import BadInput, HERE, SOURCE, load_config, schedule_label
from appmatrix.run import Competitor, Load, Progress, check_binding, clock, competitor_cpu, during, others, run_once, wait_for_quiet
from appmatrix.stats import compare, overall, summarize
from appmatrix.report import gantt_charts, markdown, nullcontext, print_table, verdict


def measure(config, build, out, show_progress, quiet_wait=0):
    """Every run, then the Gantt charts: the measured part of the result. With quiet_wait, each round
    of an app's schedules waits (at most that long) for the machine's other load to drop first."""
    reps, schedules = config["repetitions"], config["schedule_list"]
    total = reps * len(config["scenario_list"]) * len(config["apps"]) * len(schedules)
    total += len(config["scenario_list"]) * sum(len(a["gantt"]) if isinstance(a["gantt"], list) else 2
                                                for a in config["apps"] if a["gantt"])
    progress = Progress(total, show_progress)
    runs, scenario_load, waits, rounds = [], {}, [], []
    started = time.strftime("%Y-%m-%d %H:%M")
    check_binding(config, build)
    load = Load()
    try:
        for scenario in config["scenario_list"]:
            scenario_meter = Load()
            with (Competitor(competitor_cpu(config)) if scenario.get("competitor") else nullcontext()):
                for rep in range(reps):
                    for app in config["apps"]:
                        if quiet_wait > 0:
                            waited, others = wait_for_quiet(quiet_wait)
                            waits.append({"scenario": scenario["name"], "rep": rep, "app": app["name"],
                                          "waited_s": waited, "others_cores_before": others})
                        round_meter = Load()
                        shift = rep % len(schedules)
                        for schedule in schedules[shift:] + schedules[:shift]:
                            if rep == 0 and schedule.get("warm_cache"):  # the first run fills the cache
                                run_once(config, scenario, schedule, app, build)
                            progress.step(f"{scenario['name']} {app['name']} {schedule_label(schedule, app)}")
                            record = run_once(config, scenario, schedule, app, build)
                            record["rep"] = rep
                            runs.append(record)
                        rounds.append(dict(round_meter.stop(), scenario=scenario["name"]))
            scenario_load[scenario["name"]] = dict(scenario_meter.stop(), **during(rounds, scenario["name"]))
        charts = gantt_charts(config, summarize(config, runs), build, out, progress)
    finally:
        progress.finish()
    return {"started": started, "finished": time.strftime("%Y-%m-%d %H:%M"), "machine": machine(),
            "load": dict(load.stop(), **during(rounds)), "scenario_load": scenario_load, "quiet_waits": waits, "runs": runs, "charts": charts}


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--quick", action="store_true", help="benchmarks/matrix/quick.json: small, for CI")
    which.add_argument("--full", action="store_true", help="benchmarks/matrix/full.json: the published matrix")
    which.add_argument("--config", help="a config file (JSON)")
    parser.add_argument("--build", default=os.path.join(SOURCE, "build"), help="build directory (default: build)")
    parser.add_argument("--out", help="output directory (default: BUILD/matrix/NAME)")
    parser.add_argument("--programs", metavar="DIR",
                        help="the example programs to run (default: BUILD/bin), e.g. built by gcc "
                             "(BUILD/tests/gcc/examples): their runtime's schedules are then libgomp's")
    parser.add_argument("--reps", type=int, help="repetitions (default: the config's)")
    parser.add_argument("--no-gantt", action="store_true", help="no profiled runs, no Gantt charts")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--quiet", action="store_true", help="no table on the terminal")
    parser.add_argument("--quiet-wait", type=float, default=0, metavar="SECONDS",
                        help="before each round of an app's runs, wait at most this long for other processes to "
                             "use under 0.3 cores (default 0: never wait)")
    parser.add_argument("--verdict", metavar="SCHEDULE",
                        help="end with a verdict on this selfsched schedule (e.g. auto) against libomp's best")
    parser.add_argument("--from-json", metavar="FILE",
                        help="run nothing: summarize again the runs of an earlier matrix.json of the same config")
    args = parser.parse_args(argv)
    sys.stdout.reconfigure(line_buffering=True)  # the table before the progress lines when both go to a pipe

    build = os.path.abspath(args.build)
    path = os.path.join(HERE, "quick.json") if args.quick else os.path.join(HERE, "full.json") if args.full \
        else args.config
    config = load_config(path, build, os.path.abspath(args.programs) if args.programs else None)
    if args.reps is not None:
        if args.reps < 1:
            raise BadInput(f"--reps '{args.reps}' is not an integer >= 1")
        config["repetitions"] = args.reps
    if args.no_gantt:
        for app in config["apps"]:
            app["gantt"] = False
    out = os.path.abspath(args.out or os.path.join(build, "matrix", config["name"]))
    os.makedirs(out, exist_ok=True)
    config["cache_dir"] = os.path.join(out, "auto-cache")
    shutil.rmtree(config["cache_dir"], ignore_errors=True)
    os.makedirs(config["cache_dir"])

    if args.from_json:
        try:
            with open(args.from_json) as f:
                measured = json.load(f)
        except (OSError, ValueError) as e:
            raise BadInput(f"--from-json '{args.from_json}': {e}")
        if measured.get("config") != config["name"]:
            raise BadInput(f"--from-json '{args.from_json}' holds config '{measured.get('config')}', not '{config['name']}'")
        config["repetitions"] = measured["repetitions"]
        command = measured["command"]
    else:
        if os.path.isdir(os.path.join(out, "charts")):
            shutil.rmtree(os.path.join(out, "charts"))
        measured = measure(config, build, out, not args.no_progress, args.quiet_wait)
        shown_build = os.path.relpath(build, SOURCE) if build.startswith(SOURCE + "/") else build
        flags = "--quick" if args.quick else "--full" if args.full else f"--config {os.path.relpath(path, SOURCE)}"
        command = f"python3 benchmarks/matrix/matrix.py {flags} --build {shown_build}"
        if args.reps is not None:
            command += f" --reps {args.reps}"
        if args.quiet_wait:
            command += f" --quiet-wait {args.quiet_wait:g}"
        if config["programs_shown"]:
            command += f" --programs {config['programs_shown']}"
        if args.out:
            command += f" --out {os.path.relpath(out, SOURCE) if out.startswith(SOURCE + '/') else out}"
    runs, charts = measured["runs"], measured["charts"]
    cells = summarize(config, runs)

    # Every schedule computes the same result: checksums per app must agree.
    failures = [r for r in runs if not r["ok"]]
    for app in config["apps"]:
        sums = {r["checksum"] for r in runs if r["ok"] and r["app"] == app["name"]}
        if len(sums) > 1:
            failures.append({"scenario": "all", "app": app["name"], "schedule": "all",
                             "error": f"checksums differ between runs: {sorted(sums)}"})
    result = {
        "matrix": 1, "config": config["name"], "config_file": config["file"], "title": config["title"],
        "started": measured["started"], "finished": measured["finished"], "command": command,
        "machine": measured["machine"], "load": measured["load"], "scenario_load": measured["scenario_load"],
        "threads": config["threads"], "repetitions": config["repetitions"], "runtime": config["runtime"],
        "scenarios": [{k: s.get(k) for k in ("name", "description", "env", "speeds", "competitor")}
                      for s in config["scenario_list"]],
        "apps": config["apps"],
        "schedules": [{"name": s["name"], "by": s["by"], "omp_schedule": s["omp_schedule"]}
                      for s in config["schedule_list"]],
        "ideal": "per repetition: W / sum_t s_t, W = median over the app's runs in the scenario and repetition "
                 "of sum_t s_t busy_t; ratios are per repetition, then the median",
        "quiet_waits": measured.get("quiet_waits", []),
        "runs": runs, "cells": cells, "charts": charts, "failures": failures,
        "overall": overall(config, cells), "comparisons": compare(config, runs),
    }
    with open(os.path.join(out, "matrix.json"), "w") as f:
        json.dump(result, f, indent=1)
    text = markdown(config, result)
    with open(os.path.join(out, "matrix.md"), "w") as f:
        f.write(text + "\n")
    if not args.quiet:
        print_table(config, cells)
        for c in result["comparisons"]:
            lo, hi = c["median_ci95"]
            print(f"\n{c['variant']} vs {c['base']} ({c['app']}, {c['scenario']}): median gain "
                  f"{100 * c['median_pair_gain']:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}] over {c['pairs']} pairs; "
                  f"seed: {c['seed']}")
        load = result["load"]
        print(f"\nmachine load from others while the runs ran: {others(load)} cores on average "
              f"({clock(load['wall_s'])} in all)")
        print(f"written: {out}/matrix.json, {out}/matrix.md" + (f", {len([c for c in charts if 'svg' in c])} Gantt "
                                                               f"charts in {out}/charts" if charts else ""))
    if args.verdict:
        print("\n" + "\n".join(verdict(cells, args.verdict, config["runtime"])))
    for f in failures:
        print(f"matrix: FAILED {f['scenario']} {f['app']} {f['schedule']}: {f['error']}", file=sys.stderr)
    return 1 if failures else 0


def machine():
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return {"cpu": cpu, "cpus": os.cpu_count(), "usable_cpus": sorted(os.sched_getaffinity(0)),
            "kernel": platform.release(), "python": platform.python_version()}


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except BadInput as e:
        print(f"matrix: {e}", file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        sys.exit(130)
