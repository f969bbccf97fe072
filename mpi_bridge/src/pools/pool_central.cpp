// Task pool strategy `central` (seed 001 Fig. 1, pool_engine.hpp): rank 0
// holds the global priority queue and serves the others.
//
// A report (rank -> rank 0): [type][stop u8][want i32][finished u32][levels
// i32...][tasks u32][task...]. Its finished levels are those of tasks the
// rank ran (or dropped after a stop), its tasks those they put; one message
// per step, in order, so rank 0 never sees a task finish before the tasks
// it put. Under copies there are no levels; the tasks are those put outside
// any task, and the runs follow, each with the tasks it put (pool_copies.cpp).
#include <algorithm>

#include "common/fatal.hpp"
#include "pools/pool_engine.hpp"

namespace selfsched::mpi::detail {
// Rank 0: a rank's report (or its last answer, end_ack).
void pool_engine::report_heard(int sender, message_buffer& message) {
  const auto r = static_cast<std::size_t>(sender);
  std::uint8_t stop = 0;
  std::int32_t want = 0;
  std::uint32_t finished = 0;
  bool ok = message.get(stop) && message.get(want) && (copies_on() || message.get(finished));
  std::vector<int> levels;
  for (std::uint32_t k = 0; ok && k < finished; ++k) {
    std::int32_t level = 0;
    ok = message.get(level);
    levels.push_back(level);
  }
  if (!ok) malformed("message", sender);

  std::vector<wire_task> tasks;
  if (!read_tasks(message, tasks)) malformed("message", sender);

  std::lock_guard guard(lock_);
  if (!heard_from_[r]) heard_from_[r] = true, ++heard_;
  // The tasks put first: a level must not complete before its children
  // are counted.
  keep_tasks(queue_, tasks);
  for (int level : levels) queue_.finish(level);
  if (copies_on()) runs_heard(sender, message);
  if (!end_sent_) wanted_[r] += std::max(0, want);
  if (stop) stop_locked();
  changed_.notify_all();
}

bool pool_engine::progress_central_master() {
  const std::int64_t from = omp::bridge::now_ns();
  bool busy = receive_all([&](int sender, pool_message type, message_buffer& message) {
    const auto r = static_cast<std::size_t>(sender);
    if (type == pool_message::end_ack) {
      if (!acknowledged_[r]) acknowledged_[r] = true, ++acks_;
    } else if (type == pool_message::report) {
      report_heard(sender, message);
    } else {
      malformed("message", sender);
    }
  }).any;

  std::unique_lock guard(lock_);
  if (copies_on()) check_silent_ranks(busy);
  if (serve_wanted()) busy = true;
  if (copies_on()) {
    const bool told = tell_counted();
    if (hand_copies() || told) busy = true;
  }
  // The end: every rank's early puts are in and nothing is queued or
  // running anywhere. Then wait for each rank's last message.
  if (finish_serving(heard_ == size_ - 1 && queue_.done())) busy = true;
  if (busy) serve_ns_ += omp::bridge::now_ns() - from;
  return busy;
}

// Rank 0, with the lock held: what was asked, current tasks only, highest
// priority first. One task a rank per pass, the passes starting where the
// last serving stopped: when current tasks are scarce, every rank that asks
// gets its first before any gets the one it asks for ahead (each rank asks
// for one more than its threads), and no rank is always served first.
// Served in rank order instead, 512 ranks ran a tree 18% slower under SMPI
// (docs/simulation.md). True if it sent.
bool pool_engine::serve_wanted() {
  if (size_ < 2) return false;
  std::vector<std::vector<wire_task>> batches(static_cast<std::size_t>(size_));
  bool handed = true;
  int last = -1;
  while (handed && !stopped_) {
    handed = false;
    for (int k = 0; k < size_ - 1 && !stopped_; ++k) {
      const int r = 1 + (serve_from_ - 1 + k) % (size_ - 1);
      int& wanted = wanted_[static_cast<std::size_t>(r)];
      if (wanted <= 0) continue;
      std::optional<queued_task> t = queue_.pop_current();
      if (!t) break;  // nothing current left for anyone
      wire_task task{t->level, t->priority, std::move(t->payload)};
      batches[static_cast<std::size_t>(r)].push_back(copies_on() ? number_handed(r, std::move(task)) : std::move(task));
      --wanted;
      handed = true;
      last = r;
    }
  }
  if (last < 0) return false;
  serve_from_ = last % (size_ - 1) + 1;  // the rank after the last served
  for (int r = 1; r < size_; ++r)
    if (!batches[static_cast<std::size_t>(r)].empty())
      send(r, tasks_message(pool_message::tasks, batches[static_cast<std::size_t>(r)]));
  return true;
}

// A rank: tasks rank 0 handed out for it.
void pool_engine::tasks_handed(int sender, message_buffer& message) {
  std::vector<wire_task> tasks;
  if (!read_tasks(message, tasks)) malformed("message", sender);
  std::lock_guard guard(lock_);
  requested_ -= static_cast<int>(tasks.size());
  for (wire_task& t : tasks) {
    if (stopped_) {  // handed out, never run: finished for rank 0's accounting
      drop_handed(t.payload, t.level);
    } else {
      queue_.push(std::move(t.payload), t.level, t.priority);
    }
  }
  changed_.notify_all();
}

bool pool_engine::progress_central_rank() {
  const received_all in = receive_all([&](int sender, pool_message type, message_buffer& message) {
    if (type == pool_message::counted) counted_heard(sender, message);
    else if (type == pool_message::tasks) tasks_handed(sender, message);
    else return common_message(type, sender, message);
    return false;
  });
  if (in.ended) return true;
  const bool busy = in.any;

  std::unique_lock guard(lock_);
  if (ended_) return busy;
  // One task per thread and one more, so no thread waits a round trip
  // between two tasks: running, queued here, or asked for.
  const int want = stopped_ ? 0
                            : std::max(0, threads_ + 1 - static_cast<int>(queue_.outstanding()) - requested_);
  if (first_report_sent_ && finished_levels_.empty() && finished_runs_.empty() && new_tasks_.empty() &&
      !stop_requested_ && want == 0)
    return busy;
  message_buffer out(pool_message::report);
  out.put(static_cast<std::uint8_t>(stop_requested_ ? 1 : 0));
  out.put(static_cast<std::int32_t>(want));
  if (!copies_on()) {
    out.put(static_cast<std::uint32_t>(finished_levels_.size()));
    for (int level : finished_levels_) out.put(static_cast<std::int32_t>(level));
  }
  out.put(static_cast<std::uint32_t>(new_tasks_.size()));
  for (const wire_task& t : new_tasks_) out.put_task(t);
  if (copies_on()) put_runs(out);
  finished_levels_.clear();
  new_tasks_.clear();
  stop_requested_ = false;
  first_report_sent_ = true;
  requested_ += want;
  guard.unlock();
  send(0, std::move(out));
  return true;
}

}  // namespace selfsched::mpi::detail
