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


def time_v(output):
    """Wall seconds, CPU seconds (user + system) and peak memory (MiB) from /usr/bin/time -v.
    On a shared machine the CPU seconds are the simulation's own cost; the wall time adds the others' load."""
    wall = re.search(r"Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+):([\d.]+)", output)
    cpu = sum(float(t) for t in re.findall(r"(?:User|System) time \(seconds\): ([\d.]+)", output))
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", output)
    hours, minutes, secs = (float(g or 0) for g in wall.groups()) if wall else (0, 0, 0)
    return hours * 3600 + minutes * 60 + secs, cpu, int(rss.group(1)) / 1024 if rss else 0


def run_smpi(a, program, transport, workers, work_dir):
    hosts, node_size = layout(transport, workers, a.masters)
    platform = os.path.join(work_dir, "platform.xml")
    hostfile = os.path.join(work_dir, "hosts")
    write_platform(platform, workers, a.masters if transport == "hier" else 1, a.speeds, a.flops, a.latency,
                   a.bandwidth)
    with open(hostfile, "w") as f:
        f.write("\n".join(hosts) + "\n")
    env = dict(os.environ, SELFSCHED_MPI_NODE_SIZE=str(node_size), SELFSCHED_SMPI_WAIT=a.wait)
    command = ["/usr/bin/time", "-v", "smpirun", "-np", str(len(hosts)), "-platform", platform,
               "-hostfile", hostfile, f"--cfg=smpi/host-speed:{a.flops:.6g}f", "--log=root.thres:critical"]
    command += [f"--cfg={c}" for c in SMPI_CONFIG + CODE_TIME[a.code_time] + a.cfg]
    command += [program, "--technique", a.technique, "--transport", transport, "--cost", a.cost,
                "--n", str(a.n), "--mean", repr(a.mean), "--flops", repr(a.flops), "--inner", a.inner,
                "--serving", a.serving]
    started = time.time()
    done = subprocess.run(command, env=env, capture_output=True, text=True, cwd=work_dir)
    line = next((l for l in done.stdout.splitlines() if l.startswith("smpi-loop:")), None)
    if done.returncode != 0 or line is None:
        sys.stderr.write(done.stdout + done.stderr)
        raise SystemExit(f"run.py: the SMPI run failed ({transport}, {workers} workers): {' '.join(command)}")
    figures = dict(kv.split("=", 1) for kv in line.split()[1:])
    if float(figures["iterations"]) != a.n:  # the ranks' counts summed: each iteration once
        raise SystemExit(f"run.py: {transport}, {workers} workers ran {figures['iterations']} iterations of {a.n}")
    wall, cpu, rss = time_v(done.stderr)
    figures.update(wall=wall or time.time() - started, cpu=cpu, rss_mib=rss)
    return figures, platform


def run_model(a, sim, transport, platform, claim):
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        command = [sim, "--technique", a.technique, "--transport", transport, "--platform", platform,
                   "--masters", str(a.masters), "--cost", a.cost, "--n", str(a.n), "--mean", repr(a.mean),
                   "--flops", repr(a.flops), "--claim", repr(claim), "--json", out.name]
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
    p.add_argument("--wait", default="block", choices=["block", "poll"],
                   help="how ranks that serve nobody wait: block in MPI_Wait (default) or poll as serving ranks do")
    p.add_argument("--code-time", default="host", choices=sorted(CODE_TIME),
                   help="the bridge's CPU time between MPI calls: as measured on this host (default) or not charged")
    p.add_argument("--cfg", action="append", default=[], metavar="KEY:VALUE",
                   help="one more SimGrid setting for smpirun, after the ones above (repeatable)")
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
