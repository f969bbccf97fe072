#!/usr/bin/env python3
"""The real MPI bridge under SimGrid's SMPI beside selfsched-sim's model.

For each transport and worker count: writes one SimGrid platform (a star of
hosts worker-0.., master-0.., supermaster, each on its own link, as
selfsched-sim's own star), runs the bridge's engine on it with smpirun
(selfsched-smpi-loop, one thread per rank) and the model on the same file
(selfsched-sim --platform), and prints both side by side: makespan,
efficiency, the busiest master's busy share. The model's master work per
request (--claim) is, unless given, what the SMPI run measured: the real
code's per-request cost under SMPI.

    python3 sim/smpi/run.py --build build --transport master,hier --workers 64,512

With --pool, the task pools instead (selfsched-smpi-pool, the real
selfsched::mpi::task_pool) on seed 001's task tree, beside selfsched-sim's
pool model of the same tree on the same processors:

    python3 sim/smpi/run.py --build build --pool central,mediation,hier-mediation,receiver --workers 64

Exit status: 0; 1 with --check when code and model differ by more than
--tolerance; 2 on bad input; 77 when smpirun or the SMPI build is missing
(the test is then skipped).
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

SKIPPED = 77
# SMPI as selfsched-sim models a network: links are what they are given
# (no latency or bandwidth factors, no TCP acknowledgements), short
# messages travel eagerly (below 64 KiB, as MPI's eager protocol), an
# MPI_Test or MPI_Iprobe costs 100 ns of the caller's time (not 100 us
# growing with each miss, SMPI's default), and the real code's CPU time
# between MPI calls is charged at the rate of a speed-1 host (--flops).
SMPI_CONFIG = [
    "smpi/privatization:no",          # the bridge keeps no per-rank state in globals; one copy for 8,192 ranks
    "smpi/async-small-thresh:65536",
    "smpi/send-is-detached-thresh:65536",
    "smpi/test:1e-7", "smpi/iprobe:1e-7", "smpi/grow-injected-times:no",
    "smpi/lat-factor:0:1", "smpi/bw-factor:0:1", "network/crosstraffic:0",
    "smpi/cpu-threshold:1e-7",
    # SMPI's default MPI_Allgather sends every rank's block to every other
    # rank: P(P-1) messages in flight at once (the engine's weights, at
    # start), 67 million at 8,192 ranks. Bruck's algorithm: P log2 P.
    "smpi/allgather:bruck",
    # SMPI's default MPI_Reduce (the driver's figures, at the end) has the
    # root wait for any of the P-1 receives, P-1 times: O(P^2) simulation
    # work. A binomial tree: log2 P receives a rank.
    "smpi/reduce:binomial",
    "contexts/stack-size:256",         # KiB a rank: the bridge's stack is shallow
]
# How the bridge's own CPU time between MPI calls is charged (--code-time).
# host: as SMPI measures it on this machine, with the thread's CPU clock.
# That clock is read by a system call at every MPI call's entry and exit,
# and on a paravirtualized VM such a call and any interrupt landing between
# two MPI calls cost far more than the code between them: an empty
# MPI_Iprobe loop is charged 1.75-2 us a call here (native Open MPI: 0.08 us),
# and serving ranks see bursts of 35-50 us with no code of ours running
# (docs/simulation.md, "What the host's clock charges").
# none: not charged; an MPI call costs its injected time above and the
# network its messages, the bridge's own instructions nothing (perf: under
# 1% of the simulation's host time is in them).
CODE_TIME = {"host": [], "none": ["smpi/simulate-computation:no"]}


def seconds(text):
    """'2us', '1.5ms', '0.002' -> seconds."""
    units = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
    match = re.fullmatch(r"([0-9.eE+-]+)(ns|us|ms|s)?", text)
    if not match:
        raise argparse.ArgumentTypeError(f"{text} is not a time (2us, 1.5ms, 0.002)")
    return float(match.group(1)) * units[match.group(2) or "s"]


def layout(transport, workers, masters):
    """Ranks in order, each the host it runs on; and the node size (hier)."""
    if transport == "rma":
        return [f"worker-{k}" for k in range(workers)], 0
    if transport == "master":
        return ["master-0"] + [f"worker-{k}" for k in range(workers)], 0
    if workers % masters:
        raise SystemExit(f"run.py: hier needs workers ({workers}) divisible by masters ({masters})")
    per = workers // masters
    hosts = []
    for m in range(masters):  # a node: its master first (the engine's node leader), then its workers
        hosts += [f"master-{m}"] + [f"worker-{m * per + k}" for k in range(per)]
    return hosts, per + 1


def write_platform(path, workers, masters, speeds, flops, latency, bandwidth):
    """A star: every host on its own link (one for both directions) to the centre."""
    names = [(f"worker-{k}", speeds[k % len(speeds)]) for k in range(workers)]
    names += [(f"master-{m}", 1.0) for m in range(masters)] + [("supermaster", 1.0)]
    lines = ['<?xml version="1.0"?>', '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">',
             '<platform version="4.1">', '<zone id="star" routing="Cluster">']
    for name, speed in names:
        lines.append(f'  <host id="{name}" speed="{speed * flops:.6g}f"/>')
        lines.append(f'  <link id="{name}-link" bandwidth="{bandwidth:.6g}Bps" latency="{latency:.6g}s"/>')
        lines.append(f'  <host_link id="{name}" up="{name}-link" down="{name}-link"/>')
    lines += ["</zone>", "</platform>"]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def pool_layout(strategy, workers, masters):
    """Ranks in order, each the host it runs on; and the node size (hier-mediation)."""
    if strategy in ("central", "mediation"):  # rank 0: the master or mediator
        return ["master-0"] + [f"worker-{k}" for k in range(workers)], 0
    if strategy == "hier-mediation":
        return layout("hier", workers, masters)
    return [f"worker-{k}" for k in range(workers)], 0  # receiver, sender: every rank computes


def time_v(output):
    """Wall seconds, CPU seconds (user + system) and peak memory (MiB) from /usr/bin/time -v.
    On a shared machine the CPU seconds are the simulation's own cost; the wall time adds the others' load."""
    wall = re.search(r"Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+):([\d.]+)", output)
    cpu = sum(float(t) for t in re.findall(r"(?:User|System) time \(seconds\): ([\d.]+)", output))
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", output)
    hours, minutes, secs = (float(g or 0) for g in wall.groups()) if wall else (0, 0, 0)
    return hours * 3600 + minutes * 60 + secs, cpu, int(rss.group(1)) / 1024 if rss else 0


def smpirun(a, work_dir, hosts, node_size, masters, speeds, driver, tag, what):
    """Writes the platform and the hostfile, runs `driver` (the program and its options) on them with smpirun,
    and returns its figures (the key=value line it prints, its tag the line's first word) with the run's wall
    and CPU seconds and peak memory, and the platform's path. `tag` starts the line the driver prints."""
    platform = os.path.join(work_dir, "platform.xml")
    hostfile = os.path.join(work_dir, "hosts")
    workers = sum(h.startswith("worker-") for h in hosts)
    write_platform(platform, workers, masters, speeds, a.flops, a.latency, a.bandwidth)
    with open(hostfile, "w") as f:
        f.write("\n".join(hosts) + "\n")
    env = dict(os.environ, SELFSCHED_MPI_NODE_SIZE=str(node_size), SELFSCHED_SMPI_WAIT=a.wait)
    command = ["/usr/bin/time", "-v", "smpirun", "-np", str(len(hosts)), "-platform", platform,
               "-hostfile", hostfile, f"--cfg=smpi/host-speed:{a.flops:.6g}f", "--log=root.thres:critical"]
    command += [f"--cfg={c}" for c in SMPI_CONFIG + CODE_TIME[a.code_time] + a.cfg] + driver
    started = time.time()
    done = subprocess.run(command, env=env, capture_output=True, text=True, cwd=work_dir)
    line = next((l for l in done.stdout.splitlines() if l.startswith(tag)), None)
    if done.returncode != 0 or line is None:
        sys.stderr.write(done.stdout + done.stderr)
        raise SystemExit(f"run.py: the SMPI run failed ({what}, {workers} workers): {' '.join(command)}")
    figures = dict(kv.split("=", 1) for kv in line.split()[1:])
    wall, cpu, rss = time_v(done.stderr)
    figures.update(wall=wall or time.time() - started, cpu=cpu, rss_mib=rss)
    return figures, platform


def run_smpi(a, program, transport, workers, work_dir):
    hosts, node_size = layout(transport, workers, a.masters)
    # --result-bytes: a sink of results a master, the last ranks, each on its master's host
    sinks = [h for h in hosts if h.startswith("master-")] if a.result_bytes and transport != "rma" else []
    hosts = hosts + sinks
    driver = [program, "--technique", a.technique, "--transport", transport, "--cost", a.cost, "--n", str(a.n),
              "--mean", repr(a.mean), "--flops", repr(a.flops), "--inner", a.inner, "--serving", a.serving,
              "--request-cost", repr(a.request_cost), "--result-bytes", str(a.result_bytes),
              "--serve-wait", a.serve_wait, "--sinks", str(len(sinks))]
    if a.atomic is not None:
        driver += ["--nic-atomics", repr(a.atomic)]
    figures, platform = smpirun(a, work_dir, hosts, node_size, a.masters if transport == "hier" else 1, a.speeds,
                                driver, "smpi-loop:", transport)
    if float(figures["iterations"]) != a.n:  # the ranks' counts summed: each iteration once
        raise SystemExit(f"run.py: {transport}, {workers} workers ran {figures['iterations']} iterations of {a.n}")
    if figures["results_sent"] != figures["results_taken"]:
        raise SystemExit(f"run.py: {transport}, {workers} workers: {figures['results_taken']} result messages "
                         f"taken in of {figures['results_sent']} sent")
    return figures, platform


def run_smpi_pool(a, program, strategy, workers, roots, work_dir):
    hosts, node_size = pool_layout(strategy, workers, a.masters)
    threshold = strategy == "receiver-threshold"
    driver = [program, "--strategy", "receiver" if threshold else strategy,
              "--transfer", "threshold" if threshold else "priority", "--roots", str(roots),
              "--levels", str(a.levels), "--subregion", repr(a.subregion), "--minimization", repr(a.minimization),
              "--minimizations", repr(a.minimizations), "--async", str(a.async_levels), "--flops", repr(a.flops),
              "--seed", str(a.tree_seed)]
    figures, _ = smpirun(a, work_dir, hosts, node_size, a.masters if strategy == "hier-mediation" else 1, [1.0],
                         driver, "smpi-pool:", strategy)
    return figures


def run_pool_model(a, sim, strategy, workers, roots):
    """selfsched-sim's pool model on the same tree; None for a strategy it does not model (sender)."""
    if strategy == "sender":
        return None
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        command = [sim, "--pool", strategy, "--workers", str(workers), "--nodes", str(a.masters),
                   "--roots", str(roots), "--levels", str(a.levels), "--subregion", f"{a.subregion!r}s",
                   "--minimization", f"{a.minimization!r}s", "--minimizations", repr(a.minimizations),
                   "--message", f"{a.message!r}s", "--latency", f"{a.latency!r}s", "--async", str(a.async_levels),
                   "--policies", "library", "--tree-seed", str(a.tree_seed), "--json", out.name]
        subprocess.run(command, check=True, capture_output=True, text=True)
        with open(out.name) as f:
            return json.load(f)[0]


def pool_row(a, program, sim, strategy, workers, tree_roots, label):
    """One tree: code and model, printed as a row; returns both (the model's None if it has none)."""
    with tempfile.TemporaryDirectory(prefix="selfsched-smpi-") as work_dir:
        code = run_smpi_pool(a, program, strategy, workers, tree_roots, work_dir)
    model = run_pool_model(a, sim, strategy, workers, tree_roots)
    if int(code["not_once"]) != 0 or code["tasks"] != code["tree_tasks"]:
        raise SystemExit(f"run.py: {strategy}, {workers} workers: {code['tasks']} runs of "
                         f"{code['tree_tasks']} tasks, {code['not_once']} not run exactly once")
    ratio = model["makespan_s"] / float(code["makespan"]) if model else None
    m = (f"{model['makespan_s']:.4f} | {model['efficiency']:.3f} | {model['utilization_min']:.2f}-"
         f"{model['utilization_max']:.2f} | {model['master_utilization']:.3f} | {ratio:.3f}") if model else \
        "not modelled | | | | "
    print(f"| {label} | {workers} | {code['ranks']} | {int(code['tasks']):,} | {float(code['makespan']):.4f} | "
          f"{float(code['efficiency']):.3f} | {float(code['utilization_min']):.2f}-"
          f"{float(code['utilization_max']):.2f} | {float(code['server_busy']):.3f} | {m} | "
          f"{code['wall']:.1f} | {code['cpu']:.1f} | {code['rss_mib']:.0f} |", flush=True)
    return code, model


def pools(a, build_dir):
    """--pool: each strategy and worker count, code and model side by side; with several --seed, each tree's
    row, then the means over the trees (their ratio is what --check judges)."""
    program = os.path.abspath(os.path.join(build_dir, "bin", "selfsched-smpi-pool"))
    sim = os.path.join(a.build, "bin", "selfsched-sim")
    if not shutil.which("smpirun") or not os.path.exists(program):
        print(f"run.py: skipped: no smpirun or no {program} (SimGrid's SMPI: apt-get install libsimgrid-dev)")
        return SKIPPED
    rows, worst, means = [], 0.0, []
    print("| strategy | workers | ranks | tasks | code: makespan (s) | efficiency | utilization | server busy "
          "| model: makespan (s) | efficiency | utilization | server busy | model/code | wall (s) | CPU (s) "
          "| memory (MiB) |")
    print("| --- " * 16 + "|")
    worker_counts = [int(w) for w in a.workers.split(",")]
    roots = [int(r) for r in a.roots.split(",")]
    if len(roots) == 1:
        roots *= len(worker_counts)
    if len(roots) != len(worker_counts) or min(roots) < 1:
        raise SystemExit(f"run.py: --roots {a.roots}: one number >= 1, or one per --workers entry ({a.workers})")
    seeds = [int(s) for s in a.seed.split(",")]
    for strategy in a.pool.split(","):
        for workers, tree_roots in zip(worker_counts, roots):
            code_sum = model_sum = 0.0
            for seed in seeds:
                a.tree_seed = seed
                label = strategy if len(seeds) == 1 else f"{strategy}, tree {seed}"
                code, model = pool_row(a, program, sim, strategy, workers, tree_roots, label)
                code_sum += float(code["makespan"])
                model_sum += model["makespan_s"] if model else 0.0
                rows.append({"strategy": strategy, "workers": workers, "roots": tree_roots, "seed": seed,
                             "code": code, "model": model})
            if model:
                worst = max(worst, abs(model_sum / code_sum - 1))
                means.append(f"| {strategy} | {workers} | {code_sum / len(seeds):.4f} | {model_sum / len(seeds):.4f} "
                             f"| {model_sum / code_sum:.3f} |")
    if len(seeds) > 1:
        print(f"\nMeans over the trees of seeds {a.seed}:\n\n| strategy | workers | code: makespan (s) "
              "| model: makespan (s) | model/code |\n| --- | --- | --- | --- | --- |\n" + "\n".join(means))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)
    if a.check and worst > a.tolerance:
        print(f"run.py: code and model differ by {worst:.1%}, more than {a.tolerance:.0%}")
        return 1
    return 0


def run_model(a, sim, transport, platform, claim):
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        command = [sim, "--technique", a.technique, "--transport", transport, "--platform", platform,
                   "--masters", str(a.masters), "--cost", a.cost, "--n", str(a.n), "--mean", repr(a.mean),
                   "--flops", repr(a.flops), "--claim", repr(claim), "--result-bytes", str(a.result_bytes),
                   "--json", out.name] + (["--atomic", repr(a.atomic)] if a.atomic is not None else [])
        subprocess.run(command, check=True, capture_output=True, text=True)
        with open(out.name) as f:
            runs = json.load(f)
    run = runs[0]
    return {"makespan": run["makespan_s"], "efficiency": run["efficiency"], "master_busy": run["busiest_master"],
            "chunks": run["chunks"], "messages": run["messages"]}


def per_request(figures):
    """The code's master work per request: every serving rank's busy time over the requests they served.
    (Not the busiest one's alone: under hier that is one master's time over every node's requests.)"""
    served = float(figures["served"])
    return float(figures["serving_sum"]) / served if served else 1e-6


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default="build", help="the main build (selfsched-sim), default build")
    p.add_argument("--smpi-build", help="the SMPI build, default BUILD/sim-smpi")
    p.add_argument("--transport", default="master", help="master, rma, hier (comma list)")
    p.add_argument("--workers", default="64", help="computing ranks (comma list)")
    p.add_argument("--masters", type=int, default=16, help="hier: node masters")
    p.add_argument("--technique", default="fss")
    p.add_argument("--inner", default="static", help="a rank's split of its outer chunks (one thread)")
    p.add_argument("--serving", default="dedicated", choices=["dedicated", "computing"])
    p.add_argument("--cost", default="uniform")
    p.add_argument("--n", type=int, default=100000)
    p.add_argument("--mean", type=seconds, default=1e-4)
    p.add_argument("--flops", type=float, default=1e9)
    p.add_argument("--speeds", default="1", help="relative speeds S:S:..., repeated over the workers")
    p.add_argument("--latency", type=seconds, default=2e-6)
    p.add_argument("--bandwidth", type=float, default=1.25e9)
    p.add_argument("--claim", type=seconds, help="the model's master work per request (default: the code's)")
    p.add_argument("--request-cost", type=seconds, default=0.0,
                   help="a serving rank's work per request or refill it receives, charged to its host besides "
                        "--code-time (seed 004's setting: 5us)")
    p.add_argument("--atomic", type=seconds,
                   help="rma: a 64-bit fetch-and-op served by the target's NIC in this time, one at a time, in "
                        "the code (instead of SMPI's get and accumulate under a lock) and the model (its --atomic)")
    p.add_argument("--result-bytes", type=int, default=0,
                   help="bytes of results an iteration, sent by each rank to its master after each outer chunk, "
                        "as seed 004's program does (the model: the same)")
    p.add_argument("--wait", default="block", choices=["block", "poll"],
                   help="how ranks that serve nobody wait: block in MPI_Wait (default) or poll as serving ranks do")
    p.add_argument("--serve-wait", default="poll", choices=["poll", "progress"],
                   help="how serving ranks wait between polls: a simulated microsecond a poll (default), or as the "
                        "bridge's progress thread (yields while requests flow, naps once quiet: long loops)")
    p.add_argument("--code-time", default="host", choices=sorted(CODE_TIME),
                   help="the bridge's CPU time between MPI calls: as measured on this host (default) or not charged")
    p.add_argument("--cfg", action="append", default=[], metavar="KEY:VALUE",
                   help="one more SimGrid setting for smpirun, after the ones above (repeatable)")
    pool = p.add_argument_group("task pools (--pool): seed 001's tree, as selfsched-sim --pool builds it")
    pool.add_argument("--pool", help="strategies instead of a loop: central, mediation, hier-mediation, receiver, "
                      "receiver-threshold, sender (comma list; the model has no sender)")
    pool.add_argument("--roots", default="16",
                      help="level-0 subregions: one number, or one per --workers entry (comma list)")
    pool.add_argument("--levels", type=int, default=7)
    pool.add_argument("--subregion", type=seconds, default=50e-6, help="a subregion's sampling (default 50us)")
    pool.add_argument("--minimization", type=seconds, default=1e-3,
                      help="a local minimization's mean (default 1ms; exponential)")
    pool.add_argument("--minimizations", type=float, default=1.0, help="per subregion, on average")
    pool.add_argument("--async", dest="async_levels", type=int, default=1, help="the asynchronicity level")
    pool.add_argument("--seed", default="1", help="the tree's random numbers: one seed, or several (comma list: "
                      "a row each, then the means over the trees, which --check judges)")
    pool.add_argument("--message", type=seconds, default=1e-7,
                      help="the model's processor time per message sent or taken in (default 0.1us: the one MPI "
                      "call with an injected time the code makes for it, an MPI_Iprobe that finds it or an MPI_Test "
                      "that completes its send, 100 ns each)")
    p.add_argument("--json", help="write every row here")
    p.add_argument("--check", action="store_true", help="exit 1 if code and model differ by more than --tolerance")
    p.add_argument("--tolerance", type=float, default=0.10)
    p.add_argument("--attempts", type=int, default=1,
                   help="with --check: runs of a size whose code and model differ by more than --tolerance (the "
                        "code's CPU time between MPI calls is measured on this host: other jobs make it noisy)")
    a = p.parse_args()
    if a.attempts < 1:
        p.error(f"--attempts {a.attempts} must be at least 1")
    a.speeds = [float(s) for s in a.speeds.split(":")]
    return a


def main():
    a = parse_args()
    if a.pool:
        return pools(a, a.smpi_build or os.path.join(a.build, "sim-smpi"))
    # absolute: smpirun runs in a directory of its own
    program = os.path.abspath(os.path.join(a.smpi_build or os.path.join(a.build, "sim-smpi"), "bin",
                                           "selfsched-smpi-loop"))
    sim = os.path.join(a.build, "bin", "selfsched-sim")
    if not shutil.which("smpirun") or not os.path.exists(program):
        print(f"run.py: skipped: no smpirun or no {program} (SimGrid's SMPI: apt-get install libsimgrid-dev)")
        return SKIPPED
    rows, worst = [], 0.0
    print("| transport | workers | ranks | code: makespan (s) | efficiency | master busy | model: makespan (s) "
          "| efficiency | master busy | model/code | claim (us) | polls | blocked waits | wall (s) | CPU (s) | memory (MiB) |")
    print("| --- " * 16 + "|")
    for transport in a.transport.split(","):
        for workers in (int(w) for w in a.workers.split(",")):
            for attempt in range(1, a.attempts + 1):
                with tempfile.TemporaryDirectory(prefix="selfsched-smpi-") as work_dir:
                    code, platform = run_smpi(a, program, transport, workers, work_dir)
                    claim = a.claim if a.claim is not None else per_request(code)
                    model = run_model(a, sim, transport, platform, claim)
                ratio = model["makespan"] / float(code["makespan"])
                print(f"| {transport} | {workers} | {code['ranks']} | {float(code['makespan']):.4f} | "
                      f"{float(code['efficiency']):.3f} | {float(code['master_busy']):.3f} | {model['makespan']:.4f} | "
                      f"{model['efficiency']:.3f} | {model['master_busy']:.3f} | {ratio:.3f} | {claim * 1e6:.2f} | "
                      f"{int(code['polls']):,} | {int(code['blocked']):,} | {code['wall']:.1f} | {code['cpu']:.1f} | "
                      f"{code['rss_mib']:.0f} |",
                      flush=True)
                if not a.check or abs(ratio - 1) <= a.tolerance:
                    break
            worst = max(worst, abs(ratio - 1))
            rows.append({"transport": transport, "workers": workers, "code": code, "model": model, "claim": claim,
                         "attempts": attempt})
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)
    if a.check and worst > a.tolerance:
        print(f"run.py: code and model differ by {worst:.1%}, more than {a.tolerance:.0%}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
