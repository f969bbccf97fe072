#!/usr/bin/env python3
"""Runs the benchmark matrix in --quick mode and checks that its outputs are
complete and well-formed: every run succeeded, every cell has its runs and
finite ratios, the Markdown has every row, the Gantt charts are SVG with one
chunk bar or more, and the block in a results file is replaced, not
duplicated. Never checks a timing.

    check_matrix.py --build BUILD --out DIR          # the quick matrix
    check_matrix.py --bad-input --build BUILD --out DIR   # bad configs: exit 2 and one message
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as xml_tree

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MATRIX = os.path.join(SOURCE, "benchmarks", "matrix", "matrix.py")
problems = []


def expect(condition, message):
    if not condition:
        problems.append(message)
    return condition


def finite_positive(x):
    return isinstance(x, (int, float)) and math.isfinite(x) and x > 0


def check_catalog(build):
    """--full takes every catalog technique from selfsched-chunks' list of valid
    names: each must come back as a name the tools accept (not name/alias)."""
    sys.path.insert(0, os.path.dirname(MATRIX))
    from appmatrix.config import catalog
    names = catalog(build)
    expect(len(names) >= 20 and {"ss", "fss", "gss", "tss", "auto"} <= set(names) and "static" not in names,
           f"catalog: unexpected names {names}")
    chunks = os.path.join(build, "bin", "selfsched-chunks")
    for name in names:
        result = subprocess.run([chunks, "--technique", name, "--n", "10", "--p", "2"], capture_output=True, text=True)
        expect(result.returncode == 0, f"catalog: '{name}' is not accepted: {result.stderr.strip()}")


def check_quick(build, out, programs=None, runtime="libomp"):
    check_catalog(build)
    command = [sys.executable, MATRIX, "--quick", "--build", build, "--out", out, "--no-progress"]
    if programs:
        command += ["--programs", programs]
    result = subprocess.run(command, capture_output=True, text=True)
    sys.stdout.write(result.stdout)
    sys.stderr.write(result.stderr)
    expect(result.returncode == 0, f"matrix.py --quick exited {result.returncode}")
    with open(os.path.join(out, "matrix.json")) as f:
        data = json.load(f)
    threads, reps = data["threads"], data["repetitions"]
    scenarios = [s["name"] for s in data["scenarios"]]
    apps = [a["name"] for a in data["apps"]]
    schedules = data["schedules"]
    expect(set(scenarios) == {"dedicated", "nondedicated", "slowcores", "hybrid"}, f"scenarios: {scenarios}")
    expect({s["by"] for s in schedules} == {"libomp", "selfsched"}, "runtime and selfsched schedules both present")
    expect(data["runtime"] == runtime and all(s["name"].startswith(runtime + " ") for s in schedules if s["by"] == "libomp"),
           f"the runtime's schedules are not named after {runtime}: {data['runtime']}, {[s['name'] for s in schedules]}")
    if runtime == "libgomp":  # libgomp has no trapezoidal: the matrix leaves it out rather than run its default
        expect(not any("trapezoidal" in s["name"] for s in schedules), "libgomp was given trapezoidal")
    expect(len(data["runs"]) == reps * len(scenarios) * len(apps) * len(schedules),
           f"{len(data['runs'])} runs, expected {reps} x {len(scenarios)} x {len(apps)} x {len(schedules)}")
    for r in data["runs"]:
        if expect(r["ok"], f"run failed: {r}"):
            expect(finite_positive(r["time_s"]) and len(r["busy_s"]) == threads, f"malformed run: {r}")
    expect(not data["failures"], f"failures: {data['failures']}")
    expect(len(data["cells"]) == len(scenarios) * len(apps) * len(schedules), "one cell per scenario, app, schedule")
    for c in data["cells"]:
        where = f"{c['scenario']} {c['app']} {c['schedule']}"
        expect(c["runs"] == reps, f"{where}: {c['runs']} runs, expected {reps}")
        for key in ("median_s", "ratio_best_libomp", "ratio_ideal", "ideal_s", "best_libomp_s"):
            expect(finite_positive(c[key]), f"{where}: {key} = {c[key]}")
        expect(c["imbalance"] >= 1 - 1e-9, f"{where}: imbalance {c['imbalance']} < 1")
        expect(0 <= c["faster_pairs"] <= c["pairs"] <= reps, f"{where}: faster in {c['faster_pairs']} of "
               f"{c['pairs']} pairs, {reps} repetitions")
    for scenario in scenarios:  # the best libomp schedule has the smallest median, and ratio 1 to itself
        for app in apps:
            column = [c for c in data["cells"] if c["scenario"] == scenario and c["app"] == app]
            best = [c for c in column if c["schedule"] == c["best_libomp"]]
            if expect(len(best) == 1 and best[0]["by"] == "libomp", f"{scenario} {app}: best libomp {best}"):
                expect(abs(best[0]["ratio_best_libomp"] - 1) < 1e-9, f"{scenario} {app}: best libomp ratio "
                       f"{best[0]['ratio_best_libomp']}")
                expect(best[0]["faster_pairs"] == 0, f"{scenario} {app}: the best libomp schedule is faster than "
                       f"itself in {best[0]['faster_pairs']} pairs")
                expect(all(best[0]["median_s"] <= c["median_s"] for c in column if c["by"] == "libomp"),
                       f"{scenario} {app}: {best[0]['schedule']} is not the libomp schedule with the smallest median")
    expect(len(data["overall"]) == len(schedules), "one overall row per schedule")
    expect(data["load"]["wall_s"] > 0 and set(data["scenario_load"]) == set(scenarios), "load measured")

    with open(os.path.join(out, "matrix.md")) as f:
        md = f.read()
    for app in apps:
        expect(f"## {app}\n" in md, f"matrix.md: no section for {app}")
    for s in schedules:
        for app in data["apps"]:
            label = s["name"].replace("{k}", str(app["k"]))
            expect(f"| {label} | " in md, f"matrix.md: no row '{label}'")
    for scenario in scenarios:
        expect(f"| `{scenario}` |" in md, f"matrix.md: scenario {scenario} not described")
    expect("python3 benchmarks/matrix/matrix.py --quick" in md, "matrix.md: the command is not shown")

    gantt_apps = [a["name"] for a in data["apps"] if a["gantt"]]
    expect(len(data["charts"]) == 2 * len(scenarios) * len(gantt_apps), f"{len(data['charts'])} charts")
    for chart in data["charts"]:
        if not expect("svg" in chart, f"no chart: {chart}"):
            continue
        path = os.path.join(out, chart["svg"])
        try:
            root = xml_tree.parse(path).getroot()
        except (OSError, xml_tree.ParseError) as e:
            expect(False, f"{path}: not well-formed XML: {e}")
            continue
        expect(root.tag.endswith("svg"), f"{path}: root is {root.tag}")
        bars = [e for e in root.iter() if e.tag.endswith("rect") and e.get("class") == "chunk"]
        expect(len(bars) >= 1, f"{path}: no chunk bar")

    # matrix.md stands alone: every chart it links is there, relative to it.
    links = re.findall(r"\]\(([^)]+\.svg)\)", md)
    expect(len(links) == len(data["charts"]), f"matrix.md links {len(links)} charts of {len(data['charts'])}")
    for link in links:
        expect(os.path.isfile(os.path.join(out, link)), f"matrix.md links {link}, which is not beside it")


def check_bad_input(build, out):
    os.makedirs(out, exist_ok=True)
    cases = [
        ({"apps": [{"name": "mandelbrot"}], "scenarios": ["cloud"], "libomp": ["static"]},
         "scenario 'cloud' is not one of dedicated, nondedicated, slowcores, hybrid"),
        ({"apps": [{"name": "nbody"}], "scenarios": ["dedicated"], "libomp": ["static"]},
         "app 'nbody': no program"),
        ({"apps": [{"name": "mandelbrot"}], "scenarios": ["dedicated"], "libomp": ["static"],
          "comparisons": [{"base": "gss", "variant": "w-gss"}]},
         "comparison base 'gss' is not one of the schedules"),
    ]
    for i, (config, message) in enumerate(cases):
        path = os.path.join(out, f"bad{i}.json")
        with open(path, "w") as f:
            json.dump(config, f)
        result = subprocess.run([sys.executable, MATRIX, "--config", path, "--build", build, "--out", out],
                                capture_output=True, text=True)
        expect(result.returncode == 2, f"{config}: exit {result.returncode}, expected 2")
        expect(message in result.stderr and len(result.stderr.strip().splitlines()) == 1,
               f"{config}: stderr {result.stderr!r} does not say {message!r} in one line")
    result = subprocess.run([sys.executable, MATRIX, "--quick", "--reps", "0", "--build", build, "--out", out],
                            capture_output=True, text=True)
    expect(result.returncode == 2 and "--reps '0' is not an integer >= 1" in result.stderr, f"--reps 0: {result.stderr}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--bad-input", action="store_true")
    parser.add_argument("--programs", help="the example programs built by gcc: libgomp's schedules are the baseline")
    args = parser.parse_args()
    if args.bad_input:
        check_bad_input(os.path.abspath(args.build), os.path.abspath(args.out))
    else:
        check_quick(os.path.abspath(args.build), os.path.abspath(args.out), args.programs,
                    "libgomp" if args.programs else "libomp")
    for p in problems:
        print(f"check_matrix: {p}", file=sys.stderr)
    print("check_matrix: " + ("ok" if not problems else f"{len(problems)} problem(s)"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
