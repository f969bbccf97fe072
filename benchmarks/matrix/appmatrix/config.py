"""The matrix's configs and scenarios: a config file read with every field
checked (BadInput names the bad one), the built-in scenarios and their CPU
places, the schedule names.
"""
import json
import os
import re
import subprocess
import sys


HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # benchmarks/matrix: the configs

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


class BadInput(Exception):
    pass


def usable_cpus(count, why):
    """The first `count` CPUs this process may use, in order."""
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < count:
        raise BadInput(f"{why} needs {count} CPUs; this process may use only {cpus}")
    return cpus[:count]


def bound_places(threads):
    """OMP_PLACES with one place per thread, each one usable CPU: thread t runs on usable CPU t."""
    return ",".join("{%d}" % cpu for cpu in usable_cpus(threads, f"binding {threads} threads one to a CPU"))


# Schedule kinds only libomp knows: a libgomp program would take its default
# instead, under the kind's name.
LIBOMP_ONLY = ("trapezoidal", "static_steal")


def program_runtime(program):
    """The OpenMP runtime an example program links (its ELF NEEDED entries): libomp or libgomp."""
    try:
        result = subprocess.run(["readelf", "-d", program], capture_output=True, text=True)
    except OSError as e:
        raise BadInput(f"cannot read {program}'s dynamic section (readelf): {e}")
    if "libgomp" in result.stdout:
        return "libgomp"
    if "libomp" in result.stdout:
        return "libomp"
    raise BadInput(f"{program} links neither libomp nor libgomp")


def load_config(path, build, programs=None):
    """programs: the directory of the example programs (default BUILD/bin), e.g. built by gcc."""
    programs = programs or os.path.join(build, "bin")
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
        app["path"] = os.path.join(programs, app["program"])
        if not os.access(app["path"], os.X_OK):
            raise BadInput(f"{path}: app '{app['name']}': no program {app['path']} (build first)")
        apps.append(app)
    config["apps"] = apps
    config["programs"] = programs
    default_programs = os.path.abspath(programs) == os.path.join(os.path.abspath(build), "bin")
    config["programs_shown"] = None if default_programs else (
        os.path.relpath(programs, SOURCE) if os.path.abspath(programs).startswith(SOURCE + "/") else programs)
    # The runtime's own schedules are named after it; every app must use the same one.
    runtimes = {program_runtime(app["path"]) for app in apps}
    if len(runtimes) > 1:
        raise BadInput(f"{path}: the apps link different OpenMP runtimes ({', '.join(sorted(runtimes))})")
    runtime = config["runtime"] = runtimes.pop()
    if runtime == "libgomp":
        dropped = [s for s in config["libomp"] if s.split(",")[0].split(":")[-1] in LIBOMP_ONLY]
        if dropped:
            print(f"matrix: libgomp has no {', '.join(dropped)}: left out", file=sys.stderr)
        config["libomp"] = [s for s in config["libomp"] if s not in dropped]

    selfsched = config["selfsched"]
    if selfsched == "catalog" or (isinstance(selfsched, dict) and selfsched.get("catalog")):
        extra = selfsched.get("extra", []) if isinstance(selfsched, dict) else []
        names = catalog(build)
        selfsched = names + [s for s in extra if s not in names]
    # "by": "libomp" marks the runtime's own schedules, whichever runtime it is.
    schedules = [{"name": f"{runtime} {s}", "by": "libomp", "omp_schedule": s} for s in config["libomp"]]
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


def safe(text):
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text)
