#include "teams/teams.hpp"

#include <dlfcn.h>
#include <link.h>
#include <omp-tools.h>
#include <pthread.h>
#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "learning/auto_cache.hpp"
#include "runtime/object_symbols.hpp"
#include "selfsched/core/registry.hpp"
#include "selfsched/core/scheduler.hpp"
#include "selfsched/machine/placement.hpp"
#include "selfsched/machine/powers.hpp"
#include "selfsched/machine/runqueue.hpp"
#include "selfsched/machine/spin.hpp"
#include "selfsched/settings.hpp"
#include "teams/schedule_choice.hpp"
#include "teams/tsan.hpp"

namespace selfsched::omp {
namespace detail {
__thread membership* innermost __attribute__((tls_model("initial-exec"))) = nullptr;
bool tool_started = false;         // between libomp's initialize and finalize of our tool
bool tool_ended = false;           // finalized: at exit, or for good by a hard pause
bool reported_by_runtime = false;  // follow_regions_without_ompt()
}
namespace {

constexpr int max_nesting = 16;

// What a region's parallel_data points to: the team, and the parallel data
// of the other OMPT tools we start (ompt-multiplex.h, end of this file).
// Their data lives here rather than in the multiplexer's own blocks, one
// malloc per region and per task: libomp reports a worker's implicit-task end
// late, at its next fork, with the task data of the team it joins next, and
// the multiplexer frees what it finds there. Under ThreadSanitizer with
// Archer, two live nested regions were then handed one block, and their teams
// got mixed up (an inner loop hung or ran iterations twice).
struct region_record {
  team_state* team = nullptr;  // nullptr: an initial task's region
  ompt_data_t client_data{};
};

// A region's parallel_data sits in libomp's team record, which libomp hands
// from thread to thread (teams and root threads are recycled) under its own
// synchronization: relaxed atomics (plain moves on x86) say so to
// ThreadSanitizer, which sees none of libomp's.
region_record* record_of(const ompt_data_t* parallel_data) {
  if (parallel_data == nullptr) return nullptr;
  return static_cast<region_record*>(__atomic_load_n(&parallel_data->ptr, __ATOMIC_RELAXED));
}
void set_record(ompt_data_t* parallel_data, region_record* record) {
  __atomic_store_n(&parallel_data->ptr, record, __ATOMIC_RELAXED);
}

struct encountered_region {
  team_state team;
  region_record record{&team, {}};
};

// LIFO records, recycled: a thread's regions nest.
template <class T>
struct record_stack {
  std::vector<std::unique_ptr<T>> records;
  int depth = 0;
  T& push() {
    if (depth == static_cast<int>(records.size())) records.push_back(std::make_unique<T>());
    return *records[static_cast<std::size_t>(depth++)];
  }
  T* pop() { return depth == 0 ? nullptr : records[static_cast<std::size_t>(--depth)].get(); }
};

struct thread_context {
  // One membership per nesting level, allocated when the thread first joins
  // a team at that level and kept (innermost points into it): a thread that
  // never nests pays for one, not for all 16 (9 KB).
  std::unique_ptr<membership> levels[max_nesting];
  int threads_added[max_nesting] = {};  // to the threads in regions (spin.hpp) by the level's join
  int depth = 0;     // memberships in use; may exceed max_nesting (untracked levels)
  record_stack<encountered_region> encountered;  // teams this thread started
  record_stack<region_record> initial_regions;   // its initial tasks' regions (for other tools)
  team_state solo;   // loops outside any tracked parallel region
  membership solo_membership;
  outer_source* outer = nullptr;  // installed by this thread (MPI regions)
};

// A plain pointer (no TLS wrapper call, initial-exec): read on every chunk.
__attribute__((tls_model("initial-exec"))) thread_local thread_context* this_thread = nullptr;

// Kept equal to what current_membership() used to compute.
void refresh_innermost(thread_context& t) {
  detail::innermost =
      t.depth == 0 ? &t.solo_membership : t.depth <= max_nesting ? t.levels[t.depth - 1].get() : nullptr;
  // Whether waits yield (spin.hpp): this thread's nest of teams against the
  // CPUs; unknown CPUs or untracked levels: yield, as before this was known.
  const int cpus = usable_cpu_count();
  std::int64_t nest = 1;
  for (int level = 0; level < t.depth && level < max_nesting && nest <= cpus; ++level)
    nest *= std::max(1, t.levels[level]->team_size);
  waits_yield = cpus == 0 || t.depth > max_nesting || nest > cpus;
}

void leave(thread_context& t);

pthread_key_t cleanup_key;
pthread_once_t cleanup_once = PTHREAD_ONCE_INIT;

thread_context& context() {
  if (this_thread == nullptr) {
    pthread_once(&cleanup_once, [] {
      pthread_key_create(&cleanup_key, [](void* p) {
        auto* t = static_cast<thread_context*>(p);
        while (t->depth > 0) leave(*t);  // a thread that ends inside a region counts no more
        delete t;
      });
    });
    this_thread = new thread_context;
    this_thread->solo.reset();
    this_thread->solo_membership.team = &this_thread->solo;
    pthread_setspecific(cleanup_key, this_thread);
    refresh_innermost(*this_thread);
  }
  return *this_thread;
}

// What a region started now by this thread inherits. Deeper than we track,
// nothing: the loops there are libomp's.
const active_schedule* encountering_task_technique(const thread_context& t) {
  if (t.depth == 0) return active_technique();
  return t.depth <= max_nesting ? t.levels[t.depth - 1]->task_technique : nullptr;
}

// A region begins on the thread that encounters it: the team's state,
// owned by that thread until the region ends.
encountered_region& begin_region(thread_context& t, unsigned requested_parallelism, bool libomp_threads) {
  encountered_region& region = t.encountered.push();
  region.record.client_data = ompt_data_t{};
  team_state* team = &region.team;
  team->reset();
  team->libomp_threads = libomp_threads;
  team->technique = encountering_task_technique(t);
  team->outer = t.depth == 0 ? t.outer : nullptr;  // only the outermost level
  team->placement.prepare(static_cast<int>(requested_parallelism), t.depth == 0);
  return region;
}

void end_region(thread_context& t) {
  encountered_region* region = t.encountered.pop();
  if (region != nullptr && region->team.outer != nullptr) region->team.outer->parallel_end();
}

// A member's implicit task begins and ends (team nullptr: a team we cannot
// tell, whose loops are the runtime's).
void join(thread_context& t, team_state* team, int thread_num, int team_size, int level) {
  if (t.depth < max_nesting) {
    std::unique_ptr<membership>& at_depth = t.levels[t.depth];
    if (at_depth == nullptr) at_depth = std::make_unique<membership>();
    membership& m = *at_depth;
    m = membership{};
    m.team = team;
    m.thread_num = thread_num;
    m.team_size = team_size;
    m.level = level;
    if (m.team != nullptr) {
      m.task_technique = m.team->technique;
      m.team->placement.join(m.thread_num);  // SELFSCHED_BIND; our CPU
    }
    // Each team counts its workers once: its primary adds them as it joins,
    // and itself if it is a root thread (a worker's own end is reported
    // late, at its next fork).
    const int added = thread_num != 0 ? 0 : std::max(0, team_size - 1) + (t.depth == 0 ? 1 : 0);
    t.threads_added[t.depth] = added;
    if (added != 0) count_threads_in_regions(added);
  }
  ++t.depth;
  refresh_innermost(t);
}

void leave(thread_context& t) {
  if (t.depth > 0 && --t.depth < max_nesting && t.threads_added[t.depth] != 0) {
    count_threads_in_regions(-t.threads_added[t.depth]);
    t.threads_added[t.depth] = 0;
  }
  refresh_innermost(t);
}

void on_parallel_begin(ompt_data_t*, const ompt_frame_t*, ompt_data_t* parallel_data, unsigned requested_parallelism,
                       int, const void*) {
  region_record& record = begin_region(context(), requested_parallelism, true).record;
  set_record(parallel_data, &record);
  tsan_release(&record);  // the workers read it after libomp's fork
}

void on_parallel_end(ompt_data_t*, ompt_data_t*, int, const void*) { end_region(context()); }

void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t* parallel_data, ompt_data_t*,
                      unsigned actual_parallelism, unsigned index, int flags) {
  thread_context& t = context();
  if (flags & ompt_task_initial) {  // the initial task: loops there use the solo team
    if (endpoint == ompt_scope_begin) {
      region_record& record = t.initial_regions.push();
      record = region_record{};
      if (parallel_data != nullptr && record_of(parallel_data) == nullptr) set_record(parallel_data, &record);
    } else {
      t.initial_regions.pop();
    }
    return;
  }
  if (endpoint == ompt_scope_begin) {
    region_record* record = record_of(parallel_data);
    tsan_acquire(record);
    join(t, record != nullptr ? record->team : nullptr, static_cast<int>(index), static_cast<int>(actual_parallelism),
         0);
  } else {
    leave(t);
  }
}

int initialize_tool(ompt_function_lookup_t lookup, int, ompt_data_t*) {
  // Our tool is always started by ompt-multiplex.h (below), whose lookup
  // hands out its own set_callback, declared returning int rather than
  // ompt_set_callback_t's ompt_set_result_t: calling it through the OMPT type
  // is a call through the wrong function type (UBSan's -fsanitize=function).
  using multiplex_set_callback_t = int (*)(ompt_callbacks_t, ompt_callback_t);
  auto set_callback = reinterpret_cast<multiplex_set_callback_t>(lookup("ompt_set_callback"));
  if (set_callback == nullptr) return 0;
  const bool ok = set_callback(ompt_callback_parallel_begin, reinterpret_cast<ompt_callback_t>(on_parallel_begin)) ==
                      ompt_set_always &&
                  set_callback(ompt_callback_parallel_end, reinterpret_cast<ompt_callback_t>(on_parallel_end)) ==
                      ompt_set_always &&
                  set_callback(ompt_callback_implicit_task, reinterpret_cast<ompt_callback_t>(on_implicit_task)) ==
                      ompt_set_always;
  detail::tool_started = ok;
  return ok ? 1 : 0;
}

void finalize_tool(ompt_data_t*) { detail::tool_started = false, detail::tool_ended = true; }

}  // namespace

membership* detail::first_membership() {
  context();
  return current_membership();
}

void read_what_loops_need(const active_schedule* technique) {
  if (technique == nullptr) return;
  if (technique->reads_placement) find_machine_powers();
  if (weighs_askers(technique->spec)) take_first_run_queue_reading();
  if (technique->spec.base->self_tuning) read_auto_cache();
}

void follow_regions_without_ompt() { detail::reported_by_runtime = true; }

team_state* open_region(unsigned requested_threads) {
  // libgomp starts (it has no tool start): as in ompt_start_tool below.
  static std::once_flag runtime_started;
  std::call_once(runtime_started, [] { read_what_loops_need(active_technique()); });
  thread_context& t = context();
  team_state& team = begin_region(t, requested_threads, false).team;
  // Members other than this thread start from depth 0 (a runtime's worker
  // is in one team at a time), so this thread's depth decides for all.
  return t.depth < max_nesting ? &team : nullptr;
}

void close_region() { end_region(context()); }

void join_team(team_state* team, int thread_num, int team_size, int level) {
  join(context(), team, thread_num, team_size, level);
}

void leave_team() { leave(context()); }

const active_schedule* technique_in_force(const membership& m) {
  if (&m == &this_thread->solo_membership) return active_technique();
  return m.team != nullptr ? m.team->technique : nullptr;
}

void set_task_technique(const active_schedule* technique) {
  const thread_context* t = this_thread;
  if (t == nullptr || t->depth == 0) return set_active_technique(technique);
  if (t->depth <= max_nesting) this_thread->levels[t->depth - 1]->task_technique = technique;
}

const active_schedule* task_technique() {
  return this_thread != nullptr ? encountering_task_technique(*this_thread) : active_technique();
}

outer_source* install_outer_source(outer_source* source) {
  thread_context& t = context();
  t.solo.outer = source;
  return std::exchange(t.outer, source);
}

}  // namespace selfsched::omp

// Another OMPT tool may run beside ours: libomp starts one tool only (the
// first ompt_start_tool it finds, ours once we are preloaded or linked), so
// LLVM's multiplexer (ompt-multiplex.h, shipped with clang) starts the
// client tools chain_tool_libraries() settled and forwards their
// callbacks, with their own parallel and task data. Without a client it
// hands libomp our tool unchanged.
//
// The clients' data: their parallel data lives in our region record; task
// and thread data we never use, so they get libomp's own.
namespace {
ompt_data_t* client_parallel_data(ompt_data_t* parallel_data) {
  selfsched::omp::region_record* record = selfsched::omp::record_of(parallel_data);
  return record != nullptr ? &record->client_data : nullptr;
}
ompt_data_t* client_shares_data(ompt_data_t* data) { return data; }

// The client list, settled at start-up before libomp starts our tool.
std::string& client_tools() {
  static std::string list;
  return list;
}

// The multiplexer reads its variables with getenv and dlopens what it
// finds: it is handed the settings table's values instead, so that a
// set-uid program takes neither its clients nor its log file (opened for
// writing) from the environment.
const char* multiplexer_variable(const char* name) {
  const std::string_view wanted = name;
  const std::string* value = nullptr;
  if (wanted == "SELFSCHED_TOOL_LIBRARIES") value = &client_tools();
  else if (wanted == "SELFSCHED_TOOL_VERBOSE_INIT") value = &selfsched::omp::current_settings().tool_verbose_init;
  // Read only to compare with our log's file name, by strcasecmp: "" when
  // unset, where the header's own getenv would hand it a null pointer.
  else if (wanted == "OMP_TOOL_VERBOSE_INIT") {
    const char* libomp_log = selfsched::omp::setting_value(name);
    return libomp_log != nullptr ? libomp_log : "";
  }
  return value != nullptr && !value->empty() ? value->c_str() : nullptr;
}
}  // namespace
#define OMPT_MULTIPLEX_CUSTOM_GET_CLIENT_PARALLEL_DATA client_parallel_data
#define OMPT_MULTIPLEX_CUSTOM_GET_CLIENT_TASK_DATA client_shares_data
#define OMPT_MULTIPLEX_CUSTOM_GET_CLIENT_THREAD_DATA client_shares_data
#define OMPT_MULTIPLEX_TOOL_NAME "SELFSCHED"
// <stdlib.h> is included above, so only the header's calls are renamed.
#define getenv(name) multiplexer_variable(name)
#include <ompt-multiplex.h>  // renames our ompt_start_tool below to its "own" tool
#undef getenv

namespace {

// What the user asked libomp for (OMP_TOOL_LIBRARIES, e.g. Archer's
// libarcher.so under ThreadSanitizer) would never start beside us: libomp
// reads it only when no ompt_start_tool is found. So, before libomp starts,
// it becomes our client list, without libselfsched itself (a tool list may
// name us; starting ourselves as our own client would recurse).
//
// A tool the program links (a library defining ompt_start_tool after us in
// the search order, e.g. a profiler linked in) is what libomp would have
// started, before and instead of OMP_TOOL_LIBRARIES; it would find ours
// first and never start it, so it becomes our only client. libomp's own
// weak ompt_start_tool is not a tool. A tool defined in the executable
// itself comes before us and libomp starts it as before.
std::string linked_tool_library() {
  // Only libomp starts tools: no search in a process without it (a shell).
  if (dlsym(RTLD_DEFAULT, "__kmpc_fork_call") == nullptr) return {};
  // The loaded objects in search order; the first after ours that defines
  // ompt_start_tool itself (not through a dependency) and is no runtime,
  // as its own symbol tables say (object_symbols.hpp: no object is opened).
  // Ours is the object this function lies in.
  struct search {
    bool after_ours = false;
    std::string found;
  } state;
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) {
        auto& s = *static_cast<search*>(data);
        if (info->dlpi_name == nullptr || info->dlpi_name[0] == '\0') return 0;  // the executable, the vDSO
        if (!s.after_ours) {
          s.after_ours = selfsched::omp::holds(*info, reinterpret_cast<const void*>(&linked_tool_library));
          return 0;
        }
        using selfsched::omp::defines;
        const bool tool = defines(*info, "ompt_start_tool") && !defines(*info, "__kmpc_fork_call") &&
                          !defines(*info, "GOMP_parallel");
        if (!tool) return 0;
        s.found = info->dlpi_name;
        return 1;
      },
      &state);
  return state.found;
}

}  // namespace

// A start-up step (startup.cpp): before libomp starts, whatever the order of
// the constructors of loaded libraries. The clients are what the settings
// table read in SELFSCHED_TOOL_LIBRARIES, else the tools libomp would have
// started, read as the table reads (secure_getenv), never libselfsched
// itself: starting ourselves as our own client would recurse.
void selfsched::omp::chain_tool_libraries() {
  std::string requested = current_settings().tool_libraries;
  if (requested.empty()) requested = linked_tool_library();
  if (requested.empty()) {
    const char* libomp_list = setting_value("OMP_TOOL_LIBRARIES");
    requested = libomp_list != nullptr ? libomp_list : "";
  }
  if (requested.empty()) return;  // no client: the multiplexer hands libomp our tool unchanged
  Dl_info self{};
  if (dladdr(reinterpret_cast<void*>(&linked_tool_library), &self) == 0) return;
  void* ours = dlopen(self.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  std::string clients;
  for (std::string_view rest = requested; !rest.empty();) {
    const std::size_t colon = rest.find(':');
    const std::string path(rest.substr(0, colon));
    rest = colon == std::string_view::npos ? std::string_view{} : rest.substr(colon + 1);
    if (path.empty()) continue;
    if (void* loaded = dlopen(path.c_str(), RTLD_LAZY | RTLD_NOLOAD)) {
      dlclose(loaded);
      if (loaded == ours) continue;
    }
    clients += (clients.empty() ? "" : ":") + path;
  }
  if (ours != nullptr) dlclose(ours);
  client_tools() = std::move(clients);
}

// libomp looks this symbol up when it initialises (OpenMP 5.0, sec. 4.2.1).
extern "C" ompt_start_tool_result_t* ompt_start_tool(unsigned int, const char*) {
  selfsched::omp::display_settings_if_asked();  // libomp starts here, once per process
  // The technique in force reads what its first loop would wait for now.
  selfsched::omp::read_what_loops_need(selfsched::omp::active_technique());
  static ompt_start_tool_result_t result{selfsched::omp::initialize_tool, selfsched::omp::finalize_tool, {}};
  return &result;
}
