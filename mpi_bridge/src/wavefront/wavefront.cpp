// Mechanism S across ranks (seed 000, sec. 3.2 and 5: the slave of chunk k
// receives from the slave of chunk k-1 and sends to that of chunk k+1 at
// every synchronization point), for selfsched/mpi_wavefront.hpp.
//
// Outer chunks of the skewed chunk dimension c' come from the region's
// transport like any shared loop's (every transport hands a rank its chunks
// in increasing order, so the lowest unfinished chunk is always being run:
// no deadlock). A rank announces each chunk it takes to every other rank;
// the rank of the chunk that ends where it starts learns from that where to
// send. Inside a rank the threads cut its chunks into inner chunks (the
// inner technique), run in the same intervals; the first inner chunk of an
// outer chunk waits for the boundary from the previous rank (or for this
// rank's own previous chunk when the two meet), and the last one's progress
// releases the boundary for the next rank.
//
// A boundary is the cells of the `halo` columns of c' before a chunk's end
// (plan.halo: the furthest a dependence reaches back along c') on the
// interval's rows. The sender has them all, even those of earlier chunks
// when its own is narrower than the halo: it received them before running
// the interval. Cells do not change once computed (the pull form the header
// asks for), so a boundary can be packed any time after its interval.
//
// Only the thread that created the region calls MPI (any thread level
// works): between its intervals and whenever it waits.
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstring>
#include <deque>
#include <list>
#include <map>
#include <mutex>
#include <optional>

#include "regions/engine.hpp"
#include "common/fatal.hpp"
#include "regions/movement.hpp"
#include "selfsched/bridge.hpp"  // libselfsched's seam: the clock, settings, warn
#include "selfsched/core/registry.hpp"
#include "selfsched/core/scheduler.hpp"
#include "selfsched/core/wavefront.hpp"
#include "selfsched/mpi_wavefront.hpp"
#include "common/waiting.hpp"

namespace selfsched::mpi::detail {

struct engine_access {
  static engine& of(region& r) { return *r.engine_; }
};

namespace {

using omp::bridge::now_ns;

// On the wavefront's own duplicate of the region's communicator.
enum wavefront_tag : int { tag_announce = 1, tag_boundary = 2 };
constexpr int header_length = 2;  // a boundary's: the receiving chunk's start, the interval

struct alignas(64) progress {
  std::atomic<iter_t> passed{0};  // intervals an inner chunk has finished
};

// One outer chunk of this rank.
struct outer_chunk {
  chunk span;
  std::optional<scheduler> inner;           // cuts it among the threads
  iter_t handed = 0;                        // inner chunks handed out
  const std::atomic<iter_t>* last = nullptr;  // its last inner chunk's progress, once handed out
  int successor = -1;                       // rank of the chunk starting at its end; -1: not known yet
  iter_t sent = 0;                          // boundaries sent to it
  alignas(64) std::atomic<iter_t> received{0};  // boundaries from the previous chunk's rank
};

// An inner chunk, as a thread runs it.
struct claim {
  chunk span;
  const std::atomic<iter_t>* before = nullptr;  // what interval t waits for (> t); nullptr: nothing
  std::atomic<iter_t>* mine = nullptr;
  bool finished = false;  // nothing left for this rank
};

struct outgoing {
  std::vector<std::byte> bytes;
  MPI_Request request = MPI_REQUEST_NULL;
};

class distributed_wavefront {
 public:
  distributed_wavefront(engine& e, const wavefront_call& call, const wavefront_plan& plan, const schedule_spec& inner,
                        const loop_params& inner_params, int threads, chunk_bounds bounds)
      : engine_(e), call_(call), plan_(plan), inner_spec_(inner), inner_params_(inner_params), threads_(threads),
        bounds_(bounds) {
    MPI_Comm_dup(e.comm(), &comm_);
    rank_ = e.rank();
    size_ = e.size();
  }
  ~distributed_wavefront() { MPI_Comm_free(&comm_); }

  void start() { index_ = engine_.begin_dependence_loop(plan_.chunk_extent, bounds_); }
  void work(int thread);
  void finish();
  std::vector<chunk> own_chunks() const;
  void fill(wavefront_report& report) const;

 private:
  claim take(int thread);
  const std::atomic<iter_t>* first_wait(std::size_t index);
  void poll();
  void fetch();
  void receive_announcements();
  void receive_boundaries();
  void send_boundaries();
  void complete_sends();
  bool owes_boundaries();
  chunk band(iter_t end) const;
  std::vector<chunk> own_within(chunk band) const;
  [[noreturn]] void fail(const std::string& why) {
    abort_job(comm_, "wavefront on rank " + std::to_string(rank_) + ": " + why);
  }

  engine& engine_;
  const wavefront_call& call_;
  const wavefront_plan& plan_;
  const schedule_spec& inner_spec_;
  const loop_params& inner_params_;
  int threads_ = 1;
  chunk_bounds bounds_;
  std::uint64_t index_ = 0;  // the engine's name for the loop
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;

  mutable std::mutex mutex_;  // the deques' structure, cutting_, outer_done_, successors, starts_
  std::deque<outer_chunk> outers_;
  std::size_t cutting_ = 0;  // the outer chunk being cut
  bool outer_done_ = false;
  std::deque<progress> inner_;
  std::map<iter_t, int> starts_;  // other ranks' chunks: start -> rank
  std::atomic<bool> want_outer_{false};
  std::atomic<int> active_{0};
  std::atomic<bool> failed_{false};
  std::string failure_;

  // The creating thread's alone.
  std::list<outgoing> sends_;
  std::int64_t announcements_ = 0;
  std::int64_t boundaries_sent_ = 0, boundary_bytes_ = 0;
  std::atomic<std::int64_t> wait_ns_{0};
  std::int64_t started_ns_ = now_ns(), seconds_ns_ = 0;
};

claim distributed_wavefront::take(int thread) {
  std::lock_guard lock(mutex_);
  while (cutting_ < outers_.size()) {
    outer_chunk& o = outers_[cutting_];
    const chunk c = o.inner->next(thread);
    if (c.size == 0) {  // cut whole already (remaining() said so after its last chunk)
      if (o.last == nullptr && o.handed > 0) o.last = &inner_.back().passed;
      ++cutting_;
      continue;
    }
    claim k;
    k.span = {o.span.start + c.start, c.size};
    k.mine = &inner_.emplace_back().passed;
    k.before = o.handed == 0 ? first_wait(cutting_) : &inner_[inner_.size() - 2].passed;
    ++o.handed;
    if (o.inner->remaining() == 0) o.last = k.mine, ++cutting_;
    return k;
  }
  if (outer_done_) return {.span = {}, .finished = true};
  want_outer_.store(true, std::memory_order_relaxed);
  return {};
}

// What the first inner chunk of outers_[index] waits for: nothing at c' = 0,
// this rank's previous chunk when it ends there, else the boundaries.
const std::atomic<iter_t>* distributed_wavefront::first_wait(std::size_t index) {
  outer_chunk& o = outers_[index];
  if (o.span.start == 0) return nullptr;
  if (index > 0 && outers_[index - 1].span.start + outers_[index - 1].span.size == o.span.start)
    return outers_[index - 1].last;  // handed out whole before this one was cut
  return &o.received;
}

void distributed_wavefront::work(int thread) {
  active_.fetch_add(1);
  const bool talks = thread == 0;  // the creating thread
  std::int64_t waited = 0;
  const auto wait_for = [&](auto ready) {
    if (ready()) return;
    const std::int64_t from = now_ns();
    while (!ready() && !failed_.load(std::memory_order_relaxed)) {
      if (talks) poll();
      else __builtin_ia32_pause();
    }
    waited += now_ns() - from;
  };
  for (;;) {
    const claim k = take(thread);
    if (k.finished || failed_.load(std::memory_order_relaxed)) break;
    if (k.span.size == 0) {  // the next outer chunk is on its way
      if (talks) poll();
      else sched_yield();
      continue;
    }
    for (iter_t t = 0; t < plan_.tiles; ++t) {
      if (k.before != nullptr)
        wait_for([&] { return k.before->load(std::memory_order_acquire) > t; });
      if (failed_.load(std::memory_order_relaxed)) break;
      const auto [first, last] = plan_.tile_rows(t);
      const bool ran = for_each_run(plan_, k.span, first, last, [&](const iter_t* x, int dim, iter_t count) {
        return call_.run(call_.context, x, dim, count) == 0;
      });
      if (!ran) {
        std::lock_guard lock(mutex_);
        if (!failed_.exchange(true)) failure_ = call_.failure(call_.context);
        break;
      }
      k.mine->store(t + 1, std::memory_order_release);
      if (talks) poll();
    }
  }
  wait_ns_.fetch_add(waited, std::memory_order_relaxed);
  active_.fetch_sub(1);
  // The others may still wait for boundaries only this thread receives.
  if (talks) wait_for([&] { return active_.load() == 0; });
  if (talks && failed_.load()) fail("the body failed: " + failure_);
}

void distributed_wavefront::poll() {
  if (failed_.load(std::memory_order_relaxed)) {
    std::lock_guard lock(mutex_);
    fail("the body failed: " + failure_);
  }
  receive_announcements();
  receive_boundaries();
  send_boundaries();
  complete_sends();
  engine_.serve();
  bool fetch_now = false;
  {
    std::lock_guard lock(mutex_);
    fetch_now = !outer_done_ && (want_outer_.load(std::memory_order_relaxed) || cutting_ == outers_.size());
  }
  // Asked for ahead, taken once here: the threads keep computing meanwhile.
  if (fetch_now && engine_.prefetch(index_)) fetch();
}

// The next outer chunk from the region's transport, once prefetch() says it
// is here.
void distributed_wavefront::fetch() {
  const chunk c = engine_.next_outer();
  {
    std::lock_guard lock(mutex_);
    want_outer_.store(false, std::memory_order_relaxed);
    if (c.size <= 0) {
      outer_done_ = true;
      return;
    }
    if (!outers_.empty() && outers_.back().span.start + outers_.back().span.size == c.start)
      outers_.back().successor = rank_;
    outer_chunk& o = outers_.emplace_back();
    o.span = c;
    loop_params lp = inner_params_;
    lp.n = c.size;
    o.inner.emplace(inner_spec_, lp);
    if (const auto next = starts_.find(c.start + c.size); next != starts_.end()) o.successor = next->second;
  }
  for (int r = 0; r < size_; ++r) {
    if (r == rank_) continue;
    outgoing& m = sends_.emplace_back();
    m.bytes.resize(2 * sizeof(std::int64_t));
    const std::int64_t note[2] = {c.start, c.size};
    std::memcpy(m.bytes.data(), note, sizeof note);
    MPI_Isend(m.bytes.data(), 2, MPI_INT64_T, r, tag_announce, comm_, &m.request);
  }
}

void distributed_wavefront::receive_announcements() {
  std::vector<std::int64_t> note;  // start, size
  while (const std::optional<int> from = receive_int64s(comm_, MPI_ANY_SOURCE, tag_announce, note)) {
    if (note.size() != 2) fail("a malformed chunk announcement from rank " + std::to_string(*from));
    ++announcements_;
    std::lock_guard lock(mutex_);
    starts_[note[0]] = *from;
    for (outer_chunk& o : outers_)
      if (o.span.start + o.span.size == note[0]) o.successor = *from;
  }
}

// The columns a boundary carries to the chunk starting at `end`.
chunk distributed_wavefront::band(iter_t end) const {
  const iter_t from = std::max<iter_t>(0, end - plan_.halo);
  return {from, end - from};
}

// This rank's chunks that meet `band` (under the lock): a few at most.
std::vector<chunk> distributed_wavefront::own_within(chunk band) const {
  std::vector<chunk> mine;
  for (const outer_chunk& o : outers_)
    if (o.span.start < band.start + band.size && band.start < o.span.start + o.span.size) mine.push_back(o.span);
  return mine;
}

void distributed_wavefront::receive_boundaries() {
  std::vector<std::byte> message;
  while (const std::optional<int> sender = receive_any(comm_, MPI_ANY_SOURCE, tag_boundary, MPI_BYTE, message)) {
    std::int64_t header[header_length];
    if (message.size() < sizeof header) fail("a boundary without its header from rank " + std::to_string(*sender));
    std::memcpy(header, message.data(), sizeof header);
    const iter_t start = header[0], t = header[1];

    std::unique_lock lock(mutex_);
    outer_chunk* to = nullptr;
    for (outer_chunk& o : outers_)
      if (o.span.start == start) to = &o;
    if (to == nullptr || to->received.load(std::memory_order_relaxed) != t)
      fail("a boundary from rank " + std::to_string(*sender) + " for a chunk at " + std::to_string(start) +
           ", interval " + std::to_string(t) + ", that this rank does not expect");
    // Cells of columns this rank computes itself stay as they are (they
    // only come back when a narrow chunk forwards them).
    const std::byte* from = message.data() + sizeof header;
    const std::byte* const end = message.data() + message.size();
    const auto [first, last] = plan_.tile_rows(t);
    const std::vector<chunk> mine = own_within(band(start));
    const auto computed_here = [&](iter_t column) {
      return std::any_of(mine.begin(), mine.end(),
                         [&](chunk c) { return column >= c.start && column < c.start + c.size; });
    };
    for_each_iteration(plan_, band(start), first, last, [&](const iter_t* at) {
      if (from + call_.cell_bytes > end) fail("a boundary shorter than its cells");
      if (!computed_here(at[plan_.chunk_dim] + plan_.skew * at[plan_.sync_dim]))
        std::memcpy(call_.cell(call_.context, at), from, call_.cell_bytes);
      from += call_.cell_bytes;
    });
    if (from != end) fail("a boundary longer than its cells from rank " + std::to_string(*sender));
    to->received.store(t + 1, std::memory_order_release);
  }
}

void distributed_wavefront::send_boundaries() {
  std::unique_lock lock(mutex_);
  for (outer_chunk& o : outers_) {
    if (o.successor < 0 || o.successor == rank_ || o.last == nullptr) continue;
    const iter_t done = o.last->load(std::memory_order_acquire);
    const iter_t end = o.span.start + o.span.size;
    for (; o.sent < done; ++o.sent) {
      outgoing& m = sends_.emplace_back();
      const std::int64_t header[header_length] = {end, o.sent};
      m.bytes.resize(sizeof header);
      std::memcpy(m.bytes.data(), header, sizeof header);
      const auto [first, last] = plan_.tile_rows(o.sent);
      for_each_iteration(plan_, band(end), first, last, [&](const iter_t* at) {
        const auto* cell = static_cast<const std::byte*>(call_.cell(call_.context, at));
        m.bytes.insert(m.bytes.end(), cell, cell + call_.cell_bytes);
      });
      if (m.bytes.size() > INT_MAX) fail("a boundary of " + std::to_string(m.bytes.size()) + " bytes (over 2 GiB)");
      MPI_Isend(m.bytes.data(), static_cast<int>(m.bytes.size()), MPI_BYTE, o.successor, tag_boundary, comm_,
                &m.request);
      ++boundaries_sent_;
      boundary_bytes_ += static_cast<std::int64_t>(m.bytes.size() - sizeof header);
    }
  }
}

void distributed_wavefront::complete_sends() {
  for (auto it = sends_.begin(); it != sends_.end();) {
    int done = 0;
    MPI_Test(&it->request, &done, MPI_STATUS_IGNORE);
    it = done ? sends_.erase(it) : std::next(it);
  }
}

// Does a chunk of this rank still owe boundaries to the next chunk's rank?
bool distributed_wavefront::owes_boundaries() {
  std::lock_guard lock(mutex_);
  for (const outer_chunk& o : outers_)
    if (o.span.start + o.span.size < plan_.chunk_extent && o.successor != rank_ && o.sent < plan_.tiles) return true;
  return false;
}

// On the creating thread, after the parallel region: every boundary sent,
// every announcement received (their number is the ranks' chunks summed).
void distributed_wavefront::finish() {
  seconds_ns_ = now_ns() - started_ns_;
  for (back_off wait; owes_boundaries(); wait()) poll();
  std::int64_t mine = 0, total = 0;
  {
    std::lock_guard lock(mutex_);
    mine = static_cast<std::int64_t>(outers_.size());
  }
  MPI_Request sum;
  MPI_Iallreduce(&mine, &total, 1, MPI_INT64_T, MPI_SUM, comm_, &sum);
  for (back_off wait;; wait()) {
    poll();
    int done = 0;
    MPI_Test(&sum, &done, MPI_STATUS_IGNORE);
    if (done && announcements_ == total - mine && sends_.empty()) break;
  }
}

std::vector<chunk> distributed_wavefront::own_chunks() const {
  std::lock_guard lock(mutex_);
  std::vector<chunk> spans;
  for (const outer_chunk& o : outers_) spans.push_back(o.span);
  return spans;
}

void distributed_wavefront::fill(wavefront_report& report) const {
  selfsched::wavefront_report& r = report.threads;
  std::snprintf(r.technique, sizeof r.technique, "%s", inner_spec_.name().c_str());
  r.threads = threads_;
  r.sync_dim = plan_.sync_dim;
  r.chunk_dim = plan_.chunk_dim;
  r.skew = plan_.skew;
  r.chunk_extent = plan_.chunk_extent;
  r.sync_points = plan_.sync_points;
  r.sync_interval = plan_.interval;
  r.intervals = plan_.tiles;
  r.chunks = static_cast<std::int64_t>(inner_.size());
  r.seconds = static_cast<double>(seconds_ns_) * 1e-9;
  r.wait_seconds = static_cast<double>(wait_ns_.load()) * 1e-9;
  report.outer_chunks = static_cast<std::int64_t>(outers_.size());
  for (const outer_chunk& o : outers_) report.iterations += plan_.iterations(o.span);
  report.boundaries_sent = boundaries_sent_;
  report.boundary_bytes = boundary_bytes_;
}

[[noreturn]] void refuse(const std::string& why) { throw wavefront_error("selfsched::mpi::wavefront: " + why); }

// The call's arguments, checked; the same answer on every rank (same
// problem, rank 0's configuration), so every rank throws or none does.
void check_call(const engine& e, const wavefront_call& call) {
  const wavefront_options& o = *call.options;
  if (omp_in_parallel()) refuse("called inside a parallel region; call it where the region's loops start");
  if (e.runs_copies())
    refuse("the region runs copies of unfinished chunks (SELFSCHED_MPI_RESILIENCE=duplicate); a dependence loop "
           "cannot: a copy would send its boundaries twice. Use a region without it");
  if (call.cell_bytes == 0) refuse("cell_bytes is 0; each iteration's cell must have a size");
  if (call.gather != all_ranks && call.gather != no_gather && (call.gather < 0 || call.gather >= e.size()))
    refuse("gather " + std::to_string(call.gather) + " is not a rank (0.." + std::to_string(e.size() - 1) +
           "), all_ranks (-1) or no_gather (-2)");
  if (o.threads < 0) refuse("threads " + std::to_string(o.threads) + " must be >= 0 (0: OpenMP's)");
  if (o.sync_points < 0) refuse("sync_points " + std::to_string(o.sync_points) + " must be >= 0");
  if (o.min_chunk < 0 || o.max_chunk < 0) refuse("min_chunk and max_chunk must be >= 0 (0: none)");
  if (o.max_chunk > 0 && o.min_chunk > o.max_chunk)
    refuse("min_chunk " + std::to_string(o.min_chunk) + " exceeds max_chunk " + std::to_string(o.max_chunk));
  if (call.rank < 2 || call.rank > wavefront_max_rank)
    refuse("rank " + std::to_string(call.rank) + " is not supported; valid: 2, 3");
  if (call.dependence_count < 0)
    refuse("dependence_count " + std::to_string(call.dependence_count) + " must be >= 0");
}

// The iteration space cut into tiles and synchronization points.
wavefront_plan plan_of(const engine& e, const wavefront_call& call, int threads) {
  const wavefront_options& o = *call.options;
  wavefront_problem problem;
  problem.rank = call.rank;
  for (int d = 0; d < call.rank; ++d) problem.extents[d] = call.extents[d];
  for (int v = 0; v < call.dependence_count; ++v) {
    wavefront_index d{};
    for (int k = 0; k < call.rank; ++k) d[k] = call.dependences[v * call.rank + k];
    problem.dependences.push_back(d);
  }
  problem.chunk_dim = o.chunk_dim;
  problem.sync_dim = o.sync_dim;
  // #SP >= 3m for m workers (seed 000 sec. 3.3): here every thread of every rank.
  const iter_t sync_points = o.sync_points > 0 ? o.sync_points : 3 * iter_t{e.size()} * threads;
  wavefront_plan_result planned = plan_wavefront(problem, sync_points);
  if (!planned.ok()) refuse(planned.error);
  return planned.plan;
}

// The threads' technique for cutting each outer chunk, validated.
std::pair<schedule_spec, loop_params> inner_schedule(const wavefront_options& o, const wavefront_plan& plan,
                                                     int threads) {
  const std::string technique = o.technique.empty() ? "s-fss" : o.technique;
  const parse_result parsed = parse_schedule(technique);
  if (!parsed.ok()) refuse("technique: " + parsed.error);
  // One thread runs each outer chunk whole: cutting it would only add
  // passes over the rows.
  schedule_spec inner = threads > 1 ? parsed.spec : parse_schedule("static").spec;
  inner.synchronized = true;
  const omp::bridge::library_settings s = omp::bridge::settings();
  loop_params lp;
  lp.p = threads;
  lp.n = std::max<iter_t>(1, plan.chunk_extent);  // validated as one chunk; each outer chunk sets its own
  // The thresholds bound the outer chunks (the seed's chunks); the threads
  // cut those by their technique alone.
  lp.mu = s.mu;
  lp.sigma = s.sigma;
  lp.overhead = s.overhead;
  lp.seed = s.seed;
  apply_chunk(inner, lp);
  if (const std::string bad = validate(lp); !bad.empty()) refuse(bad);
  return {inner, lp};
}

}  // namespace

wavefront_report run_wavefront(region& r, const wavefront_call& call) {
  engine& e = engine_access::of(r);
  const wavefront_options& o = *call.options;
  check_call(e, call);
  const int threads = o.threads > 0 ? o.threads : omp_get_max_threads();
  const wavefront_plan plan = plan_of(e, call, threads);
  const auto [inner, lp] = inner_schedule(o, plan, threads);

  wavefront_report report;
  const statistics region_stats = e.stats();
  report.outer = region_stats.schedule;
  report.transport = region_stats.transport;
  std::vector<chunk> own;
  {
    distributed_wavefront w(e, call, plan, inner, lp, threads, {o.min_chunk, o.max_chunk});
    w.start();
#pragma omp parallel num_threads(threads)
    w.work(omp_get_thread_num());
    w.finish();
    w.fill(report);
    own = w.own_chunks();
  }
  e.loop_end();  // outside any parallel region: the ranks' checkpoint, the region's moves
  if (call.gather != no_gather && e.size() > 1) gather_cells(e.comm(), plan, call, own, call.gather);
  if (omp::bridge::settings().verbose && e.rank() == 0)
    omp::bridge::warn("MPI wavefront over %d ranks: outer %s (%s), threads %s, u_s = %d, u_c = %d, skew %lld, "
                      "#SP %lld, SI %lld, halo %lld",
                      e.size(), report.outer.c_str(), report.transport.c_str(), report.threads.technique,
                      plan.sync_dim, plan.chunk_dim, static_cast<long long>(plan.skew),
                      static_cast<long long>(plan.sync_points), static_cast<long long>(plan.interval),
                      static_cast<long long>(plan.halo));
  return report;
}

}  // namespace selfsched::mpi::detail
