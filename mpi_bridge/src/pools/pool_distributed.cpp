// Task pool strategies `receiver` and `sender` (seed 001 Fig. 2,
// distributed; pool_engine.hpp): every rank runs the tasks it puts and no
// rank is dedicated.
//
// receiver: a rank whose queue has no current task asks a random rank for
// work; that rank gives half of its current tasks (highest priority first)
// if it has two or more, else forwards the request to another random rank,
// at most ranks - 1 times and at most 64 (seed 001's P - 1 at its 64
// processors; beyond, every idle rank's request would cross the whole
// job), after which the asker is told no (and may run
// beyond the asynchronicity limit, as seed 001 allows, then asks again after
// a growing pause).
//
// sender: a rank with more than two current tasks per thread queued sends
// half of its surplus (highest priority first) to a random rank, at most
// every push_interval; a rank with fewer current tasks than threads keeps
// what comes, a busier one forwards it to another random rank, and the
// ranks - 1'th (at most the 64th) keeps it whatever its load.
//
// Ending: every rank sends rank 0 its counts when they change (throttled):
// outstanding tasks, the lowest outstanding level, and the task messages it
// has sent to and received from each rank (those of the ranks whose counts
// changed since its last). Rank 0 ends the pool when every
// rank has been heard from, none has a task, and for every pair of ranks the
// messages one counts as sent the other counts as received. A task that
// exists is either counted outstanding by the rank that holds it, or in a
// message that its sender's counts show and its receiver's do not, or came
// to be after the last counts of a rank whose counts then showed the task
// that created it: so none is missed. Rank 0 also broadcasts the last
// completed level when the counts show no message in flight.
#include <algorithm>
#include <limits>

#include "common/fatal.hpp"
#include "pools/pool_engine.hpp"

namespace selfsched::mpi::detail {
namespace {

constexpr int no_level = std::numeric_limits<int>::max();
constexpr std::int64_t first_pause_ns = 100'000, longest_pause_ns = 5'000'000;
constexpr std::int64_t push_interval_ns = 200'000;
constexpr int most_forwards = 64;  // a steal request's or a push's passes at most (and ranks - 1)

// A rank other than `self` and `also_not` (which may be -1), or -1 if none.
int random_rank(std::uint64_t& state, int size, int self, int also_not) {
  const int choices = size - 1 - (also_not >= 0 && also_not != self ? 1 : 0);
  if (choices <= 0) return -1;
  state = state * 6364136223846793005ULL + 1442695040888963407ULL;
  int k = static_cast<int>((state >> 33) % static_cast<std::uint64_t>(choices));
  for (int r = 0; r < size; ++r) {
    if (r == self || r == also_not) continue;
    if (k-- == 0) return r;
  }
  return -1;
}

// sender: tasks to keep or pass on, after `hops` passes.
message_buffer pushed_message(int hops, const std::vector<wire_task>& tasks) {
  message_buffer out(pool_message::pushed);
  out.put(static_cast<std::int32_t>(hops));
  out.put(static_cast<std::uint32_t>(tasks.size()));
  for (const wire_task& t : tasks) out.put_task(t);
  return out;
}

}  // namespace

bool pool_engine::progress_distributed() {
  report_now_ = false;
  const received_all in = receive_all([&](int sender, pool_message type, message_buffer& message) {
    return distributed_message(sender, type, message);
  });
  if (in.ended) return true;
  std::unique_lock guard(lock_);
  if (ended_) return in.any;
  const std::int64_t now = omp::bridge::now_ns();
  const bool moved = push_or_ask(guard, now);
  return send_counts(guard, now) || moved || in.any;
}

bool pool_engine::distributed_message(int sender, pool_message type, message_buffer& message) {
  switch (type) {
    case pool_message::steal:
      steal_asked(sender, message);
      return false;
    case pool_message::tasks: {
      std::vector<wire_task> tasks;
      if (!read_tasks(message, tasks)) malformed("message", sender);
      std::lock_guard guard(lock_);
      count_received(sender);
      keep_tasks(queue_, tasks);
      stealing_ = denied_ = false;
      steal_backoff_ns_ = 0;
      state_changed_ = report_now_ = true;
      changed_.notify_all();
      return false;
    }
    case pool_message::pushed:
      tasks_pushed(sender, message);
      return false;
    case pool_message::denied: {
      std::lock_guard guard(lock_);
      stealing_ = false;
      denied_ = true;
      steal_backoff_ns_ = std::clamp(steal_backoff_ns_ * 2, first_pause_ns, longest_pause_ns);
      next_steal_ns_ = omp::bridge::now_ns() + steal_backoff_ns_;
      changed_.notify_all();
      return false;
    }
    case pool_message::counts:  // rank 0 only
      counts_heard(sender, message);
      return false;
    case pool_message::end_ack: {  // rank 0 only
      const auto from = static_cast<std::size_t>(sender);
      if (!acknowledged_[from]) acknowledged_[from] = true, ++acks_;
      return false;
    }
    default:
      return common_message(type, sender, message);
  }
}

// receiver: give half of the current tasks, or pass the request on.
void pool_engine::steal_asked(int sender, message_buffer& message) {
  std::int32_t asker = 0, hops = 0;
  if (!message.get(asker) || !message.get(hops) || asker < 0 || asker >= size_) malformed("steal request", sender);
  std::vector<wire_task> given;
  {
    std::lock_guard guard(lock_);
    const std::size_t current = transferable(queue_);
    if (!stopped_ && current >= asks_below() + 1) take_current(queue_, transfer_horizon(), current / 2, given);
    if (!given.empty()) {
      count_sent(asker);
      state_changed_ = report_now_ = true;
    }
  }
  if (!given.empty()) {
    send(asker, tasks_message(pool_message::tasks, given));
  } else if (const int next = hops + 1 < std::min(size_ - 1, most_forwards) ? random_rank(random_, size_, rank_, asker) : -1;
             next >= 0) {
    message_buffer forward(pool_message::steal);
    forward.put(asker);
    forward.put(static_cast<std::int32_t>(hops + 1));
    send(next, std::move(forward));
  } else {
    send(asker, message_buffer(pool_message::denied));
  }
}

// sender: keep what came, or pass it on.
void pool_engine::tasks_pushed(int sender, message_buffer& message) {
  std::int32_t hops = 0;
  std::vector<wire_task> tasks;
  if (!message.get(hops) || !read_tasks(message, tasks)) malformed("message", sender);
  int next = -1;
  {
    std::lock_guard guard(lock_);
    count_received(sender);
    const bool keep = stopped_ || hops + 1 >= std::min(size_ - 1, most_forwards) ||
                      transferable(queue_) < static_cast<std::size_t>(threads_);
    if (!keep) next = random_rank(random_, size_, rank_, sender);
    if (next < 0) {
      keep_tasks(queue_, tasks);
      changed_.notify_all();
    } else {
      count_sent(next);
    }
    state_changed_ = report_now_ = true;
  }
  if (next >= 0) send(next, pushed_message(hops + 1, tasks));
}

// Rank 0: a rank's counts, with the pairs that changed since its last.
void pool_engine::counts_heard(int sender, message_buffer& message) {
  std::int64_t outstanding = 0;
  std::int32_t lowest = 0;
  std::uint8_t stop = 0;
  std::uint32_t changed = 0;
  pair_view& v = pair_views_[static_cast<std::size_t>(sender)];
  bool ok = message.get(outstanding) && message.get(lowest) && message.get(stop) && message.get(changed);
  for (std::uint32_t k = 0; ok && k < changed; ++k) {
    std::int32_t r = 0;
    pair_counts c;
    ok = message.get(r) && message.get(c.sent) && message.get(c.received) && r >= 0 && r < size_;
    if (ok) v.pairs[r] = c;
  }
  if (!ok) malformed("counts message", sender);
  v.heard = true;
  v.outstanding = outstanding;
  v.lowest_level = lowest;
  if (stop) {
    std::lock_guard guard(lock_);
    stop_locked();
  }
}

// With the lock held: the sender's push of half its surplus to a random
// rank, or the receiver's ask when no current task is queued here.
bool pool_engine::push_or_ask(std::unique_lock<std::mutex>& guard, std::int64_t now) {
  if (stopped_ || size_ < 2 || now < next_steal_ns_) return false;
  const std::size_t current = transferable(queue_);
  if (strategy_ == pool_strategy::sender && current > 2 * static_cast<std::size_t>(threads_)) {
    std::vector<wire_task> surplus;
    take_current(queue_, transfer_horizon(), (current - static_cast<std::size_t>(threads_)) / 2, surplus);
    const int target = random_rank(random_, size_, rank_, -1);
    count_sent(target);
    state_changed_ = report_now_ = true;
    next_steal_ns_ = now + push_interval_ns;
    send(target, pushed_message(0, surplus));
    return true;
  }
  if (strategy_ == pool_strategy::receiver && !stealing_ && !end_sent_ && current < asks_below()) {
    const int victim = random_rank(random_, size_, rank_, -1);
    stealing_ = true;
    guard.unlock();
    message_buffer ask(pool_message::steal);
    ask.put(static_cast<std::int32_t>(rank_));
    ask.put(static_cast<std::int32_t>(0));
    send(victim, std::move(ask));
    guard.lock();
    return true;
  }
  return false;
}

// With the lock held: counts for rank 0 when they changed (at most every
// status interval, unless urgent); rank 0 reads its own and looks for the end.
bool pool_engine::send_counts(std::unique_lock<std::mutex>& guard, std::int64_t now) {
  if (rank_ == 0) {
    pair_view& own = pair_views_[0];
    own.heard = true;
    own.outstanding = queue_.outstanding();
    own.lowest_level = queue_.lowest_outstanding_level();
    own.pairs = pair_counts_;
    guard.unlock();
    return detect_end_by_counts();
  }
  const bool urgent = report_now_ || stop_requested_ || !first_report_sent_;
  if (!state_changed_ || (!urgent && now - last_status_ns_ < pool_status_interval_ns)) return false;
  message_buffer out(pool_message::counts);
  out.put(static_cast<std::int64_t>(queue_.outstanding()));
  out.put(static_cast<std::int32_t>(queue_.lowest_outstanding_level()));
  out.put(static_cast<std::uint8_t>(stop_requested_ ? 1 : 0));
  out.put(static_cast<std::uint32_t>(pairs_changed_.size()));
  for (const int r : pairs_changed_) {
    const pair_counts& c = pair_counts_[r];
    out.put(static_cast<std::int32_t>(r));
    out.put(c.sent);
    out.put(c.received);
  }
  pairs_changed_.clear();
  stop_requested_ = false;
  state_changed_ = false;
  first_report_sent_ = true;
  last_status_ns_ = now;
  guard.unlock();
  send(0, std::move(out));
  return true;
}

bool pool_engine::detect_end_by_counts() {
  bool busy = false;
  bool all_heard = true, idle = true, balanced = true;
  int lowest = no_level;
  for (int i = 0; i < size_; ++i) {
    const pair_view& v = pair_views_[static_cast<std::size_t>(i)];
    if (!v.heard) {
      all_heard = false;
      continue;
    }
    idle = idle && v.outstanding == 0;
    lowest = std::min(lowest, v.lowest_level);
    // Every pair either side counted: what i sent j, j received, and the
    // other way (a pair neither counted has nothing in flight).
    for (auto p = v.pairs.begin(); p != v.pairs.end() && balanced; ++p) {
      const pair_view& w = pair_views_[static_cast<std::size_t>(p->first)];
      if (!w.heard) continue;
      const auto back = w.pairs.find(i);
      const pair_counts theirs = back != w.pairs.end() ? back->second : pair_counts{};
      balanced = p->second.sent == theirs.received && p->second.received == theirs.sent;
    }
  }
  std::lock_guard guard(lock_);
  // The last completed level, when no task is in a message.
  if (all_heard && balanced && lowest != no_level && lowest - 1 != level_sent_) {
    broadcast_level(lowest - 1);
    busy = true;
  }
  if (finish_serving(all_heard && idle && balanced)) busy = true;
  return busy;
}

}  // namespace selfsched::mpi::detail
