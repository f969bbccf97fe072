// selfsched-sim: a loop's self-scheduling on a simulated platform (SimGrid),
// each chunk decided by selfsched's own techniques (sim/include/selfsched/sim.hpp).
// Comma lists sweep: every combination of workers, techniques and masters is
// one run, one row of the table (and one object of the JSON).
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <fstream>
#include <optional>
#include <iostream>
#include <string>
#include <vector>

#include "files.hpp"
#include "profile_reader.hpp"
#include "selfsched/sim.hpp"

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
    "  --transport NAME      master (one master serves every worker) or hier (node\n"
    "                        masters under a supermaster, seed 004) (default master)\n"
    "  --masters M[,M...]    hier: node masters (default 4)\n"
    "  --workers P[,P...]    simulated workers (default 16)\n"
    "  --speeds S:S:...      relative speeds, repeated over the workers (default all 1)\n"
    "  --n N                 loop iterations (default 100000)\n"
    "  --cost NAME           iteration costs: uniform, increasing, decreasing, random,\n"
    "                        mandelbrot, adjoint (default uniform)\n"
    "  --mean TIME           mean iteration cost on a speed-1 worker (default 100us)\n"
    "  --profile FILE        measured costs instead: a SELFSCHED_PROFILE written with\n"
    "                        SELFSCHED_PROFILE_CHUNKS=1 (its loop sets --n)\n"
    "  --site K, --instance K  which loop of the profile (default 0, 0)\n"
    "  --flops F             flop/s of a speed-1 host (default 1e9)\n"
    "  --latency TIME        per link (default 2us)\n"
    "  --bandwidth B         bytes/s per link (default 1.25e9)\n"
    "  --claim TIME          a master's work per request (default 1us)\n"
    "  --result-bytes B      bytes of results per iteration, sent to the master (default 0)\n"
    "  --json FILE           also write every run as JSON\n"
    "  --chunks              print every chunk of each run (small runs)\n"
    "  --help, --version\n"
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

double number_of(const std::string& text, const std::string& what) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !(v > 0)) fail(what + " '" + text + "' is not a positive number");
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  std::string techniques = "fss", transport = "master", masters = "4", workers = "16", speeds, cost = "uniform";
  std::string n_text = "100000", mean = "100us", flops = "1e9", latency = "2us", bandwidth = "1.25e9", claim = "1us";
  std::string result_bytes = "0", json_path, profile_path, site_text = "0", instance_text = "0";
  bool print_chunks = false;
  for (int i = 1; i < argc; ++i) {
    const std::string option = argv[i];
    if (option == "--help") {
      std::cout << usage;
      return 0;
    }
    if (option == "--version") {
      std::cout << "selfsched-sim " << SELFSCHED_VERSION << "\n";
      return 0;
    }
    if (option == "--chunks") {
      print_chunks = true;
      continue;
    }
    std::string* target = nullptr;
    if (option == "--technique") target = &techniques;
    else if (option == "--transport") target = &transport;
    else if (option == "--masters") target = &masters;
    else if (option == "--workers") target = &workers;
    else if (option == "--speeds") target = &speeds;
    else if (option == "--n") target = &n_text;
    else if (option == "--cost") target = &cost;
    else if (option == "--mean") target = &mean;
    else if (option == "--flops") target = &flops;
    else if (option == "--latency") target = &latency;
    else if (option == "--bandwidth") target = &bandwidth;
    else if (option == "--claim") target = &claim;
    else if (option == "--result-bytes") target = &result_bytes;
    else if (option == "--json") target = &json_path;
    else if (option == "--profile") target = &profile_path;
    else if (option == "--site") target = &site_text;
    else if (option == "--instance") target = &instance_text;
    else fail("unknown option '" + option + "' (--help lists them)");
    if (i + 1 >= argc) fail(option + " needs a value");
    *target = argv[++i];
  }

  try {
    ss::platform_spec platform;
    if (!speeds.empty()) platform.speeds = ss::parse_speeds(speeds);
    platform.flops = number_of(flops, "--flops");
    platform.latency = ss::parse_seconds(latency, "--latency");
    platform.bandwidth = number_of(bandwidth, "--bandwidth");
    ss::run_spec run;
    run.via = ss::parse_transport(transport);
    run.n = count_of(n_text, "--n", 0);
    run.costs = ss::cost_model::parse(cost, ss::parse_seconds(mean, "--mean"));
    if (!profile_path.empty()) {
      run.costs = costs_from_profile(profile_path, count_of(site_text, "--site", 0), count_of(instance_text, "--instance", 0),
                                     run.n);
    }
    run.claim_seconds = ss::parse_seconds(claim, "--claim");
    run.result_bytes = static_cast<double>(count_of(result_bytes, "--result-bytes", 0));
    run.record_chunks = print_chunks;

    std::vector<long long> worker_counts, master_counts;
    for (const std::string& w : split(workers)) worker_counts.push_back(count_of(w, "--workers", 1));
    for (const std::string& m : split(masters)) master_counts.push_back(count_of(m, "--masters", 1));
    if (run.via == ss::transport::master) master_counts = {1};
    const std::vector<std::string> technique_list = techniques_of(techniques);

    std::ofstream json;
    if (!json_path.empty()) {
      json.open(json_path);
      if (!json) fail("--json: cannot write '" + json_path + "'");
      json << "[\n";
    }
    std::cout << "| workers | technique | transport | masters | makespan (s) | ideal (s) | efficiency | chunks | "
                 "messages | busiest master |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
    const std::size_t total = worker_counts.size() * technique_list.size() * master_counts.size();
    std::size_t done = 0;
    for (long long p : worker_counts)
      for (const std::string& technique : technique_list)
        for (long long m : master_counts) {
          platform.workers = static_cast<int>(p);
          run.technique = technique;
          run.masters = static_cast<int>(m);
          ++done;
          if (total > 1) {
            const std::string node_masters = run.via == ss::transport::hier ? ", " + std::to_string(m) + " masters" : "";
            std::fprintf(stderr, "selfsched-sim: [%zu/%zu] %lld workers, %s, %s%s\n", done, total, p, technique.c_str(),
                         transport.c_str(), node_masters.c_str());
          }
          const ss::result r = ss::simulate(platform, run);
          std::printf("| %lld | %s | %s | %lld | %.6g | %.6g | %.3f | %lld | %lld | %.2f |\n", p, technique.c_str(),
                      transport.c_str(), m, r.makespan, r.ideal, r.efficiency, static_cast<long long>(r.chunks),
                      static_cast<long long>(r.messages), r.master_busy);
          std::fflush(stdout);
          if (print_chunks)
            for (const ss::chunk_record& c : r.chunk_log)
              std::printf("chunk start=%lld size=%lld worker=%d begin=%.9g end=%.9g\n", static_cast<long long>(c.start),
                          static_cast<long long>(c.size), c.ran_on, c.begin, c.end);
          if (json) {
            if (done > 1) json << ",\n";
            json << "  {\"workers\": " << p << ", \"technique\": \"" << technique << "\", \"transport\": \"" << transport
                 << "\", \"masters\": " << m << ", \"n\": " << run.n << ", \"cost\": \"" << cost
                 << "\", \"makespan_s\": " << r.makespan << ", \"ideal_s\": " << r.ideal
                 << ", \"efficiency\": " << r.efficiency << ", \"chunks\": " << r.chunks
                 << ", \"messages\": " << r.messages << ", \"busiest_master\": " << r.master_busy << "}";
          }
        }
    if (json) json << "\n]\n";
  } catch (const ss::sim_error& e) {
    fail(e.what());
  } catch (const std::exception& e) {
    std::cerr << "selfsched-sim: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
