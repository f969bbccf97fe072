#!/usr/bin/env python3
"""Markdown tables from a `make bench-omp` run (benchmarks/omp/run_bench_omp.sh).

    report.py OUT_DIR            -> OUT_DIR/summary.md (also printed)
    report.py forwarding DIR     -> the forwarding table of one compare_forwarding.sh run
    report.py across OUT_DIR...  -> the key ratios of several runs side by side, with their median

OUT_DIR holds bench.<libomp>.json (Google Benchmark, repetitions with
aggregates), forwarding/<libomp>/ (compare_forwarding.sh) and callgrind/
(callgrind_icount.sh). Every ratio compares numbers from the same process
(bench) or from runs alternated back to back (forwarding).
"""
import csv
import json
import re
import statistics
import sys
from pathlib import Path

LIBOMPS = {"distribution": "Debian libomp5-19 (RelWithDebInfo, KMP_DEBUG tracing)",
           "release": "libomp 19 built Release from the same source (make libomp-release)",
           "patched": "the same Release build with patches/ (make libomp-patched): selfsched's schedules registered"}

# (selfsched case, libomp or floor case) compared at every loop size.
PAIRS = [("selfsched-ss", "atomic-floor"),
         ("selfsched-ss", "libomp-dynamic1-monotonic"),
         ("selfsched-ss", "libomp-dynamic1-nonmonotonic"),
         ("libomp-dynamic1-monotonic", "atomic-floor"),
         ("libomp-dynamic1-nonmonotonic", "atomic-floor"),
         ("selfsched-gss", "libomp-guided1"),
         ("selfsched-fss", "libomp-trapezoidal"),
         ("selfsched-tss", "libomp-trapezoidal")]

NAME = re.compile(r"^(?P<case>[^/]+)/threads:(?P<threads>\d+)/n:(?P<n>\d+)/loops:(?P<loops>\d+)")


CASE_ORDER = ["atomic-floor", "libomp-static", "selfsched-ss", "libomp-dynamic1-monotonic",
              "libomp-dynamic1-nonmonotonic", "selfsched-gss", "libomp-guided1", "selfsched-fss",
              "selfsched-tss", "libomp-trapezoidal"]


def ns(seconds):
    if seconds < 0:
        return "−" + ns(-seconds)
    v = seconds * 1e9
    if v >= 100_000:
        return f"{v / 1000:,.0f} µs"
    if v >= 1000:
        return f"{v / 1000:.2f} µs"
    return f"{v:.1f} ns"


def table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


def load_runs(path):
    """(context, {(case, threads, n, loops): [run, ...]}): the individual
    repetitions (Google Benchmark's own aggregates are skipped)."""
    data = json.loads(Path(path).read_text())
    runs = {}
    for b in data["benchmarks"]:
        m = NAME.match(b["name"])
        if m and b.get("run_type", "iteration") == "iteration":
            key = (m["case"], int(m["threads"]), int(m["n"]), int(m["loops"]))
            runs.setdefault(key, []).append(b)
    return data["context"], runs


class timing:
    """Seconds per loop over the repetitions of one benchmark."""

    def __init__(self, runs):
        self.per_loop = [r["per_loop"] for r in runs]
        self.chunks = runs[0]["chunks"]
        self.median = statistics.median(self.per_loop)
        self.best = min(self.per_loop)
        mean = statistics.fmean(self.per_loop)
        self.cv = statistics.pstdev(self.per_loop) / mean if len(self.per_loop) > 1 else 0.0


def order(case):
    return CASE_ORDER.index(case) if case in CASE_ORDER else len(CASE_ORDER)


def bench_section(label, path):
    context, runs = load_runs(path)
    times = {k: timing(v) for k, v in runs.items()}
    sizes = sorted({k[2] for k in times}, reverse=True)
    loops_of = {k[2]: k[3] for k in times}
    threads = sorted({k[1] for k in times})
    cases = sorted({k[0] for k in times}, key=order)
    reps = max(len(v) for v in runs.values())
    find = lambda case, t, n: next((times[k] for k in times if k[:3] == (case, t, n)), None)
    lines = [f"#### {LIBOMPS.get(label, label)}", "",
             f"`{context.get('libomp', '?')}`; load average at start "
             f"{', '.join(f'{x:.2f}' for x in context.get('load_avg', []))}; "
             f"{context.get('num_cpus', '?')} CPUs; {reps} repetitions, interleaved at random.", ""]
    for t in threads:
        header = ["time per loop, median (best of " + str(reps) + ")"] + [f"n={n} ×{loops_of[n]}" for n in sizes]
        ratio_rows = []
        for a, b in PAIRS:
            cells = []
            for n in sizes:
                ta, tb = find(a, t, n), find(b, t, n)
                cells.append(f"{ta.median / tb.median:.2f} ({ta.best / tb.best:.2f})" if ta and tb else "–")
            if any(c != "–" for c in cells):
                ratio_rows.append([f"{a} ÷ {b}"] + cells)
        lines += [f"Ratios, {t} threads:", "", table(header, ratio_rows), ""]
        for n in sizes:
            static = find("libomp-static", t, n)
            body = []
            for c in cases:
                r = find(c, t, n)
                if r is None:
                    continue
                over = ns(r.median - static.median) if static and c != "libomp-static" else "–"
                body.append([c, f"{r.chunks:.0f}", ns(r.median), ns(r.best), f"{r.cv * 100:.0f}%",
                             ns(r.median / r.chunks), over])
            lines += [f"n = {n} iterations per loop, {loops_of[n]} loop(s) per parallel region, {t} threads:", "",
                      table(["loop", "chunks/loop", "time/loop (median)", "best", "cv", "time/chunk (median)",
                             "over static/loop"], body), ""]
    return lines


def forwarding_table(directory):
    """Median over alternated runs of (with libselfsched) / (libomp alone)."""
    directory = Path(directory)
    runs = {}
    for f in sorted(directory.glob("*.json")):
        variant, index = f.stem.rsplit(".", 1)
        runs.setdefault(variant, {})[int(index)] = {k: v[0] for k, v in load_runs(f)[1].items()}
    if "plain" not in runs:
        return ["(no forwarding runs)"]
    body = []
    keys = {k for rows in runs["plain"].values() for k in rows}
    for key in sorted(keys, key=lambda k: (k[0], -k[2])):
        row = [f"{key[0]} n={key[2]} ×{key[3]}", ns(statistics.median(
            r[key]["real_time"] * 1e-6 / key[3] for r in runs["plain"].values() if key in r))]
        plain = [r[key]["real_time"] for r in runs["plain"].values() if key in r]
        for variant in ("preload", "linked"):
            mine = {i: r[key]["real_time"] for i, r in runs.get(variant, {}).items() if key in r}
            ratios = [mine[i] / runs["plain"][i][key]["real_time"] for i in mine if key in runs["plain"].get(i, {})]
            row.append(f"{statistics.median(ratios):.3f} ({min(ratios):.2f}–{max(ratios):.2f}); "
                       f"best {min(mine.values()) / min(plain):.3f}" if ratios else "–")
        body.append(row)
    count = len(runs["plain"])
    return [table(["standard loop (libomp's schedule)", "time/loop, libomp alone",
                   f"LD_PRELOAD libselfsched ÷ alone: median of {count} rounds (range); best ÷ best",
                   f"linked libselfsched ÷ alone: median (range); best ÷ best"], body)]


def callgrind_counts(path, functions):
    """{function: (calls, inclusive Ir)} for the calls the program itself makes
    (callers in dispatch_icount), from callgrind_annotate --tree=caller."""
    result = {f: [0, 0] for f in functions}
    block = []
    for line in Path(path).read_text().splitlines() + [""]:
        if line.strip():
            block.append(line)
            continue
        star = next((l for l in block if re.search(r"\s\*\s", l)), None)
        if star:
            fn = next((f for f in functions if re.search(r":" + re.escape(f) + r" \[", star)), None)
            if fn:
                for l in block:
                    m = re.match(r"\s*([\d,]+) \([^)]*\)\s+<\s.*\(([\d,]+)x\) \[.*dispatch_icount\]$", l)
                    if m:
                        result[fn][0] += int(m[2].replace(",", ""))
                        result[fn][1] += int(m[1].replace(",", ""))
        block = []
    return result


def callgrind_section(directory):
    directory = Path(directory)
    runs_file = directory / "runs.tsv"
    if not runs_file.exists():
        return ["(no callgrind runs)"]
    fns = ["__kmpc_dispatch_init_8", "__kmpc_dispatch_next_8", "__kmpc_dispatch_deinit"]
    cells = {}
    shapes = {}
    for run in csv.DictReader(runs_file.open(), delimiter="\t"):
        counts = callgrind_counts(directory / run["file"], fns)
        if run["shape"] == "chunk":
            calls, ir = counts["__kmpc_dispatch_next_8"]
            value = f"{ir / calls:,.0f}" if calls else "–"
        else:
            loops = int(run["loops"])
            total = sum(c[1] for c in counts.values())
            setup = counts["__kmpc_dispatch_init_8"][1] + counts["__kmpc_dispatch_deinit"][1]
            value = f"{total / loops:,.0f} ({setup / loops:,.0f})"
        shapes[run["shape"]] = (run["n"], run["loops"], run["threads"])
        cells[(run["case"], run["libomp"], run["shape"])] = value
    libomps = list(dict.fromkeys(k[1] for k in cells))
    cases = list(dict.fromkeys(k[0] for k in cells))
    header = ["loop"] + [f"per chunk, {l}" for l in libomps] + [f"per loop, {l}" for l in libomps]
    body = [[c] + [cells.get((c, l, "chunk"), "–") for l in libomps] + [cells.get((c, l, "loop"), "–") for l in libomps]
            for c in cases]
    chunk, loop = shapes.get("chunk", ("?",) * 3), shapes.get("loop", ("?",) * 3)
    return [f"Instructions (Ir, inclusive) in the dispatch entry points the program calls. Per chunk: "
            f"`__kmpc_dispatch_next_8` per call, one loop of {chunk[0]} chunks of one iteration, "
            f"{chunk[2]} threads. Per loop: `__kmpc_dispatch_init_8` + `next_8` + `deinit` per loop instance "
            f"(in parentheses: init + deinit alone), {loop[1]} loops of {loop[0]} iterations in one region. "
            f"Callgrind runs one thread at a time, so these are uncontended counts. \"forwarded\": a standard loop with libselfsched "
            f"preloaded and a technique active, so its cost includes selfsched's forwarding.", "",
            table(header, body)]


def across_runs(dirs):
    """Median-of-repetitions ratios per run, and the median over the runs."""
    lines = []
    for label in LIBOMPS:
        per_run = []
        for d in dirs:
            path = Path(d) / f"bench.{label}.json"
            if path.exists():
                _, runs = load_runs(path)
                per_run.append({k: timing(v).median for k, v in runs.items()})
        if not per_run:
            continue
        keys = sorted({(k[1], k[2], k[3]) for r in per_run for k in r}, key=lambda k: (k[0], -k[1]))
        body = []
        for a, b in PAIRS:
            for t, n, loops in keys:
                vals = [r[(a, t, n, loops)] / r[(b, t, n, loops)] for r in per_run
                        if (a, t, n, loops) in r and (b, t, n, loops) in r]
                if vals:
                    body.append([f"{a} ÷ {b}", f"n={n} ×{loops}, {t} threads"] + [f"{v:.2f}" for v in vals] +
                                [f"**{statistics.median(vals):.2f}**"])
        header = ["ratio of time per loop", "loop"] + [f"run {i + 1}" for i in range(len(per_run))] + ["median"]
        lines += [f"#### {LIBOMPS[label]}", "", table(header, body), ""]
    return lines


def main(argv):
    if len(argv) >= 3 and argv[1] == "across":
        print("\n".join(across_runs(argv[2:])))
        return 0
    if len(argv) == 3 and argv[1] == "forwarding":
        print("\n".join(forwarding_table(argv[2])))
        return 0
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 1
    out = Path(argv[1])
    lines = ["### Per-chunk and per-loop cost (bench_dispatch)", ""]
    for label in LIBOMPS:
        if (out / f"bench.{label}.json").exists():
            lines += bench_section(label, out / f"bench.{label}.json")
    lines += ["### Forwarding: standard loops with and without libselfsched", ""]
    for label in LIBOMPS:
        if (out / "forwarding" / label).is_dir():
            lines += [f"#### {LIBOMPS[label]}", ""] + forwarding_table(out / "forwarding" / label) + [""]
    lines += ["### Callgrind instruction counts", ""] + callgrind_section(out / "callgrind") + [""]
    if (out / "load.txt").exists():
        lines += ["### Machine load during the run", "", "```", (out / "load.txt").read_text().rstrip(), "```", ""]
    text = "\n".join(lines)
    (out / "summary.md").write_text(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
