// Task pool strategy `mediation` (seed 001 Fig. 3, pool_engine.hpp): every
// rank runs the tasks it puts; thread 0 of rank 0 mediates between ranks
// that need work and ranks that have it, without holding the global queue.
//
// A rank sends a status when its state changed (at most every
// status_interval, sooner for a request or a stop): its outstanding tasks
// (queued + running), how many of its queued tasks are current, the lowest
// level among them, how many task messages it has received, whether it asks
// for work (no current task queued, seed 001's request at the end of a local
// iteration) and whether a task stopped the pool.
//
// The mediator answers a request from the tasks it holds; when it holds
// none, it asks the rank with the most current tasks queued (two at least)
// to give half of them, highest priority first (seed 001's application
// dependent policy: subregion tasks, which carry future work, go first), and
// hands them on; when no rank has surplus it says so (denied), and the rank
// may then run tasks beyond the asynchronicity limit, as seed 001 allows.
//
// Tasks in messages are counted where they are going until that rank's
// status shows it received them. So the mediator knows, from the last
// statuses, the lowest outstanding level anywhere (one above it is the last
// completed global iteration, broadcast as seed 001's computation status)
// and when nothing is left: every rank heard from, nothing outstanding,
// nothing in flight, nothing held.
#include <algorithm>
#include <chrono>
#include <limits>

#include "fatal.hpp"
#include "pool_engine.hpp"

namespace selfsched::mpi::detail {
namespace {

constexpr int no_level = std::numeric_limits<int>::max();

}  // namespace

bool pool_engine::progress_mediator() {
  const std::int64_t from = pool_now_ns();
  bool busy = false;
  while (auto received = receive()) {
    busy = true;
    auto& [sender, message] = *received;
    const auto r = static_cast<std::size_t>(sender);
    rank_view& view = views_[r];
    std::uint8_t type = 0;
    message.get(type);
    switch (static_cast<pool_message>(type)) {
      case pool_message::status: {
        std::int64_t outstanding = 0;
        std::int32_t queued_current = 0, lowest = 0;
        std::uint32_t got = 0;
        std::uint8_t request = 0, stop = 0;
        if (!(message.get(outstanding) && message.get(queued_current) && message.get(lowest) && message.get(got) &&
              message.get(request) && message.get(stop)))
          malformed("status", sender);
        std::lock_guard guard(lock_);
        if (!heard_from_[r]) heard_from_[r] = true, ++heard_;
        view.outstanding = outstanding;
        view.queued_current = queued_current;
        view.lowest_level = lowest;
        view.received = got;
        std::erase_if(view.in_flight, [&](const auto& f) { return f.first <= got; });
        // A request sent before our last tasks reached the rank is answered.
        const bool current_request = request && got >= view.sent;
        if (current_request && !view.requesting) view.requesting = true, view.told_denied = false;
        if (!current_request) view.requesting = false;
        if (stop) stop_locked();
        break;
      }
      case pool_message::surplus: {
        std::vector<wire_task> tasks;
        if (!read_tasks(message, tasks))
          malformed("surplus", sender);
        std::lock_guard guard(lock_);
        view.giving = false;
        keep_tasks(held_, tasks);
        break;
      }
      case pool_message::end_ack:
        if (!acknowledged_[r]) acknowledged_[r] = true, ++acks_;
        break;
      default:
        abort_job(comm_, "task pool: an unexpected message from rank " + std::to_string(sender));
    }
  }

  std::unique_lock guard(lock_);
  // Rank 0's own threads are a rank like the others, seen directly.
  rank_view& own = views_[0];
  own.outstanding = queue_.outstanding();
  own.queued_current = static_cast<int>(transferable(queue_));
  own.lowest_level = queue_.lowest_outstanding_level();
  own.requesting = !stopped_ && static_cast<std::size_t>(own.queued_current) < asks_below() && threads_ > 1;

  // The last completed global iteration: below the lowest outstanding level
  // of any rank, any task in flight and any task held.
  int lowest = held_.lowest_outstanding_level();
  bool anything = !held_.done();
  for (const rank_view& v : views_) {
    lowest = std::min(lowest, v.lowest_level);
    anything = anything || v.outstanding > 0 || !v.in_flight.empty() || v.giving;
    for (const auto& f : v.in_flight) lowest = std::min(lowest, f.second);
  }
  if (lowest != no_level && lowest - 1 != level_sent_) {
    broadcast_level(lowest - 1);
    busy = true;
  }

  // Requests, in rank order: from what is held, else from the most loaded.
  for (int r = 0; r < size_ && !stopped_; ++r) {
    rank_view& v = views_[static_cast<std::size_t>(r)];
    if (!v.requesting) continue;
    std::vector<wire_task> tasks;
    take_current(held_, transfer_horizon(), 1, tasks);
    if (!tasks.empty()) {
      busy = true;
      v.requesting = false;
      if (r == 0) {
        for (wire_task& t : tasks) queue_.push(std::move(t.payload), t.level, t.priority);
        changed_.notify_all();
        continue;
      }
      v.in_flight.emplace_back(++v.sent, tasks.front().level);
      send(r, tasks_message(pool_message::tasks, tasks));
      continue;
    }
    // A donor: the most surplus (current tasks queued beyond one for its
    // own threads; all of them on rank 0 when its only thread mediates).
    const auto surplus = [&](int d) {
      const rank_view& c = views_[static_cast<std::size_t>(d)];
      return c.giving ? 0 : (d == 0 && threads_ <= 1 ? c.queued_current : c.queued_current - 1);
    };
    int donor = -1;
    for (int d = 0; d < size_; ++d)
      if (d != r && surplus(d) > 0 && (donor < 0 || surplus(d) > surplus(donor))) donor = d;
    if (donor == 0) {  // rank 0 gives directly
      take_current(queue_, transfer_horizon(), static_cast<std::size_t>((surplus(0) + 1) / 2), tasks);
      own.queued_current -= static_cast<int>(tasks.size());
      for (wire_task& t : tasks) held_.push(std::move(t.payload), t.level, t.priority);
      if (!tasks.empty()) {
        busy = true;
        --r;  // serve this request again, from what is now held
        continue;
      }
      donor = -1;
    }
    if (donor > 0) {
      rank_view& d = views_[static_cast<std::size_t>(donor)];
      message_buffer out(pool_message::give);
      out.put(static_cast<std::uint32_t>(std::max(1, (surplus(donor) + 1) / 2)));
      send(donor, std::move(out));
      d.giving = true;
      d.queued_current = 0;  // until its next status
      busy = true;
    } else if (!v.told_denied && r != 0) {
      v.told_denied = true;
      send(r, message_buffer(pool_message::denied));
      busy = true;
    }
  }
  if (finish_serving(heard_ == size_ - 1 && !anything)) busy = true;
  if (busy) serve_ns_ += pool_now_ns() - from;
  return busy;
}

bool pool_engine::progress_mediation_rank() {
  bool busy = false, urgent = false;
  while (auto received = receive()) {
    busy = true;
    auto& [sender, message] = *received;
    std::uint8_t type = 0;
    message.get(type);
    switch (static_cast<pool_message>(type)) {
      case pool_message::tasks: {
        std::vector<wire_task> tasks;
        if (!read_tasks(message, tasks))
          malformed("message", sender);
        std::lock_guard guard(lock_);
        ++transfers_received_;
        keep_tasks(queue_, tasks);
        requesting_ = denied_ = false;
        state_changed_ = urgent = true;  // the mediator counts these here from now
        changed_.notify_all();
        break;
      }
      case pool_message::give: {
        std::uint32_t n = 0;
        if (!message.get(n)) malformed("message", sender);
        std::vector<wire_task> tasks;
        {
          std::lock_guard guard(lock_);
          // Keep one current task for this rank's own threads.
          const std::size_t current = transferable(queue_);
          if (!stopped_ && current > 1)
            take_current(queue_, transfer_horizon(), std::min<std::size_t>(n, current - 1), tasks);
          state_changed_ = urgent = true;
        }
        send(0, tasks_message(pool_message::surplus, tasks));
        break;
      }
      case pool_message::denied: {
        std::lock_guard guard(lock_);
        denied_ = true;
        changed_.notify_all();
        break;
      }
      default:
        if (common_message(static_cast<pool_message>(type), sender, message)) return true;
    }
  }

  std::unique_lock guard(lock_);
  if (ended_) return busy;
  const std::size_t current = transferable(queue_);
  const bool wants = !stopped_ && current < asks_below();
  const std::int64_t now = pool_now_ns();
  urgent = urgent || (wants && !requesting_) || stop_requested_ || !first_report_sent_;
  if (!state_changed_ && wants == requesting_) return busy;
  if (!urgent && now - last_status_ns_ < pool_status_interval_ns) return busy;
  message_buffer out(pool_message::status);
  out.put(static_cast<std::int64_t>(queue_.outstanding()));
  out.put(static_cast<std::int32_t>(current));
  out.put(static_cast<std::int32_t>(queue_.lowest_outstanding_level()));
  out.put(static_cast<std::uint32_t>(transfers_received_));
  out.put(static_cast<std::uint8_t>(wants ? 1 : 0));
  out.put(static_cast<std::uint8_t>(stop_requested_ ? 1 : 0));
  requesting_ = wants;
  stop_requested_ = false;
  state_changed_ = false;
  first_report_sent_ = true;
  last_status_ns_ = now;
  guard.unlock();
  send(0, std::move(out));
  return true;
}

}  // namespace selfsched::mpi::detail
