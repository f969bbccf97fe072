// A region's start and end: the configuration every rank agrees on (rank
// 0's), the transport and its roles, the threads' technique, and the
// progress thread.
#include <omp.h>

#include <stdexcept>

#include "regions/engine.hpp"
#include "common/nodes.hpp"
#include "selfsched.h"
#include "selfsched/bridge.hpp"  // libselfsched's seam: settings, warn
#include "selfsched/core/registry.hpp"
#include "common/weights.hpp"

namespace selfsched::mpi::detail {
namespace {

std::string broadcast(MPI_Comm comm, std::string text) {
  int length = static_cast<int>(text.size());
  MPI_Bcast(&length, 1, MPI_INT, 0, comm);
  text.resize(static_cast<std::size_t>(length));
  MPI_Bcast(text.data(), length, MPI_CHAR, 0, comm);
  return text;
}

}  // namespace

const char* thread_level_name(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE: return "single";
    case MPI_THREAD_FUNNELED: return "funneled";
    case MPI_THREAD_SERIALIZED: return "serialized";
    default: return "multiple";
  }
}

engine::engine(MPI_Comm comm, options opts, serving remote)
    : user_comm_(comm), owner_(pthread_self()), remote_(remote == serving::program_elsewhere), opts_(std::move(opts)) {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!initialized || finalized)
    throw std::logic_error("selfsched::mpi::region: MPI is not initialized (call MPI_Init_thread first)");
  MPI_Comm_dup(comm, &comm_);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  MPI_Query_thread(&level_);
  funneled_ = level_ < MPI_THREAD_MULTIPLE;
  // Under FUNNELED only the main thread may call MPI, and the region's MPI
  // calls happen on the thread that created it. Agree before throwing, so no
  // rank is left alone in a collective.
  int main_thread = 1;
  if (level_ <= MPI_THREAD_FUNNELED) MPI_Is_thread_main(&main_thread);
  MPI_Allreduce(MPI_IN_PLACE, &main_thread, 1, MPI_INT, MPI_MIN, comm_);
  if (!main_thread) {
    MPI_Comm_free(&comm_);
    throw std::logic_error(
        "selfsched::mpi::region: under MPI_THREAD_FUNNELED (or SINGLE) a region must be created on the main thread");
  }

  choose_configuration(opts_);
  weights_ = exchange_rank_powers(comm_);
  // Not for a program elsewhere (cluster mode's agent): the agent runs on no
  // thread of it, so its CPU's run queue would count the program itself as
  // load, and the reading, a scan of /proc, held up the loop's first chunk
  // by milliseconds.
  load_correction_ = current_settings(false).load && !remote_;
  const omp::bridge::library_settings inner = omp::bridge::settings();
  base_.p = size_;
  apply_chunk(outer_, base_);
  base_.max_chunk = 0;
  base_.mu = inner.mu;
  base_.sigma = inner.sigma;
  base_.overhead = inner.overhead;
  base_.seed = inner.seed;
  base_.powers = weights_;
  set_up_transport();
  if (!remote_) choose_inner_technique();
  if (!remote_) set_up_write_tracking();
  // libomp is initialised by now (exchange_rank_weights asked it for the
  // thread count), so we know whether it started selfsched's OMPT tool.
  static std::atomic<bool> said{false};
  if (!remote_ && !omp::bridge::teams_tracked() && rank_ == 0 && !said.exchange(true))
    omp::bridge::warn("MPI region: selfsched cannot follow parallel regions (OMPT is off, e.g. OMP_TOOL=disabled), so "
              "schedule(runtime) loops are not shared: every rank runs them whole");

  if (rank_ == 0 && inner.verbose)
    omp::bridge::warn("MPI region over %d ranks: outer technique %s, transport %s, thread level %s, progress %s", size_,
              outer_text_.c_str(), transport_name(transport_), thread_level_name(level_),
              server_ == nullptr ? "-" : serve_inline_ ? "inline" : "thread");
  if (server_ && !serve_inline_) progress_thread_ = std::thread([this] { serve_forever(); });
  if (!remote_) previous_ = omp::install_outer_source(this);
}

void engine::choose_configuration(const options& opts) {
  const settings& s = current_settings(rank_ == 0);
  if (rank_ == 0 && omp::bridge::settings().display_env) {
    static std::atomic<bool> shown{false};
    if (!shown.exchange(true)) display_settings();
  }
  stats_ = s.stats;
  prefetch_ = s.prefetch;
  // Rank 0's choices hold everywhere: every rank must cut the same chunks.
  std::string text = s.schedule;
  int transport = static_cast<int>(s.transport);
  if (rank_ == 0) {
    if (!opts.schedule_.empty()) {
      if (const parse_result parsed = parse_schedule(opts.schedule_); parsed.ok())
        text = opts.schedule_;
      else
        omp::bridge::warn("selfsched::mpi::options::schedule('%s'): %s; using %s", opts.schedule_.c_str(),
                  parsed.error.c_str(), text.c_str());
    }
    if (!opts.transport_.empty()) {
      transport_kind chosen = transport_kind::master;
      if (const std::string bad = parse_transport(opts.transport_, chosen); bad.empty())
        transport = static_cast<int>(chosen);
      else
        omp::bridge::warn("selfsched::mpi::options::transport('%s') is not a transport; %s; using %s",
                          opts.transport_.c_str(), bad.c_str(), transport_name(static_cast<transport_kind>(transport)));
    }
  }
  outer_text_ = broadcast(comm_, text);
  outer_ = parse_schedule(outer_text_).spec;
  MPI_Bcast(&transport, 1, MPI_INT, 0, comm_);
  transport_ = static_cast<transport_kind>(transport);
  // Copies of a chunk would be counted twice by a reduction; rows and
  // callbacks see each chunk once (settle_copies).
  int duplicate = s.duplicate;
  if (rank_ == 0 && duplicate && !opts.reductions_.empty()) {
    static std::atomic<bool> said{false};
    if (!said.exchange(true))
      omp::bridge::warn("SELFSCHED_MPI_RESILIENCE=duplicate: this region reduces results, and a chunk run twice "
                        "would be counted twice; no copies in it");
    duplicate = 0;
  }
  MPI_Bcast(&duplicate, 1, MPI_INT, 0, comm_);
  duplicate_ = duplicate != 0;
  // Undeclared writes: the program's merge_writes() asks for merging
  // whatever the environment says.
  int writes = static_cast<int>(opts.merge_writes_ ? writes_kind::merge : s.writes);
  MPI_Bcast(&writes, 1, MPI_INT, 0, comm_);
  writes_ = static_cast<writes_kind>(writes);
  wait_limit_s_ = s.wait_limit;
  MPI_Bcast(&wait_limit_s_, 1, MPI_DOUBLE, 0, comm_);
}

void engine::set_up_transport() {
  const settings& s = current_settings(false);
  if (transport_ == transport_kind::rma) {
    static std::atomic<bool> said{false};  // once per process, not per region
    if (!is_fixed(outer_)) {
      if (rank_ == 0 && !said.exchange(true))
        omp::bridge::warn("SELFSCHED_MPI_TRANSPORT=rma needs a fixed outer technique (chunks that depend on n and the "
                  "rank count only); '%s' is not, so rank 0 serves the chunks (master)",
                  outer_text_.c_str());
      transport_ = transport_kind::master;
    } else if (!(rma_ = rma_counter::create(comm_, size_))) {
      if (rank_ == 0 && !said.exchange(true))
        omp::bridge::warn("SELFSCHED_MPI_TRANSPORT=rma: MPI cannot create the one-sided window at thread level %s "
                  "(e.g. Open MPI's osc/pt2pt under MPI_THREAD_MULTIPLE); using master",
                  thread_level_name(level_));
      transport_ = transport_kind::master;
    }
  }
  server_roles roles;
  if (transport_ == transport_kind::master) {
    parent_ = 0;
    roles.root = rank_ == 0;
  } else if (transport_ == transport_kind::hier) {
    set_up_hierarchy(roles);
  }
  if (duplicate_ && transport_ == transport_kind::rma) {
    static std::atomic<bool> said{false};
    if (rank_ == 0 && !said.exchange(true))
      omp::bridge::warn("SELFSCHED_MPI_RESILIENCE=duplicate needs the master or hier transport (this region uses "
                        "%s); no copies in it",
                        transport_name(transport_));
    duplicate_ = false;
  }
  roles.duplicate = duplicate_;
  if (roles.root || roles.leader) server_ = std::make_unique<server>(*this, comm_, rank_, roles, outer_, base_);
  const bool thread_allowed = level_ == MPI_THREAD_MULTIPLE && s.progress != progress_kind::inline_;
  if (s.progress == progress_kind::thread && level_ != MPI_THREAD_MULTIPLE && rank_ == 0)
    omp::bridge::warn("SELFSCHED_MPI_PROGRESS=thread needs MPI_THREAD_MULTIPLE (the level is %s); serving inline",
              thread_level_name(level_));
  serve_inline_ = server_ != nullptr && !thread_allowed;
  local_asks_free_ = transport_ == transport_kind::master && rank_ == 0;
  // Latency hiding: ask before the chunk runs dry, when the answer has to
  // travel (DLS4LB asks when 15% of the chunk is left).
  prefetching_ = prefetch_ > 0 && (rma_ != nullptr || parent_ != rank_);
}

// seed 004, Sect. 4: a master per node (its lowest rank), the supermaster
// (rank 0) above them (nodes.hpp).
void engine::set_up_hierarchy(server_roles& roles) {
  const std::vector<int> leaders = node_leaders(comm_, current_settings(false).node_size);
  const int leader = leaders[static_cast<std::size_t>(rank_)];
  parent_ = leader;
  roles.root = rank_ == 0;
  roles.leader = leader == rank_;
  for (int r = 0; r < size_; ++r) {
    if (leaders[r] == rank_) roles.group.push_back(r);
    if (roles.root) roles.groups[leaders[r]].push_back(r);
  }
}

// Threads split outer chunks with the inner technique, which must be one of
// ours for the loop to be shared at all. When OMP_SCHEDULE names one of
// libomp's kinds, the region uses its selfsched equivalent while it lives.
void engine::choose_inner_technique() {
  if (selfsched_get_schedule(nullptr, 0) > 0) return;
  omp_sched_t kind;
  int chunk = 0;
  omp_get_schedule(&kind, &chunk);
  std::string name;
  switch (static_cast<int>(kind) & ~static_cast<int>(omp_sched_monotonic)) {
    case omp_sched_dynamic: name = chunk > 1 ? "css," + std::to_string(chunk) : "ss"; break;
    case omp_sched_guided: name = chunk > 1 ? "gss," + std::to_string(chunk) : "gss"; break;
    case omp_sched_auto: name = "auto"; break;  // libomp's auto (SELFSCHED_AUTO=libomp): ours for the split
    default: name = "static"; break;
  }
  set_inner_ = selfsched_set_schedule(name.c_str(), 0) == 0;
  if (rank_ == 0 && omp::bridge::settings().verbose)
    omp::bridge::warn("MPI region: OMP_SCHEDULE names no selfsched technique; threads split outer chunks with %s",
              name.c_str());
}

engine::~engine() {
  checkpoint(region_end);
  if (progress_thread_.joinable()) {
    stop_.store(true, std::memory_order_release);
    quiet_.wake();
    progress_thread_.join();
  }
  if (!remote_) omp::install_outer_source(previous_);
  if (set_inner_) selfsched_set_schedule(nullptr, 0);
  if (stats_) print_stats();
  server_.reset();
  rma_.reset();
  MPI_Comm_free(&comm_);
}
}  // namespace selfsched::mpi::detail
