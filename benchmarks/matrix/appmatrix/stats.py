"""The numbers: medians, imbalance, each cell's ratios to the best libomp
schedule and to the ideal, paired comparisons, the overall geometric means.
"""
import math
import statistics

from .config import schedule_label


# Student t quantiles (two-sided 95%) for the confidence interval of a mean.
T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
       2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045]


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
                r["pairs"], r["faster_pairs"] = len(paired), sum(1 for x in paired if x < 1.0)
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


def rank(cell):
    """Faster first: by the paired ratio to the best libomp schedule, else by the median time."""
    return cell["ratio_best_libomp"] or cell["median_s"] or math.inf
