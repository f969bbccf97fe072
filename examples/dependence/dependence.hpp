// What the dependence-loop examples share beyond ../common.hpp: the way a
// loop is run (--mode serial|doacross|wavefront), the wavefront options, and
// the one-line result. Unlike the other examples these know selfsched: their
// wavefront form calls selfsched/wavefront.hpp (their doacross form is plain
// OpenMP, served by libomp or, under a selfsched OMP_SCHEDULE, by selfsched).
#pragma once

#include <omp.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "../common.hpp"
#include "selfsched/wavefront.hpp"

namespace dependence {

// The wavefront's options on the command line: of the threads' programs,
// or (across_ranks) of the hybrid ones in ../mpi/, where the technique is
// the threads' and the thresholds bound the ranks' chunks.
struct wavefront_choice {
  std::string technique;  // "" : the runtime technique if any (threads), else s-fss
  std::int64_t sync_points = 0;
  std::int64_t min_chunk = 0, max_chunk = 0;

  void add_to(example::command_line& cli, bool across_ranks = false) {
    cli.option("technique", technique, "NAME",
               across_ranks ? "technique of each rank's threads, e.g. s-fss, sw-gss (default s-fss)"
                            : "wavefront technique, e.g. s-fss, sw-gss (default: the runtime technique, else s-fss)");
    cli.option("sync-points", sync_points, 0,
               across_ranks ? "#SP per chunk (0: 3 x ranks x threads)"
                            : "wavefront #SP per chunk (0: SELFSCHED_SYNC_POINTS, else 3 x threads)");
    cli.option("min-chunk", min_chunk, 0,
               across_ranks ? "lower threshold on the ranks' chunks (0: 1)" : "wavefront lower threshold on chunks (0: 1)");
    cli.option("max-chunk", max_chunk, 0,
               across_ranks ? "upper threshold on the ranks' chunks (0: none)"
                            : "wavefront upper threshold on chunks (0: none)");
  }

  selfsched::wavefront_options wavefront() const {
    selfsched::wavefront_options o;
    o.technique = technique;
    o.sync_points = sync_points;
    o.min_chunk = min_chunk;
    o.max_chunk = max_chunk;
    return o;
  }
};

struct run_options : wavefront_choice {
  std::string mode = "wavefront";
  bool verify = false;

  void add_to(example::command_line& cli) {
    cli.choice("mode", mode, {"serial", "doacross", "wavefront"},
               "serial loop; OpenMP doacross (ordered(n) + depend, schedule(runtime)); selfsched wavefront API");
    wavefront_choice::add_to(cli);
    cli.flag("verify", verify, "also run the serial loop and compare the results bit for bit");
  }
};

// Runs the computation and returns its wall time. A wavefront_error (a bad
// --technique or threshold) is a usage error: one message, exit 2.
template <typename Run>
double timed_run(const example::command_line& cli, Run run) {
  const double start = example::now_seconds();
  try {
    run();
  } catch (const selfsched::wavefront_error& e) {
    cli.fail(e.what());
  }
  return example::now_seconds() - start;
}

// --sinks, for a loop whose doacross sinks reach outside the iteration
// space as written; `as_written` names them.
inline void sinks_option(example::command_line& cli, std::string& sinks, const std::string& as_written) {
  const std::string help = "doacross sinks: only inside the space (runs on stock libomp), or as written" + as_written +
         " (waits forever on stock libomp's schedules; selfsched's serve it)";
  cli.choice("sinks", sinks, {"guarded", "plain"}, help.c_str());
}

// Runs a kernel of one loop form (serial(), doacross(plain sinks),
// wavefront(options)) in the --mode asked; returns its wall time.
template <typename Kernel>
double run_mode(const example::command_line& cli, const run_options& run, Kernel& kernel, bool plain_sinks,
                selfsched::wavefront_report& report) {
  return timed_run(cli, [&] {
    if (run.mode == "serial") kernel.serial();
    else if (run.mode == "doacross") kernel.doacross(plain_sinks);
    else report = kernel.wavefront(run.wavefront());
  });
}

// Bit for bit, as --verify compares a result with the serial loop's.
inline bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

// key=value fields on one line, ending in ok=1 or ok=0 (exit 0 or 1).
class result_line {
 public:
  explicit result_line(std::string app) : app_(std::move(app)), line_("app=" + app_) {}

  template <typename T> void add(const std::string& key, const T& value) {
    line_ += ' ' + key + '=';
    if constexpr (std::is_convertible_v<T, std::string>) line_ += std::string(value);
    else line_ += std::to_string(value);
  }

  void add_wavefront(const selfsched::wavefront_report& r) {
    add("technique", std::string(r.technique));
    add("sync_dim", r.sync_dim);
    add("chunk_dim", r.chunk_dim);
    add("skew", r.skew);
    add("sync_points", r.sync_points);
    add("sync_interval", r.sync_interval);
    add("chunks", r.chunks);
    add("wait_s", example::loop_monitor::fixed(r.wait_seconds));
  }

  int finish(const std::string& mode, double seconds, const example::checksum& sum, bool verified, bool same) {
    add("mode", mode);
    add("threads", omp_get_max_threads());
    if (mode == "doacross") add("schedule", env_or("OMP_SCHEDULE", "default"));
    if (const std::string t = env_or("SELFSCHED_SCHEDULE", ""); !t.empty()) add("selfsched_schedule", t);
    add("time_s", example::loop_monitor::fixed(seconds));
    add("checksum", sum.hex());
    if (verified) add("serial_equal", same ? 1 : 0);
    const bool ok = !verified || same;
    add("ok", ok ? 1 : 0);
    if (!ok) std::cerr << app_ << ": self-check failed: the result differs from the serial loop\n";
    std::cout << line_ << std::endl;
    return ok ? 0 : 1;
  }

 private:
  static std::string env_or(const char* name, const char* fallback) {
    const char* value = std::getenv(name);
    std::string text = value != nullptr && *value != '\0' ? value : fallback;
    std::erase_if(text, [](char c) { return c == ' ' || c == '\t'; });
    return text;
  }

  std::string app_, line_;
};

}  // namespace dependence
