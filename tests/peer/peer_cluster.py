"""What llvm_openmp.py and libgomp.py share in cluster mode (--cluster RANKS):
where selfsched-mpirun is, and what a test that passed in one process and
failed under `selfsched-mpirun --cluster` says about why.

Cluster mode runs each test program on RANKS ranks of one thread each
(OMP_NUM_THREADS=1, or the test's own value per rank), as one OpenMP team
of RANKS threads; the baseline is the same binary in one process with
OMP_NUM_THREADS=RANKS (the same team), without libselfsched. A failure is
one of three kinds:

  refused  cluster mode stopped the job with its one message (a construct or
           a program it cannot share: acceptable, the message names it)
  known    the test checks something cluster mode changes on purpose (named
           per test by the caller, with the reason)
  limit    it hangs or fails by a limit docs/cluster.md names (named per test
           by the caller: its reason starts with "limit: ")
  wrong    a wrong answer, a crash or a hang: a bug of cluster mode

Python 3 standard library only.
"""
import os
import re

# Every line cluster mode writes starts so; a region that runs replicated
# is said once and the program goes on, so that line is no refusal.
CLUSTER_LINE = re.compile(r"selfsched-mpirun --cluster: (.*)$", re.M)  # lit puts "# | " before
GOES_ON = ("runs replicated on every rank from now on", "runs replicated from now on", "runs shared again")


def add_cluster_arguments(parser, what):
    """--cluster, --cluster-threads and --mpirun, alike in both suites; `what`: what runs under cluster mode."""
    parser.add_argument("--cluster", type=int, default=0, metavar="RANKS",
                        help=f"run {what} under selfsched-mpirun --cluster -np RANKS against one process "
                             "instead (see above)")
    parser.add_argument("--cluster-threads", type=int, default=1, metavar="T",
                        help="with --cluster: T threads a rank (OMP_NUM_THREADS=T), one process RANKS x T")
    parser.add_argument("--mpirun", default=None,
                        help="selfsched-mpirun for --cluster (default: bin/ beside the library's lib/)")


def check_cluster_arguments(parser, args):
    if args.cluster_threads < 1:
        parser.error(f"--cluster-threads {args.cluster_threads}: give 1 or more threads a rank")


def find_mpirun(lib, given):
    """selfsched-mpirun: `given`, or the build's bin/ beside the library's lib/."""
    if given:
        return os.path.realpath(given)
    return os.path.realpath(os.path.join(os.path.dirname(lib), os.pardir, "bin", "selfsched-mpirun"))


def refusal(output):
    """Cluster mode's message when it stopped the job (or refused to start it), else None."""
    for line in CLUSTER_LINE.findall(output):
        if not any(phrase in line for phrase in GOES_ON):
            return line.strip()
    return None


def replicated_regions(output):
    """The regions cluster mode ran replicated, as it named them."""
    return [line.strip() for line in CLUSTER_LINE.findall(output) if "runs replicated" in line]


def classify(output, known):
    """("refused"|"known"|"wrong", why) for a test that failed in cluster mode only."""
    if known and known.startswith("limit: "):
        return "limit", known[len("limit: "):]
    if known:
        return "known", known
    why = refusal(output)
    if why:
        return "refused", why
    return "wrong", None


def tail(output, lines=12):
    """The last lines of a run's output, indented, for the report."""
    kept = [line for line in output.strip().splitlines() if line.strip()][-lines:]
    return "\n".join("      " + line[:200] for line in kept)


def save_output(work, test, output):
    """Keeps a failing run's output under work/cluster-output/; returns the path."""
    path = os.path.join(work, "cluster-output", re.sub(r"[^\w.-]", "_", test) + ".txt")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(output)
    return path


def report(name, failures, work):
    """Prints the cluster failures by kind; returns how many are wrong answers, crashes or hangs.
    failures: [(test, outcome, output, known_reason)]."""
    kinds = {"refused": [], "known": [], "limit": [], "wrong": []}
    for test, outcome, output, known in failures:
        kind, why = classify(output, known)
        kinds[kind].append((test, outcome, output, why))
    for kind, title in (("refused", "refused by cluster mode (its message)"),
                        ("known", "check what cluster mode changes on purpose"),
                        ("limit", "hang or fail by a documented limit of cluster mode"),
                        ("wrong", "wrong answer, crash or hang")):
        if not kinds[kind]:
            continue
        print(f"{name}: {len(kinds[kind])} {title}:")
        for test, outcome, output, why in kinds[kind]:
            saved = save_output(work, test, output)
            print(f"  {test}: {outcome}" + (f": {why}" if why else "") + f" (output: {saved})")
            if kind == "wrong":
                print(tail(output))
    return len(kinds["wrong"])
