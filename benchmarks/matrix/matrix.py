#!/usr/bin/env python3
"""The application matrix: apps x scenarios x schedules, on this machine.

    benchmarks/matrix/matrix.py (--quick | --full | --config FILE) [--build DIR]
        [--out DIR] [--reps N] [--results-md FILE] [--no-gantt] [--no-progress]

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
run). --results-md replaces this config's block in that Markdown file (or
appends one under "## Application matrix"). Exit status: 0, 1 when a run
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
import math
import os
import platform
import re
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))

# The scenarios every config may name. Threads are bound one to a CPU in all
# of them, so that "thread 1" means "the CPU the competitor or the slowdown is
# on". The places are explicit, built from the CPUs this process may use
# (bound_places): OMP_PLACES=cores depends on how libomp reads the topology,
# and on a 2-vCPU AMD EPYC VM it sees one core of two hardware threads and
# binds both threads to {0,1}. SELFSCHED_SIA=off: a calibration file on the
# machine changes no VP.
# SELFSCHED_AUTO_CACHE=off: auto learns afresh in every run, no warm-up from earlier runs.
BOUND = {"OMP_PROC_BIND": "true", "SELFSCHED_SIA": "off", "SELFSCHED_AUTO_CACHE": "off"}
SCENARIOS = {
    "dedicated": {
        "description": "threads bound to the first two usable CPUs, nothing else started (other users of the machine still run)",
        "env": {},
        "speeds": [1, 1],
    },
    "nondedicated": {
        "description": "a busy process pinned to thread 1's CPU (`taskset -c CPU sh -c 'while :; do :; done'`, "
                       "seed 000's resource expensive process), started before and killed after the scenario; "
                       "thread 1 gets half of its CPU, and selfsched's run-queue monitor measures its Q",
        "env": {},
        "competitor": True,
        "speeds": [1, 0.5],
    },
    "slowcores": {
        "description": "thread 1 emulates a core of half the speed (`SELFSCHED_EXAMPLE_SLOWDOWN=1,0.5`); "
                       "selfsched is not told (VP equal): only adaptive techniques can notice",
        "env": {"SELFSCHED_EXAMPLE_SLOWDOWN": "1,0.5"},
        "speeds": [1, 0.5],
    },
    "hybrid": {
        "description": "an emulated hybrid CPU: `HWLOC_XMLFILE=tests/data/hybrid-2core.xml` (PU 0 a performance "
                       "core, PU 1 an efficiency core of half the capacity: selfsched's VP 1 and 0.5 from hwloc's "
                       "CPU kinds) and the matching `SELFSCHED_EXAMPLE_SLOWDOWN=1,0.5`",
        "env": {"HWLOC_XMLFILE": "{source}/tests/data/hybrid-2core.xml", "SELFSCHED_EXAMPLE_SLOWDOWN": "1,0.5"},
        "speeds": [1, 0.5],
    },
}

# Variables of the caller's environment that would change a run: removed.
CLEARED = re.compile(r"^(OMP_|KMP_|GOMP_|SELFSCHED_|HWLOC_XMLFILE$|LD_PRELOAD$)")

COMPETITOR = ["sh", "-c", "while :; do :; done"]

# Student t quantiles (two-sided 95%) for the confidence interval of a mean.
T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
       2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045]


class BadInput(Exception):
    pass


# ------------------------------------------------------------------ config --

def load_config(path, build):
    try:
        with open(path) as f:
            config = json.load(f)
    except (OSError, ValueError) as e:
        raise BadInput(f"--config '{path}': {e}")
    config["file"] = os.path.relpath(path, SOURCE)
    config.setdefault("name", os.path.splitext(os.path.basename(path))[0])
    config.setdefault("title", config["name"])
    config.setdefault("threads", 2)
    config.setdefault("repetitions", 3)
    config.setdefault("run_timeout_s", 120)
    config.setdefault("libomp", [])
    config.setdefault("selfsched", [])
    config.setdefault("comparisons", [])
    if not config.get("apps"):
        raise BadInput(f"{path}: 'apps' is empty")
    threads = config["threads"]

    scenarios = {}
    for entry in config.get("scenarios", []):
        if isinstance(entry, str):
            if entry not in SCENARIOS:
                raise BadInput(f"{path}: scenario '{entry}' is not one of {', '.join(SCENARIOS)} "
                               "(or define it as an object with name, extends, env, speeds)")
            scenario = dict(SCENARIOS[entry], name=entry)
        else:
            base = entry.get("extends")
            if base is not None and base not in SCENARIOS:
                raise BadInput(f"{path}: scenario '{entry.get('name')}' extends '{base}', not one of {', '.join(SCENARIOS)}")
            scenario = dict(SCENARIOS.get(base, {"env": {}, "speeds": [1] * threads}))
            scenario["env"] = dict(scenario["env"], **entry.get("env", {}))
            for key in ("name", "description", "speeds", "competitor"):
                if key in entry:
                    scenario[key] = entry[key]
            if "name" not in scenario:
                raise BadInput(f"{path}: a scenario object needs a 'name'")
        speeds = list(scenario["speeds"]) + [1] * threads
        scenario["speeds"] = speeds[:threads]
        bound = dict(BOUND, OMP_PLACES=bound_places(threads))
        scenario["env"] = {k: v.replace("{source}", SOURCE) for k, v in dict(bound, **scenario["env"]).items()}
        scenarios[scenario["name"]] = scenario
    if not scenarios:
        raise BadInput(f"{path}: 'scenarios' is empty")
    config["scenario_list"] = list(scenarios.values())

    apps = []
    for app in config["apps"]:
        app = dict(app)
        app.setdefault("program", app["name"])
        app.setdefault("args", [])
        app.setdefault("k", 1)
        app.setdefault("gantt", False)
        if not os.access(os.path.join(build, "bin", app["program"]), os.X_OK):
            raise BadInput(f"{path}: app '{app['name']}': no program {build}/bin/{app['program']} (build first)")
        apps.append(app)
    config["apps"] = apps

    selfsched = config["selfsched"]
    if selfsched == "catalog" or (isinstance(selfsched, dict) and selfsched.get("catalog")):
        extra = selfsched.get("extra", []) if isinstance(selfsched, dict) else []
        names = catalog(build)
        selfsched = names + [s for s in extra if s not in names]
    schedules = [{"name": f"libomp {s}", "by": "libomp", "omp_schedule": s} for s in config["libomp"]]
    # With libselfsched preloaded, OMP_SCHEDULE=auto is selfsched's auto.
    # An object {"name", "omp_schedule", "warm_cache": true} runs with auto's cache on (one file per
    # scenario and app), warmed by one unmeasured run first: the second run of a program.
    # "preload": another libselfsched.so (a build of an earlier commit), to compare two versions
    # side by side in one run.
    schedules += [{"name": s, "by": "selfsched", "omp_schedule": s} if isinstance(s, str)
                  else dict(s, by="selfsched") for s in selfsched]
    if not schedules:
        raise BadInput(f"{path}: no schedules ('libomp' and 'selfsched' are empty)")
    config["schedule_list"] = schedules
    names = [s["name"] for s in schedules]
    for c in config["comparisons"]:
        for key in ("base", "variant"):
            if c.get(key) not in names:
                raise BadInput(f"{path}: comparison {key} '{c.get(key)}' is not one of the schedules: {', '.join(names)}")
    return config


def catalog(build):
    """The technique names of the core's catalog, as selfsched-chunks lists them."""
    chunks = os.path.join(build, "bin", "selfsched-chunks")
    result = subprocess.run([chunks, "--technique", "?", "--n", "1", "--p", "1"], capture_output=True, text=True)
    match = re.search(r"valid: ([^()]*?) \(", result.stderr)
    if not match:
        raise BadInput(f"cannot read the catalog from '{chunks} --technique ?': {result.stderr.strip()}")
    # OMP_SCHEDULE=static names libomp's kind, so selfsched's static cannot be chosen from the
    # environment (its chunks are libomp's static anyway).
    # Each entry is a name, or name/alias (ss/pss): the name is what runs.
    names = [entry.strip().split("/")[0] for entry in match.group(1).split(",")]
    return [name for name in names if name != "static"]


def omp_schedule(schedule, app):
    return schedule["omp_schedule"].replace("{k}", str(app["k"]))


def schedule_label(schedule, app):
    return schedule["name"].replace("{k}", str(app["k"]))


# ------------------------------------------------------------------- runs --

def run_environment(config, scenario, schedule, app, build, extra=None):
    env = {k: v for k, v in os.environ.items() if not CLEARED.match(k)}
    env.update(scenario["env"])
    env["OMP_NUM_THREADS"] = str(config["threads"])
    env["OMP_SCHEDULE"] = omp_schedule(schedule, app)
    if schedule["by"] == "selfsched":
        env["LD_PRELOAD"] = schedule.get("preload") or os.path.join(build, "lib", "libselfsched.so")
    if schedule.get("warm_cache"):
        env["SELFSCHED_AUTO_CACHE"] = os.path.join(config["cache_dir"], safe(f"{scenario['name']}-{app['name']}") + ".json")
    env.update(extra or {})
    return env


def command_text(config, scenario, schedule, app, build, shown_build="build"):
    """The command line a reader types to repeat one run."""
    env = dict(scenario["env"], OMP_NUM_THREADS=str(config["threads"]), OMP_SCHEDULE=omp_schedule(schedule, app))
    if schedule["by"] == "selfsched":
        env["LD_PRELOAD"] = schedule.get("preload") or f"{shown_build}/lib/libselfsched.so"
    def quoted(word):
        return word if re.fullmatch(r"[\w./,=:+-]+", word) else f"'{word}'"
    # Only a value is quoted: a quoted NAME=value would be a command, not an assignment.
    words = [f"{k}={quoted(v.replace(SOURCE + '/', ''))}" for k, v in env.items()]
    words += [quoted(w) for w in [f"{shown_build}/bin/{app['program']}"] + app["args"]]
    return " ".join(words)


def parse_line(stdout):
    for line in reversed(stdout.strip().splitlines()):
        if line.startswith("app="):
            return dict(field.split("=", 1) for field in line.split() if "=" in field)
    return None


def run_once(config, scenario, schedule, app, build, extra_env=None, extra_args=()):
    env = run_environment(config, scenario, schedule, app, build, extra_env)
    command = [os.path.join(build, "bin", app["program"])] + app["args"] + list(extra_args)
    record = {"scenario": scenario["name"], "app": app["name"], "schedule": schedule_label(schedule, app)}
    try:
        result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=config["run_timeout_s"])
    except subprocess.TimeoutExpired:
        return dict(record, ok=False, error=f"timed out after {config['run_timeout_s']} s")
    fields = parse_line(result.stdout)
    if result.returncode != 0 or fields is None or fields.get("ok") != "1":
        error = (result.stderr.strip().splitlines() or ["no result line"])[-1]
        return dict(record, ok=False, error=f"exit {result.returncode}: {error}")
    if schedule["by"] == "selfsched" and fields.get("selfsched_schedule") != env["OMP_SCHEDULE"]:
        # libselfsched takes OMP_SCHEDULE when it names one of its techniques and moves it to
        # SELFSCHED_SCHEDULE; the standard kinds (static, auto, ...) stay libomp's.
        return dict(record, ok=False, error=f"not served by selfsched (OMP_SCHEDULE={env['OMP_SCHEDULE']} "
                                           f"reached the program as schedule={fields.get('schedule')})")
    try:
        busy = [float(x) for x in fields["busy_s"].split(",")]
        record.update(ok=True, time_s=float(fields["time_s"]), busy_s=busy, checksum=fields["checksum"])
    except (KeyError, ValueError) as e:
        return dict(record, ok=False, error=f"malformed result line: {e}")
    if result.stderr.strip():  # selfsched or libomp warnings: keep them, they matter
        record["stderr"] = result.stderr.strip()[-500:]
    return record


def die_with_parent():
    """In the child before exec: SIGKILL when this script dies, however it dies (a killed matrix run
    must not leave a busy process spinning on a CPU and loading every later measurement)."""
    import ctypes
    pr_set_pdeathsig = 1
    ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL)


class Competitor:
    """A busy process pinned to one CPU, for the non-dedicated scenario."""

    def __init__(self, cpu):
        self.cpu = cpu
        self.process = None

    def __enter__(self):
        self.process = subprocess.Popen(["taskset", "-c", str(self.cpu)] + COMPETITOR, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL, preexec_fn=die_with_parent)
        Load.live.add(self.process.pid)
        time.sleep(0.3)  # let it settle on its core, and the run-queue monitor see it
        if self.process.poll() is not None:
            raise BadInput(f"the competing process could not start on CPU {self.cpu} (taskset)")
        return self

    def __exit__(self, *exc):
        if self.process and self.process.poll() is None:
            self.process.kill()  # only the process we started, by its id
        if self.process:
            self.process.wait()
            Load.live.discard(self.process.pid)


def usable_cpus(count, why):
    """The first `count` CPUs this process may use, in order."""
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < count:
        raise BadInput(f"{why} needs {count} CPUs; this process may use only {cpus}")
    return cpus[:count]


def bound_places(threads):
    """OMP_PLACES with one place per thread, each one usable CPU: thread t runs on usable CPU t."""
    return ",".join("{%d}" % cpu for cpu in usable_cpus(threads, f"binding {threads} threads one to a CPU"))


def competitor_cpu(config):
    """The CPU that thread 1 is bound to (bound_places): the second usable CPU."""
    if "competitor_cpu" in config:
        return config["competitor_cpu"]
    return usable_cpus(2, "the nondedicated scenario")[1]


def check_binding(config, build):
    """Runs the first app once with libomp's affinity display: each thread must be bound to one CPU of
    its own, else every scenario's "thread 1" would mean nothing. BadInput says what libomp did."""
    scenario, app = config["scenario_list"][0], config["apps"][0]
    env = {k: v for k, v in os.environ.items() if not CLEARED.match(k)}
    env.update(scenario["env"], OMP_NUM_THREADS=str(config["threads"]), OMP_DISPLAY_AFFINITY="TRUE",
               OMP_AFFINITY_FORMAT="binding-check thread %n cpus %A")
    command = [os.path.join(build, "bin", app["program"])] + app["args"]
    try:
        result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=config["run_timeout_s"])
    except subprocess.TimeoutExpired:
        raise BadInput(f"the binding check ({app['program']}) timed out after {config['run_timeout_s']} s")
    bound = dict(re.findall(r"^binding-check thread (\d+) cpus (\S+)$", result.stdout, re.MULTILINE))
    cpus = [bound.get(str(t)) for t in range(config["threads"])]
    if not all(c is not None and c.isdigit() for c in cpus) or len(set(cpus)) != len(cpus):
        raise BadInput(f"OMP_PLACES={scenario['env'].get('OMP_PLACES')} did not bind each of the "
                       f"{config['threads']} threads to a CPU of its own: libomp bound them to "
                       + ", ".join(f"thread {t}: {{{c}}}" for t, c in enumerate(cpus)))


class Load:
    """CPU time used on the machine by processes other than ours, over an interval."""

    live = set()  # our processes still running (the competitor): not yet in RUSAGE_CHILDREN

    def __init__(self):
        self.start = self._sample()

    @classmethod
    def _sample(cls):
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:9]]
        ticks = os.sysconf("SC_CLK_TCK")
        busy = sum(fields[0:3]) + sum(fields[5:8])  # user nice system, irq softirq steal (not idle, iowait)
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        me = resource.getrusage(resource.RUSAGE_SELF)
        mine = children.ru_utime + children.ru_stime + me.ru_utime + me.ru_stime
        for pid in cls.live:
            try:
                with open(f"/proc/{pid}/stat") as f:
                    stat = f.read().rsplit(")", 1)[1].split()
                mine += (int(stat[11]) + int(stat[12])) / ticks  # utime, stime
            except (OSError, IndexError, ValueError):
                pass
        return time.monotonic(), busy / ticks, mine, os.getloadavg()[0]

    def stop(self):
        t0, busy0, mine0, load0 = self.start
        t1, busy1, mine1, load1 = self._sample()
        wall = max(t1 - t0, 1e-9)
        return {"wall_s": round(wall, 1), "others_cores": round(max(0.0, (busy1 - busy0) - (mine1 - mine0)) / wall, 2),
                "ours_cores": round((mine1 - mine0) / wall, 2), "loadavg_1min_start": load0, "loadavg_1min_end": load1}


def during(rounds, scenario=None):
    """Other processes' mean load while the runs ran (the rounds), leaving out waits and charts."""
    mine = [r for r in rounds if scenario is None or r["scenario"] == scenario]
    wall = sum(r["wall_s"] for r in mine)
    return {"runs_wall_s": round(wall, 1),
            "others_cores_during_runs": round(sum(r["others_cores"] * r["wall_s"] for r in mine) / wall, 2)
            if wall > 0 else None}


def wait_for_quiet(limit_s, threshold=0.3, sample_s=1.0):
    """Waits, at most limit_s, until other processes use at most `threshold` cores over `sample_s`:
    the machine is shared, and a burst of someone's build in the middle of a round of runs is the
    largest source of noise. Never changes anyone's priority. Returns (seconds waited, last load)."""
    start = time.monotonic()
    while True:
        meter = Load()
        time.sleep(sample_s)
        others = meter.stop()["others_cores"]
        waited = time.monotonic() - start
        if others <= threshold or waited >= limit_s:
            return round(waited, 1), others


class Progress:
    def __init__(self, total, enabled):
        self.total, self.done, self.start = total, 0, time.monotonic()
        self.tty = enabled and sys.stderr.isatty()
        self.enabled = enabled
        self.last_step = -1

    def step(self, text):
        self.done += 1
        elapsed = time.monotonic() - self.start
        eta = elapsed / self.done * (self.total - self.done)
        if self.tty:
            width = 30
            filled = int(width * self.done / self.total)
            bar = "#" * filled + "." * (width - filled)
            line = f"\r[{bar}] {self.done}/{self.total} {clock(elapsed)} eta {clock(eta)}  {text}"
            sys.stderr.write(line[:120].ljust(120))
            sys.stderr.flush()
        elif self.enabled and self.done * 10 // self.total != self.last_step:
            self.last_step = self.done * 10 // self.total
            print(f"matrix: {self.done}/{self.total} runs, {clock(elapsed)} elapsed, eta {clock(eta)}", file=sys.stderr)

    def finish(self):
        if self.tty:
            sys.stderr.write("\r" + " " * 120 + "\r")
            sys.stderr.flush()


def clock(seconds):
    seconds = int(seconds)
    return f"{seconds // 60}:{seconds % 60:02d}"


# ---------------------------------------------------------------- summary --

def median(values):
    return statistics.median(values) if values else None


def imbalance(busy):
    mean = sum(busy) / len(busy)
    return max(busy) / mean if mean > 0 else 1.0


def summarize(config, runs):
    """One cell per scenario, app and schedule. Ratios are paired: each run is divided by what ran in
    the same repetition (the best libomp schedule's run, that repetition's ideal), then the median
    is taken, so a change of the machine's background load between repetitions cancels out."""
    cells = []
    for scenario in config["scenario_list"]:
        speeds = scenario["speeds"]
        for app in config["apps"]:
            mine = [r for r in runs if r["scenario"] == scenario["name"] and r["app"] == app["name"] and r["ok"]]
            ideal_by_rep = {}
            for rep in {r["rep"] for r in mine}:
                work = [sum(s * b for s, b in zip(speeds, r["busy_s"])) for r in mine if r["rep"] == rep]
                ideal_by_rep[rep] = median(work) / sum(speeds)
            rows = []
            for schedule in config["schedule_list"]:
                label = schedule_label(schedule, app)
                ok = {r["rep"]: r for r in mine if r["schedule"] == label}
                times = [r["time_s"] for r in ok.values()]
                rows.append({"scenario": scenario["name"], "app": app["name"], "schedule": label,
                             "key": schedule["name"], "by": schedule["by"], "runs": len(ok), "by_rep": ok,
                             "median_s": median(times), "min_s": min(times, default=None),
                             "max_s": max(times, default=None),
                             "imbalance": median([imbalance(r["busy_s"]) for r in ok.values()]),
                             "ideal_s": median(list(ideal_by_rep.values())),
                             "ratio_ideal": median([r["time_s"] / ideal_by_rep[k] for k, r in ok.items()])})
            libomp = [r for r in rows if r["by"] == "libomp" and r["median_s"]]
            best = min(libomp, key=lambda r: r["median_s"]) if libomp else None
            for r in rows:
                paired = [r["by_rep"][k]["time_s"] / best["by_rep"][k]["time_s"] for k in r["by_rep"]
                          if best and k in best["by_rep"]]
                r["best_libomp"] = best["schedule"] if best else None
                r["best_libomp_s"] = best["median_s"] if best else None
                r["ratio_best_libomp"] = median(paired)
            for r in rows:
                del r["by_rep"]
            cells += rows
    return cells


def compare(config, runs):
    """Paired gains of a variant over its base: (T_base - T_variant) / T_base per repetition."""
    out = []
    for c in config["comparisons"]:
        for scenario in config["scenario_list"]:
            for app in config["apps"]:
                def times(name):
                    return {r["rep"]: r["time_s"] for r in runs if r["ok"] and r["scenario"] == scenario["name"]
                            and r["app"] == app["name"] and r["schedule"] == name}
                base, variant = times(c["base"]), times(c["variant"])
                gains = [(base[k] - variant[k]) / base[k] for k in sorted(base) if k in variant]
                if not gains:
                    continue
                mean = statistics.fmean(gains)
                # Distribution-free 95% interval of the median: order statistics j+1 and n-j.
                ordered = sorted(gains)
                j = max(0, math.floor(len(gains) / 2 - 0.98 * math.sqrt(len(gains))))
                half = (T95[min(len(gains) - 2, len(T95) - 1)] * statistics.stdev(gains) / math.sqrt(len(gains))
                        if len(gains) > 1 else None)
                out.append({"scenario": scenario["name"], "app": app["name"], "base": c["base"], "variant": c["variant"],
                            "seed": c.get("seed", ""), "pairs": len(gains), "mean_gain": mean, "ci95_half": half,
                            "median_pair_gain": median(gains), "median_ci95": [ordered[j], ordered[-1 - j]],
                            "median_gain": 1 - median(list(variant.values())) / median(list(base.values())),
                            "median_base_s": median(list(base.values())),
                            "median_variant_s": median(list(variant.values()))})
    return out


# ----------------------------------------------------------------- charts --

def gantt_charts(config, cells, build, out, progress):
    """Best and worst selfsched technique per scenario and app: a profiled run, drawn by selfsched-report."""
    charts = []
    report = os.path.join(build, "bin", "selfsched-report")
    for scenario in config["scenario_list"]:
        for app in config["apps"]:
            if not app["gantt"]:
                continue
            ranked = sorted((c for c in cells if c["scenario"] == scenario["name"] and c["app"] == app["name"]
                             and c["by"] == "selfsched" and c["median_s"]), key=rank)
            if not ranked:
                continue
            chosen = [("best", ranked[0]), ("worst", ranked[-1])]
            if isinstance(app["gantt"], list):  # these schedules rather than the best and the worst
                chosen = [("chosen", c) for c in ranked if c["schedule"] in app["gantt"]]
            for which, cell in chosen:
                schedule = next(s for s in config["schedule_list"] if schedule_label(s, app) == cell["schedule"])
                progress.step(f"gantt {scenario['name']} {app['name']} {cell['schedule']}")
                chart = gantt_chart(config, scenario, schedule, app, build, out, report, which)
                if chart:
                    charts.append(dict(chart, scenario=scenario["name"], app=app["name"], which=which,
                                       schedule=cell["schedule"], median_s=cell["median_s"]))
    return charts


def gantt_chart(config, scenario, schedule, app, build, out, report, which):
    stem = safe(f"{scenario['name']}-{app['name']}-{which}-{schedule_label(schedule, app)}")
    charts = os.path.join(out, "charts")
    os.makedirs(charts, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        profile = os.path.join(work, "profile.json")
        extra = {"SELFSCHED_PROFILE": profile, "SELFSCHED_PROFILE_CHUNKS": "1"}
        with (Competitor(competitor_cpu(config)) if scenario.get("competitor") else nullcontext()):
            record = run_once(config, scenario, schedule, app, build, extra)
        if not record["ok"] or not os.path.exists(profile):
            return {"error": record.get("error", "no profile written")}
        result = subprocess.run([report, "--out", work, profile], capture_output=True, text=True)
        written = sorted(f for f in os.listdir(work) if f.endswith("-gantt.svg"))
        if result.returncode != 0 or not written:
            return {"error": f"selfsched-report: {result.stderr.strip()}"}
        target = os.path.join(charts, stem + "-gantt.svg")
        shutil.move(os.path.join(work, written[0]), target)
        return {"svg": os.path.relpath(target, out), "profiled_time_s": record["time_s"]}


class nullcontext:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def safe(text):
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text)


# --------------------------------------------------------------- markdown --

def fmt(x, digits=2):
    return "–" if x is None else f"{x:.{digits}f}"


def others(load):
    """Other processes' cores while the runs ran (older results: over the whole interval)."""
    value = load.get("others_cores_during_runs")
    return load["others_cores"] if value is None else value


def markdown(config, result, shown_build="build"):
    cells, lines = result["cells"], []
    add = lines.append
    load = result["load"]
    add(f"### {config['title']}")
    add("")
    if config.get("description"):
        add(config["description"])
        add("")
    add(f"Measured {result['finished']} on {result['machine']['cpu']} ({result['machine']['cpus']} CPUs), "
        f"{config['threads']} threads, {config['repetitions']} repetitions interleaved, "
        f"{len(result['runs'])} runs in {clock(load['wall_s'])} min. Machine load from other processes while the "
        f"runs ran: {others(load)} cores on average (1-minute load average {load['loadavg_1min_start']:.1f} "
        f"at the start, {load['loadavg_1min_end']:.1f} at the end).")
    waits = result.get("quiet_waits", [])
    if waits:
        busy = sum(1 for w in waits if w["others_cores_before"] > 0.3)
        add(f"Each round of an app's runs first waited for other processes to use under 0.3 cores "
            f"(`--quiet-wait`): {sum(w['waited_s'] for w in waits):.0f} s of waiting over {len(waits)} rounds; "
            f"{busy} rounds started anyway with more load, after the longest wait allowed.")
    add("")
    add("```sh")
    add(result["command"])
    add("```")
    add("")
    add("| scenario | what | nominal speeds s_t | load from others (cores) |")
    add("| --- | --- | --- | --- |")
    for s in config["scenario_list"]:
        speeds = ", ".join(f"{x:g}" for x in s["speeds"])
        add(f"| `{s['name']}` | {s.get('description', '')} | {speeds} | {others(result['scenario_load'][s['name']])} |")
    add("")
    add("| app | program and arguments | `dynamic,k` |")
    add("| --- | --- | --- |")
    for a in config["apps"]:
        add(f"| {a['name']} | `{a['program']} {' '.join(a['args'])}` | k = {a['k']} |")
    add("")
    scenario = config["scenario_list"][0]
    app = config["apps"][0]
    sample = next((s for s in config["schedule_list"] if s["by"] == "selfsched"), config["schedule_list"][0])
    add(f"One run by hand, e.g. {app['name']} in `{scenario['name']}` under {schedule_label(sample, app)}:"
        f" `{command_text(config, scenario, sample, app, None, shown_build)}`"
        + (" with the competing process started first." if scenario.get("competitor") else "."))
    add("")
    add("Each cell: time / time of the best libomp schedule (the libomp schedule with the smallest median), "
        "time / ideal, imbalance (max / mean busy time of the threads); each the median over the repetitions of "
        "the ratio within one repetition. **Bold**: the smallest first ratio of the column (the smallest median "
        "time when there is no libomp schedule). Ideal: W / sum_t s_t, with W the median over the column's runs "
        "in that repetition of sum_t s_t busy_t (`benchmarks/matrix/matrix.py`).")
    add("")
    for a in config["apps"]:
        add(f"#### {a['name']}")
        add("")
        head = "| schedule | " + " | ".join(f"`{s['name']}`" for s in config["scenario_list"]) + " |"
        add(head)
        add("| --- |" + " --- |" * len(config["scenario_list"]))
        cols = {s["name"]: [c for c in cells if c["app"] == a["name"] and c["scenario"] == s["name"]]
                for s in config["scenario_list"]}
        fastest = {k: min((c for c in v if c["median_s"]), key=rank, default=None) for k, v in cols.items()}
        add("| best libomp, ideal (s) | " + " | ".join(
            f"{fmt(v[0]['best_libomp_s'], 3)}, {fmt(v[0]['ideal_s'], 3)}" for v in cols.values()) + " |")
        for i, schedule in enumerate(config["schedule_list"]):
            row = []
            for name, v in cols.items():
                c = v[i]
                if c["median_s"] is None:
                    row.append("failed")
                    continue
                text = f"{fmt(c['ratio_best_libomp'])} / {fmt(c['ratio_ideal'])} / {fmt(c['imbalance'])}"
                row.append(f"**{text}**" if c is fastest[name] else text)
            add(f"| {schedule_label(schedule, a)} | " + " | ".join(row) + " |")
        add("")
    # Over all columns: how far from the best libomp schedule each schedule ever is.
    add("#### Every schedule over all apps and scenarios")
    add("")
    add("The first ratio of the cells above (time / time of the best libomp schedule of the same app and "
        "scenario): geometric mean and worst case over the " + str(len(config["apps"]) * len(config["scenario_list"]))
        + " columns.")
    add("")
    add("| schedule | geometric mean | worst | worst in |")
    add("| --- | --- | --- | --- |")
    for row in result["overall"]:
        add(f"| {row['schedule']} | {fmt(row['geomean_ratio_best_libomp'])} | {fmt(row['worst_ratio_best_libomp'])} "
            f"| {row['worst_in']} |")
    add("")
    if result["comparisons"]:
        add("#### Gains of one schedule over another")
        add("")
        add("Gain = (T_base - T_variant) / T_base of each repetition (the two ran in the same round): the median "
            "gain with its distribution-free 95% interval, and the mean with its 95% confidence interval "
            "(t distribution; one run disturbed by the machine's other load moves the mean, hardly the median).")
        add("")
        add("| scenario | app | variant vs base | pairs | base median (s) | variant median (s) | gain: median [95%] "
            "| gain: mean ± 95% | seed figure |")
        add("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        for c in result["comparisons"]:
            mean = f"{100 * c['mean_gain']:.0f} ± {100 * c['ci95_half']:.0f}%" if c["ci95_half"] is not None \
                else f"{100 * c['mean_gain']:.0f}%"
            lo, hi = c["median_ci95"]
            add(f"| `{c['scenario']}` | {c['app']} | {c['variant']} vs {c['base']} | {c['pairs']} | "
                f"{fmt(c['median_base_s'], 3)} | {fmt(c['median_variant_s'], 3)} | "
                f"{100 * c['median_pair_gain']:.0f}% [{100 * lo:.0f}, {100 * hi:.0f}] | {mean} | {c['seed']} |")
        add("")
    if result["charts"]:
        add("Gantt charts (chunks per thread over time, one profiled run each; best and worst: the selfsched "
            "techniques with the smallest and largest first ratio, since libomp's own loops cannot be traced by "
            "selfsched):")
        add("")
        for c in result["charts"]:
            if "svg" in c:
                add(f"- `{c['scenario']}` {c['app']}, {c['which']}: {c['schedule']} "
                    f"([{os.path.basename(c['svg'])}]({result['out_from_md']}/{c['svg']}))")
            else:
                add(f"- `{c['scenario']}` {c['app']}, {c['which']}: {c['schedule']}: no chart ({c['error']})")
        add("")
    if result["failures"]:
        add("Failed runs:")
        add("")
        for f in result["failures"][:20]:
            add(f"- `{f['scenario']}` {f['app']} {f['schedule']}: {f['error']}")
        add("")
    return "\n".join(lines)


def overall(config, cells):
    rows = []
    for schedule in config["schedule_list"]:
        mine = [c for c in cells if c["key"] == schedule["name"]]
        ratios = [(c["ratio_best_libomp"], c) for c in mine if c["ratio_best_libomp"]]
        if not ratios:
            continue
        worst = max(ratios, key=lambda x: x[0])
        rows.append({"schedule": schedule["name"].replace("{k}", "k"), "by": schedule["by"],
                     "geomean_ratio_best_libomp": math.exp(statistics.fmean(math.log(r) for r, _ in ratios)),
                     "worst_ratio_best_libomp": worst[0], "worst_in": f"{worst[1]['app']} `{worst[1]['scenario']}`"})
    return rows


def update_results_md(path, config, text):
    begin = f"<!-- matrix:{config['name']}:begin (generated by benchmarks/matrix/matrix.py --config {config['file']}; " \
            "edit outside these markers) -->"
    end = f"<!-- matrix:{config['name']}:end -->"
    block = f"{begin}\n{text}\n{end}"
    try:
        with open(path) as f:
            doc = f.read()
    except FileNotFoundError:
        doc = "# Results\n"
    pattern = re.compile(re.escape(f"<!-- matrix:{config['name']}:begin") + r".*?" + re.escape(end), re.S)
    if pattern.search(doc):
        doc = pattern.sub(lambda _: block, doc)
    else:
        heading = re.search(r"^## Application matrix\s*$", doc, re.M)
        if heading:
            following = re.search(r"^## ", doc[heading.end():], re.M)
            at = heading.end() + following.start() if following else len(doc)
            doc = doc[:at].rstrip("\n") + "\n\n" + block + "\n\n" + doc[at:]
        else:
            doc = doc.rstrip("\n") + "\n\n## Application matrix\n\n" + block + "\n"
    with open(path, "w") as f:
        f.write(doc.rstrip("\n") + "\n")


# -------------------------------------------------------------- terminal --

def rank(cell):
    """Faster first: by the paired ratio to the best libomp schedule, else by the median time."""
    return cell["ratio_best_libomp"] or cell["median_s"] or math.inf


def print_table(config, cells, stream=sys.stdout):
    for scenario in config["scenario_list"]:
        for app in config["apps"]:
            rows = [c for c in cells if c["scenario"] == scenario["name"] and c["app"] == app["name"]]
            if not rows:
                continue
            print(f"\n{app['name']} in scenario {scenario['name']}: best libomp {fmt(rows[0]['best_libomp_s'], 3)} s, "
                  f"ideal {fmt(rows[0]['ideal_s'], 3)} s", file=stream)
            print(f"  {'schedule':<26} {'median s':>9} {'x best libomp':>14} {'x ideal':>8} {'imbalance':>10}",
                  file=stream)
            for c in sorted(rows, key=rank):
                print(f"  {c['schedule']:<26} {fmt(c['median_s'], 3):>9} {fmt(c['ratio_best_libomp']):>14} "
                      f"{fmt(c['ratio_ideal']):>8} {fmt(c['imbalance']):>10}", file=stream)


def verdict(cells, schedule):
    """Lines that judge one selfsched schedule against libomp's best and the ideal, per cell and
    overall, and say why where it loses: uneven threads, or (as balanced) the cost of its claims."""
    mine = [c for c in cells if c["key"] == schedule and c["ratio_best_libomp"]]
    if not mine:
        return [f"Verdict: no successful run of {schedule}"]
    lines = []
    for c in mine:
        best = next(b for b in cells if b["scenario"] == c["scenario"] and b["app"] == c["app"]
                    and b["schedule"] == c["best_libomp"])
        where = f"{c['app']} ({c['scenario']})" if len(mine) > 1 else ""
        line = (f"{schedule} took {fmt(c['ratio_best_libomp'])}x the time of libomp's best schedule "
                f"({c['best_libomp'].replace('libomp ', '')}) and {fmt(c['ratio_ideal'])}x the ideal")
        if c["ratio_best_libomp"] > 1.0:
            if c["imbalance"] and best["imbalance"] and c["imbalance"] > best["imbalance"] + 0.02:
                why = (f"its threads finished less evenly (busy time max/mean {fmt(c['imbalance'])} against "
                       f"{fmt(best['imbalance'])})")
            else:
                why = (f"its threads were as balanced ({fmt(c['imbalance'])} against {fmt(best['imbalance'])}), so the "
                       f"difference is the cost of its claims and measurements, or the machine's noise (its runs: "
                       f"{fmt(c['min_s'], 3)}..{fmt(c['max_s'], 3)} s)")
            line += f": it lost, {why}"
        lines.append(("  " + where + ": " if where else "Verdict: ") + line)
    if len(mine) > 1:
        ratios = [c["ratio_best_libomp"] for c in mine]
        worst = max(mine, key=lambda c: c["ratio_best_libomp"])
        lines.insert(0, f"Verdict: {schedule} over {len(mine)} cells: geometric mean "
                        f"{fmt(math.exp(statistics.fmean(math.log(r) for r in ratios)))}x libomp's best schedule of "
                        f"each cell, worst {fmt(worst['ratio_best_libomp'])}x ({worst['app']}, {worst['scenario']})")
    return lines


# ------------------------------------------------------------------- main --

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
    parser.add_argument("--reps", type=int, help="repetitions (default: the config's)")
    parser.add_argument("--results-md", help="Markdown file whose block for this config is replaced (docs/results.md)")
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
    config = load_config(path, build)
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
        if args.results_md:
            command += f" --out {os.path.relpath(out, SOURCE)} --results-md {os.path.relpath(args.results_md, SOURCE)}"
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
        "threads": config["threads"], "repetitions": config["repetitions"],
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
    md_dir = os.path.dirname(os.path.abspath(args.results_md)) if args.results_md else out
    result["out_from_md"] = os.path.relpath(out, md_dir)
    with open(os.path.join(out, "matrix.json"), "w") as f:
        json.dump(result, f, indent=1)
    text = markdown(config, result)
    with open(os.path.join(out, "matrix.md"), "w") as f:
        f.write(text + "\n")
    if args.results_md:
        update_results_md(args.results_md, config, text)
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
        print("\n" + "\n".join(verdict(cells, args.verdict)))
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
