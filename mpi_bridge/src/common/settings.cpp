#include "common/settings.hpp"

#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "selfsched/settings_table.hpp"  // the table's machinery, shared with libselfsched
#include "selfsched/core/spec.hpp"

namespace selfsched::mpi::detail {
namespace {

using omp::bridge::parse_bool;
using omp::bridge::parse_count;
using omp::bridge::parse_real;
using omp::bridge::setting_row;

// One name out of a list: "valid: a, b, c" otherwise.
template <typename T, std::size_t N>
std::string parse_choice(std::string_view v, T& out, const std::pair<const char*, T> (&choices)[N]) {
  std::string valid;
  for (const auto& [name, value] : choices) {
    if (v == name) return out = value, "";
    valid += valid.empty() ? name : std::string(", ") + name;
  }
  return "valid: " + valid;
}

constexpr std::pair<const char*, transport_kind> transports[] = {
    {"master", transport_kind::master}, {"rma", transport_kind::rma}, {"hier", transport_kind::hier}};
constexpr std::pair<const char*, pool_strategy> strategies[] = {{"central", pool_strategy::central},
                                                                {"mediation", pool_strategy::mediation},
                                                                {"receiver", pool_strategy::receiver},
                                                                {"sender", pool_strategy::sender},
                                                                {"hier-mediation", pool_strategy::hier_mediation}};
constexpr std::pair<const char*, bool> transfers[] = {{"priority", false}, {"threshold", true}};
constexpr std::pair<const char*, bool> resiliences[] = {{"off", false}, {"duplicate", true}};
constexpr std::pair<const char*, writes_kind> writes_kinds[] = {
    {"warn", writes_kind::warn}, {"merge", writes_kind::merge}, {"off", writes_kind::off}};
constexpr std::pair<const char*, progress_kind> progresses[] = {
    {"auto", progress_kind::automatic}, {"thread", progress_kind::thread}, {"inline", progress_kind::inline_}};

const setting_row<settings> table[] = {
    {"SELFSCHED_MPI_SCHEDULE", "fss",
     "outer technique: how a region's loops are split into chunks for the ranks (any catalog name)",
     [](std::string_view v, settings& s) {
       const parse_result parsed = parse_schedule(v);
       if (!parsed.ok()) return parsed.error;
       return s.schedule = v, std::string();
     }},
    {"SELFSCHED_MPI_TRANSPORT", "master",
     "how ranks claim outer chunks: master (rank 0 serves), rma (MPI_Fetch_and_op, fixed techniques), "
     "hier (a master per node under a supermaster)",
     [](std::string_view v, settings& s) { return parse_choice(v, s.transport, transports); }},
    {"SELFSCHED_MPI_PROGRESS", "auto",
     "who answers requests on serving ranks: thread (a progress thread, needs MPI_THREAD_MULTIPLE), "
     "inline (the loop's threads between chunks), auto (thread when the level allows)",
     [](std::string_view v, settings& s) { return parse_choice(v, s.progress, progresses); }},
    {"SELFSCHED_MPI_PREFETCH", "0.15",
     "ask for the next outer chunk when this fraction of the current one is left (0: when it runs dry)",
     [](std::string_view v, settings& s) {
       double f = 0;
       std::string error = parse_real(v, f, 0.0, true);
       if (error.empty() && f > 1) error = "valid: a number in [0, 1]";
       if (error.empty()) s.prefetch = f;
       return error;
     }},
    {"SELFSCHED_MPI_NODE_SIZE", "0 (shared-memory nodes)",
     "hier and hier-mediation: ranks per node; 0 groups the ranks of each shared-memory node (MPI_Comm_split_type)",
     [](std::string_view v, settings& s) { return parse_count(v, s.node_size); }},
    {"SELFSCHED_MPI_LOAD", "true",
     "divide a rank's power by the run-queue length Q of the asking thread's CPU, sent with each request "
     "(omp_ext's run-queue monitor; not in cluster mode, whose agent runs on no thread of the program)",
     [](std::string_view v, settings& s) { return parse_bool(v, s.load); }},
    {"SELFSCHED_MPI_STATS", "false",
     "at the end of each region, one line per rank: chunks, iterations, time waiting for chunks",
     [](std::string_view v, settings& s) { return parse_bool(v, s.stats); }},
    {"SELFSCHED_MPI_RESILIENCE", "off",
     "master and hier transports: duplicate (a rank that finds no chunk left runs a copy of another rank's unfinished "
     "one; the first copy to finish counts, so a stopped or slow rank does not hold the loop up) or off; task pools "
     "under strategy central: a task out longer than max(20 ms, 4 x the mean run) goes again to a rank without work, "
     "its first finish counts (the other strategies run without copies and say so)",
     [](std::string_view v, settings& s) { return parse_choice(v, s.duplicate, resiliences); }},
    {"SELFSCHED_MPI_WRITES", "warn",
     "writes of a region's shared loops that no declared movement covers (the program's global data, "
     "options::track_writes ranges): warn (once per loop site, naming the bytes), merge (across ranks, as "
     "options::merge_writes; conflicts stop the job) or off (not tracked)",
     [](std::string_view v, settings& s) { return parse_choice(v, s.writes, writes_kinds); }},
    {"SELFSCHED_MPI_WAIT_LIMIT", "60",
     "with copies (SELFSCHED_MPI_RESILIENCE=duplicate): seconds rank 0 waits at the end of a region's loops for a "
     "rank that has not come, once their work is done, or, in a central task pool, for a rank silent while it holds "
     "tasks or the pool's end (longer than any task); then the job ends naming that rank (stopped or hung). "
     "0: wait for ever",
     [](std::string_view v, settings& s) { return parse_real(v, s.wait_limit, 0.0, true); }},
    {"SELFSCHED_POOL_STRATEGY", "central",
     "how task pools move tasks between ranks: central (rank 0 holds the global queue), mediation (local "
     "queues, rank 0 matches requests with surplus), receiver (an idle rank asks a random one), sender (a loaded rank sends to a random one), hier-mediation (a mediator per node, rank 0 mediating between nodes; docs/tasks.md)",
     [](std::string_view v, settings& s) { return parse_choice(v, s.strategy, strategies); }},
    {"SELFSCHED_CLUSTER", "off",
     "on: a program mpirun starts is run on all its ranks as one OpenMP team (cluster mode, docs/cluster.md; "
     "what selfsched-mpirun --cluster sets, with libselfsched_cluster.so preloaded)",
     [](std::string_view v, settings& s) { return parse_bool(v, s.cluster); }},
    {"SELFSCHED_CLUSTER_EARLY_WRITES", "50",
     "cluster mode: milliseconds a rank waits at a shared region's synchronization point for a rank that has not "
     "come before it sends that rank its writes of the window, so a thread spinning on a flag another rank set "
     "goes on (docs/cluster.md); off: never (such a spin waits for ever)",
     [](std::string_view v, settings& s) {
       if (v == "off") {
         s.early_writes_ms = -1;
         return std::string();
       }
       double ms = 0;
       std::string error = parse_real(v, ms, 0.0, true);
       if (!error.empty()) return std::string("valid: off or a number of milliseconds >= 0");
       s.early_writes_ms = ms;
       return error;
     }},
    {"SELFSCHED_POOL_TRANSFER", "priority",
     "which tasks move between ranks (the mediations, receiver, sender): priority (current ones, highest priority "
     "first; ask when none is current) or threshold (any; ask when fewer than threads; docs/tasks.md)",
     [](std::string_view v, settings& s) { return parse_choice(v, s.pool_by_threshold, transfers); }},
};

}  // namespace

const settings& current_settings(bool report) {
  static const settings s = omp::bridge::read_setting_rows(table, report);
  return s;
}

void display_settings() {
  std::fprintf(stderr, "\nSELFSCHED MPI DISPLAY ENVIRONMENT BEGIN\n");
  omp::bridge::print_setting_rows(table);
  std::fprintf(stderr, "SELFSCHED MPI DISPLAY ENVIRONMENT END\n\n");
}

std::string parse_transport(std::string_view name, transport_kind& out) { return parse_choice(name, out, transports); }

std::string parse_pool_strategy(std::string_view name, pool_strategy& out) {
  return parse_choice(name, out, strategies);
}

std::string parse_pool_transfer(std::string_view name, bool& by_threshold) {
  return parse_choice(name, by_threshold, transfers);
}

const char* strategy_name(pool_strategy s) {
  for (const auto& [name, value] : strategies)
    if (value == s) return name;
  return "?";
}

const char* transport_name(transport_kind t) {
  for (const auto& [name, value] : transports)
    if (value == t) return name;
  return "?";
}

}  // namespace selfsched::mpi::detail
