#include "profile_reader.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace selfsched::report {
namespace {

using nlohmann::json;

struct bad_field {
  std::string message;
};

// The value at `path`, as one short phrase for a message.
std::string shown(const json& value) {
  std::string text = value.dump();
  return text.size() > 40 ? text.substr(0, 37) + "..." : text;
}

// One JSON object of the profile, at `path`: its fields read with checks.
class object_reader {
 public:
  object_reader(const json& value, std::string path) : value_(value), path_(std::move(path)) {
    if (!value_.is_object()) throw bad_field{where() + "expected an object, got " + shown(value_)};
  }

  long long integer(const char* name, long long lowest, long long fallback = 0, bool required = true) const {
    const json* field = find(name, required);
    if (field == nullptr) return fallback;
    if (!field->is_number_integer() || (field->is_number_unsigned() && field->get<unsigned long long>() >
                                                                           static_cast<unsigned long long>(
                                                                               std::numeric_limits<long long>::max())))
      throw bad_field{where(name) + "expected an integer >= " + std::to_string(lowest) + ", got " + shown(*field)};
    const long long x = field->get<long long>();
    if (x < lowest)
      throw bad_field{where(name) + "expected an integer >= " + std::to_string(lowest) + ", got " + shown(*field)};
    return x;
  }

  // A finite number, >= 0 unless `signed_ok`.
  double real(const char* name, double fallback, bool signed_ok = false, bool required = true) const {
    const json* field = find(name, required);
    if (field == nullptr) return fallback;
    const char* expected = signed_ok ? "expected a finite number, got " : "expected a finite number >= 0, got ";
    if (!field->is_number()) throw bad_field{where(name) + expected + shown(*field)};
    const double x = field->get<double>();
    if (!std::isfinite(x) || (!signed_ok && x < 0)) throw bad_field{where(name) + expected + shown(*field)};
    return x;
  }

  std::string text(const char* name, const char* fallback, bool required = true) const {
    const json* field = find(name, required);
    if (field == nullptr) return fallback;
    if (!field->is_string()) throw bad_field{where(name) + "expected a string, got " + shown(*field)};
    return field->get<std::string>();
  }

  // The array `name` (nullptr when absent and not required).
  const json* array(const char* name, bool required = true) const {
    const json* field = find(name, required);
    if (field != nullptr && !field->is_array()) throw bad_field{where(name) + "expected an array, got " + shown(*field)};
    return field;
  }

  std::string child(const char* name, std::size_t index) const {
    return (path_.empty() ? "" : path_ + ".") + name + "[" + std::to_string(index) + "]";
  }

 private:
  const json* find(const char* name, bool required) const {
    const auto it = value_.find(name);
    if (it != value_.end()) return &*it;
    if (required) throw bad_field{where(name) + "missing"};
    return nullptr;
  }
  std::string where(const char* name = nullptr) const {
    std::string at = path_;
    if (name != nullptr) at += (at.empty() ? "" : ".") + std::string(name);
    return at.empty() ? "" : at + ": ";
  }

  const json& value_;
  std::string path_;
};

thread_record read_thread(const json& value, const std::string& path) {
  const object_reader r(value, path);
  thread_record t;
  t.thread = r.integer("thread", 0);
  t.cpu = r.integer("cpu", -1);
  t.power = r.real("power", 1);
  t.mean_queue = r.real("mean_queue", 1);
  t.iterations = r.integer("iterations", 0);
  t.chunks = r.integer("chunks", 0);
  t.busy_s = r.real("busy_s", 0);
  t.scheduling_s = r.real("scheduling_s", 0);
  t.wait_s = r.real("wait_s", 0, /*signed_ok=*/true);
  return t;
}

chunk_record read_chunk(const json& value, const std::string& path) {
  const object_reader r(value, path);
  chunk_record c;
  c.thread = r.integer("thread", 0);
  c.start = r.integer("start", 0);
  c.size = r.integer("size", 0);
  if (c.size > std::numeric_limits<long long>::max() - c.start)
    throw bad_field{path + ": start + size overflows"};
  c.begin_s = r.real("begin_s", 0);
  c.end_s = r.real("end_s", 0);
  if (c.end_s < c.begin_s) throw bad_field{path + ": ends (end_s) before it begins (begin_s)"};
  return c;
}

loop_record read_loop(const json& value, const std::string& path) {
  const object_reader r(value, path);
  loop_record l;
  l.instance = r.integer("instance", 0);
  l.technique = r.text("technique", "?");
  l.n = r.integer("n", 0);
  l.p = r.integer("p", 1);
  l.makespan_s = r.real("makespan_s", 0);
  l.max_over_mean = r.real("imbalance_max_over_mean", 1);
  l.cov = r.real("imbalance_cov", 0);
  l.percent_imbalance = r.real("imbalance_percent", 0, /*signed_ok=*/true);
  l.scheduling_s = r.real("scheduling_overhead_s", 0);
  const json& threads = *r.array("threads");
  for (std::size_t i = 0; i < threads.size(); ++i) l.threads.push_back(read_thread(threads[i], r.child("threads", i)));
  std::sort(l.threads.begin(), l.threads.end(), [](const auto& a, const auto& b) { return a.thread < b.thread; });
  if (const json* chunks = r.array("chunks", /*required=*/false)) {
    l.has_chunks = true;
    for (std::size_t i = 0; i < chunks->size(); ++i) l.chunks.push_back(read_chunk((*chunks)[i], r.child("chunks", i)));
  }
  return l;
}

site_record read_site(const json& value, const std::string& path) {
  const object_reader r(value, path);
  site_record s;
  s.site = r.text("site", "?");
  s.function = r.text("function", "", /*required=*/false);
  s.instances = r.integer("instances", 0);
  s.mean_makespan_s = r.real("mean_makespan_s", 0);
  const json& loops = *r.array("loops");
  for (std::size_t i = 0; i < loops.size(); ++i) s.loops.push_back(read_loop(loops[i], r.child("loops", i)));
  return s;
}

}  // namespace

std::optional<profile> parse_profile(const json& document, std::string& why) noexcept {
  try {
    const object_reader r(document, "");
    profile p;
    p.powers_from = r.text("powers_from", "?", /*required=*/false);
    const json& sites = *r.array("sites");
    for (std::size_t i = 0; i < sites.size(); ++i) p.sites.push_back(read_site(sites[i], r.child("sites", i)));
    return p;
  } catch (const bad_field& bad) {
    why = bad.message;
  } catch (const std::exception& e) {  // allocation failure
    why = e.what();
  }
  return std::nullopt;
}

}  // namespace selfsched::report
