#include "engine.hpp"

#include <dlfcn.h>
#include <omp.h>
#include <sched.h>
#include <sys/prctl.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <stdexcept>

#include "fatal.hpp"
#include "movement.hpp"
#include "selfsched/bridge.hpp"  // libselfsched's seam: clock, settings, sites, warn
#include "selfsched.h"
#include "selfsched/core/registry.hpp"
#include "weights.hpp"

namespace selfsched::mpi::detail {
namespace {

using omp::bridge::now_ns;

void sleep_ns(long ns) {
  const timespec t{0, ns};
  nanosleep(&t, nullptr);
}

// Waiting for another rank: yield for the first 2 ms (the thread stays
// runnable, so the answer is seen at once, and a thread with work on our core
// goes first), then sleep. A sleeper on a busy core may not run again before
// the next scheduler tick (4 ms at HZ=250), far longer than a claim, so sleep
// only when the wait is long anyway (like libomp's KMP_BLOCKTIME spin).
class back_off {
 public:
  void operator()() {
    const std::int64_t now = now_ns();
    if (since_ == 0) since_ = now;
    if (now - since_ < 2'000'000) sched_yield();
    else sleep_ns(50'000);
  }

 private:
  std::int64_t since_ = 0;
};

// An exponential average that starts at its first sample.
void average(double& mean, double sample) { mean = mean > 0 ? 0.75 * mean + 0.25 * sample : sample; }

std::uint64_t fnv(std::uint64_t h, const void* data, std::size_t size) {
  const auto* byte = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < size; ++i) h = (h ^ byte[i]) * 0x100000001b3ULL;
  return h;
}

// The same on every rank running the same binary: the module's name, the
// ident_t's offset in it (no ASLR dependence) and its source string.
std::uint64_t site_hash(const void* site) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  Dl_info info{};
  if (site != nullptr && dladdr(site, &info) != 0 && info.dli_fname != nullptr) {
    const char* base = std::strrchr(info.dli_fname, '/');
    base = base ? base + 1 : info.dli_fname;
    h = fnv(h, base, std::strlen(base));
    const auto offset = static_cast<std::uint64_t>(static_cast<const char*>(site) - static_cast<const char*>(info.dli_fbase));
    h = fnv(h, &offset, sizeof offset);
  }
  if (const char* source = omp::bridge::site_source(site); source != nullptr) h = fnv(h, source, std::strlen(source));
  return h & ((1ULL << 62) - 1);  // room to negate in the checkpoint's max/min trick
}

// ", at file:line" when the binary says (omp_ext's describe_site), else "".
std::string describe(const void* site) {
  const std::string where = omp::bridge::site_source_line(site);
  return where.empty() ? "" : ", at " + where;
}

const char* level_name(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE: return "single";
    case MPI_THREAD_FUNNELED: return "funneled";
    case MPI_THREAD_SERIALIZED: return "serialized";
    default: return "multiple";
  }
}

std::string broadcast(MPI_Comm comm, std::string text) {
  int length = static_cast<int>(text.size());
  MPI_Bcast(&length, 1, MPI_INT, 0, comm);
  text.resize(static_cast<std::size_t>(length));
  MPI_Bcast(text.data(), length, MPI_CHAR, 0, comm);
  return text;
}

}  // namespace

// ------------------------------------------------------------------ set-up

engine::engine(MPI_Comm comm, options opts) : user_comm_(comm), owner_(pthread_self()), opts_(std::move(opts)) {
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
  weights_ = exchange_rank_weights(comm_, current_settings(false).load);
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
  choose_inner_technique();
  // libomp is initialised by now (exchange_rank_weights asked it for the
  // thread count), so we know whether it started selfsched's OMPT tool.
  static std::atomic<bool> said{false};
  if (!omp::bridge::teams_tracked() && rank_ == 0 && !said.exchange(true))
    omp::bridge::warn("MPI region: selfsched cannot follow parallel regions (OMPT is off, e.g. OMP_TOOL=disabled), so "
              "schedule(runtime) loops are not shared: every rank runs them whole");

  if (rank_ == 0 && inner.verbose)
    omp::bridge::warn("MPI region over %d ranks: outer technique %s, transport %s, thread level %s, progress %s", size_,
              outer_text_.c_str(), transport_name(transport_), level_name(level_),
              server_ == nullptr ? "-" : serve_inline_ ? "inline" : "thread");
  if (server_ && !serve_inline_) progress_thread_ = std::thread([this] { serve_forever(); });
  previous_ = omp::install_outer_source(this);
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
      if (opts.transport_ == "master") transport = static_cast<int>(transport_kind::master);
      else if (opts.transport_ == "rma") transport = static_cast<int>(transport_kind::rma);
      else if (opts.transport_ == "hier") transport = static_cast<int>(transport_kind::hier);
      else
        omp::bridge::warn("selfsched::mpi::options::transport('%s') is not a transport; valid: master, rma, hier; using %s",
                  opts.transport_.c_str(), transport_name(static_cast<transport_kind>(transport)));
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
                  level_name(level_));
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
  if (duplicate_ && transport_ != transport_kind::master) {
    static std::atomic<bool> said{false};
    if (rank_ == 0 && !said.exchange(true))
      omp::bridge::warn("SELFSCHED_MPI_RESILIENCE=duplicate needs the master transport (this region uses %s); no "
                        "copies in it",
                        transport_name(transport_));
    duplicate_ = false;
  }
  roles.duplicate = duplicate_;
  if (roles.root || roles.leader) server_ = std::make_unique<server>(*this, comm_, rank_, roles, outer_, base_);
  const bool thread_allowed = level_ == MPI_THREAD_MULTIPLE && s.progress != progress_kind::inline_;
  if (s.progress == progress_kind::thread && level_ != MPI_THREAD_MULTIPLE && rank_ == 0)
    omp::bridge::warn("SELFSCHED_MPI_PROGRESS=thread needs MPI_THREAD_MULTIPLE (the level is %s); serving inline",
              level_name(level_));
  serve_inline_ = server_ != nullptr && !thread_allowed;
  local_asks_free_ = transport_ == transport_kind::master && rank_ == 0;
  // Latency hiding: ask before the chunk runs dry, when the answer has to
  // travel (DLS4LB asks when 15% of the chunk is left).
  prefetching_ = prefetch_ > 0 && (rma_ != nullptr || parent_ != rank_);
}

// seed 004, Sect. 4: a master per node (its lowest rank), the supermaster
// (rank 0) above them. SELFSCHED_MPI_NODE_SIZE=k makes nodes of k
// consecutive ranks, to try the hierarchy on one machine.
void engine::set_up_hierarchy(server_roles& roles) {
  const std::int64_t node_size = current_settings(false).node_size;
  int leader = 0;
  if (node_size > 0) {
    leader = static_cast<int>(rank_ - rank_ % node_size);
  } else {
    MPI_Comm node;
    MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node);
    leader = rank_;
    MPI_Bcast(&leader, 1, MPI_INT, 0, node);  // the node's lowest rank
    MPI_Comm_free(&node);
  }
  std::vector<int> leaders(static_cast<std::size_t>(size_));
  MPI_Allgather(&leader, 1, MPI_INT, leaders.data(), 1, MPI_INT, comm_);
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
    progress_thread_.join();
  }
  omp::install_outer_source(previous_);
  if (set_inner_) selfsched_set_schedule(nullptr, 0);
  if (stats_) print_stats();
  server_.reset();
  rma_.reset();
  MPI_Comm_free(&comm_);
}

// ------------------------------------------------------------ the loop hooks

std::uint64_t engine::loop_begin(const void* site, iter_t n) {
  std::lock_guard lock(mutex_);
  client_loop& loop = loops_.emplace_back();
  loop.index = begun_++;
  loop.n = n;
  loop.site = site_hash(site);
  loop.site_ident = site;
  if (rma_) {
    loop_params lp = base_;
    lp.n = n;
    rma_->begin(loop.index, outer_, lp);
  }
  return loop.index;
}

chunk engine::next_outer() {
  std::unique_lock lock(mutex_);
  client_loop& loop = loops_.back();  // the binding asks only for the loop begun last
  if (duplicate_) report_finished(loop);
  const std::int64_t asked = now_ns();
  for (back_off wait; !loop.has_next && !loop.done;) {
    if (!may_call_mpi() && !local_asks_free_) {  // funneled: the creating thread fetches it at its next claim
      loop.wanted = true;
      return omp::outer_pending;
    }
    if (duplicate_ && may_call_mpi()) exchange_reports();
    if (!loop.asked) ask(loop);
    poll(loop);
    if (loop.has_next || loop.done) break;
    if (serve_inline_ && may_call_mpi()) server_->poll();  // a node master waiting for its batch serves its node
    lock.unlock();
    wait();
    lock.lock();
  }
  wait_ns_ += now_ns() - asked;
  return take_next(loop);
}

bool engine::progress(std::uint64_t index, iter_t left, iter_t size) {
  std::unique_lock lock(mutex_);
  client_loop* found = find(index);
  if (found == nullptr) return true;
  client_loop& loop = *found;
  const bool idle = !loop.asked && !loop.has_next && !loop.done;
  if (idle && prefetching_ && time_to_ask(loop, left, size)) loop.wanted = true;
  if (!may_call_mpi()) {
    if (local_asks_free_ && loop.wanted && idle) ask(loop);
  } else {
    if (loop.wanted && idle) ask(loop);
    if (!rma_) poll(loop);  // rma completes its claim when the chunk is needed
    serve_inline(true);
    if (duplicate_) exchange_reports();
  }
  return !(duplicate_ && drop_if_cancelled(loop));
}

// Ask early, but no earlier than needed: once at most the prefetch fraction
// of the chunk is left (DLS4LB: 15%), and once the chunk is expected to end
// within two round trips, from this rank's speed in this loop (so not during
// its first chunk). Asking earlier would hand this rank its next chunk while
// it is still busy: cut larger (R is larger then) and out of reach of a rank
// that is idle sooner.
bool engine::time_to_ask(const client_loop& loop, iter_t left, iter_t size) const {
  if (static_cast<double>(left) > prefetch_ * static_cast<double>(size)) return false;
  if (loop.rate_per_ns <= 0) return false;
  if (round_trip_ns_ <= 0) return true;
  const double expected_end = static_cast<double>(loop.current_since) + static_cast<double>(size) / loop.rate_per_ns;
  return static_cast<double>(now_ns()) + 2 * round_trip_ns_ >= expected_end;
}

void engine::loop_end() {
  bool outside_parallel = false;
  {
    std::lock_guard lock(mutex_);
    for (client_loop& loop : loops_)
      if (!loop.ended) {
        loop.ended = true;
        break;
      }
    outside_parallel = pthread_equal(pthread_self(), owner_) && omp_get_level() == 0;
  }
  // A loop outside any parallel region has no parallel_end: check it now.
  if (outside_parallel) checkpoint(after_loops);
}

void engine::parallel_end() { checkpoint(after_loops); }

// ------------------------------------------------------------ asking for chunks

void engine::ask(client_loop& loop) {
  loop.asked = true;
  loop.asked_at = now_ns();
  loop.wanted = false;
  const request_msg m{loop.index, loop.n, loop.site, loop.report_size, loop.report_ns};
  loop.report_size = 0, loop.report_ns = 0;
  if (rma_) return rma_->issue();
  if (parent_ == rank_) {
    // The master asks itself: the others' requests that came first go first
    // (whatever the progress thread's luck with the scheduler).
    if (may_call_mpi()) server_->poll();
    return server_->request(rank_, m);  // answered through deliver(), now or later
  }
  const auto packed = m.pack();
  std::copy(packed.begin(), packed.end(), loop.request);
  MPI_Irecv(loop.reply, reply_length, MPI_INT64_T, parent_, tag_reply, comm_, &loop.reply_handle);
  MPI_Isend(loop.request, request_msg::length, MPI_INT64_T, parent_, tag_request, comm_, &loop.request_handle);
}

void engine::poll(client_loop& loop) {
  if (!loop.asked) return;
  if (rma_) return deliver(loop.index, rma_->complete());
  if (parent_ == rank_) return;  // our own server answers through deliver()
  int arrived = 0;
  MPI_Test(&loop.reply_handle, &arrived, MPI_STATUS_IGNORE);
  if (!arrived) return;
  MPI_Wait(&loop.request_handle, MPI_STATUS_IGNORE);  // it was received: completes at once
  if (static_cast<std::uint64_t>(loop.reply[0]) != loop.index)
    fatal("rank " + std::to_string(rank_) + " got a chunk of shared loop " + std::to_string(loop.reply[0]) +
          " while in shared loop " + std::to_string(loop.index));
  deliver(loop.index, {loop.reply[1], loop.reply[2]});
}

void engine::deliver(std::uint64_t index, chunk c) {
  client_loop* loop = find(index);
  if (loop == nullptr) return;
  loop->asked = false;
  if (parent_ != rank_ || rma_) average(round_trip_ns_, static_cast<double>(now_ns() - loop->asked_at));
  if (const auto gone = std::find(loop->cancelled.begin(), loop->cancelled.end(), c.start);
      c.size > 0 && gone != loop->cancelled.end()) {
    loop->cancelled.erase(gone);  // finished elsewhere already: ask again
    return;
  }
  if (c.size == 0) loop->done = true;
  else loop->next = c, loop->has_next = true;
}

client_loop* engine::find(std::uint64_t index) {
  for (auto it = loops_.rbegin(); it != loops_.rend(); ++it)
    if (it->index == index) return &*it;
  return nullptr;
}

chunk engine::take_next(client_loop& loop) {
  if (!loop.has_next) return {loop.n, 0};
  const std::int64_t now = now_ns();
  if (loop.current.size > 0) {
    loop.report_size = loop.current.size, loop.report_ns = now - loop.current_since;
    if (loop.report_ns > 0)
      average(loop.rate_per_ns, static_cast<double>(loop.report_size) / static_cast<double>(loop.report_ns));
  }
  loop.current = loop.next;
  loop.current_since = now;
  loop.current_reported = !duplicate_;
  loop.has_next = false;
  loop.own.push_back(loop.current);
  ++outer_chunks_;
  iterations_ += loop.current.size;
  return loop.current;
}

// ------------------------------------------------------------ resilience

// The threads have taken all of `current` (they finish it within an inner
// chunk): the master may tell the other holders of a copy to drop theirs.
void engine::report_finished(client_loop& loop) {
  if (loop.current_reported || loop.current.size == 0) return;
  loop.current_reported = true;
  unsent_reports_.push_back({static_cast<std::int64_t>(loop.index), loop.current.start, loop.current.size});
}

void engine::exchange_reports() {
  for (const auto& report : unsent_reports_) {
    if (parent_ == rank_) {
      server_->finished(rank_, static_cast<std::uint64_t>(report[0]), {report[1], report[2]});
      continue;
    }
    // Synchronous: once it completes the master has it, so every report of
    // a loop is in before the checkpoint that ends the loop (checkpoint()).
    auto& sent = sent_reports_.emplace_back(report, MPI_REQUEST_NULL);
    MPI_Issend(sent.first.data(), chunk_note_length, MPI_INT64_T, parent_, tag_finished, comm_, &sent.second);
  }
  unsent_reports_.clear();
  std::erase_if(sent_reports_, [](auto& sent) {
    int done = 0;
    MPI_Test(&sent.second, &done, MPI_STATUS_IGNORE);
    return done != 0;
  });
  if (parent_ == rank_) return;  // our own server cancels through cancel()
  for (;;) {
    int arrived = 0;
    MPI_Message handle;
    MPI_Status status;
    MPI_Improbe(parent_, tag_cancel, comm_, &arrived, &handle, &status);
    if (!arrived) return;
    int count = 0;
    MPI_Get_count(&status, MPI_INT64_T, &count);
    std::int64_t note[chunk_note_length];
    if (count != chunk_note_length) fatal("malformed cancel from rank " + std::to_string(parent_));
    MPI_Mrecv(note, count, MPI_INT64_T, &handle, MPI_STATUS_IGNORE);
    cancel(static_cast<std::uint64_t>(note[0]), {note[1], note[2]});
  }
}

// Another rank finished its copy of c first.
void engine::cancel(std::uint64_t index, chunk c) {
  client_loop* loop = find(index);
  if (loop == nullptr || loop->ended) return;
  if (loop->current.start == c.start && loop->current.size == c.size) {
    if (!loop->current_reported) loop->drop_current = true;  // else it is handed out: runs to its end
  } else if (loop->has_next && loop->next.start == c.start) {
    loop->has_next = false;  // not started: the next claim asks again
  } else if (loop->asked) {
    loop->cancelled.push_back(c.start);  // its reply may still be on the way
  }
}

// The rest of the current chunk is not handed out; the inner chunks already
// taken finish, but the chunk is not this rank's: its rows come from the
// copy that finished.
bool engine::drop_if_cancelled(client_loop& loop) {
  if (!loop.drop_current) return false;
  loop.drop_current = false;
  loop.current_reported = true;
  if (!loop.own.empty() && loop.own.back().start == loop.current.start) loop.own.pop_back();
  iterations_ -= loop.current.size;
  --outer_chunks_;
  ++dropped_;
  loop.current = {};
  return true;
}

void engine::serve_inline(bool rate_limited) {
  if (!serve_inline_) return;
  if (rate_limited) {  // MPI_Improbe is not free: at most every few microseconds
    const std::int64_t now = now_ns();
    if (now - last_serve_ns_ < 2'000) return;
    last_serve_ns_ = now;
  }
  server_->poll();
}

// The progress thread of a serving rank (MPI_THREAD_MULTIPLE).
void engine::serve_forever() {
  prctl(PR_SET_TIMERSLACK, 1000UL);  // 1 us: its short sleeps stay short
  std::int64_t idle_since = now_ns();
  while (!stop_.load(std::memory_order_acquire)) {
    bool served = false;
    {
      std::lock_guard lock(mutex_);
      served = server_->poll();
    }
    const std::int64_t now = now_ns();
    if (served) idle_since = now;
    // While requests flow (one in the last ms) stay runnable, yielding to the
    // rank's computing threads; then sleep, longer the longer it is quiet
    // (a sleeper may wake only at the next tick on a busy core: back_off).
    const std::int64_t idle = now - idle_since;
    if (idle < 1'000'000) sched_yield();
    else sleep_ns(idle < 20'000'000 ? 20'000 : 200'000);
  }
}

// ------------------------------------------------------------ checkpoints

void engine::checkpoint(phase at) {
  std::size_t count = 0;
  std::int64_t mine[5] = {at, 0, 0, 0, 0};
  std::string where;  // this rank's last loop, for a message
  {
    std::lock_guard lock(mutex_);
    while (count < loops_.size() && loops_[count].ended) ++count;
    if (at == after_loops && count == 0) return;
    // Where this rank is: after which loop, its n and site, and a digest of
    // all the loops since the last checkpoint.
    std::uint64_t digest = 0xcbf29ce484222325ULL;
    for (std::size_t k = 0; k < count; ++k) {
      digest = fnv(digest, &loops_[k].n, sizeof(iter_t));
      digest = fnv(digest, &loops_[k].site, sizeof(std::uint64_t));
    }
    mine[1] = static_cast<std::int64_t>(count > 0 ? loops_[count - 1].index + 1 : begun_);
    if (at == region_end) mine[1] = static_cast<std::int64_t>(begun_);
    if (count > 0) mine[2] = loops_[count - 1].n, mine[3] = static_cast<std::int64_t>(loops_[count - 1].site);
    if (count > 0) where = describe(loops_[count - 1].site_ident);
    mine[4] = static_cast<std::int64_t>(digest & ((1ULL << 62) - 1));
  }
  if (duplicate_) deliver_reports();
  // Max of (x, -x) gives every rank both the max and the min of each field.
  std::int64_t both[10];
  for (int k = 0; k < 5; ++k) both[k] = mine[k], both[5 + k] = -mine[k];
  MPI_Request request;
  MPI_Iallreduce(MPI_IN_PLACE, both, 10, MPI_INT64_T, MPI_MAX, comm_, &request);
  wait_for(request);
  for (int k = 0; k < 5; ++k)
    if (both[k] != -both[5 + k]) report_mismatch(mine, where);

  // Every rank has finished these loops: move their results, forget them.
  for (std::size_t k = 0; k < count; ++k) move_results(loops_[k]);
  if (at == region_end)
    for (const options::reduction& r : opts_.reductions_)
      if (r.at == when::region_end) reduce(comm_, r);
  std::lock_guard lock(mutex_);
  if (count > 0 && server_) server_->forget_before(loops_[count - 1].index + 1);
  loops_.erase(loops_.begin(), loops_.begin() + static_cast<std::ptrdiff_t>(count));
  loops_done_ += count;
}

// Resilience: every report of this rank has reached the master (which then
// has every holder's word before the ranks agree the loops are over).
void engine::deliver_reports() {
  for (back_off wait;;) {
    {
      std::lock_guard lock(mutex_);
      exchange_reports();
      if (serve_inline_) server_->poll();
      if (unsent_reports_.empty() && sent_reports_.empty()) return;
    }
    wait();
  }
}

// A collective of ours completes while this rank keeps serving the others.
void engine::wait_for(MPI_Request& request) {
  for (back_off wait;;) {
    int complete = 0;
    {
      std::lock_guard lock(mutex_);
      MPI_Test(&request, &complete, MPI_STATUS_IGNORE);
      if (!complete && serve_inline_) server_->poll();
      if (duplicate_) exchange_reports();
    }
    if (complete) return;
    wait();
  }
}

void engine::report_mismatch(const std::int64_t* mine, const std::string& where) {
  std::vector<std::int64_t> all(static_cast<std::size_t>(5 * size_));
  MPI_Allgather(mine, 5, MPI_INT64_T, all.data(), 5, MPI_INT64_T, comm_);
  if (rank_ != 0) {  // rank 0 explains and stops the job
    MPI_Barrier(comm_);
    std::abort();
  }
  // Ranks in the same place, grouped.
  std::map<std::vector<std::int64_t>, std::vector<int>> places;
  for (int r = 0; r < size_; ++r)
    places[std::vector<std::int64_t>(all.begin() + 5 * r, all.begin() + 5 * r + 5)].push_back(r);
  const std::int64_t first_site = all[3];
  std::string text = "the ranks of a region ran different shared loops:";
  const char* separator = " ";
  for (const auto& [place, ranks] : places) {
    text += separator + std::string(ranks.size() == 1 ? "rank" : "ranks");
    separator = "; ";
    for (std::size_t k = 0; k < ranks.size(); ++k) text += (k ? "," : " ") + std::to_string(ranks[k]);
    if (place[0] == region_end) {
      text += " reached the end of the region after " + std::to_string(place[1]) + " shared loop" +
              (place[1] == 1 ? "" : "s");
    } else {
      text += " finished shared loop " + std::to_string(place[1] - 1) + " (n=" + std::to_string(place[2]);
      if (place[3] != first_site) text += ", another source line";
      if (ranks.front() == 0) text += where;  // rank 0 knows its own source line
      text += ")";
    }
  }
  text += ". Every rank must run the same schedule(runtime) loops of the region, in the same order, with the "
          "same bounds";
  abort_job(comm_, text);
}

void engine::move_results(const client_loop& loop) {
  const std::vector<chunk> own = duplicate_ ? settle_copies(comm_, loop.own) : loop.own;
  for (const options::fixed_rows& rows : opts_.fixed_) gather_fixed_rows(comm_, rows, own);
  for (const options::variable_rows& rows : opts_.variable_) gather_variable_rows(comm_, rows, own);
  for (const options::reduction& r : opts_.reductions_)
    if (r.at == when::each_loop) reduce(comm_, r);
  const loop_info info{user_comm_, loop.index, loop.n, own};
  for (const auto& callback : opts_.callbacks_) callback(info);
}

void engine::fatal(const std::string& message) { abort_job(comm_, message); }

// ------------------------------------------------------------ statistics

statistics engine::stats() const {
  statistics s;
  s.transport = transport_name(transport_);
  s.schedule = outer_text_;
  s.thread_level = level_name(level_);
  s.resilience = duplicate_ ? "duplicate" : "off";
  s.weight = weights_[static_cast<std::size_t>(rank_)];
  s.loops = loops_done_;
  s.outer_chunks = outer_chunks_;
  s.iterations = iterations_;
  s.wait_seconds = static_cast<double>(wait_ns_) * 1e-9;
  s.requests_served = server_ ? server_->served() : 0;
  s.copies_handed_out = server_ ? server_->copies() : 0;
  s.chunks_dropped = dropped_;
  return s;
}

void engine::print_stats() const {
  const statistics s = stats();
  std::fprintf(stderr,
               "selfsched-mpi: rank %d/%d transport=%s schedule=%s level=%s weight=%.3g loops=%llu "
               "outer_chunks=%llu iterations=%lld wait_s=%.6f served=%llu copies=%llu dropped=%llu\n",
               rank_, size_, s.transport.c_str(), s.schedule.c_str(), s.thread_level.c_str(), s.weight,
               static_cast<unsigned long long>(s.loops), static_cast<unsigned long long>(s.outer_chunks),
               static_cast<long long>(s.iterations), s.wait_seconds,
               static_cast<unsigned long long>(s.requests_served),
               static_cast<unsigned long long>(s.copies_handed_out), static_cast<unsigned long long>(s.chunks_dropped));
}

}  // namespace selfsched::mpi::detail
