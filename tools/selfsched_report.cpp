// selfsched-report: reads a profile written by libselfsched
// (SELFSCHED_PROFILE=path, SELFSCHED_PROFILE_CHUNKS=1 for the Gantt chart)
// and shows how balanced each loop was.
//
//   selfsched-report profile.json                      # longest instance of every loop site
//   selfsched-report --loop mandelbrot.cpp:57#3 --out charts profile.json
//
// In the terminal: a cluster-mode run's parallel regions (shared or
// replicated, pages and bytes merged, merge time), then per loop the technique, n, p, makespan, imbalance (max /
// mean busy time, coefficient of variation, percent imbalance) and per thread
// its CPU, power, mean run queue, iterations, chunks, busy, scheduling and
// wait times. As SVG files: a Gantt chart of the chunks (one bar per chunk,
// one row per thread, like the seeds' schedule figures) and the busy time of
// each thread.
//
// The SVG is written by hand (svg.hpp, shared with selfsched-sim) rather than through
// gnuplot or matplotlib: the charts are rectangles and text, SVG needs no
// library, and the tool then runs wherever libselfsched does.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "profile_reader.hpp"
#include "selfsched/machine/files.hpp"
#include "svg.hpp"

namespace {

using selfsched::report::chunk_record;
using selfsched::report::loop_record;
using selfsched::report::site_record;
using selfsched::report::thread_record;
using selfsched::tools::number;
using selfsched::tools::row_colour;
using selfsched::tools::svg;
using selfsched::tools::time_axis;

constexpr const char* usage =
    "usage: selfsched-report [--loop SITE[#INSTANCE]]... [--all] [--out DIR] [--no-charts] [--help] [--version]\n"
    "                        profile.json [more.json ...]\n"
    "  several profiles (the ranks of an MPI job: SELFSCHED_PROFILE=p.json writes p.rank<r>.json) are\n"
    "  shown as one: each loop over every rank's threads (R<rank>.T<thread>), on one time line\n"
    "  --loop SITE[#K]  loops whose site (file:line) or function contains SITE: instance K, else the\n"
    "                   longest one (repeatable; default: the longest instance of every site)\n"
    "  --all            every instance kept in the profile\n"
    "  --out DIR        where the SVG charts go (default: PROFILE without .json, plus -charts)\n"
    "  --no-charts      the table only\n";

[[noreturn]] void fail(const std::string& message, int status = 2) {
  std::cerr << "selfsched-report: " << message << '\n';
  std::exit(status);
}

// ------------------------------------------------------------ profile ----

// "T3", or "R1.T0" for a thread of rank 1 in merged profiles.
std::string thread_name(const thread_record& t) {
  return t.rank >= 0 ? "R" + std::to_string(t.rank) + ".T" + std::to_string(t.rank_thread) : "T" + std::to_string(t.thread);
}

std::string row_label(const thread_record& t) {
  return thread_name(t) + " cpu" + std::to_string(t.cpu) + " VP " + number(t.power) + (t.mean_queue ? " Q " + number(*t.mean_queue, 1) : "");
}

// Charts name the site by file name and line only: directories make titles long.
std::string loop_title(const site_record& site, const loop_record& loop) {
  return site.site.substr(site.site.find_last_of('/') + 1) + "  " + loop.technique + "  n=" + std::to_string(loop.n) +
         "  p=" + std::to_string(loop.p) + "  instance " + std::to_string(loop.instance);
}

constexpr double left_margin = 190, right_margin = 30, top_margin = 50, row_height = 26, row_gap = 8;
constexpr double chart_width = 1000;

// One bar per chunk, one row per thread; the number in a bar is its size.
bool gantt_chart(const site_record& site, const loop_record& loop, const std::filesystem::path& path, std::string& why) {
  const std::vector<thread_record>& threads = loop.threads;
  double span = loop.makespan_s;
  for (const chunk_record& c : loop.chunks) span = std::max(span, c.end_s);
  if (span <= 0) span = 1e-9;
  const double plot_bottom = top_margin + static_cast<double>(threads.size()) * (row_height + row_gap);
  svg chart(chart_width, plot_bottom + 50);
  chart.text(left_margin, 22, "Chunks over time: " + loop_title(site, loop), "start", 14);
  chart.text(left_margin, 40, "one bar per chunk (the number is its size); hover for iterations and times", "start",
             11, "#555");
  const double right = chart_width - right_margin, scale = (right - left_margin) / span;
  auto row_of = [&](long long thread) {
    for (std::size_t i = 0; i < threads.size(); ++i)
      if (threads[i].thread == thread) return static_cast<double>(i);
    return 0.0;
  };
  for (const thread_record& t : threads)
    chart.text(left_margin - 8, top_margin + row_of(t.thread) * (row_height + row_gap) + row_height * 0.65,
               row_label(t), "end", 11);
  std::vector<int> seen(threads.size() + 1, 0);
  for (const chunk_record& c : loop.chunks) {
    const long long thread = c.thread;
    const double row = row_of(thread);
    const double begin = c.begin_s, end = c.end_s;
    const long long start = c.start, size = c.size;
    const double x = left_margin + begin * scale, w = (end - begin) * scale;
    const double y = top_margin + row * (row_height + row_gap);
    const bool alternate = seen[static_cast<std::size_t>(row)]++ % 2 == 1;
    chart.rect(x, y, w, row_height, row_colour(static_cast<int>(thread % 360), alternate), "chunk",
               "thread " + std::to_string(thread) + ": iterations " + std::to_string(start) + ".." +
                   std::to_string(start + size - 1) + " (" + std::to_string(size) + "), " + number(begin, 6) +
                   " - " + number(end, 6) + " s");
    const std::string label = std::to_string(size);
    if (w > 7.0 * static_cast<double>(label.size()) + 4)
      chart.text(x + w / 2, y + row_height * 0.65, label, "middle", 10, "white");
  }
  time_axis(chart, left_margin, right, plot_bottom, span);
  return chart.save(path, why);
}

// Busy, scheduling, waiting for other ranks (MPI regions) and wait time of
// each thread, stacked, over the makespan.
bool busy_chart(const site_record& site, const loop_record& loop, const std::filesystem::path& path, std::string& why) {
  const std::vector<thread_record>& threads = loop.threads;
  double span = loop.makespan_s;
  for (const thread_record& t : threads)
    span = std::max(span, t.busy_s + t.scheduling_s + t.ranks_wait_s + std::max(0.0, t.wait_s));
  if (span <= 0) span = 1e-9;
  const double plot_bottom = top_margin + static_cast<double>(threads.size()) * (row_height + row_gap);
  svg chart(chart_width, plot_bottom + 50);
  chart.text(left_margin, 22, "Busy time per thread: " + loop_title(site, loop), "start", 14);
  const double right = chart_width - right_margin, scale = (right - left_margin) / span;
  const struct {
    const char* name;
    const char* colour;
  } parts[] = {{"busy", "#3b6fb6"}, {"scheduling", "#e08a2c"}, {"other ranks", "#8c6bb1"}, {"wait", "#c9c9c9"}};
  for (int i = 0; i < 4; ++i) {
    const double x = left_margin + 150.0 * i;
    chart.rect(x, 32, 12, 12, parts[i].colour);
    chart.text(x + 17, 42, parts[i].name, "start", 11);
  }
  for (std::size_t i = 0; i < threads.size(); ++i) {
    const thread_record& t = threads[i];
    const double y = top_margin + static_cast<double>(i) * (row_height + row_gap);
    chart.text(left_margin - 8, y + row_height * 0.65, row_label(t), "end", 11);
    const double lengths[] = {t.busy_s, t.scheduling_s, t.ranks_wait_s, std::max(0.0, t.wait_s)};
    double x = left_margin;
    for (int k = 0; k < 4; ++k) {
      const double w = lengths[k] * scale;
      chart.rect(x, y, w, row_height, parts[k].colour, parts[k].name,
                 "thread " + std::to_string(t.thread) + " " + parts[k].name + ": " + number(lengths[k], 6) + " s");
      x += w;
    }
  }
  time_axis(chart, left_margin, right, plot_bottom, span);
  return chart.save(path, why);
}

// "examples/mandelbrot.cpp:57" -> "mandelbrot.cpp_57": a file name.
std::string file_stem(const std::string& site) {
  std::string name = site.substr(site.find_last_of('/') == std::string::npos ? 0 : site.find_last_of('/') + 1);
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-') c = '_';
  return name;
}

void print_loop(const loop_record& loop) {
  std::printf("  instance %lld  %s  n=%lld  p=%lld  makespan %.6f s  imbalance max/mean %.3f  CoV %.3f  %.1f %%  "
              "scheduling %.6f s\n",
              loop.instance, loop.technique.c_str(), loop.n, loop.p, loop.makespan_s, loop.max_over_mean, loop.cov,
              loop.percent_imbalance, loop.scheduling_s);
  if (loop.left_to_runtime)
    std::printf("  (left to the runtime: busy is each thread's time in the loop, its chunks and the runtime's "
                "claims; iterations and chunks are not seen)\n");
  // MPI regions: time in claims spent waiting for other ranks, a column of its own.
  const bool ranks = std::any_of(loop.threads.begin(), loop.threads.end(), [](auto& t) { return t.ranks_wait_s > 0; });
  std::printf("  %7s %4s %6s %6s %12s %7s %10s %10s %10s%s\n", "thread", "cpu", "power", "mean Q", "iterations",
              "chunks", "busy s", "sched s", "wait s", ranks ? "    ranks s" : "");
  for (const thread_record& t : loop.threads) {
    const std::string queue = t.mean_queue ? number(*t.mean_queue, 2) : "-";  // not read: not a weighted technique
    std::printf("  %7s %4lld %6.3f %6s %12lld %7lld %10.6f %10.6f %10.6f", thread_name(t).c_str(), t.cpu, t.power,
                queue.c_str(), t.iterations, t.chunks, t.busy_s, t.scheduling_s, t.wait_s);
    if (ranks) std::printf(" %10.6f", t.ranks_wait_s);
    std::printf("\n");
  }
}

struct selection {
  std::string site;        // substring of site or function
  long long instance = -1; // -1: the longest
};

struct options {
  std::vector<selection> wanted;
  bool all = false, charts = true;
  std::vector<std::string> profile_paths;
  std::string out_dir;
};

// --loop SITE[#K].
selection parse_selection(const std::string& text) {
  selection s{text, -1};
  if (const auto hash = text.rfind('#'); hash != std::string::npos) {
    s.site = text.substr(0, hash);
    const std::string_view k = std::string_view(text).substr(hash + 1);
    const auto [end, ec] = std::from_chars(k.data(), k.data() + k.size(), s.instance);
    if (ec != std::errc{} || end != k.data() + k.size() || s.instance < 0)
      fail("--loop '" + text + "': the instance after # is not an integer >= 0");
  }
  return s;
}

// The command line; none when it asked for --help or --version (answered).
std::optional<options> parse_options(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view option = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) fail(std::string(option) + " needs a value\n" + usage);
      return argv[++i];
    };
    if (option == "--loop") o.wanted.push_back(parse_selection(value()));
    else if (option == "--all") o.all = true;
    else if (option == "--out") o.out_dir = value();
    else if (option == "--no-charts") o.charts = false;
    else if (option == "--help" || option == "-h") return std::cout << usage, std::nullopt;
    else if (option == "--version") return std::cout << "selfsched-report " SELFSCHED_VERSION "\n", std::nullopt;
    else if (!option.empty() && option[0] == '-')
      fail("unknown option '" + std::string(option) + "'; valid: --loop, --all, --out, --no-charts, --help, --version");
    else o.profile_paths.emplace_back(option);
  }
  if (o.profile_paths.empty()) fail(std::string("no profile given\n") + usage);
  return o;
}

std::vector<selfsched::report::profile> read_profiles(const std::vector<std::string>& paths) {
  std::vector<selfsched::report::profile> profiles;
  for (const std::string& path : paths) {
    std::string why;
    const std::optional<nlohmann::json> document = selfsched::omp::read_json_file(path, why);
    if (!document) fail(why + "; expected a profile written with SELFSCHED_PROFILE=path");
    std::optional<selfsched::report::profile> read = selfsched::report::parse_profile(*document, why);
    if (!read) fail(path + " is not a selfsched profile: " + why);
    profiles.push_back(std::move(*read));
  }
  return profiles;
}

// A line per profile read: where its powers came from, and with several
// (an MPI job's ranks) whose rank it is.
void print_sources(const std::vector<std::string>& paths, const std::vector<selfsched::report::profile>& profiles) {
  for (std::size_t k = 0; k < paths.size(); ++k) {
    const selfsched::report::profile& one = profiles[k];
    std::printf("%s: VP from %s", paths[k].c_str(), one.powers_from.c_str());
    if (profiles.size() > 1)
      std::printf(", rank %lld%s%s", one.rank >= 0 ? one.rank : static_cast<long long>(k),
                  one.rank >= 0 ? "" : " (its place: the profile names none)",
                  one.host.empty() ? "" : (", host " + one.host + ", pid " + std::to_string(one.pid)).c_str());
    std::printf("\n");
  }
  if (profiles.size() > 1)
    std::printf("merged: each loop over every rank's threads (R<rank>.T<thread>); 'ranks s': claims waiting for "
                "other ranks\n");
}

// Cluster mode: per parallel region, shared or replicated and what its
// merges moved, from each rank's profile (ranks' merges differ).
void print_cluster(const std::string& path, const selfsched::report::cluster_record& c) {
  std::printf("\n%s: cluster mode, rank %lld of %lld; writes found by %s", path.c_str(), c.rank, c.ranks,
              c.write_tracking.c_str());
  if (c.hot_page_windows > 0) std::printf("; an unchanged page is protected again after %lld merges", c.hot_page_windows);
  std::printf("\n  %-10s %6s %10s %9s %6s %8s %12s %9s  %s\n", "next run", "shared", "replicated", "unchecked",
              "merges", "pages", "bytes", "merge s", "parallel region");
  for (const selfsched::report::cluster_region_record& r : c.regions) {
    std::printf("  %-10s %6lld %10lld %9lld %6lld %8lld %12lld %9.6f  %s\n", r.next_run.c_str(), r.runs_shared,
                r.runs_replicated, r.runs_unchecked, r.merges, r.pages_sent, r.bytes_sent, r.merge_s, r.region.c_str());
    if (!r.unshareable_because.empty()) std::printf("    replicated because %s\n", r.unshareable_because.c_str());
  }
}

// Which instances of a site to show: every one (--all), those --loop names,
// else the longest.
std::vector<const loop_record*> chosen_instances(const site_record& site, const options& o) {
  const std::vector<loop_record>& loops = site.loops;
  std::vector<const loop_record*> chosen;
  const auto longest = [&] {
    const loop_record* best = &loops[0];
    for (const loop_record& l : loops)
      if (l.makespan_s > best->makespan_s) best = &l;
    return best;
  };
  if (o.all) {
    for (const loop_record& l : loops) chosen.push_back(&l);
  } else if (o.wanted.empty()) {
    chosen.push_back(longest());
  } else {
    for (const selection& s : o.wanted) {
      if (site.site.find(s.site) == std::string::npos && site.function.find(s.site) == std::string::npos) continue;
      if (s.instance < 0) chosen.push_back(longest());
      for (const loop_record& l : loops)
        if (s.instance >= 0 && l.instance == s.instance) chosen.push_back(&l);
    }
  }
  return chosen;
}

// A loop's busy chart, and its Gantt chart when the profile has its chunks.
void write_charts(const site_record& site, const loop_record& loop, const std::string& out_dir) {
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  if (ec) fail("cannot create --out '" + out_dir + "': " + ec.message(), 1);
  const std::string stem = file_stem(site.site) + "-i" + std::to_string(loop.instance);
  const std::filesystem::path busy = std::filesystem::path(out_dir) / (stem + "-busy.svg");
  std::string why;
  if (!busy_chart(site, loop, busy, why)) fail(why, 1);
  std::string written = busy.string();
  if (loop.has_chunks) {
    const std::filesystem::path gantt = std::filesystem::path(out_dir) / (stem + "-gantt.svg");
    if (!gantt_chart(site, loop, gantt, why)) fail(why, 1);
    written = gantt.string() + " " + written;
  } else {
    written += " (no Gantt chart: run with SELFSCHED_PROFILE_CHUNKS=1)";
  }
  std::printf("  charts: %s\n", written.c_str());
}

}  // namespace

static int report(int argc, char** argv) {
  std::optional<options> parsed = parse_options(argc, argv);
  if (!parsed) return 0;
  options& o = *parsed;
  std::vector<selfsched::report::profile> profiles = read_profiles(o.profile_paths);
  print_sources(o.profile_paths, profiles);
  for (std::size_t k = 0; k < profiles.size(); ++k)
    if (profiles[k].cluster) print_cluster(o.profile_paths[k], *profiles[k].cluster);
  const std::optional<selfsched::report::profile> profile =
      profiles.size() == 1 ? std::move(profiles.front()) : selfsched::report::merge_profiles(profiles);
  if (o.out_dir.empty()) {
    std::filesystem::path p(o.profile_paths.front());
    o.out_dir = (p.parent_path() / (p.stem().string() + (profiles.size() > 1 ? "-merged" : "") + "-charts")).string();
  }
  int shown = 0;
  for (const site_record& site : profile->sites) {
    if (site.loops.empty()) continue;
    const std::vector<const loop_record*> chosen = chosen_instances(site, o);
    if (chosen.empty()) continue;
    std::printf("\n%s%s%s: %lld instance(s), mean makespan %.6f s\n", site.site.c_str(),
                site.function.empty() ? "" : " in ", site.function.c_str(), site.instances, site.mean_makespan_s);
    for (const loop_record* loop : chosen) {
      print_loop(*loop);
      ++shown;
      if (o.charts) write_charts(site, *loop, o.out_dir);
    }
  }
  if (shown == 0) fail(o.wanted.empty() ? "the profile holds no loop" : "no loop matches --loop", 1);
  return 0;
}

// No exception leaves the tool: whatever escapes is one line and status 2.
int main(int argc, char** argv) {
  try {
    return report(argc, argv);
  } catch (const std::exception& e) {
    fail(e.what());
  }
}
