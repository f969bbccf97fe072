#include "profile_reader.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <utility>

#include "selfsched/core/balance.hpp"

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

  bool flag(const char* name, bool fallback, bool required = true) const {
    const json* field = find(name, required);
    if (field == nullptr) return fallback;
    if (!field->is_boolean()) throw bad_field{where(name) + "expected true or false, got " + shown(*field)};
    return field->get<bool>();
  }

  std::string text(const char* name, const char* fallback, bool required = true) const {
    const json* field = find(name, required);
    if (field == nullptr) return fallback;
    if (!field->is_string()) throw bad_field{where(name) + "expected a string, got " + shown(*field)};
    return field->get<std::string>();
  }

  // The object `name`, nullptr when absent (always optional).
  const json* object(const char* name) const {
    const json* field = find(name, false);
    if (field != nullptr && !field->is_object()) throw bad_field{where(name) + "expected an object, got " + shown(*field)};
    return field;
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
  if (value.contains("mean_queue")) t.mean_queue = r.real("mean_queue", 1);
  t.iterations = r.integer("iterations", 0);
  t.chunks = r.integer("chunks", 0);
  t.busy_s = r.real("busy_s", 0);
  t.scheduling_s = r.real("scheduling_s", 0);
  t.ranks_wait_s = r.real("ranks_wait_s", 0, /*signed_ok=*/false, /*required=*/false);
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
  l.wall_begin_s = r.real("wall_begin_s", 0, /*signed_ok=*/false, /*required=*/false);
  l.makespan_s = r.real("makespan_s", 0);
  l.left_to_runtime = r.flag("left_to_runtime", false, /*required=*/false);
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

cluster_region_record read_cluster_region(const json& value, const std::string& path) {
  const object_reader r(value, path);
  cluster_region_record c;
  c.region = r.text("region", "?");
  c.next_run = r.text("next_run", "?");
  c.unshareable_because = r.text("unshareable_because", "", /*required=*/false);
  c.runs_shared = r.integer("runs_shared", 0);
  c.runs_replicated = r.integer("runs_replicated", 0);
  c.runs_unchecked = r.integer("runs_replicated_unchecked", 0);
  if (c.runs_unchecked > c.runs_replicated)
    throw bad_field{path + ": more unchecked runs (runs_replicated_unchecked) than replicated ones (runs_replicated)"};
  c.merges = r.integer("merges", 0);
  c.pages_sent = r.integer("pages_sent", 0);
  c.bytes_sent = r.integer("bytes_sent", 0);
  c.merge_s = r.real("merge_s", 0);
  c.last_shared_s = r.real("last_shared_s", 0, /*signed_ok=*/false, /*required=*/false);
  c.last_replicated_s = r.real("last_replicated_s", 0, /*signed_ok=*/false, /*required=*/false);
  return c;
}

cluster_record read_cluster(const json& value) {
  const object_reader r(value, "cluster");
  cluster_record c;
  c.ranks = r.integer("ranks", 1);
  c.rank = r.integer("rank", 0);
  if (c.rank >= c.ranks) throw bad_field{"cluster.rank: " + std::to_string(c.rank) + " is not below cluster.ranks"};
  c.write_tracking = r.text("write_tracking", "?");
  c.hot_page_windows = r.integer("hot_page_windows", 0, 0, /*required=*/false);
  const json& regions = *r.array("regions");
  for (std::size_t i = 0; i < regions.size(); ++i)
    c.regions.push_back(read_cluster_region(regions[i], r.child("regions", i)));
  return c;
}

}  // namespace

std::optional<profile> parse_profile(const json& document, std::string& why) noexcept {
  try {
    const object_reader r(document, "");
    profile p;
    p.powers_from = r.text("powers_from", "?", /*required=*/false);
    if (const json* process = r.object("process")) {  // written since 2026-11-25
      const object_reader who(*process, "process");
      p.rank = who.integer("rank", -1, -1, /*required=*/false);
      p.host = who.text("host", "", /*required=*/false);
      p.pid = who.integer("pid", 0, 0, /*required=*/false);
    }
    const json& sites = *r.array("sites");
    for (std::size_t i = 0; i < sites.size(); ++i) p.sites.push_back(read_site(sites[i], r.child("sites", i)));
    if (const json* cluster = r.object("cluster")) p.cluster = read_cluster(*cluster);
    return p;
  } catch (const bad_field& bad) {
    why = bad.message;
  } catch (const std::exception& e) {  // allocation failure
    why = e.what();
  }
  return std::nullopt;
}

namespace {

// Imbalance, scheduling (mean per thread, as the profile's) and waits of a
// merged loop, from its threads.
void measure(loop_record& loop) {
  if (loop.threads.empty()) return;
  std::vector<double> busy;
  double scheduling = 0;
  for (const thread_record& t : loop.threads) busy.push_back(t.busy_s), scheduling += t.scheduling_s;
  const balance_stats b = balance_of(busy);
  loop.max_over_mean = b.max_over_mean;
  loop.cov = b.cov;
  loop.percent_imbalance = b.percent_imbalance;
  loop.scheduling_s = scheduling / static_cast<double>(loop.threads.size());
  for (thread_record& t : loop.threads)
    t.wait_s = std::max(0.0, loop.makespan_s - t.busy_s - t.scheduling_s - t.ranks_wait_s);
}

}  // namespace

profile merge_profiles(const std::vector<profile>& profiles) {
  profile merged;
  if (profiles.empty()) return merged;
  merged.powers_from = profiles.front().powers_from;
  // Sites in order of first appearance; per site, instance -> the loops.
  std::vector<std::string> order;
  std::map<std::string, std::map<long long, std::vector<std::pair<long long, const loop_record*>>>> loops;
  std::map<std::string, site_record> heads;
  for (std::size_t k = 0; k < profiles.size(); ++k) {
    const long long rank = profiles[k].rank >= 0 ? profiles[k].rank : static_cast<long long>(k);
    for (const site_record& site : profiles[k].sites) {
      if (!heads.count(site.site)) {
        order.push_back(site.site);
        heads[site.site] = site_record{site.site, site.function, 0, 0, {}};
      }
      site_record& head = heads[site.site];
      head.instances = std::max(head.instances, site.instances);
      head.mean_makespan_s = std::max(head.mean_makespan_s, site.mean_makespan_s);
      for (const loop_record& loop : site.loops) loops[site.site][loop.instance].push_back({rank, &loop});
    }
  }
  for (const std::string& name : order) {
    site_record site = heads[name];
    for (const auto& [instance, parts] : loops[name]) {
      loop_record loop;
      loop.instance = instance;
      loop.technique = parts.front().second->technique;
      loop.n = parts.front().second->n;
      loop.left_to_runtime = parts.front().second->left_to_runtime;
      loop.p = 0;
      loop.has_chunks = true;
      bool timed = true;  // every part has a wall-clock start
      double begin = 0;
      for (const auto& [rank, part] : parts) {
        timed = timed && part->wall_begin_s > 0;
        begin = begin == 0 ? part->wall_begin_s : std::min(begin, part->wall_begin_s);
      }
      loop.wall_begin_s = timed ? begin : 0;
      for (const auto& [rank, part] : parts) {
        const double shift = timed ? part->wall_begin_s - begin : 0;
        const long long first = static_cast<long long>(loop.threads.size());
        loop.p += part->p;
        loop.makespan_s = std::max(loop.makespan_s, shift + part->makespan_s);
        for (const thread_record& t : part->threads) {
          thread_record mine = t;
          mine.rank = rank;
          mine.rank_thread = t.thread;
          mine.thread = static_cast<long long>(loop.threads.size());
          loop.threads.push_back(mine);
        }
        loop.has_chunks = loop.has_chunks && part->has_chunks;
        for (const chunk_record& c : part->chunks) {
          chunk_record mine = c;
          for (std::size_t i = static_cast<std::size_t>(first); i < loop.threads.size(); ++i)
            if (loop.threads[i].rank_thread == c.thread) mine.thread = loop.threads[i].thread;
          mine.begin_s += shift;
          mine.end_s += shift;
          loop.chunks.push_back(mine);
        }
      }
      if (!loop.has_chunks) loop.chunks.clear();
      measure(loop);
      site.loops.push_back(std::move(loop));
    }
    merged.sites.push_back(std::move(site));
  }
  return merged;
}

}  // namespace selfsched::report
