#!/usr/bin/env python3
"""LLVM's own OpenMP runtime tests (openmp/runtime/test, lit and FileCheck),
run against the stock runtime with libselfsched preloaded.

Other projects' tests are the check a preloaded library most needs: the
programs were written without selfsched in mind. The suite runs with lit, as
LLVM runs it, twice over the same tests: once without libselfsched (the
baseline: what this machine's compiler and runtime pass on their own), then
with it preloaded, with no technique chosen (selfsched must change nothing)
and with techniques serving every schedule(runtime) and schedule(auto) loop.
A test the baseline passes and a selfsched run fails is reported; so is one
that passes only with selfsched. Exit status 1 when a test fails with
libselfsched but not without it, unless the test checks what a loaded tool
or a chosen technique changes on purpose (known_difference, below).

  tests/peer/llvm_openmp.py --source DIR/openmp --lib build/lib/libselfsched.so
      [--compiler clang|gcc] [--techniques fss,auto] [--suites worksharing,parallel,...]
      [--work DIR] [-j N] [--cluster RANKS [--mpirun PATH]]

--cluster RANKS runs the suites the cluster-mode issue names instead (the
worksharing folder and every reduction test outside ompt/: their names
say "reduction" or "_red_") twice: in one process with OMP_NUM_THREADS=RANKS
and no libselfsched (the baseline), then each test program under
`selfsched-mpirun --cluster -np RANKS` with OMP_NUM_THREADS=1 (a test's own
OMP_NUM_THREADS is per rank there): lit's %libomp-run becomes that command.
Cluster mode refuses programs on libgomp: with --compiler gcc every test
is refused. Failures are classified as peer_cluster.py says; exit status 1
when one is a wrong answer, a crash or a hang not known (CLUSTER_KNOWN).

The LLVM source comes from the distribution's source package (`make
peer-tests` fetches it as `make libomp-release` does); lit, FileCheck and
not from Debian's llvm-19-tools. Python 3 standard library only.
"""
import argparse
import json
import os
import re
import subprocess
import sys

import peer_cluster

LIT = "/usr/lib/llvm-19/build/utils/lit/lit.py"
# lit's per-test timeout needs psutil: Debian's python3-psutil, for Debian's python.
LIT_PYTHON = "/usr/bin/python3"
TOOLS = "/usr/lib/llvm-19/bin"

# Why a test may fail with a technique chosen and still be right: it reads
# the schedule (OMP_SCHEDULE set in its RUN lines, checked with
# omp_get_schedule), and SELFSCHED_SCHEDULE chose another one, which
# omp_get_schedule reports (docs/openmp.md, "From code").
# Or it checks how its OMP_SCHEDULE distributes iterations (named here).
DISTRIBUTION_CHECKS = {
    "worksharing/for/omp_nonmonotonic_dynamic1.c":
        "it checks that each chunk of 10 ran on one thread, as its OMP_SCHEDULE=nonmonotonic:dynamic,10 does; "
        "the technique chosen hands out other chunks",
}


# With the library loaded at all: tests of libomp's own tool-registration
# log (OMP_TOOL_VERBOSE_INIT). libomp finds selfsched's tool first and logs
# that search; selfsched then starts theirs (its callbacks all pass).
TOOL_LOG = "it checks libomp's tool-registration log, which tells how libomp found selfsched's tool (that then starts the test's)"
REGISTRATION_LOG_CHECKS = {
    "ompt/loadtool/tool_available/tool_available.c": TOOL_LOG,
    "ompt/loadtool/tool_available_search/tool_available_search.c": TOOL_LOG,
    "ompt/loadtool/tool_not_available/tool_not_available.c": TOOL_LOG,
}


def known_difference(source_root, test, technique_chosen):
    if test in REGISTRATION_LOG_CHECKS:
        return REGISTRATION_LOG_CHECKS[test]
    if not technique_chosen:
        return None
    if test in DISTRIBUTION_CHECKS:
        return DISTRIBUTION_CHECKS[test]
    with open(os.path.join(source_root, "runtime", "test", test), errors="replace") as f:
        text = f.read()
    if "omp_get_schedule" in text:
        return "it checks omp_get_schedule() against the schedule it expects; the technique chosen is reported instead"
    return None


# Each compiler with its own runtime and omp.h: clang with libomp, gcc with
# libgomp (no OMPT there: the OMPT tests are unsupported).
COMPILERS = {
    "clang": {"c": "clang-19", "cxx": "clang++-19", "features": ["clang", "clang-19"], "ompt": True},
    "gcc": {"c": "gcc", "cxx": "g++", "features": ["gcc", "gcc-12"], "ompt": False},
}


def compiler_paths(compiler):
    """The runtime's library directory and the directory of its omp.h."""
    if compiler == "clang":
        return "/usr/lib/llvm-19/lib", "/usr/lib/llvm-19/lib/clang/19/include"
    ask = lambda name: subprocess.run([COMPILERS[compiler]["c"], f"-print-file-name={name}"],
                                      capture_output=True, text=True).stdout.strip()
    return os.path.dirname(ask("libgomp.so")), ask("include")


def site_config(args, exec_root, compiler, run_prefix=""):
    """lit's site configuration; run_prefix goes before every %libomp-run (the test's binary)."""
    c = COMPILERS[compiler]
    runtime_dir, header_dir = compiler_paths(compiler)
    return f'''# Generated by tests/peer/llvm_openmp.py
config.test_c_compiler = "{c['c']}"
config.test_cxx_compiler = "{c['cxx']}"
config.test_compiler_features = {c['features']!r}
config.test_compiler_has_omp_h = True
config.test_filecheck = "{TOOLS}/FileCheck"
config.test_not = "{TOOLS}/not"
config.test_openmp_flags = "-fopenmp"
config.test_extra_flags = ""
config.libomp_obj_root = "{exec_root}"
config.library_dir = "{runtime_dir}"
config.omp_header_directory = "{header_dir}"
config.operating_system = "Linux"
config.hwloc_library_dir = ""
config.using_hwloc = False
config.has_ompt = {c['ompt']}
config.has_ompx_taskgraph = False
config.has_libm = True
config.has_libatomic = False
config.is_standalone_build = True
config.has_omit_frame_pointer_flag = True
config.target_arch = "x86_64"
lit_config.load_config(config, "{args.source}/runtime/test/lit.cfg")
''' + (f'''# The test's program runs under this command (--cluster).
config.substitutions = [(k, {run_prefix!r} + " " + v if k == "%libomp-run" else v)
                        for k, v in config.substitutions]
''' if run_prefix else "")


def run_lit(args, name, environment, compiler, run_prefix="", outputs=None):
    """Runs the suites under lit with `environment` added to every test's; returns {test: outcome}
    (and each test's output into `outputs`, when given)."""
    exec_root = os.path.join(args.work, compiler, name)
    os.makedirs(exec_root, exist_ok=True)
    with open(os.path.join(exec_root, "lit.site.cfg"), "w") as f:
        f.write(site_config(args, exec_root, compiler, run_prefix))
    result_file = os.path.join(exec_root, "results.json")
    env = dict(os.environ)
    # lit.cfg copies CHECK_OPENMP_ENV (NAME=value ...) into each test's environment.
    env["CHECK_OPENMP_ENV"] = " ".join(f"{k}={v}" for k, v in environment.items())
    for k in list(env):
        if k.startswith(("OMP_", "KMP_", "SELFSCHED_")) or k == "LD_PRELOAD":
            del env[k]
    paths = [os.path.join(exec_root, suite) for suite in args.suites]
    command = [LIT_PYTHON, LIT, "-q", f"-j{args.jobs}", f"--timeout={args.timeout}",
               f"--output={result_file}"] + paths
    lit = subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if not os.path.exists(result_file):
        raise RuntimeError(f"lit wrote no results ({lit.stderr.strip()[-500:]})")
    with open(result_file) as f:
        results = json.load(f)
    outcomes = {}
    for test in results["tests"]:
        # "libomp :: worksharing/for/omp_doacross.c"
        outcomes[test["name"].split(" :: ", 1)[1]] = test["code"]
        if outputs is not None:
            outputs[test["name"].split(" :: ", 1)[1]] = test.get("output", "")
    return outcomes


PASSING = {"PASS", "XFAIL", "UNSUPPORTED"}


# Cluster mode: the worksharing folder and the reduction tests elsewhere
# (ompt/ left out: its tests check a tool's callbacks, not the team).
def cluster_suites(source):
    test_root = os.path.join(source, "runtime", "test")
    found = []
    for folder, dirs, files in os.walk(test_root):
        relative = os.path.relpath(folder, test_root)
        dirs[:] = sorted(d for d in dirs if relative != "." or d not in ("ompt", "worksharing"))
        found += [os.path.join(relative, f) for f in sorted(files)
                  if f.endswith((".c", ".cpp")) and ("reduction" in f or "_red_" in f)]
    return ["worksharing"] + found


# Tests that check what cluster mode changes on purpose (docs/cluster.md),
# or meet one of its documented limits ("limit: "): the reason, by test.
# Besides these, every test that reads omp_get_schedule() (known_difference).
# omp_for_nowait.c, omp_sections_nowait.c and omp_single_nowait.c spin on a
# flag another rank sets: its writes reach them early (early_writes.cpp; the
# singles are claimed by the first thread anywhere, single_claims.hpp), and
# they are refused (their counters conflict after the region printed).
CHUNKS = ("it checks the chunk sizes each thread got; cluster mode serves dynamic, guided and runtime loops "
          "itself (SELFSCHED_OVERRIDE=dynamic,guided), outer chunks across ranks split by the rank's technique")
CLUSTER_KNOWN = {
    "worksharing/for/omp_for_schedule_dynamic.c": CHUNKS,
    "worksharing/for/omp_for_schedule_guided.c": CHUNKS,
    "worksharing/for/kmp_sch_simd_runtime_api.c": CHUNKS + " (its message printed in the region then stops the job)",
    "worksharing/for/kmp_sch_simd_runtime_guided.c": CHUNKS + " (its message printed in the region then stops the job)",
    "worksharing/for/kmp_sch_simd_runtime_static.c": CHUNKS + " (its message printed in the region then stops the job)",
    "worksharing/for/omp_nonmonotonic_dynamic1.c": DISTRIBUTION_CHECKS["worksharing/for/omp_nonmonotonic_dynamic1.c"],
    "worksharing/for/kmp_sch_simd_guided.c": (
        "it calls the runtime's entry points itself with omp_get_thread_num() as the runtime's thread id (gtid); "
        "thread numbers are cluster-wide, so rank 1's first thread passes 1, a thread its runtime does not have, "
        "and libomp crashes on it"),
}


def cluster_known(source, test):
    return CLUSTER_KNOWN.get(test) or known_difference(source, test, technique_chosen=True)


def cluster_main(args):
    """--cluster RANKS: one process against selfsched-mpirun --cluster, test by test."""
    mpirun = peer_cluster.find_mpirun(args.lib, args.mpirun)
    if not os.access(mpirun, os.X_OK):
        print(f"llvm_openmp: no selfsched-mpirun at {mpirun} (--mpirun PATH)", file=sys.stderr)
        return 2
    ranks, threads = args.cluster, args.cluster_threads
    shape = f"{ranks}x{threads}"
    baseline = run_lit(args, f"cluster{shape}-baseline", {"OMP_NUM_THREADS": str(ranks * threads)}, args.compiler)
    outputs = {}
    # auto's cache off: each run learns afresh (a region found unshareable
    # once would otherwise start replicated in every later run).
    cluster = run_lit(args, f"cluster{shape}", {"OMP_NUM_THREADS": str(threads), "SELFSCHED_AUTO_CACHE": "off"},
                      args.compiler,
                      run_prefix=f"{mpirun} --cluster -np {ranks}", outputs=outputs)
    tests = sorted(set(baseline) | set(cluster))
    passed_one = sum(1 for t in tests if baseline.get(t) in PASSING)
    passed_both = sum(1 for t in tests if baseline.get(t) in PASSING and cluster.get(t) in PASSING)
    print(f"{args.compiler} cluster {shape}: {len(tests)} tests, {passed_one} pass in one process "
          f"({ranks * threads} threads), {passed_both} of those under selfsched-mpirun --cluster -np {ranks}")
    failures = [(t, cluster.get(t, "MISSING"), outputs.get(t, ""), cluster_known(args.source, t))
                for t in tests if baseline.get(t) in PASSING and cluster.get(t) not in PASSING]
    for t in tests:
        if baseline.get(t) not in PASSING and cluster.get(t) in PASSING:
            print(f"  {t}: {baseline.get(t)} in one process, {cluster.get(t)} in cluster mode")
    wrong = peer_cluster.report(f"{args.compiler} cluster", failures, os.path.join(args.work, args.compiler))
    print(f"{args.compiler} cluster: {wrong} tests give a wrong answer, crash or hang only in cluster mode")
    return 1 if wrong else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", required=True, help="LLVM's openmp/ directory (its runtime/test is run)")
    parser.add_argument("--lib", required=True, help="libselfsched.so to preload")
    parser.add_argument("--compiler", choices=sorted(COMPILERS), default="clang")
    parser.add_argument("--techniques", default="fss,auto", help="comma-separated (default: fss,auto)")
    parser.add_argument("--suites", default=None,
                        help="folders (or files) of runtime/test (default: worksharing,parallel,api,env,barrier,"
                             "critical,master,tasking,ompt; with --cluster: worksharing and the reduction tests)")
    parser.add_argument("--work", default="build/peer-tests", help="where binaries and results go")
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=int, default=None, help="seconds per test (default: 120; --cluster: 60)")
    peer_cluster.add_cluster_arguments(parser, "each test")
    args = parser.parse_args()
    peer_cluster.check_cluster_arguments(parser, args)
    args.source = os.path.realpath(args.source)
    args.lib = os.path.realpath(args.lib)
    if args.timeout is None:
        args.timeout = 60 if args.cluster else 120
    args.work = os.path.realpath(args.work)
    if args.suites is None:
        args.suites = ",".join(cluster_suites(args.source)) if args.cluster else \
            "worksharing,parallel,api,env,barrier,critical,master,tasking,ompt"
    args.suites = [s for s in args.suites.split(",") if s]
    for path, what in ((LIT_PYTHON, "Debian's python3"), (LIT, "lit (llvm-19-tools)"), (os.path.join(TOOLS, "FileCheck"), "FileCheck (llvm-19-tools)"),
                       (os.path.join(args.source, "runtime", "test", "lit.cfg"), "LLVM's openmp/runtime/test"),
                       (args.lib, "libselfsched")):
        if not os.path.exists(path):
            print(f"llvm_openmp: no {what} at {path}", file=sys.stderr)
            return 2
    for suite in args.suites:
        if not os.path.exists(os.path.join(args.source, "runtime", "test", suite)):
            test_root = os.path.join(args.source, "runtime", "test")
            valid = sorted(d for d in os.listdir(test_root) if os.path.isdir(os.path.join(test_root, d)))
            print(f"llvm_openmp: no suite '{suite}' in {test_root}; valid: {', '.join(valid)}", file=sys.stderr)
            return 2
    if args.cluster:
        return cluster_main(args)

    runs = [("baseline", {})]
    runs.append(("preloaded", {"LD_PRELOAD": args.lib}))
    for technique in [t for t in args.techniques.split(",") if t]:
        runs.append((technique, {"LD_PRELOAD": args.lib, "SELFSCHED_SCHEDULE": technique}))
    outcomes = {}
    for name, environment in runs:
        outcomes[name] = run_lit(args, re.sub(r"[^\w.-]", "_", name), environment, args.compiler)
        counts = {}
        for code in outcomes[name].values():
            counts[code] = counts.get(code, 0) + 1
        print(f"{args.compiler} {name}: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))

    baseline = outcomes["baseline"]
    regressions = 0
    for name, _ in runs[1:]:
        for test, code in sorted(outcomes[name].items()):
            before = baseline.get(test)
            if before in PASSING and code not in PASSING:
                known = known_difference(args.source, test, technique_chosen=name != "preloaded")
                print(f"  {name}: {test}: {before} without libselfsched, {code} with it"
                      + (f" (known: {known})" if known else ""))
                regressions += known is None
            elif before not in PASSING and code in PASSING:
                print(f"  {name}: {test}: {before} without libselfsched, {code} with it")
    print(f"{args.compiler}: {regressions} tests fail only with libselfsched")
    return 1 if regressions else 0


if __name__ == "__main__":
    sys.exit(main())
