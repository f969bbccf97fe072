#!/usr/bin/env python3
"""GCC's own libgomp tests (libgomp/testsuite), built with this machine's
gcc, g++ and gfortran, run against libgomp with libselfsched preloaded.
`--fortran flang-new-19` builds the Fortran suite with LLVM's flang instead,
on libomp: the same Fortran programs through selfsched's libomp binding.

The counterpart of llvm_openmp.py for GCC programs: the same tests run
without libselfsched (the baseline: what the compiler and runtime pass on
their own), with it preloaded and nothing chosen (selfsched must change
nothing), and with techniques serving every schedule(runtime) loop. A test
the baseline passes and a selfsched run fails is reported, and makes the exit
status 1 unless the difference is understood (known_difference).

GCC runs these under DejaGnu; this runner reads the few directives the
run tests use: dg-do (run tests only), dg-options and dg-additional-options,
dg-additional-sources, dg-set-target-env-var, dg-shouldfail, dg-output, and
skips dg-require-effective-target offload_* (no accelerator here). A test it
reads wrongly fails in the baseline too and is left out of the comparison.

  tests/peer/libgomp.py --testsuite DIR/libgomp/testsuite --lib build/lib/libselfsched.so
      [--suites libgomp.c,libgomp.c-c++-common,libgomp.c++,libgomp.fortran]
      [--techniques fss,auto] [--work DIR] [-j N] [--fortran gfortran|flang-new-19]
      [--cluster RANKS [--mpirun PATH]]

--cluster RANKS runs the loop tests instead (loop-N and for-N of
libgomp.c, libgomp.c-c++-common built as C, and libgomp.c++; --filter and
--suites narrow or widen that) twice: in one process with
OMP_NUM_THREADS=RANKS and no libselfsched (the baseline), then under
`selfsched-mpirun --cluster -np RANKS` with OMP_NUM_THREADS=1 (a test's own
dg-set-target-env-var OMP_NUM_THREADS is per rank there). Cluster mode
refuses programs on libgomp, so these tests are built with clang-19 on
libomp (C++ with clang++-19, Fortran with flang-new-19), as libomp's own
tests are; GCC-only dump options (-fdump-*) are dropped. Failures are
classified as peer_cluster.py says; exit status 1 when one is a wrong
answer, a crash or a hang.

The testsuite comes from Debian's gcc-12 source package
(tools/fetch-gcc-testsuite.sh; `make peer-tests` fetches it). Python 3
standard library only.
"""
import argparse
import concurrent.futures
import os
import re
import shlex
import shutil
import subprocess
import sys

import peer_cluster

SUITES = {
    "libgomp.c": "gcc",
    "libgomp.c-c++-common": "gcc",
    "libgomp.c++": "g++",
    "libgomp.fortran": "gfortran",
}
SOURCE_SUFFIXES = (".c", ".C", ".cc", ".cpp", ".f", ".f90", ".F", ".F90")
# libgomp's testsuite adds -fopenmp to every test (libgomp.exp); -O2 is
# its default optimisation for the C and C++ suites.
ALWAYS = ["-fopenmp"]
DEFAULT_OPTIONS = ["-O2"]

DIRECTIVE = re.compile(r"\{\s*(dg-[\w-]+)\s*(.*?)\s*\}\s*(?:\*/|$|\n)", re.M)


def tcl_words(text):
    """The words of a directive's arguments: "..." and {...} group, the rest splits on blanks."""
    words, i = [], 0
    while i < len(text):
        ch = text[i]
        if ch.isspace():
            i += 1
        elif ch in "\"{":
            close, depth, j = ("\"" if ch == "\"" else "}"), 0, i + 1
            while j < len(text):
                if ch == "{" and text[j] == "{":
                    depth += 1
                elif text[j] == close and (ch == "\"" or depth == 0) and text[j - 1] != "\\":
                    break
                elif ch == "{" and text[j] == "}":
                    depth -= 1
                j += 1
            words.append(text[i + 1:j])
            i = j + 1
        else:
            j = i
            while j < len(text) and not text[j].isspace():
                j += 1
            words.append(text[i:j])
            i = j
    return words


def read_test(path):
    """What the directives of one test ask for, or None when it is not a run test here."""
    with open(path, errors="replace") as f:
        text = f.read()
    test = {"options": None, "extra": [], "sources": [], "env": {}, "shouldfail": False, "output": [],
            "skip": None}
    doing = "run"
    for name, rest in DIRECTIVE.findall(text):
        words = tcl_words(rest)
        if name == "dg-do" and words:
            doing = words[0]
        elif name == "dg-options" and words:
            test["options"] = shlex.split(words[0])
        elif name == "dg-additional-options" and words:
            test["extra"] += shlex.split(words[0])
        elif name == "dg-additional-sources" and words:
            test["sources"] += words[0].split()
        elif name == "dg-set-target-env-var" and len(words) >= 2:
            test["env"][words[0]] = words[1]
        elif name == "dg-shouldfail":
            test["shouldfail"] = True
        elif name == "dg-output" and words:
            test["output"].append(words[0])
        elif name == "dg-require-effective-target" and words and words[0].startswith("offload"):
            test["skip"] = "needs an offload device"
    if doing != "run":
        return None
    return test


def output_regex(patterns):
    """dg-output's Tcl regexps, one after the other, as one Python pattern (None: cannot read it)."""
    try:
        return re.compile("".join(p.replace("\\n", "\n").replace("\\r", "\r") for p in patterns), re.S)
    except re.error:
        return None


# Cluster mode runs programs on libomp: LLVM's compilers instead of GCC's.
ON_LIBOMP = {"gcc": "clang-19", "g++": "clang++-19", "gfortran": "flang-new-19"}
# The loop tests the cluster run takes by default (file names).
CLUSTER_TESTS = re.compile(r"^(loop|for)-\d+\.[cC]$")
CLUSTER_SUITES = "libgomp.c,libgomp.c-c++-common,libgomp.c++"


def build(args, suite, source, test):
    compiler = args.fortran if SUITES[suite] == "gfortran" else SUITES[suite]
    if args.cluster:
        compiler = ON_LIBOMP[SUITES[suite]]
    folder = os.path.dirname(source)
    binary = os.path.join(args.work, suite, os.path.relpath(source, os.path.join(args.testsuite, suite)) + ".exe")
    os.makedirs(os.path.dirname(binary), exist_ok=True)
    options = DEFAULT_OPTIONS if test["options"] is None else test["options"]
    if args.cluster:  # GCC's tree dumps, which clang does not know (dg-final reads them; this runner does not)
        options = [o for o in options if not o.startswith("-fdump-")]
        test = dict(test, extra=[o for o in test["extra"] if not o.startswith("-fdump-")])
    sources = [source] + [os.path.join(folder, s) for s in test["sources"]]
    # libgomp.exp puts libgomp's own source directory on the include path
    # (libgomp_g.h: tests that call the GOMP_ entry points directly).
    include = ["-I", os.path.dirname(args.testsuite)]
    command = [compiler] + ALWAYS + include + options + test["extra"] + sources + ["-o", binary, "-lm"]
    if SUITES[suite] == "gfortran":
        command += ["-J", os.path.dirname(binary)]  # module files beside the binary (gfortran and flang)
    try:  # a compiler can hang on a test (flang 19 on examples-4/async_target-1.f90): then not buildable
        built = subprocess.run(command, cwd=folder, capture_output=True, text=True, timeout=args.build_timeout)
    except subprocess.TimeoutExpired:
        return None
    return binary if built.returncode == 0 else None


def run(args, binary, test, environment, defaults=None, prefix=(), outputs=None):
    """The test's outcome; `defaults` is environment the test's own may override, `prefix` the command
    the binary runs under, `outputs` a list that gets the run's output."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OMP_", "GOMP_", "KMP_", "SELFSCHED_")) and k != "LD_PRELOAD"}
    env.update(defaults or {})
    env.update(test["env"])
    env.update(environment)
    # Its own session, so that a timeout ends what it started too (mpirun's ranks).
    process = subprocess.Popen(list(prefix) + [binary], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               cwd=os.path.dirname(binary), start_new_session=True)
    try:
        stdout, stderr = process.communicate(timeout=args.timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(process.pid, 9)
        except ProcessLookupError:
            pass
        stdout, stderr = process.communicate()
        if outputs is not None:
            outputs.append((stdout + stderr).decode(errors="replace"))
        return "TIMEOUT"
    text = (stdout + stderr).decode(errors="replace")
    if outputs is not None:
        outputs.append(text)
    failed = process.returncode != 0
    if failed != test["shouldfail"]:
        return f"FAIL (exit {process.returncode})"
    if test["output"]:
        pattern = output_regex(test["output"])
        if pattern is not None and not pattern.search(text):
            return "FAIL (output)"
    return "PASS"


# Tests that fail with a technique chosen for a reason understood and
# documented (docs/results/peer-tests.md), by path under the
# testsuite.
KNOWN_WITH_TECHNIQUE = {
    "libgomp.c/target-5.c":
        "a target region run on the host starts a fresh data environment whose schedule must be the initial "
        "one; selfsched keeps the chosen technique once per process beside libgomp's ICV, so after the "
        "program's omp_set_schedule(static, 2) the fresh environment shows libgomp's own initial schedule "
        "instead of the technique",
}


def known_difference(name, technique_chosen):
    return KNOWN_WITH_TECHNIQUE.get(name) if technique_chosen else None


# Tests that check what cluster mode changes on purpose (docs/cluster.md):
# the reason, by path under the testsuite.
CLUSTER_KNOWN = {}


def cluster_main(args, tests):
    """--cluster RANKS: each test built once, run in one process and under selfsched-mpirun --cluster."""
    mpirun = peer_cluster.find_mpirun(args.lib, args.mpirun)
    if not os.access(mpirun, os.X_OK):
        print(f"libgomp: no selfsched-mpirun at {mpirun} (--mpirun PATH)", file=sys.stderr)
        return 2
    ranks, threads = str(args.cluster), str(args.cluster_threads)

    def one(item):
        suite, source, test = item
        name = os.path.relpath(source, args.testsuite)
        if test["skip"]:
            return name, "UNSUPPORTED", "UNSUPPORTED", ""
        binary = build(args, suite, source, test)
        if binary is None:
            return name, "UNBUILDABLE", "UNBUILDABLE", ""
        output = []
        baseline = run(args, binary, test, {}, defaults={"OMP_NUM_THREADS": str(args.cluster * args.cluster_threads)})
        # auto's cache off: each run learns afresh, as the baseline does.
        cluster = run(args, binary, test, {}, defaults={"OMP_NUM_THREADS": threads, "SELFSCHED_AUTO_CACHE": "off"},
                      prefix=(mpirun, "--cluster", "-np", ranks), outputs=output)
        return name, baseline, cluster, output[0]

    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        results = sorted(pool.map(one, tests))
    built = [r for r in results if r[1] not in ("UNBUILDABLE", "UNSUPPORTED")]
    passed_one = [r for r in built if r[1] == "PASS"]
    passed_both = [r for r in passed_one if r[2] == "PASS"]
    print(f"libgomp cluster {ranks}x{threads}: {len(results)} tests ({len(results) - len(built)} not buildable by "
          f"LLVM's compilers or unsupported), {len(passed_one)} pass in one process ({args.cluster * args.cluster_threads} threads), "
          f"{len(passed_both)} of those under selfsched-mpirun --cluster -np {ranks}")
    for name, baseline, cluster, _ in results:
        if baseline != "PASS":
            print(f"  {name}: {baseline} in one process" + (", passes in cluster mode" if cluster == "PASS" else ""))
    failures = [(name, cluster, output, CLUSTER_KNOWN.get(name))
                for name, baseline, cluster, output in passed_one if cluster != "PASS"]
    wrong = peer_cluster.report("libgomp cluster", failures, args.work)
    print(f"libgomp cluster: {wrong} tests give a wrong answer, crash or hang only in cluster mode")
    return 1 if wrong else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--testsuite", required=True, help="GCC's libgomp/testsuite directory")
    parser.add_argument("--lib", required=True, help="libselfsched.so to preload")
    parser.add_argument("--suites", default=None,
                        help=f"default: {','.join(SUITES)}; with --cluster: {CLUSTER_SUITES}")
    parser.add_argument("--techniques", default="fss,auto", help="comma-separated (default: fss,auto)")
    parser.add_argument("--work", default="build/peer-tests/libgomp", help="where binaries go")
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=int, default=60, help="seconds per run")
    parser.add_argument("--build-timeout", type=int, default=120, help="seconds per build")
    parser.add_argument("--filter", default="", help="only tests whose path contains this")
    parser.add_argument("--fortran", default="gfortran",
                        help="compiler of the Fortran suite (default: gfortran, on libgomp; flang-new-19: on libomp)")
    peer_cluster.add_cluster_arguments(parser, "the loop tests")
    args = parser.parse_args()
    peer_cluster.check_cluster_arguments(parser, args)
    if args.suites is None:
        args.suites = CLUSTER_SUITES if args.cluster else ",".join(SUITES)
    args.testsuite, args.lib, args.work = map(os.path.realpath, (args.testsuite, args.lib, args.work))
    for path, what in ((args.lib, "libselfsched"), (args.testsuite, "libgomp testsuite")):
        if not os.path.exists(path):
            print(f"libgomp: no {what} at {path}", file=sys.stderr)
            return 2
    if "libgomp.fortran" in args.suites.split(",") and shutil.which(args.fortran) is None:
        print(f"libgomp: no Fortran compiler '{args.fortran}' on PATH; valid: gfortran, flang-new-19 "
              "(tools/install-deps.sh installs both)", file=sys.stderr)
        return 2

    modes = [("baseline", {}), ("preloaded", {"LD_PRELOAD": args.lib})]
    modes += [(t, {"LD_PRELOAD": args.lib, "SELFSCHED_SCHEDULE": t}) for t in args.techniques.split(",") if t]
    tests = []
    for suite in [s for s in args.suites.split(",") if s]:
        if suite not in SUITES:
            print(f"libgomp: unknown suite '{suite}'; valid: {', '.join(SUITES)}", file=sys.stderr)
            return 2
        root = os.path.join(args.testsuite, suite)
        for folder, _, files in os.walk(root):
            for name in sorted(files):
                source = os.path.join(folder, name)
                if name.endswith(SOURCE_SUFFIXES) and args.filter in source and \
                        (not args.cluster or args.filter or CLUSTER_TESTS.match(name)):
                    test = read_test(source)
                    if test is not None:
                        tests.append((suite, source, test))
    # dg-additional-sources are compiled with the test that names them, not alone.
    helpers = {os.path.normpath(os.path.join(os.path.dirname(s), extra)) for _, s, t in tests for extra in t["sources"]}
    tests = [t for t in tests if os.path.normpath(t[1]) not in helpers]
    if args.cluster:
        return cluster_main(args, tests)

    def one(item):
        suite, source, test = item
        name = os.path.relpath(source, args.testsuite)
        if test["skip"]:
            return name, source, {mode: "UNSUPPORTED" for mode, _ in modes}
        binary = build(args, suite, source, test)
        if binary is None:
            return name, source, {mode: "UNBUILDABLE" for mode, _ in modes}
        return name, source, {mode: run(args, binary, test, env) for mode, env in modes}

    results = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for k, result in enumerate(pool.map(one, tests), 1):
            results.append(result)
            if k % 100 == 0:
                print(f"libgomp: {k}/{len(tests)} tests", file=sys.stderr, flush=True)

    for mode, _ in modes:
        passed = sum(1 for _, _, r in results if r[mode] == "PASS")
        print(f"{mode}: {passed} of {len(results)} pass "
              f"({sum(1 for _, _, r in results if r[mode] == 'UNBUILDABLE')} not buildable, "
              f"{sum(1 for _, _, r in results if r[mode] == 'UNSUPPORTED')} unsupported)")
    regressions = 0
    for name, source, r in sorted(results):
        for mode, _ in modes[1:]:
            if r["baseline"] == "PASS" and r[mode] != "PASS":
                known = known_difference(name, mode != "preloaded")
                print(f"  {mode}: {name}: passes without libselfsched, {r[mode]} with it"
                      + (f" (known: {known})" if known else ""))
                regressions += known is None
            elif r["baseline"] != "PASS" and r[mode] == "PASS" and r["baseline"] not in ("UNBUILDABLE", "UNSUPPORTED"):
                print(f"  {mode}: {name}: {r['baseline']} without libselfsched, passes with it")
    print(f"libgomp: {regressions} test runs fail only with libselfsched")
    return 1 if regressions else 0


if __name__ == "__main__":
    sys.exit(main())
