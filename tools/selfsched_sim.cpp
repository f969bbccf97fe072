// selfsched-sim: a loop's self-scheduling on a simulated platform (SimGrid),
// each chunk decided by selfsched's own techniques (sim/include/selfsched/sim.hpp).
// Comma lists sweep: every combination of workers, techniques and masters is
// one run, one row of the table (and one object of the JSON).
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <optional>
#include <iostream>
#include <string>
#include <vector>

#include "profile_reader.hpp"
#include "selfsched/machine/files.hpp"
#include "selfsched/sim.hpp"
#include "selfsched/sim_pools.hpp"
#include "selfsched/sim_threads.hpp"
#include "svg.hpp"

namespace {

namespace ss = selfsched::sim;

const char* const usage =
    "usage: selfsched-sim [options]\n"
    "Simulates a loop self-scheduled by selfsched's techniques on a platform of\n"
    "simulated hosts (SimGrid): how long it takes, how balanced, how busy the masters.\n"
    "Comma-separated lists sweep (every combination is one run).\n"
    "\n"
    "options:\n"
    "  --technique T[,T...]  chunk technique(s), any catalog name (default fss)\n"
    "  --transport NAME      master (one master serves every worker), rma (a claim is one\n"
    "                        atomic at rank 0's window; fixed techniques) or hier (node\n"
    "                        masters under a supermaster, seed 004) (default master)\n"
    "  --masters M[,M...]    hier: node masters (default 4)\n"
    "  --workers P[,P...]    simulated workers (default 16)\n"
    "  --speeds S:S:...      relative speeds, repeated over the workers (default all 1)\n"
    "  --powers P:P:...      what weighted and alpha techniques are told of them, repeated\n"
    "                        likewise (default: the speeds; e.g. CPU clocks that misjudge them)\n"
    "  --platform FILE.xml   a SimGrid platform instead: hosts worker-0.., master-0..,\n"
    "                        supermaster (hier); speeds relative to --flops\n"
    "  --slow K:F:T1:T2      worker K runs at F of its speed from T1 to T2 (repeatable)\n"
    "  --lose K:T            worker K's host goes down at T (repeatable; master or hier):\n"
    "                        what it held is run again by others (rDLB; under hier, its node's)\n"
    "  --late K:T            worker K asks for its first chunk T after the others (repeatable):\n"
    "                        a thread that reaches the loop late; it decides who asks first\n"
    "  --timeshare K:ON:OFF[:START]  worker K shares its core with another process by time\n"
    "                        slices: runs ON, stopped OFF, ..., its first slice from START\n"
    "                        (default 0; at most OFF; a negative START: the loop begins\n"
    "                        -START into a slice) (repeatable; not with --slow on K)\n"
    "  --timeshare K:FILE    ... or in the slices listed in FILE as they fell in a run: one\n"
    "                        'BEGIN END' a line, seconds from the loop's start; stopped\n"
    "                        before and between them, unshared after the last\n"
    "  --n N                 loop iterations (default 100000)\n"
    "  --cost NAME           iteration costs: uniform, increasing, decreasing, random,\n"
    "                        mandelbrot (columns), mandelbrot-rows, adjoint, quicksort\n"
    "                        (default uniform)\n"
    "  --mean TIME           mean iteration cost on a speed-1 worker (default 100us)\n"
    "  --profile FILE        measured costs instead: a SELFSCHED_PROFILE written with\n"
    "                        SELFSCHED_PROFILE_CHUNKS=1 (its loop sets --n)\n"
    "  --site K, --instance K  which loop of the profile (default 0, 0)\n"
    "  --flops F             flop/s of a speed-1 host (default 1e9)\n"
    "  --latency TIME        per link (default 2us)\n"
    "  --bandwidth B         bytes/s per link (default 1.25e9)\n"
    "  --memory SHARE        memory-bound iterations: an iteration of cost t needs SHARE x t\n"
    "                        of its node's full memory bandwidth, shared by the node's\n"
    "                        workers; k streaming at once take max(t, k x SHARE x t) each.\n"
    "                        Measure: an iteration's time with k busy / (k x its time alone)\n"
    "                        (default 0: compute only)\n"
    "  --node-workers K      workers sharing a node's memory (default 1; a worker's\n"
    "                        --threads always share it)\n"
    "  --threads T           threads per worker: a rank whose threads split its outer\n"
    "                        chunks by --inner, asking for the next at 15% left (default 1)\n"
    "  --inner T             the threads' technique (default fss)\n"
    "  --inner-claim TIME    a thread's claim of an inner chunk (default 100ns)\n"
    "  --claim TIME          a master's work per request (default 1us)\n"
    "  --atomic TIME         rma: the window owner's time per fetch-and-add (default 200ns)\n"
    "  --result-bytes B      bytes of results per iteration, sent to the master (default 0)\n"
    "  --merge-bytes B       cluster mode: bytes each iteration writes, merged to every worker\n"
    "                        at the loop's end, round a ring (default 0: no merge)\n"
    "  --merge-page TIME     cluster mode: a worker's time per 4 KiB page it wrote or receives\n"
    "                        (tracking, diff, apply: make bench-cluster; default 2.5us)\n"
    "  --rows R              a dependence loop (seed 000's mechanism S): the N iterations are\n"
    "                        columns of an R x N wavefront, run in intervals of rows after the\n"
    "                        previous chunk's; needs an s-* or sw-* technique (default 0: none)\n"
    "  --sync-points SP      its synchronization points per chunk (default 3 x workers)\n"
    "  --boundary-bytes B    bytes a row of an interval's boundary (default 8)\n"
    "  --max-chunk K         upper threshold on every chunk (default 0: none)\n"
    "  --alpha-by-work       alpha techniques (-NN, -auto) split alpha % of the loop's work,\n"
    "                        known here from the costs, not of its iterations (seed 003)\n"
    "  --json FILE           also write every run as JSON\n"
    "  --chart FILE.svg      efficiency against workers, one line per technique and masters\n"
    "  --gantt FILE.svg      the chunks of a single run over time, one row per worker (small runs)\n"
    "  --chunks              print every chunk of each run (small runs)\n"
    "  --help, --version\n"
    "\n"
    "One node's thread team instead (--threads-model real): each thread an actor on a\n"
    "core of its own, auto served by the runtime's own claims (shares, stealing, rates)\n"
    "read with the simulated clock; --technique lists schedules (auto; static, dynamic,k,\n"
    "guided,k as libomp hands them out; any catalog technique, weighted ones told each\n"
    "core's run queue), --threads T[,T...] the team sizes, --speeds and --timeshare the\n"
    "cores (K: a thread); --n, --cost, --mean, --profile the loop:\n"
    "  --threads-model M     model (default: ranks of --threads, above) or real\n"
    "  --thread-claim TIME   a claim with no other thread claiming; each one claiming at\n"
    "                        once adds as much (default 400ns)\n"
    "  --instances K         the loop run K times (time steps; default 1)\n"
    "  --monotonic           chunks in order (auto then claims from one count, no shares)\n"
    "  e.g. selfsched-sim --threads-model real --threads 16,128 --technique auto,static,dynamic,1,guided --cost mandelbrot --n 100000\n"
    "\n"
    "Task pools instead of a loop (seed 001: work created as it runs; the loop options\n"
    "above do not apply, --workers, --latency and --speeds aside: processors are of speed 1):\n"
    "  --pool S[,S...]       central, mediation, receiver, receiver-threshold, hier-mediation\n"
    "  --nodes N             hier-mediation: node mediators (default 4)\n"
    "  --roots R, --levels L a tree of R subregions that split in two down to L levels\n"
    "                        (default 16, 7)\n"
    "  --minimizations M     local minimizations a subregion starts, on average (default 1)\n"
    "  --tree-seed S         the tree's random numbers (default 1; the same tree for the same S)\n"
    "  --subregion TIME, --minimization TIME  their costs (defaults 50ms, 1s: the mean)\n"
    "  --message TIME        a processor's time per message sent or taken in (default 20ms)\n"
    "  --async L             the asynchronicity level (default 1; 0: none)\n"
    "  --policies seed001|library  mediation and receiver-threshold as seed 001 gives them (default)\n"
    "                        or as the library's pools run them (sim_pools.hpp, pool_spec)\n"
    "  --status TIME         library mediation: a processor's reports at most this often (default 50us)\n"
    "  e.g. selfsched-sim --pool central,mediation,receiver --workers 8,16,32,64 --latency 1ms\n"
    "\n"
    "TIME: 2us, 1.5ms, 0.002 (seconds). Example, seed 004's question (does one\n"
    "master keep up with 8,192 workers?):\n"
    "  selfsched-sim --technique dfss,5 --cost mandelbrot --n 200000 --workers 256,1024,8192\n"
    "  selfsched-sim --technique dfss,5 --cost mandelbrot --n 200000 --workers 256,1024,8192 --transport hier --masters 16\n";

[[noreturn]] void fail(const std::string& message) {
  std::cerr << "selfsched-sim: " << message << "\n";
  std::exit(2);
}

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> items;
  std::size_t from = 0;
  for (;;) {
    const std::size_t comma = text.find(',', from);
    items.push_back(text.substr(from, comma == std::string::npos ? std::string::npos : comma - from));
    if (comma == std::string::npos) break;
    from = comma + 1;
  }
  return items;
}

// Technique lists: "fss,5" is one technique with a chunk; split at commas
// that start a new name, not at ",k".
std::vector<std::string> techniques_of(const std::string& text) {
  std::vector<std::string> out;
  for (const std::string& item : split(text)) {
    const bool number = !item.empty() && item.find_first_not_of("0123456789.") == std::string::npos;
    if (number && !out.empty()) out.back() += "," + item;
    else out.push_back(item);
  }
  return out;
}

long long count_of(const std::string& text, const std::string& what, long long lowest) {
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || v < lowest)
    fail(what + " '" + text + "' is not a whole number >= " + std::to_string(lowest));
  return v;
}

// A loop instance of a profile written with SELFSCHED_PROFILE_CHUNKS=1, as
// per-iteration costs at speed 1: each chunk's time spread evenly over its
// iterations, times the power of the thread that ran it.
ss::cost_model costs_from_profile(const std::string& path, long long site, long long instance, selfsched::iter_t& n) {
  std::string why;
  const std::optional<nlohmann::json> document = selfsched::omp::read_json_file(path, why);
  if (!document) fail("--profile: " + why);
  const std::optional<selfsched::report::profile> profile = selfsched::report::parse_profile(*document, why);
  if (!profile) fail("--profile: " + path + " is not a selfsched profile: " + why);
  if (site >= static_cast<long long>(profile->sites.size()))
    fail("--site " + std::to_string(site) + ": " + path + " has " + std::to_string(profile->sites.size()) + " sites");
  const auto& loops = profile->sites[static_cast<std::size_t>(site)].loops;
  if (instance >= static_cast<long long>(loops.size()))
    fail("--instance " + std::to_string(instance) + ": that site has " + std::to_string(loops.size()) + " instances");
  const selfsched::report::loop_record& loop = loops[static_cast<std::size_t>(instance)];
  if (!loop.has_chunks) fail("--profile: " + path + " was written without SELFSCHED_PROFILE_CHUNKS=1: no chunk times");
  std::vector<double> costs(static_cast<std::size_t>(loop.n), -1);
  for (const selfsched::report::chunk_record& c : loop.chunks) {
    if (c.size <= 0 || c.start < 0 || c.start + c.size > loop.n) continue;
    double power = 1;
    for (const selfsched::report::thread_record& t : loop.threads)
      if (t.thread == c.thread) power = t.power;
    const double each = std::max(0.0, c.end_s - c.begin_s) / static_cast<double>(c.size) * power;
    for (long long i = c.start; i < c.start + c.size; ++i) costs[static_cast<std::size_t>(i)] = each;
  }
  for (std::size_t i = 0; i < costs.size(); ++i)
    if (costs[i] < 0) fail("--profile: iteration " + std::to_string(i) + " of that loop is in no recorded chunk");
  n = loop.n;
  return ss::cost_model::measured(path, std::move(costs));
}

struct sweep_point {
  std::string series;  // technique, transport and masters
  long long workers;
  double efficiency, makespan;
};

// Efficiency against workers (log2 axis), one line per technique and
// transport: where a scheme stops scaling.
bool efficiency_chart(const std::vector<sweep_point>& points, const std::string& title, const std::string& path,
                      std::string& why) {
  namespace st = selfsched::tools;
  constexpr double left = 70, right = 760, top = 50, bottom = 380, width = 1000, height = 440;
  std::vector<std::string> series;
  long long lo = points.front().workers, hi = lo;
  for (const sweep_point& p : points) {
    if (std::find(series.begin(), series.end(), p.series) == series.end()) series.push_back(p.series);
    lo = std::min(lo, p.workers);
    hi = std::max(hi, p.workers);
  }
  const double x0 = std::log2(static_cast<double>(lo)), x1 = std::max(x0 + 1, std::log2(static_cast<double>(hi)));
  const auto x_of = [&](long long p) { return left + (right - left) * (std::log2(static_cast<double>(p)) - x0) / (x1 - x0); };
  const auto y_of = [&](double e) { return bottom - (bottom - top) * std::clamp(e, 0.0, 1.0); };
  st::svg chart(width, height);
  chart.text(left, 24, title, "start", 14);
  chart.line(left, bottom, right, bottom, "#444");
  chart.line(left, top, left, bottom, "#444");
  for (int k = 0; k <= 5; ++k) {
    const double e = k / 5.0;
    chart.line(left - 5, y_of(e), right, y_of(e), k == 0 ? "#444" : "#e4e4e4");
    chart.text(left - 9, y_of(e) + 4, st::number(e, 1), "end", 11);
  }
  chart.text(18, (top + bottom) / 2, "efficiency", "middle", 12);
  for (long long p = lo; p <= hi; p *= 2) {
    chart.line(x_of(p), bottom, x_of(p), bottom + 5, "#444");
    chart.text(x_of(p), bottom + 18, std::to_string(p), "middle", 11);
  }
  chart.text((left + right) / 2, bottom + 36, "workers (log scale)", "middle", 12);
  for (std::size_t k = 0; k < series.size(); ++k) {
    const std::string colour = st::row_colour(static_cast<int>(k), false);
    std::string line;
    for (const sweep_point& p : points) {
      if (p.series != series[k]) continue;
      line += st::number(x_of(p.workers)) + "," + st::number(y_of(p.efficiency)) + " ";
      chart.circle(x_of(p.workers), y_of(p.efficiency), 3.5, colour,
                   p.series + ", " + std::to_string(p.workers) + " workers: efficiency " + st::number(p.efficiency, 3) +
                       ", makespan " + st::number(p.makespan, 4) + " s");
    }
    chart.polyline(line, colour, series[k]);
    const double y = top + 16 * static_cast<double>(k);
    chart.rect(right + 20, y - 9, 12, 12, colour);
    chart.text(right + 38, y + 1, series[k], "start", 11);
  }
  return chart.save(path, why);
}

// One bar per chunk, one row per worker (small runs).
bool gantt_chart(const ss::result& r, int workers, const std::string& title, const std::string& path,
                 std::string& why) {
  namespace st = selfsched::tools;
  constexpr double left = 90, right = 970, top = 50, row = 18, gap = 4, width = 1000;
  const double bottom = top + workers * (row + gap);
  st::svg chart(width, bottom + 50);
  chart.text(left, 24, title, "start", 14);
  const double span = r.makespan > 0 ? r.makespan : 1e-9, scale = (right - left) / span;
  for (int k = 0; k < workers; ++k)
    chart.text(left - 8, top + k * (row + gap) + row * 0.7, "worker " + std::to_string(k), "end", 11);
  std::vector<int> seen(static_cast<std::size_t>(workers), 0);
  for (const ss::chunk_record& c : r.chunk_log) {
    if (c.ran_on < 0 || c.ran_on >= workers) continue;
    const bool alternate = seen[static_cast<std::size_t>(c.ran_on)]++ % 2 == 1;
    chart.rect(left + c.begin * scale, top + c.ran_on * (row + gap), (c.end - c.begin) * scale, row,
               st::row_colour(c.ran_on % 360, alternate), "chunk",
               "worker " + std::to_string(c.ran_on) + ": iterations " + std::to_string(c.start) + ".." +
                   std::to_string(c.start + c.size - 1) + ", " + st::number(c.begin, 6) + " - " + st::number(c.end, 6) +
                   " s");
  }
  st::time_axis(chart, left, right, bottom, span);
  return chart.save(path, why);
}

// A number > 0 (or >= 0 with `zero_too`).
double number_of(const std::string& text, const std::string& what, bool zero_too = false) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !(v > 0 || (zero_too && v == 0)))
    fail(what + " '" + text + "' is not a " + (zero_too ? "number >= 0" : "positive number"));
  return v;
}

// The command line, as given: values are checked where they are used.
struct options {
  std::string techniques = "fss", transport = "master", masters = "4", workers = "16", speeds, powers, cost = "uniform";
  std::string n = "100000", mean = "100us", flops = "1e9", latency = "2us", bandwidth = "1.25e9", claim = "1us",
              atomic = "200ns", threads = "1", inner = "fss", inner_claim = "100ns";
  std::string rows = "0", sync_points = "0", boundary_bytes = "8", max_chunk = "0", memory = "0", node_workers = "1";
  std::string merge_bytes = "0", merge_page = "2.5us", result_bytes = "0";
  std::string json_path, profile_path, platform_path, site = "0", instance = "0", chart_path, gantt_path;
  std::string threads_model = "model", thread_claim = "400ns", instances = "1";
  bool print_chunks = false, alpha_by_work = false, latency_given = false, monotonic = false;
  std::vector<std::string> slow, lose, late, shares;
  std::string pool, nodes = "4", roots = "16", levels = "7", minimizations = "1", subregion = "50ms",
      minimization = "1s", message = "20ms", async = "1", policies = "seed001", status = "50us",
      tree_seed = "1";
};

// Every option that takes one value, and where it goes.
const std::pair<const char*, std::string options::*> valued_options[] = {
    {"--technique", &options::techniques}, {"--transport", &options::transport}, {"--masters", &options::masters},
    {"--workers", &options::workers}, {"--speeds", &options::speeds}, {"--powers", &options::powers},
    {"--n", &options::n}, {"--cost", &options::cost}, {"--mean", &options::mean}, {"--flops", &options::flops},
    {"--latency", &options::latency}, {"--bandwidth", &options::bandwidth}, {"--memory", &options::memory},
    {"--node-workers", &options::node_workers}, {"--claim", &options::claim}, {"--atomic", &options::atomic},
    {"--threads", &options::threads}, {"--inner", &options::inner}, {"--inner-claim", &options::inner_claim},
    {"--result-bytes", &options::result_bytes}, {"--merge-bytes", &options::merge_bytes},
    {"--merge-page", &options::merge_page}, {"--rows", &options::rows}, {"--sync-points", &options::sync_points},
    {"--boundary-bytes", &options::boundary_bytes}, {"--max-chunk", &options::max_chunk},
    {"--json", &options::json_path}, {"--chart", &options::chart_path}, {"--gantt", &options::gantt_path},
    {"--profile", &options::profile_path}, {"--platform", &options::platform_path}, {"--site", &options::site},
    {"--instance", &options::instance}, {"--pool", &options::pool}, {"--nodes", &options::nodes},
    {"--roots", &options::roots}, {"--levels", &options::levels}, {"--minimizations", &options::minimizations},
    {"--subregion", &options::subregion}, {"--minimization", &options::minimization},
    {"--message", &options::message}, {"--async", &options::async}, {"--policies", &options::policies},
    {"--status", &options::status}, {"--tree-seed", &options::tree_seed},
    {"--threads-model", &options::threads_model}, {"--thread-claim", &options::thread_claim},
    {"--instances", &options::instances},
};

// --help and --version answer and exit; anything unknown is named.
options parse_options(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string option = argv[i];
    if (option == "--help" || option == "--version") {
      if (option == "--help") std::cout << usage;
      else std::cout << "selfsched-sim " << SELFSCHED_VERSION << "\n";
      std::exit(0);
    }
    if (option == "--chunks" || option == "--alpha-by-work" || option == "--monotonic") {
      (option == "--chunks" ? o.print_chunks : option == "--monotonic" ? o.monotonic : o.alpha_by_work) = true;
      continue;
    }
    const bool repeated = option == "--slow" || option == "--lose" || option == "--late" || option == "--timeshare";
    const auto* known = std::find_if(std::begin(valued_options), std::end(valued_options),
                                     [&](const auto& v) { return option == v.first; });
    if (!repeated && known == std::end(valued_options)) fail("unknown option '" + option + "' (--help lists them)");
    if (i + 1 >= argc) fail(option + " needs a value");
    if (repeated) {
      (option == "--slow" ? o.slow : option == "--lose" ? o.lose : option == "--late" ? o.late : o.shares)
          .push_back(argv[++i]);
      continue;
    }
    o.latency_given = o.latency_given || option == "--latency";
    o.*(known->second) = argv[++i];
  }
  return o;
}

ss::platform_spec platform_of(const options& o) {
  ss::platform_spec platform;
  if (!o.speeds.empty()) platform.speeds = ss::parse_speeds(o.speeds);
  if (!o.powers.empty()) platform.powers = ss::parse_speeds(o.powers, "powers");
  if (!o.platform_path.empty()) {
    if (!o.speeds.empty() || o.workers != "16")
      fail("--platform: its worker-K hosts are the workers; --workers and --speeds do not apply");
    if (access(o.platform_path.c_str(), R_OK) != 0) fail("--platform: cannot read '" + o.platform_path + "'");
    platform.xml = o.platform_path;
  }
  for (const std::string& d : o.slow) platform.slowdowns.push_back(ss::parse_slowdown(d));
  for (const std::string& l : o.lose) platform.losses.push_back(ss::parse_loss(l));
  for (const std::string& l : o.late) platform.late_starts.push_back(ss::parse_late_start(l));
  for (const std::string& t : o.shares) platform.time_shares.push_back(ss::parse_time_share(t));
  platform.flops = number_of(o.flops, "--flops");
  platform.latency = ss::parse_seconds(o.latency, "--latency");
  platform.bandwidth = number_of(o.bandwidth, "--bandwidth");
  platform.memory_share = number_of(o.memory, "--memory", true);
  platform.workers_per_node = static_cast<int>(count_of(o.node_workers, "--node-workers", 1));
  return platform;
}

// The loop's iteration costs (--cost and --mean, or --profile) and its n.
ss::cost_model loop_of(const options& o, selfsched::iter_t& n) {
  n = count_of(o.n, "--n", 0);
  if (!o.profile_path.empty())
    return costs_from_profile(o.profile_path, count_of(o.site, "--site", 0), count_of(o.instance, "--instance", 0), n);
  return ss::cost_model::parse(o.cost, ss::parse_seconds(o.mean, "--mean"));
}

ss::run_spec run_of(const options& o) {
  ss::run_spec run;
  run.via = ss::parse_transport(o.transport);
  run.costs = loop_of(o, run.n);
  run.claim_seconds = ss::parse_seconds(o.claim, "--claim");
  run.atomic_seconds = ss::parse_seconds(o.atomic, "--atomic");
  run.threads = static_cast<int>(count_of(o.threads, "--threads", 1));
  run.inner_technique = o.inner;
  run.inner_claim_seconds = ss::parse_seconds(o.inner_claim, "--inner-claim");
  run.result_bytes = static_cast<double>(count_of(o.result_bytes, "--result-bytes", 0));
  run.merge_bytes = static_cast<double>(count_of(o.merge_bytes, "--merge-bytes", 0));
  run.merge_page_seconds = ss::parse_seconds(o.merge_page, "--merge-page");
  run.rows = count_of(o.rows, "--rows", 0);
  run.sync_points = count_of(o.sync_points, "--sync-points", 0);
  run.boundary_bytes = static_cast<double>(count_of(o.boundary_bytes, "--boundary-bytes", 0));
  run.max_chunk = count_of(o.max_chunk, "--max-chunk", 0);
  run.record_chunks = o.print_chunks || !o.gantt_path.empty();
  run.alpha_by_work = o.alpha_by_work;
  return run;
}

// One run's row, its chunks when asked, its Gantt chart and its JSON entry.
void report_run(const options& o, const ss::run_spec& run, const ss::result& r, long long workers, long long masters,
                bool first, std::ostringstream& json) {
  const long long ran = static_cast<long long>(r.busy.size());  // a platform file decides the workers
  std::printf("| %lld | %s | %s | %lld | %.6g | %.6g | %.3f | %lld | %lld | %.2f |\n", ran, run.technique.c_str(),
              o.transport.c_str(), masters, r.makespan, r.ideal, r.efficiency, static_cast<long long>(r.chunks),
              static_cast<long long>(r.messages), r.master_busy);
  std::fflush(stdout);
  std::string why;
  if (!o.gantt_path.empty() &&
      !gantt_chart(r, static_cast<int>(ran),
                   run.technique + ", " + o.transport + ", " + std::to_string(workers) + " workers, " + o.cost +
                       ", n = " + std::to_string(run.n),
                   o.gantt_path, why))
    fail("--gantt: " + why);
  if (o.print_chunks)
    for (const ss::chunk_record& c : r.chunk_log)
      std::printf("chunk start=%lld size=%lld worker=%d begin=%.9g end=%.9g\n", static_cast<long long>(c.start),
                  static_cast<long long>(c.size), c.ran_on, c.begin, c.end);
  if (o.json_path.empty()) return;
  if (!first) json << ",\n";
  json << "  {\"workers\": " << ran << ", \"technique\": \"" << run.technique << "\", \"transport\": \"" << o.transport
       << "\", \"masters\": " << masters << ", \"n\": " << run.n << ", \"cost\": \"" << o.cost
       << "\", \"makespan_s\": " << r.makespan << ", \"ideal_s\": " << r.ideal << ", \"efficiency\": " << r.efficiency
       << ", \"chunks\": " << r.chunks << ", \"messages\": " << r.messages << ", \"busiest_master\": " << r.master_busy
       << ", \"reexecuted\": " << r.reexecuted << ", \"busy_s\": [";
  for (std::size_t k = 0; k < r.busy.size(); ++k) json << (k ? ", " : "") << r.busy[k];
  json << "]}";
}

// Every combination of --workers, --technique and --masters, one row each.
int sweep(const options& o) {
  ss::platform_spec platform = platform_of(o);
  ss::run_spec run = run_of(o);
  std::vector<long long> worker_counts, master_counts;
  for (const std::string& w : split(o.workers)) worker_counts.push_back(count_of(w, "--workers", 1));
  for (const std::string& m : split(o.masters)) master_counts.push_back(count_of(m, "--masters", 1));
  if (run.via != ss::transport::hier) master_counts = {1};  // master, rma: one serving host
  const std::vector<std::string> technique_list = techniques_of(o.techniques);
  const std::size_t total = worker_counts.size() * technique_list.size() * master_counts.size();
  if (!o.gantt_path.empty() && total != 1)
    fail("--gantt draws one run: give one value each to --workers, --technique and --masters");
  // Written whole at the end through the one writer (a FIFO or /dev/stdout
  // in place, never waiting for a reader that is not there); a path that
  // cannot be written is named before any run, as is any bad input.
  std::string why;
  if (!o.json_path.empty() && !selfsched::omp::can_write_file(o.json_path, why)) fail("--json: " + why);
  run.technique = technique_list.front();
  run.masters = static_cast<int>(master_counts.front());
  for (long long p : worker_counts) {
    platform.workers = static_cast<int>(p);
    ss::validate(platform, run);
  }
  std::cout << "| workers | technique | transport | masters | makespan (s) | ideal (s) | efficiency | chunks | "
               "messages | busiest master |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
  std::ostringstream json;
  json << "[\n";
  std::vector<sweep_point> points;
  std::size_t done = 0;
  for (long long p : worker_counts)
    for (const std::string& technique : technique_list)
      for (long long m : master_counts) {
        platform.workers = static_cast<int>(p);
        run.technique = technique;
        run.masters = static_cast<int>(m);
        const bool hier = run.via == ss::transport::hier;
        if (total > 1)
          std::fprintf(stderr, "selfsched-sim: [%zu/%zu] %lld workers, %s, %s%s\n", done + 1, total, p, technique.c_str(),
                       o.transport.c_str(), hier ? (", " + std::to_string(m) + " masters").c_str() : "");
        const ss::result r = ss::simulate(platform, run);
        report_run(o, run, r, p, m, done++ == 0, json);
        points.push_back({technique + " " + o.transport + (hier ? " " + std::to_string(m) : ""),
                          static_cast<long long>(r.busy.size()), r.efficiency, r.makespan});
      }
  json << "\n]\n";
  if (!o.json_path.empty() && !selfsched::omp::write_file_atomically(o.json_path, json.str(), 0644, why))
    fail("--json: " + why);
  if (!o.chart_path.empty() &&
      !efficiency_chart(points, "Efficiency by workers: " + o.cost + ", n = " + std::to_string(run.n), o.chart_path, why))
    fail("--chart: " + why);
  return 0;
}

// Task pools (sim_pools.hpp): every combination of processors and
// strategies, one Markdown row each (and one JSON object with --json).
int run_pools(const options& o) {
  ss::pool_spec spec;
  spec.nodes = static_cast<int>(count_of(o.nodes, "--nodes", 1));
  spec.tree.roots = static_cast<int>(count_of(o.roots, "--roots", 1));
  spec.tree.levels = static_cast<int>(count_of(o.levels, "--levels", 1));
  spec.tree.seed = static_cast<std::uint64_t>(count_of(o.tree_seed, "--tree-seed", 0));
  char* end = nullptr;
  spec.tree.minimizations = std::strtod(o.minimizations.c_str(), &end);
  if (o.minimizations.empty() || *end != '\0') fail("--minimizations '" + o.minimizations + "' is not a number");
  spec.tree.subregion_seconds = ss::parse_seconds(o.subregion, "--subregion");
  spec.tree.minimization_seconds = ss::parse_seconds(o.minimization, "--minimization");
  spec.message_seconds = ss::parse_seconds(o.message, "--message");
  spec.latency = ss::parse_seconds(o.latency_given ? o.latency : "1ms", "--latency");
  spec.async_levels = static_cast<int>(count_of(o.async, "--async", 0));
  if (o.policies != "seed001" && o.policies != "library") fail("--policies '" + o.policies + "': seed001 or library");
  spec.library_policies = o.policies == "library";
  spec.status_seconds = ss::parse_seconds(o.status, "--status");
  std::string why;
  if (!o.json_path.empty() && !selfsched::omp::can_write_file(o.json_path, why)) fail("--json: " + why);
  std::cout << "| processors | strategy | time (s) | processor utilization | master util | tasks | transfers | messages |\n"
               "| ---: | --- | ---: | --- | ---: | ---: | ---: | ---: |\n";
  nlohmann::json rows = nlohmann::json::array();
  for (const std::string& p : split(o.workers))
    for (const std::string& name : split(o.pool)) {
      spec.processors = static_cast<int>(count_of(p, "--workers", 2));
      spec.strategy = ss::parse_pool_strategy(name);
      const ss::pool_result r = ss::simulate_pool(spec);
      const auto [lo, hi] = std::minmax_element(r.utilization.begin(), r.utilization.end());
      std::printf("| %d | %s | %.4g | %.0f%% - %.0f%% | %.0f%% | %lld | %lld | %lld |\n", spec.processors, name.c_str(),
                  r.makespan, 100 * *lo, 100 * *hi, 100 * r.master_utilization, static_cast<long long>(r.tasks),
                  static_cast<long long>(r.transfers), static_cast<long long>(r.messages));
      std::fflush(stdout);
      rows.push_back({{"processors", spec.processors}, {"strategy", name}, {"makespan_s", r.makespan},
                      {"work_s", r.work}, {"efficiency", r.makespan > 0 ? r.work / (spec.processors * r.makespan) : 0},
                      {"utilization_min", *lo}, {"utilization_max", *hi}, {"master_utilization", r.master_utilization},
                      {"tasks", r.tasks}, {"transfers", r.transfers}, {"messages", r.messages}});
    }
  if (!o.json_path.empty() && !selfsched::omp::write_file_atomically(o.json_path, rows.dump(1) + "\n", 0644, why))
    fail("--json: " + why);
  return 0;
}

// --threads-model real: every combination of --threads and schedules, one
// row each, with its makespan over the best libomp schedule's at that size.
int run_threads(const options& o) {
  ss::threads_spec spec;
  spec.costs = loop_of(o, spec.n);
  if (!o.speeds.empty()) spec.speeds = ss::parse_speeds(o.speeds);
  for (const std::string& t : o.shares) spec.time_shares.push_back(ss::parse_time_share(t));
  spec.flops = number_of(o.flops, "--flops");
  spec.claim_seconds = ss::parse_seconds(o.thread_claim, "--thread-claim");
  spec.instances = static_cast<int>(count_of(o.instances, "--instances", 1));
  spec.nonmonotonic = !o.monotonic;
  const std::vector<std::string> schedules = techniques_of(o.techniques);
  std::vector<int> sizes;
  for (const std::string& t : split(o.threads)) sizes.push_back(static_cast<int>(count_of(t, "--threads", 1)));
  for (int threads : sizes)
    for (const std::string& schedule : schedules) spec.threads = threads, spec.schedule = schedule, ss::validate(spec);
  std::cout << "| threads | schedule | makespan (s) | ideal (s) | efficiency | chunks | claims (s) | over best libomp |\n"
               "| --- | --- | --- | --- | --- | --- | --- | --- |\n";
  for (int threads : sizes) {
    std::vector<ss::threads_result> results;
    double best_libomp = 0;
    for (const std::string& schedule : schedules) {
      spec.threads = threads, spec.schedule = schedule;
      const ss::threads_result r = results.emplace_back(ss::simulate_threads(spec));
      if (!r.every_iteration_once) fail("schedule " + schedule + " at " + std::to_string(threads) +
                                        " threads did not run every iteration exactly once");
      const std::string kind = schedule.substr(0, schedule.find(','));
      if ((kind == "static" || kind == "dynamic" || kind == "guided") && (best_libomp == 0 || r.makespan < best_libomp))
        best_libomp = r.makespan;
    }
    for (std::size_t i = 0; i < schedules.size(); ++i) {
      const ss::threads_result& r = results[i];
      std::printf("| %d | %s | %.6g | %.6g | %.3f | %lld | %.3g | ", threads, schedules[i].c_str(), r.makespan, r.ideal,
                  r.efficiency, static_cast<long long>(r.chunks), r.claim_seconds);
      if (best_libomp > 0) std::printf("%.3fx |\n", r.makespan / best_libomp);
      else std::printf("- |\n");
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const options o = parse_options(argc, argv);
  try {
    if (!o.pool.empty())
      return run_pools(o);
    if (o.threads_model == "real") return run_threads(o);
    if (o.threads_model != "model") fail("--threads-model '" + o.threads_model + "': model or real");
    return sweep(o);
  } catch (const ss::sim_error& e) {
    fail(e.what());
  } catch (const std::exception& e) {
    std::cerr << "selfsched-sim: " << e.what() << "\n";
    return 1;
  }
}
