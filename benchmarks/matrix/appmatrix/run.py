"""Running the programs: their environment per scenario and schedule, one run
and its result line, the busy competitor process, the CPU binding check, the
background load and quiet waits, progress lines.
"""
import os
import re
import resource
import signal
import subprocess
import sys
import time

from .config import BadInput, CLEARED, SOURCE, omp_schedule, safe, schedule_label, usable_cpus


COMPETITOR = ["sh", "-c", "while :; do :; done"]


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
    programs = config.get("programs_shown") or f"{shown_build}/bin"
    words += [quoted(w) for w in [f"{programs}/{app['program']}"] + app["args"]]
    return " ".join(words)


def parse_line(stdout):
    for line in reversed(stdout.strip().splitlines()):
        if line.startswith("app="):
            return dict(field.split("=", 1) for field in line.split() if "=" in field)
    return None


def run_once(config, scenario, schedule, app, build, extra_env=None, extra_args=()):
    env = run_environment(config, scenario, schedule, app, build, extra_env)
    command = [app["path"]] + app["args"] + list(extra_args)
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


def competitor_cpu(config):
    """The CPU that thread 1 is bound to (bound_places): the second usable CPU."""
    if "competitor_cpu" in config:
        return config["competitor_cpu"]
    return usable_cpus(2, "the nondedicated scenario")[1]


def check_binding(config, build):
    """Runs the first app once with libomp's affinity display: each thread must be bound to one CPU of
    its own, else every scenario's "thread 1" would mean nothing. BadInput says what the runtime did."""
    scenario, app = config["scenario_list"][0], config["apps"][0]
    env = {k: v for k, v in os.environ.items() if not CLEARED.match(k)}
    env.update(scenario["env"], OMP_NUM_THREADS=str(config["threads"]), OMP_DISPLAY_AFFINITY="TRUE",
               OMP_AFFINITY_FORMAT="binding-check thread %n cpus %A")
    command = [app["path"]] + app["args"]
    try:
        result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=config["run_timeout_s"])
    except subprocess.TimeoutExpired:
        raise BadInput(f"the binding check ({app['program']}) timed out after {config['run_timeout_s']} s")
    # libomp displays affinity on stdout, libgomp on stderr.
    bound = dict(re.findall(r"^binding-check thread (\d+) cpus (\S+)$", result.stdout + "\n" + result.stderr,
                            re.MULTILINE))
    cpus = [bound.get(str(t)) for t in range(config["threads"])]
    if not all(c is not None and c.isdigit() for c in cpus) or len(set(cpus)) != len(cpus):
        raise BadInput(f"OMP_PLACES={scenario['env'].get('OMP_PLACES')} did not bind each of the "
                       f"{config['threads']} threads to a CPU of its own: {config['runtime']} bound them to "
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


def others(load):
    """Other processes' cores while the runs ran (older results: over the whole interval)."""
    value = load.get("others_cores_during_runs")
    return load["others_cores"] if value is None else value


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
