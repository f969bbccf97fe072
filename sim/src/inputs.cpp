// The simulator's inputs: iteration-cost models, speeds, durations, and
// their checks (sim.hpp).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <numeric>
#include <sstream>

#include "selfsched/core/scheduler.hpp"
#include "selfsched/core/spec.hpp"
#include "selfsched/sim.hpp"

#include "inputs.hpp"

namespace selfsched::sim {
namespace {

std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

const char* const cost_names = "uniform, increasing, decreasing, random, mandelbrot, mandelbrot-rows, adjoint, quicksort";

bool parse_number(const std::string& text, double& out) {
  if (text.empty()) return false;
  char* end = nullptr;
  out = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size() && std::isfinite(out);
}

// Escape counts of line `line` of [-2,2]^2 at n x n (a column, or a row),
// on 64 sampled points across it (at most 512 iterations each): the shape
// of the profile, not its detail.
double mandelbrot_line(iter_t line, iter_t n, bool rows_of_image) {
  constexpr int samples = 64, max_iter = 512;
  const double along = -2.0 + 4.0 * (static_cast<double>(line) + 0.5) / static_cast<double>(n);
  double total = 0;
  for (int r = 0; r < samples; ++r) {
    const double across = -2.0 + 4.0 * (r + 0.5) / samples;
    const double cx = rows_of_image ? across : along, cy = rows_of_image ? along : across;
    double x = 0, y = 0;
    int k = 0;
    for (; k < max_iter && x * x + y * y <= 4.0; ++k) {
      const double t = x * x - y * y + cx;
      y = 2 * x * y + cy;
      x = t;
    }
    total += k + 1;  // a pixel costs at least its setup
  }
  return total;
}

}  // namespace

cost_model cost_model::parse(const std::string& name, double mean, std::uint64_t seed) {
  static const std::vector<std::string> names{"uniform",    "increasing",      "decreasing", "random",
                                              "mandelbrot", "mandelbrot-rows", "adjoint",    "quicksort"};
  if (std::find(names.begin(), names.end(), name) == names.end())
    throw sim_error("unknown cost model '" + name + "'; valid: " + cost_names);
  if (!(mean > 0) || !std::isfinite(mean))
    throw sim_error("mean iteration cost " + std::to_string(mean) + " must be a positive number of seconds");
  cost_model m;
  m.name_ = name;
  m.mean_ = mean;
  m.seed_ = seed;
  return m;
}

cost_model cost_model::measured(const std::string& name, std::vector<double> costs) {
  if (costs.empty()) throw sim_error("measured costs '" + name + "': no iteration");
  double sum = 0;
  for (double c : costs) {
    if (!(c >= 0) || !std::isfinite(c)) throw sim_error("measured costs '" + name + "': an iteration of " +
                                                         std::to_string(c) + " s (costs must be finite and >= 0)");
    sum += c;
  }
  cost_model m;
  m.name_ = name;
  m.mean_ = sum / static_cast<double>(costs.size());
  m.measured_ = std::move(costs);
  return m;
}

std::vector<double> cost_model::costs(iter_t n) const {
  if (!measured_.empty()) {
    if (n != static_cast<iter_t>(measured_.size()))
      throw sim_error("measured costs '" + name_ + "' have " + std::to_string(measured_.size()) +
                      " iterations, the loop " + std::to_string(n));
    return measured_;
  }
  std::vector<double> c(static_cast<std::size_t>(std::max<iter_t>(n, 0)));
  const double nn = static_cast<double>(n);
  for (iter_t i = 0; i < n; ++i) {
    const double x = static_cast<double>(i);
    double v = 1;
    if (name_ == "increasing") v = x + 1;
    else if (name_ == "decreasing" || name_ == "adjoint") v = nn - x;
    else if (name_ == "random") v = 0.5 + static_cast<double>(mix(seed_ * 1'000'003 + static_cast<std::uint64_t>(i)) >> 11) * 0x1.0p-53;
    else if (name_ == "mandelbrot") v = mandelbrot_line(i, n, false);
    else if (name_ == "mandelbrot-rows") v = mandelbrot_line(i, n, true);
    else if (name_ == "quicksort") {  // rows of uniform length in [1, 3000], sorted: L log L
      const double length = 1 + static_cast<double>(mix(seed_ * 7'919 + static_cast<std::uint64_t>(i)) % 3000);
      v = length * std::log2(length + 1);
    }
    c[static_cast<std::size_t>(i)] = v;
  }
  const double sum = std::accumulate(c.begin(), c.end(), 0.0);
  if (sum > 0)
    for (double& v : c) v *= mean_ * nn / sum;
  return c;
}

std::vector<double> parse_speeds(const std::string& text, const char* what) {
  std::vector<double> speeds;
  std::size_t from = 0;
  while (from <= text.size()) {
    const std::size_t colon = text.find(':', from);
    const std::string item = text.substr(from, colon == std::string::npos ? std::string::npos : colon - from);
    double v = 0;
    if (!parse_number(item, v) || !(v > 0))
      throw sim_error(std::string(what) + " '" + text + "': '" + item + "' is not a positive number (e.g. 1:0.5)");
    speeds.push_back(v);
    if (colon == std::string::npos) break;
    from = colon + 1;
  }
  return speeds;
}

namespace {

std::vector<std::string> colon_fields(const std::string& text) {
  std::vector<std::string> parts;
  std::size_t from = 0;
  for (;;) {
    const std::size_t colon = text.find(':', from);
    parts.push_back(text.substr(from, colon == std::string::npos ? std::string::npos : colon - from));
    if (colon == std::string::npos) return parts;
    from = colon + 1;
  }
}

// Recorded time slices: a "BEGIN END" line each, '#' to the line's end a
// comment; their order is checked with the platform (validate).
std::vector<std::pair<double, double>> read_slices(const std::string& path, const std::string& form) {
  std::ifstream in(path);
  if (!in) throw sim_error(form + "cannot read '" + path + "' (WORKER:FILE, or WORKER:ON:OFF[:START])");
  std::vector<std::pair<double, double>> slices;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    std::istringstream fields(line.substr(0, line.find('#')));
    std::string begin, end, extra;
    if (!(fields >> begin)) continue;
    const std::string where = form + path + ":" + std::to_string(number) + ": ";
    if (!(fields >> end) || (fields >> extra)) throw sim_error(where + "expected BEGIN END (seconds), e.g. 0.004 0.0075");
    slices.emplace_back(parse_seconds(begin, where + "BEGIN"), parse_seconds(end, where + "END"));
  }
  if (slices.empty()) throw sim_error(form + "'" + path + "' lists no slice");
  return slices;
}

// A worker number as its option's WORKER field; `form` starts the message.
int worker_of(const std::string& field, const std::string& form) {
  double worker = 0;
  if (!parse_number(field, worker) || worker < 0 || worker != std::floor(worker) || worker > 1e6)
    throw sim_error(form + "'" + field + "' is not a worker number");
  return static_cast<int>(worker);
}

}  // namespace

slowdown parse_slowdown(const std::string& text) {
  const std::vector<std::string> parts = colon_fields(text);
  const std::string form = "slowdown '" + text + "': ";
  if (parts.size() != 4) throw sim_error(form + "expected WORKER:FACTOR:FROM:UNTIL, e.g. 3:0.25:0.5:1");
  slowdown d;
  d.worker = worker_of(parts[0], form);
  if (!parse_number(parts[1], d.factor) || !(d.factor > 0) || d.factor > 1)
    throw sim_error(form + "'" + parts[1] + "' is not a factor in (0, 1]");
  d.from = parse_seconds(parts[2], form + "FROM");
  d.until = parse_seconds(parts[3], form + "UNTIL");
  if (!(d.until > d.from)) throw sim_error(form + "UNTIL must come after FROM");
  return d;
}

namespace {

// "WORKER:TIME" of --lose and --late; `kind` names the option's value.
std::pair<int, double> parse_worker_time(const std::string& text, const std::string& kind) {
  const std::size_t colon = text.find(':');
  const std::string form = kind + " '" + text + "': ";
  if (colon == std::string::npos) throw sim_error(form + "expected WORKER:TIME, e.g. 3:20ms");
  return {worker_of(text.substr(0, colon), form), parse_seconds(text.substr(colon + 1), form + "TIME")};
}

}  // namespace

loss parse_loss(const std::string& text) {
  const auto [worker, at] = parse_worker_time(text, "loss");
  return loss{worker, at};
}

late_start parse_late_start(const std::string& text) {
  const auto [worker, after] = parse_worker_time(text, "late start");
  return late_start{worker, after};
}

time_share parse_time_share(const std::string& text) {
  const std::vector<std::string> parts = colon_fields(text);
  const std::string form = "time share '" + text + "': ";
  if (parts.size() < 2 || parts.size() > 4)
    throw sim_error(form + "expected WORKER:ON:OFF[:START], e.g. 1:4ms:4ms, or WORKER:FILE");
  time_share t;
  t.worker = worker_of(parts[0], form);
  if (parts.size() == 2) {
    t.slices = read_slices(parts[1], form);
    return t;
  }
  t.on = parse_seconds(parts[1], form + "ON");
  t.off = parse_seconds(parts[2], form + "OFF");
  // A negative START: the loop begins -START into a slice.
  if (parts.size() == 4)
    t.start = parts[3].starts_with('-') ? -parse_seconds(parts[3].substr(1), form + "START")
                                        : parse_seconds(parts[3], form + "START");
  return t;
}

double parse_seconds(const std::string& text, const std::string& what) {
  static const std::pair<const char*, double> units[] = {{"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1.0}};
  for (const auto& [suffix, scale] : units) {
    const std::string s(suffix);
    if (text.size() > s.size() && text.compare(text.size() - s.size(), s.size(), s) == 0) {
      double v = 0;
      if (parse_number(text.substr(0, text.size() - s.size()), v) && v >= 0) return v * scale;
      throw sim_error(what + " '" + text + "' is not a duration >= 0 (e.g. 2us, 1.5ms, 0.002)");
    }
  }
  double v = 0;
  if (parse_number(text, v) && v >= 0) return v;
  throw sim_error(what + " '" + text + "' is not a duration >= 0 (e.g. 2us, 1.5ms, 0.002)");
}

namespace {
constexpr std::pair<const char*, transport> transports[] = {
    {"master", transport::master}, {"rma", transport::rma}, {"hier", transport::hier}};
}

transport parse_transport(const std::string& name) {
  for (const auto& [text, t] : transports)
    if (name == text) return t;
  throw sim_error("unknown transport '" + name + "'; valid: master, rma, hier");
}

const char* transport_name(transport t) {
  for (const auto& [text, value] : transports)
    if (value == t) return text;
  return "?";
}

void detail::check_named_workers(const platform_spec& platform, int workers) {
  const auto check = [workers](const char* what, int worker) {
    if (worker < 0 || (workers >= 0 && worker >= workers))
      throw sim_error(std::string(what) + " of worker " + std::to_string(worker) + ": workers are 0 .. " +
                      std::to_string(workers - 1));
  };
  for (const slowdown& d : platform.slowdowns) check("slowdown", d.worker);
  for (const loss& l : platform.losses) check("loss", l.worker);
  for (const late_start& l : platform.late_starts) check("late start", l.worker);
  for (const time_share& t : platform.time_shares) check("time share", t.worker);
}

void detail::check_slices(const time_share& t, const std::string& form) {
  if (t.slices.empty() && (!(t.on > 0) || !(t.off >= 0) || !std::isfinite(t.on + t.off)))
    throw sim_error(form + "ON must be > 0 and OFF >= 0");
  if (t.slices.empty() && !(t.start > -t.on && t.start <= t.off)) throw sim_error(form + "START must be in (-ON, OFF]");
  for (std::size_t i = 0; i < t.slices.size(); ++i) {
    const auto [begin, end] = t.slices[i];
    const double earliest = i == 0 ? 0 : t.slices[i - 1].second;
    if (!(begin >= earliest && end > begin && std::isfinite(end)))
      throw sim_error(form + "slice " + std::to_string(i + 1) + " [" + std::to_string(begin) + ", " +
                      std::to_string(end) + ") must begin at or after " + std::to_string(earliest) +
                      " (0 or the slice before's end) and end after it begins");
  }
}

void validate(const platform_spec& platform, const run_spec& run) {
  // With a platform file, its hosts decide the workers: checked once loaded.
  const bool from_file = !platform.xml.empty();
  if (!from_file && (platform.workers < 1 || platform.workers > 1'000'000))
    throw sim_error("workers " + std::to_string(platform.workers) + " must be in [1, 1000000]");
  for (double s : platform.speeds)
    if (!(s > 0) || !std::isfinite(s)) throw sim_error("a speed of " + std::to_string(s) + ": speeds must be > 0");
  for (double s : platform.powers)
    if (!(s > 0) || !std::isfinite(s)) throw sim_error("a power of " + std::to_string(s) + ": powers must be > 0");
  if (!(platform.flops > 0) || !std::isfinite(platform.flops))
    throw sim_error("flops " + std::to_string(platform.flops) + " must be > 0");
  if (!(platform.latency >= 0) || !std::isfinite(platform.latency))
    throw sim_error("latency " + std::to_string(platform.latency) + " must be >= 0 seconds");
  detail::check_named_workers(platform, from_file ? -1 : platform.workers);
  if (!platform.losses.empty() && run.via == transport::rma)
    throw sim_error("a lost worker needs the master or hier transport (rma does not run chunks again)");
  if (!platform.losses.empty() && platform.losses.size() >= static_cast<std::size_t>(platform.workers) && !from_file)
    throw sim_error("every worker is lost: nobody is left to finish the loop");
  for (const time_share& t : platform.time_shares) {
    const std::string form = "time share of worker " + std::to_string(t.worker) + ": ";
    detail::check_slices(t, form);
    const auto same = [&](const auto& other) { return other.worker == t.worker; };
    if (std::count_if(platform.time_shares.begin(), platform.time_shares.end(), same) > 1 ||
        std::any_of(platform.slowdowns.begin(), platform.slowdowns.end(), same))
      throw sim_error(form + "a worker has one time share and no slowdown beside it");
  }
  if (!(platform.memory_share >= 0 && platform.memory_share <= 1))
    throw sim_error("memory share " + std::to_string(platform.memory_share) +
                    " must be in [0, 1] (0: iterations compute only)");
  if (platform.workers_per_node < 1)
    throw sim_error("workers per node " + std::to_string(platform.workers_per_node) + " must be >= 1");
  if (!(platform.bandwidth > 0) || !std::isfinite(platform.bandwidth))
    throw sim_error("bandwidth " + std::to_string(platform.bandwidth) + " must be > 0 bytes/s");
  if (run.n < 0 || run.n > 100'000'000) throw sim_error("n " + std::to_string(run.n) + " must be in [0, 1e8]");
  const parse_result parsed = parse_schedule(run.technique);
  if (!parsed.ok()) throw sim_error("technique: " + parsed.error);
  if (run.via == transport::hier && (run.masters < 1 || (!from_file && run.masters > platform.workers)))
    throw sim_error("masters " + std::to_string(run.masters) + " must be in [1, workers = " +
                    std::to_string(platform.workers) + "]");
  if (run.threads < 1 || run.threads > 1024)
    throw sim_error("threads " + std::to_string(run.threads) + " must be in [1, 1024]");
  if (const parse_result inner = parse_schedule(run.inner_technique); !inner.ok())
    throw sim_error("inner technique: " + inner.error);
  if (!(run.inner_claim_seconds >= 0)) throw sim_error("the inner claim time must be >= 0");
  if (run.via == transport::rma && !is_fixed(parsed.spec))
    throw sim_error("rma needs a fixed technique (chunks that depend on n and the worker count only); '" +
                    run.technique + "' is not: use master or hier");
  if (!(run.claim_seconds >= 0) || !(run.atomic_seconds >= 0) || !(run.request_bytes >= 0) ||
      !(run.result_bytes >= 0) || !(run.boundary_bytes >= 0))
    throw sim_error("claim and atomic times, request, result and boundary sizes must be >= 0");
  if (!(run.merge_bytes >= 0) || !std::isfinite(run.merge_bytes) || !(run.merge_page_seconds >= 0) ||
      !std::isfinite(run.merge_page_seconds))
    throw sim_error("merge bytes (" + std::to_string(run.merge_bytes) + ") and merge time per page (" +
                    std::to_string(run.merge_page_seconds) + " s) must be finite and >= 0");
  if (run.rows < 0 || run.rows > 100'000'000) throw sim_error("rows " + std::to_string(run.rows) + " must be in [0, 1e8]");
  if (run.max_chunk < 0) throw sim_error("max chunk " + std::to_string(run.max_chunk) + " must be >= 0 (0: none)");
  if (run.sync_points < 0) throw sim_error("sync points " + std::to_string(run.sync_points) + " must be >= 0 (0: 3 x workers)");
  if (run.rows > 0) {
    if (!parsed.spec.synchronized)
      throw sim_error("a dependence loop (rows > 0) needs mechanism S: an s-* or sw-* technique, not '" +
                      run.technique + "'");
    if (!platform.losses.empty()) throw sim_error("a dependence loop runs with no worker lost");
  }
}

}  // namespace selfsched::sim
