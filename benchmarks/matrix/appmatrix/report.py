"""What the matrix shows: matrix.md's tables, Gantt charts through selfsched-
report, the terminal table and the verdict line.
"""
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

from .config import safe, schedule_label
from .run import Competitor, clock, command_text, competitor_cpu, others, run_once
from .stats import rank


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


def fmt(x, digits=2):
    return "–" if x is None else f"{x:.{digits}f}"


def markdown(config, result, shown_build="build"):
    cells, lines = result["cells"], []
    rt = config.get("runtime", "libomp")  # whose own schedules are the baseline
    add = lines.append
    load = result["load"]
    add(f"# {config['title']}")
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
    add(f"Each cell: time / time of the best {rt} schedule (the {rt} schedule with the smallest median), "
        "time / ideal, imbalance (max / mean busy time of the threads); each the median over the repetitions of "
        "the ratio within one repetition. **Bold**: the smallest first ratio of the column (the smallest median "
        f"time when there is no {rt} schedule). Ideal: W / sum_t s_t, with W the median over the column's runs "
        "in that repetition of sum_t s_t busy_t (`benchmarks/matrix/matrix.py`).")
    add("")
    for a in config["apps"]:
        add(f"## {a['name']}")
        add("")
        head = "| schedule | " + " | ".join(f"`{s['name']}`" for s in config["scenario_list"]) + " |"
        add(head)
        add("| --- |" + " --- |" * len(config["scenario_list"]))
        cols = {s["name"]: [c for c in cells if c["app"] == a["name"] and c["scenario"] == s["name"]]
                for s in config["scenario_list"]}
        fastest = {k: min((c for c in v if c["median_s"]), key=rank, default=None) for k, v in cols.items()}
        add(f"| best {rt}, ideal (s) | " + " | ".join(
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
    add("## Every schedule over all apps and scenarios")
    add("")
    add(f"The first ratio of the cells above (time / time of the best {rt} schedule of the same app and "
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
        add("## Gains of one schedule over another")
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
            f"techniques with the smallest and largest first ratio, since {rt}'s own loops cannot be traced by "
            "selfsched):")
        add("")
        for c in result["charts"]:
            if "svg" in c:
                add(f"- `{c['scenario']}` {c['app']}, {c['which']}: {c['schedule']} "
                    f"([{os.path.basename(c['svg'])}]({c['svg']}))")
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


def print_table(config, cells, stream=sys.stdout):
    rt = config.get("runtime", "libomp")
    for scenario in config["scenario_list"]:
        for app in config["apps"]:
            rows = [c for c in cells if c["scenario"] == scenario["name"] and c["app"] == app["name"]]
            if not rows:
                continue
            print(f"\n{app['name']} in scenario {scenario['name']}: best {rt} {fmt(rows[0]['best_libomp_s'], 3)} s, "
                  f"ideal {fmt(rows[0]['ideal_s'], 3)} s", file=stream)
            print(f"  {'schedule':<26} {'median s':>9} {'x best ' + rt:>14} {'x ideal':>8} {'imbalance':>10}",
                  file=stream)
            for c in sorted(rows, key=rank):
                print(f"  {c['schedule']:<26} {fmt(c['median_s'], 3):>9} {fmt(c['ratio_best_libomp']):>14} "
                      f"{fmt(c['ratio_ideal']):>8} {fmt(c['imbalance']):>10}", file=stream)


def verdict(cells, schedule, rt="libomp"):
    """Lines that judge one selfsched schedule against the runtime's (rt's) best and the ideal, per cell and
    overall, and say why where it loses: uneven threads, or (as balanced) the cost of its claims."""
    mine = [c for c in cells if c["key"] == schedule and c["ratio_best_libomp"]]
    if not mine:
        return [f"Verdict: no successful run of {schedule}"]
    lines = []
    for c in mine:
        best = next(b for b in cells if b["scenario"] == c["scenario"] and b["app"] == c["app"]
                    and b["schedule"] == c["best_libomp"])
        where = f"{c['app']} ({c['scenario']})" if len(mine) > 1 else ""
        line = (f"{schedule} took {fmt(c['ratio_best_libomp'])}x the time of {rt}'s best schedule "
                f"({c['best_libomp'].replace(rt + ' ', '')}) and {fmt(c['ratio_ideal'])}x the ideal")
        if fmt(c["ratio_best_libomp"]) == "1.00":  # equal to the shown precision: not called a loss
            line += ": a tie"
        elif c["ratio_best_libomp"] > 1.0:
            if c["imbalance"] and best["imbalance"] and c["imbalance"] > best["imbalance"] + 0.02:
                why = (f"its threads finished less evenly (busy time max/mean {fmt(c['imbalance'])} against "
                       f"{fmt(best['imbalance'])})")
            else:
                why = (f"its threads were as balanced ({fmt(c['imbalance'])} against {fmt(best['imbalance'])}), so the "
                       f"difference is the cost of its claims and measurements, or the machine's noise (its runs: "
                       f"{fmt(c['min_s'], 3)}..{fmt(c['max_s'], 3)} s)")
            line += f": it lost, {why}"
            if c.get("faster_pairs"):  # paired by repetition: a loss in some runs only is the noise's as much
                line += f"; it was the faster in {c['faster_pairs']} of {c['pairs']} paired runs"
        lines.append(("  " + where + ": " if where else "Verdict: ") + line)
    if len(mine) > 1:
        ratios = [c["ratio_best_libomp"] for c in mine]
        worst = max(mine, key=lambda c: c["ratio_best_libomp"])
        lines.insert(0, f"Verdict: {schedule} over {len(mine)} cells: geometric mean "
                        f"{fmt(math.exp(statistics.fmean(math.log(r) for r in ratios)))}x {rt}'s best schedule of "
                        f"each cell, worst {fmt(worst['ratio_best_libomp'])}x ({worst['app']}, {worst['scenario']})")
    return lines
