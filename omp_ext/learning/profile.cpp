#include "learning/profile.hpp"

#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <utility>

#include "runtime/runtimes.hpp"
#include "selfsched/core/balance.hpp"
#include "selfsched/machine/files.hpp"
#include "selfsched/machine/powers.hpp"
#include "selfsched/settings.hpp"

namespace selfsched::omp {
namespace {

// Instances kept in full per site; later ones only count in the totals.
constexpr std::size_t kept_instances_per_site = 200;

// SELFSCHED_PROFILE_CHUNKS keeps at most this many chunks in a process (a
// million took 0.8 GB as the profile was written at exit, and a loop of ss
// can hand out one a microsecond): past it, chunks are counted, not kept.
// Threads take the room in blocks, and give back what they did not use.
constexpr std::int64_t kept_chunks = 250'000, chunk_room_block = 4096;
std::atomic<std::int64_t> chunk_room{kept_chunks};
std::atomic<std::uint64_t> chunks_not_kept{0};

// Room for up to a block of chunks more; 0 when the process's is used up.
std::size_t take_chunk_room() {
  std::int64_t left = chunk_room.load(std::memory_order_relaxed);
  while (left > 0) {
    const std::int64_t take = std::min(left, chunk_room_block);
    if (chunk_room.compare_exchange_weak(left, left - take, std::memory_order_relaxed)) return static_cast<std::size_t>(take);
  }
  return 0;
}

struct site_profile {
  // Where the loop is, read at its first instance's end: at exit the module
  // holding its source location may be gone (dlclose).
  std::string where, function;
  std::uint64_t instances = 0;
  std::vector<std::unique_ptr<loop_instance_profile>> kept;
  double total_makespan_s = 0;
};

struct profile_store {
  std::mutex lock;
  std::map<loop_site, site_profile> sites;
};

profile_store& store() {
  static auto* s = new profile_store;  // never destroyed: threads may still report at exit
  return *s;
}

// A forked child profiles its own loops from the fork on: the parent's are
// the parent's to write. The store is locked across the fork, so the child
// never finds it locked by a thread it does not have.
std::atomic<bool> forked_child{false};
void lock_before_fork() { store().lock.lock(); }
void unlock_in_parent() { store().lock.unlock(); }
void start_afresh_in_child() {
  forked_child.store(true, std::memory_order_relaxed);
  store().sites.clear();
  chunk_room.store(kept_chunks, std::memory_order_relaxed);
  chunks_not_kept.store(0, std::memory_order_relaxed);
  store().lock.unlock();
}

}  // namespace

std::pair<std::string, std::string> describe_site(loop_site site) {
  if (site.ident != nullptr && site.ident->psource != nullptr) {
    std::vector<std::string> parts;
    std::string part;
    for (const char* c = site.ident->psource; *c; ++c) {
      if (*c == ';') parts.push_back(part), part.clear();
      else part += *c;
    }
    if (parts.size() >= 4 && parts[1] != "unknown") return {parts[1] + ":" + parts[3], parts[2]};
  }
  char text[64];
  Dl_info info{};
  if (site.call != nullptr && dladdr(site.call, &info) != 0 && info.dli_fname != nullptr) {
    const char* slash = std::strrchr(info.dli_fname, '/');
    std::snprintf(text, sizeof text, "%s+0x%zx", slash ? slash + 1 : info.dli_fname,
                  static_cast<std::size_t>(static_cast<const char*>(site.call) - static_cast<const char*>(info.dli_fbase)));
    return {text, info.dli_sname != nullptr ? info.dli_sname : ""};
  }
  std::snprintf(text, sizeof text, "%p", site.call != nullptr ? site.call : static_cast<const void*>(site.ident));
  return {text, ""};
}

namespace {

struct balance {
  double makespan_s, mean_busy_s, max_busy_s, cov, percent_imbalance, max_over_mean, scheduling_s;
};

balance measure(const loop_instance_profile& r) {
  std::int64_t begin = INT64_MAX, end = INT64_MIN;
  double scheduling = 0;
  std::vector<double> busy;
  for (const auto& t : r.threads) {
    begin = std::min(begin, t.first_ns);
    end = std::max(end, t.last_ns);
    busy.push_back(static_cast<double>(t.busy_ns) * 1e-9);
    scheduling += static_cast<double>(t.scheduling_ns) * 1e-9;
  }
  const balance_stats b = balance_of(busy);
  return {r.threads.empty() ? 0 : static_cast<double>(end - begin) * 1e-9,
          b.mean,
          b.max,
          b.cov,
          b.percent_imbalance,
          b.max_over_mean,
          scheduling / std::max<double>(1, static_cast<double>(r.threads.size()))};
}

const char* process_env(const char* name) { return std::getenv(name); }

// SELFSCHED_PROFILE's path for this process (%p, %r, %h, .rank<r>) and its
// launcher rank, read when the process starts (check_profile_path) and again
// after a fork: in cluster mode the environment a rank started with is rank
// 0's by the end (every rank's memory is), so both are read while it is its own.
struct process_names {
  std::string profile_path;
  long rank = -1;  // none
};
process_names this_process_names() {
  // Never destroyed: the exit handler that writes the profile reads them,
  // and may run after the library's static destructors.
  static auto& lock = *new std::mutex;
  static long named_for = -1;
  static auto& names = *new process_names;
  std::lock_guard guard(lock);
  if (named_for != getpid()) {
    names.profile_path = profile_path_for_process(current_settings().profile_path, process_env, getpid());
    const char* rank = launcher_rank(process_env);
    names.rank = rank != nullptr ? std::strtol(rank, nullptr, 10) : -1L;
    named_for = getpid();
  }
  return names;
}
std::string this_profile_path() { return this_process_names().profile_path; }

// "" when the system does not say.
std::string host_name() {
  char host[256] = "";
  if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  return host;
}

// The profile's path was found unwritable at start, and said so: not again at exit.
std::atomic<bool> unwritable_said{false};

void write_at_exit() {
  // A process that profiled no loop writes nothing where it is not the
  // program: a shell or helper without OpenMP (preloaded as the program
  // it starts is, and ending after it) or a forked child, whose empty
  // profile would replace the program's where the path has no %p.
  bool profiled_none = false;
  {
    profile_store& s = store();
    std::lock_guard guard(s.lock);
    profiled_none = s.sites.empty();
  }
  if (profiled_none && (forked_child.load(std::memory_order_relaxed) || !look_at_runtimes().any_loaded())) return;
  const std::string path = this_profile_path();
  std::string why = "an internal error";
  if (!write_profile(path.c_str(), &why) && !unwritable_said.load(std::memory_order_relaxed))
    warn("SELFSCHED_PROFILE: the profile was not written: %s", why.c_str());
  if (const std::uint64_t lost = chunks_not_kept.load(std::memory_order_relaxed); lost > 0)
    warn("SELFSCHED_PROFILE_CHUNKS: %llu chunks were counted but not kept: a process keeps at most %lld (each loop "
         "missing some says how many in chunks_not_kept)",
         static_cast<unsigned long long>(lost), static_cast<long long>(kept_chunks));
}

}  // namespace

const char* launcher_rank(const char* (*env)(const char*)) {
  for (const char* name : {"SELFSCHED_CLUSTER_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"})
    if (const char* v = env(name); v != nullptr && *v != '\0') return v;
  return nullptr;
}

const char* launcher_local_rank(const char* (*env)(const char*)) {
  for (const char* name : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"})
    if (const char* v = env(name); v != nullptr && *v != '\0') return v;
  return nullptr;
}

std::string profile_path_for_process(const std::string& pattern, const char* (*env)(const char*), long pid) {
  const char* rank = launcher_rank(env);
  long ranks = -1;  // unknown
  for (const char* name : {"SELFSCHED_CLUSTER_RANKS", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS"})
    if (const char* v = env(name); v != nullptr && *v != '\0') {
      ranks = std::strtol(v, nullptr, 10);
      break;
    }
  std::string path;
  bool per_process = false;
  for (std::size_t k = 0; k < pattern.size(); ++k) {
    if (pattern[k] != '%' || k + 1 == pattern.size()) {
      path += pattern[k];
      continue;
    }
    switch (pattern[++k]) {
      case 'p': path += std::to_string(pid), per_process = true; break;
      case 'r': path += rank != nullptr ? rank : "0", per_process = true; break;
      case 'h': {
        const std::string host = host_name();
        path += host.empty() ? "localhost" : host;
        break;
      }
      case '%': path += '%'; break;
      default: path += '%', path += pattern[k];  // not ours: kept as written
    }
  }
  // Several ranks and one name would mean one file written by all of them
  // at once: each rank gets its own, "prof.json" -> "prof.rank3.json".
  if (!per_process && rank != nullptr && ranks != 1) {
    const std::size_t slash = path.find_last_of('/');
    const std::size_t dot = path.find_last_of('.');
    const bool has_extension = dot != std::string::npos && (slash == std::string::npos || dot > slash + 1);
    path.insert(has_extension ? dot : path.size(), std::string(".rank") + rank);
  }
  return path;
}

void check_profile_path() {
  if (current_settings().profile_path.empty()) return;
  const std::string path = this_profile_path();
  std::string why;
  if (!can_write_file(path, why) && !unwritable_said.exchange(true, std::memory_order_relaxed))
    warn("SELFSCHED_PROFILE=%s: %s; the profile cannot be written there", current_settings().profile_path.c_str(),
         why.c_str());
}

bool profiling() {
  static const bool on = [] {
    if (current_settings().profile_path.empty()) return false;
    std::atexit(write_at_exit);
    pthread_atfork(lock_before_fork, unlock_in_parent, start_afresh_in_child);
    return true;
  }();
  return on;
}

bool profiling_chunks() { return current_settings().profile_chunks; }

loop_instance_profile* profile_begin(loop_site site, const std::string& technique, iter_t n, int p,
                                     const std::vector<double>& powers) {
  auto* r = new loop_instance_profile;
  r->site = site;
  r->technique = technique;
  r->n = n;
  r->p = p;
  r->powers = powers;
  r->threads.reserve(static_cast<std::size_t>(p));
  return r;
}

void probe_enter(thread_probe& probe, int thread) {
  probe.share = thread_share{};
  probe.share.thread = thread;
  probe.share.cpu = sched_getcpu();
  probe.open_event = SIZE_MAX;
  probe.chunks.clear();
  probe.chunk_room = 0;
  probe.chunks_not_kept = 0;
}

void probe_claim(thread_probe& probe, std::int64_t asked_ns, std::int64_t got_ns, chunk c, double queue,
                 std::int64_t ranks_wait_ns) {
  thread_share& s = probe.share;
  if (queue > 0) {
    s.queue_sum += queue;
    ++s.queue_requests;
  }
  if (s.first_ns == 0) s.first_ns = asked_ns;
  else s.busy_ns += asked_ns - probe.handed_ns;  // the previous chunk ran until we asked again
  if (probe.open_event != SIZE_MAX) probe.chunks[probe.open_event].end_ns = asked_ns;
  s.scheduling_ns += got_ns - asked_ns - ranks_wait_ns;
  s.ranks_wait_ns += ranks_wait_ns;
  probe.handed_ns = got_ns;
  probe.open_event = SIZE_MAX;
  if (c.size == 0) return;
  ++s.chunks;
  s.iterations += c.size;
  if (!profiling_chunks()) return;
  if (probe.chunk_room == 0) probe.chunk_room = take_chunk_room();
  if (probe.chunk_room == 0) {
    ++probe.chunks_not_kept;
    return;
  }
  --probe.chunk_room;
  probe.open_event = probe.chunks.size();
  probe.chunks.push_back({s.thread, c.start, c.size, got_ns, got_ns});
}

void probe_leave(thread_probe& probe, loop_instance_profile* record, std::int64_t now) {
  probe.share.last_ns = now;
  if (!record->powers.empty()) {  // relative to the fastest, as relative_power() gives the technique
    const double fastest = *std::max_element(record->powers.begin(), record->powers.end());
    probe.share.power = record->powers[static_cast<std::size_t>(probe.share.thread)] / fastest;
  }
  chunk_room.fetch_add(static_cast<std::int64_t>(std::exchange(probe.chunk_room, 0)), std::memory_order_relaxed);
  chunks_not_kept.fetch_add(probe.chunks_not_kept, std::memory_order_relaxed);
  std::lock_guard guard(record->lock);
  record->threads.push_back(probe.share);
  record->chunks.insert(record->chunks.end(), probe.chunks.begin(), probe.chunks.end());
  record->chunks_not_kept += probe.chunks_not_kept;
}

void profile_end(loop_instance_profile* record) {
  std::unique_ptr<loop_instance_profile> owned(record);
  profile_store& s = store();
  std::lock_guard guard(s.lock);
  site_profile& site = s.sites[record->site];
  if (site.instances == 0) std::tie(site.where, site.function) = describe_site(record->site);
  record->instance = site.instances++;
  site.total_makespan_s += measure(*record).makespan_s;
  if (site.kept.size() < kept_instances_per_site) site.kept.push_back(std::move(owned));
}

namespace {

// Which process wrote the profile: selfsched-report lines up the profiles
// of an MPI job's ranks by it.
nlohmann::json this_process() {
  return {{"rank", this_process_names().rank},
          {"host", host_name()},
          {"pid", static_cast<long>(getpid())}};
}

// Wall clock minus monotonic clock (now_ns), in seconds: added to a loop's
// start, it puts the loops of processes on one machine (or on hosts whose
// clocks agree) on one time line.
double wall_clock_offset_s() {
  timespec wall{}, mono{};
  clock_gettime(CLOCK_REALTIME, &wall);
  clock_gettime(CLOCK_MONOTONIC, &mono);
  return (static_cast<double>(wall.tv_sec) - static_cast<double>(mono.tv_sec)) +
         (static_cast<double>(wall.tv_nsec) - static_cast<double>(mono.tv_nsec)) * 1e-9;
}

}  // namespace

namespace {
std::mutex producers_lock;
std::vector<std::pair<std::string, std::string (*)()>>& producers() {
  static auto& all = *new std::vector<std::pair<std::string, std::string (*)()>>;  // read at exit
  return all;
}
}  // namespace

void add_profile_producer(const char* name, std::string (*json)()) {
  std::lock_guard guard(producers_lock);
  producers().emplace_back(name, json);
}

bool write_profile(const char* path, std::string* why) {
  using nlohmann::json;
  json sites = json::array();
  const double wall_offset = wall_clock_offset_s();
  {
    profile_store& s = store();
    std::lock_guard guard(s.lock);
    for (const auto& entry : s.sites) {
      const site_profile& site = entry.second;
      const std::string &where = site.where, &function = site.function;
      json loops = json::array();
      for (const auto& r : site.kept) {
        const balance b = measure(*r);
        std::vector<thread_share> threads = r->threads;
        std::sort(threads.begin(), threads.end(), [](auto& a, auto& b) { return a.thread < b.thread; });
        std::int64_t begin = INT64_MAX;
        for (const auto& t : threads) begin = std::min(begin, t.first_ns);
        json per_thread = json::array();
        for (const auto& t : threads) {
          per_thread.push_back({{"thread", t.thread}, {"cpu", t.cpu}, {"power", t.power},
                                {"iterations", t.iterations}, {"chunks", t.chunks},
                                {"busy_s", t.busy_ns * 1e-9}, {"scheduling_s", t.scheduling_ns * 1e-9},
                                {"ranks_wait_s", t.ranks_wait_ns * 1e-9},
                                {"sleeps_at_barriers", t.sleeps_at_barriers},
                                // The rest of the makespan; the threads' clocks may disagree
                                // by nanoseconds, which must not show as negative waiting.
                                {"wait_s", std::max(0.0, b.makespan_s - (t.busy_ns + t.scheduling_ns +
                                                                         t.ranks_wait_ns) * 1e-9)}});
          // Q as the thread's requests read it; none read it (not a
          // weighted technique): no mean_queue.
          if (t.queue_requests > 0)
            per_thread.back()["mean_queue"] = t.queue_sum / static_cast<double>(t.queue_requests);
        }
        json loop = {{"instance", r->instance}, {"technique", r->technique}, {"n", r->n}, {"p", r->p},
                     {"wall_begin_s", static_cast<double>(begin) * 1e-9 + wall_offset},
                     {"makespan_s", b.makespan_s}, {"mean_busy_s", b.mean_busy_s}, {"max_busy_s", b.max_busy_s},
                     {"imbalance_max_over_mean", b.max_over_mean}, {"imbalance_cov", b.cov},
                     {"imbalance_percent", b.percent_imbalance}, {"scheduling_overhead_s", b.scheduling_s},
                     {"threads", per_thread}};
        if (r->left_to_runtime) loop["left_to_runtime"] = true;
        if (r->chunks_not_kept > 0) loop["chunks_not_kept"] = r->chunks_not_kept;
        if (!r->chunks.empty()) {
          json chunks = json::array();
          for (const auto& c : r->chunks)
            chunks.push_back({{"thread", c.thread}, {"start", c.start}, {"size", c.size},
                              {"begin_s", (c.begin_ns - begin) * 1e-9}, {"end_s", (c.end_ns - begin) * 1e-9}});
          loop["chunks"] = std::move(chunks);
        }
        loops.push_back(std::move(loop));
      }
      sites.push_back({{"site", where}, {"function", function}, {"instances", site.instances},
                       {"mean_makespan_s", site.instances ? site.total_makespan_s / site.instances : 0},
                       {"loops", std::move(loops)}});
    }
  }
  // Never let a profile take the program down: bad bytes in a source string
  // are replaced, and any other failure is reported by the caller.
  try {
    json profile{{"selfsched_profile", 1},
                 {"powers_from", powers_source()},
                 {"process", this_process()},
                 {"sites", std::move(sites)}};
    {
      std::lock_guard guard(producers_lock);
      for (const auto& [name, produce] : producers())
        if (json section = json::parse(produce(), nullptr, false); !section.is_discarded()) profile[name] = std::move(section);
    }
    const std::string text = profile.dump(1, ' ', false, json::error_handler_t::replace) + '\n';
    // A regular file is replaced whole (written aside, then renamed): processes
    // that share the path (a program and the children it starts, each with
    // the preloaded library) leave one of their profiles, never a mix. A FIFO,
    // /dev/stdout or a device is written in place, never waiting for a reader
    // that is not there: the writer always returns (files.hpp).
    std::string ignored;
    return write_file_atomically(path, text, 0644, why != nullptr ? *why : ignored);
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace selfsched::omp
