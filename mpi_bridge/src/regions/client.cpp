// A rank asking for its outer chunks (seeds 000, 004: the worker's side), and
// a serving rank answering requests, between its own chunks or from its
// progress thread.
#include <pthread.h>
#include <sys/prctl.h>

#include <algorithm>

#include "regions/engine.hpp"
#include "selfsched/bridge.hpp"  // libselfsched's seam: the clock
#include "common/waiting.hpp"

namespace selfsched::mpi::detail {
namespace {

// An exponential average that starts at its first sample.
void average(double& mean, double sample) { mean = mean > 0 ? 0.75 * mean + 0.25 * sample : sample; }

}  // namespace

using omp::bridge::now_ns;

void engine::ask(client_loop& loop) {
  loop.asked = true;
  loop.asked_at = loop.looked_at = now_ns();
  loop.wanted = false;
  const double queue = load_correction_ ? omp::bridge::run_queue_length() : 1.0;
  const request_msg m{loop.index, loop.n, loop.site, loop.report_size, loop.report_ns, loop.in_order, loop.bounds,
                      queue};
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

void engine::poll(client_loop& loop, bool waiting) {
  if (!loop.asked) return;
  if (rma_) {  // a claim cannot be looked at without completing it: its whole time counts
    const chunk c = rma_->complete();
    average(round_trip_ns_, static_cast<double>(now_ns() - loop.asked_at));
    return deliver(loop.index, c);
  }
  if (parent_ == rank_) return;  // our own server answers through deliver()
  int arrived = 0;
  MPI_Test(&loop.reply_handle, &arrived, MPI_STATUS_IGNORE);
  const std::int64_t now = now_ns();
  if (!arrived) {
    loop.looked_at = now;
    return;
  }
  if (waiting || round_trip_timed(loop.asked_at, loop.looked_at, now))
    average(round_trip_ns_, static_cast<double>(now - loop.asked_at));
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

bool engine::serve_inline(bool rate_limited) {
  if (!serve_inline_) return false;
  if (rate_limited) {  // MPI_Improbe is not free: at most every few microseconds
    const std::int64_t now = now_ns();
    if (now - last_serve_ns_ < 2'000) return false;
    last_serve_ns_ = now;
  }
  return server_->poll();
}

bool engine::serve() {
  if (!serve_inline_ || !may_call_mpi()) return false;
  std::lock_guard lock(mutex_);
  return serve_inline(true);
}

// The progress thread of a serving rank (MPI_THREAD_MULTIPLE).
void engine::serve_forever() {
  prctl(PR_SET_TIMERSLACK, 1000UL);  // 1 us: its short sleeps stay short
  pthread_setname_np(pthread_self(), "selfsched-serve");  // as top, gdb and tests/mpi/quiet_server.cpp see it
  std::int64_t idle_since = now_ns();
  while (!stop_.load(std::memory_order_acquire)) {
    bool served = false;
    {
      std::lock_guard lock(mutex_);
      served = server_->poll();
    }
    const std::int64_t now = now_ns();
    if (served) idle_since = now;
    const serving_pause pause = pause_when_quiet(now - idle_since, remote_);  // waiting.hpp: why these
    if (pause.what == serving_pause::yield) sched_yield();
    else if (pause.what == serving_pause::nap) sleep_ns(pause.ns);
    else quiet_.sleep_up_to(std::chrono::nanoseconds(pause.ns));
  }
}
}  // namespace selfsched::mpi::detail
