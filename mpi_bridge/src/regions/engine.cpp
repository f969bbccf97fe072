// The loop hooks libselfsched calls (outer_source) and the statistics; the
// rest of the engine is in setup.cpp, client.cpp, copies.cpp and
// checkpoint.cpp.
#include "regions/engine.hpp"

#include <omp.h>

#include <cstdio>

#include "common/fatal.hpp"
#include "selfsched/bridge.hpp"  // libselfsched's seam: the clock
#include "common/site_identity.hpp"
#include "common/waiting.hpp"

namespace selfsched::mpi::detail {

using omp::bridge::now_ns;

std::uint64_t engine::loop_begin(const void* site, iter_t n, iter_t /*granule*/) {
  return begin(site, site_hash(site), n, false, {});
}

std::uint64_t engine::loop_begin_elsewhere(std::uint64_t site, iter_t n) { return begin(nullptr, site, n, false, {}); }

std::uint64_t engine::begin_dependence_loop(iter_t n, chunk_bounds bounds) {
  return begin(nullptr, site_hash(nullptr), n, true, bounds);
}

std::uint64_t engine::begin(const void* site, std::uint64_t hash, iter_t n, bool in_order, chunk_bounds bounds) {
  if (progress_thread_.joinable()) quiet_.wake();  // other ranks will ask for this loop's chunks
  std::lock_guard lock(mutex_);
  client_loop& loop = loops_.emplace_back();
  loop.index = begun_++;
  loop.n = n;
  loop.site = hash;
  loop.site_ident = site;
  loop.in_order = in_order;
  loop.bounds = bounds;
  // The loop's writes are compared with copies of the pages from now
  // (dependence loops move their cells themselves).
  if (window_ && !in_order) window_->open();
  if (rma_) {
    loop_params lp = base_;
    lp.n = n;
    bounds.apply_to(lp);
    rma_->begin(loop.index, outer_, lp);
  }
  return loop.index;
}

bool engine::prefetch(std::uint64_t index) {
  std::lock_guard lock(mutex_);
  client_loop* loop = find(index);
  if (loop == nullptr || loop->has_next || loop->done) return true;
  if (!may_call_mpi()) return false;
  if (!loop->asked) ask(*loop);
  poll(*loop);
  return loop->has_next || loop->done;
}

chunk engine::next_outer() {
  std::unique_lock lock(mutex_);
  client_loop& loop = loops_.back();  // the binding asks only for the loop begun last
  if (duplicate_) report_finished(loop);
  const std::int64_t asked = now_ns();
  bool waiting = false;  // since a poll that found no answer
  for (back_off wait; !loop.has_next && !loop.done;) {
    if (!may_call_mpi() && !local_asks_free_) {  // funneled: the creating thread fetches it at its next claim
      loop.wanted = true;
      return omp::outer_pending;
    }
    if (duplicate_ && may_call_mpi()) exchange_reports();
    if (!loop.asked) ask(loop);
    poll(loop, waiting);
    if (loop.has_next || loop.done) break;
    if (serve_inline_ && may_call_mpi()) server_->poll();  // a node master waiting for its batch serves its node
    check_server_alive(asked);
    lock.unlock();
    wait();
    lock.lock();
    waiting = loop.asked;
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

void engine::fatal(const std::string& message) { abort_job(comm_, message); }

void engine::serve_only() {
  if (server_) server_->serve_only();
}

statistics engine::stats() const {
  statistics s;
  s.transport = transport_name(transport_);
  s.schedule = outer_text_;
  s.thread_level = thread_level_name(level_);
  s.resilience = duplicate_ ? "duplicate" : "off";
  s.weight = weights_[static_cast<std::size_t>(rank_)];
  s.loops = loops_done_;
  s.outer_chunks = outer_chunks_;
  s.iterations = iterations_;
  s.wait_seconds = static_cast<double>(wait_ns_) * 1e-9;
  s.requests_served = server_ ? server_->served() : 0;
  s.copies_handed_out = server_ ? server_->copies() : 0;
  s.chunks_dropped = dropped_;
  s.undeclared_bytes = undeclared_bytes_;
  s.merged_bytes_received = merged_bytes_received_;
  s.writes_seconds = static_cast<double>(writes_ns_) * 1e-9;
  return s;
}

void engine::print_stats() const {
  const statistics s = stats();
  std::fprintf(stderr,
               "selfsched-mpi: rank %d/%d transport=%s schedule=%s level=%s weight=%.3g loops=%llu "
               "outer_chunks=%llu iterations=%lld wait_s=%.6f served=%llu copies=%llu dropped=%llu "
               "undeclared_bytes=%llu merged_bytes_received=%llu writes_s=%.6f\n",
               rank_, size_, s.transport.c_str(), s.schedule.c_str(), s.thread_level.c_str(), s.weight,
               static_cast<unsigned long long>(s.loops), static_cast<unsigned long long>(s.outer_chunks),
               static_cast<long long>(s.iterations), s.wait_seconds,
               static_cast<unsigned long long>(s.requests_served),
               static_cast<unsigned long long>(s.copies_handed_out), static_cast<unsigned long long>(s.chunks_dropped),
               static_cast<unsigned long long>(s.undeclared_bytes),
               static_cast<unsigned long long>(s.merged_bytes_received), s.writes_seconds);
}
}  // namespace selfsched::mpi::detail
