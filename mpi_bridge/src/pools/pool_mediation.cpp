// Task pool strategies `mediation` (seed 001 Fig. 3, pool_engine.hpp) and
// `hier-mediation` (sec. 5.4): every rank runs the tasks it puts; thread 0
// of rank 0 (and, on two levels, of each node's lowest rank) mediates
// between ranks that need work and ranks that have it, without holding the
// global queue.
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
//
// On two levels a node's mediator is, to rank 0, one rank: its status sums
// its node (its own queue, what it holds, each rank's last status, tasks in
// flight to them), it asks rank 0 for work only when no rank of its node
// has surplus, and it gives when rank 0 asks, from what it holds or through
// its node's richest rank. Rank 0 learns the end, the levels and a stop from
// these sums, and its halt, level and end messages travel down through the
// node mediators, whose ranks acknowledge the end to them first.
#include <algorithm>
#include <chrono>
#include <limits>

#include "common/fatal.hpp"
#include "pools/pool_engine.hpp"

namespace selfsched::mpi::detail {
namespace {

constexpr int no_level = std::numeric_limits<int>::max();

}  // namespace

void pool_engine::child_message(int sender, pool_message type, message_buffer& message) {
  const auto r = static_cast<std::size_t>(sender);
  rank_view& view = views_[r];
  switch (type) {
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
      if (!read_tasks(message, tasks)) malformed("surplus", sender);
      std::lock_guard guard(lock_);
      view.giving = false;
      if (sender == forwarding_from_) {  // asked of this node by rank 0: on to it
        forwarding_from_ = -1;
        owed_up_ = 0;
        send(mediator_, tasks_message(pool_message::surplus, tasks));
      } else {
        keep_tasks(held_, tasks);
      }
      break;
    }
    case pool_message::end_ack:
      if (!acknowledged_[r]) acknowledged_[r] = true, ++acks_;
      break;
    default:
      abort_job(comm_, "task pool: an unexpected message from rank " + std::to_string(sender));
  }
}

// The mediator's own threads are a rank like the others, seen directly.
void pool_engine::update_own_view() {
  rank_view& own = views_[static_cast<std::size_t>(rank_)];
  own.outstanding = queue_.outstanding();
  own.queued_current = static_cast<int>(transferable(queue_));
  own.lowest_level = queue_.lowest_outstanding_level();
  own.requesting = !stopped_ && static_cast<std::size_t>(own.queued_current) < asks_below() && threads_ > 1;
}

pool_engine::pending_work pool_engine::work_below() const {
  pending_work left{held_.outstanding(), held_.lowest_outstanding_level()};
  for (std::size_t i = 0; i <= children_.size(); ++i) {
    const auto r = static_cast<std::size_t>(i == 0 ? rank_ : children_[i - 1]);
    const rank_view& v = views_[r];
    // A rank not heard from yet may hold tasks put before the run.
    if (i > 0 && !heard_from_[r]) ++left.tasks;
    left.tasks += v.outstanding + static_cast<std::int64_t>(v.in_flight.size()) + (v.giving ? 1 : 0);
    left.lowest_level = std::min(left.lowest_level, v.lowest_level);
    for (const auto& f : v.in_flight) left.lowest_level = std::min(left.lowest_level, f.second);
  }
  if (forwarding_from_ >= 0) ++left.tasks;  // tasks on their way up through this node
  return left;
}

bool pool_engine::match_requests() {
  bool busy = false;
  const bool root = rank_ == 0;
  bool unmatched = false;
  // The mediator's own rank first, then the ranks it serves, in order.
  for (std::size_t i = 0; i <= children_.size() && !stopped_; ++i) {
    const int r = i == 0 ? rank_ : children_[i - 1];
    rank_view& v = views_[static_cast<std::size_t>(r)];
    if (!v.requesting) continue;
    std::vector<wire_task> tasks;
    take_current(held_, transfer_horizon(), 1, tasks);
    if (!tasks.empty()) {
      busy = true;
      v.requesting = false;
      if (r == rank_) {
        for (wire_task& t : tasks) queue_.push(std::move(t.payload), t.level, t.priority);
        denied_ = false;
        changed_.notify_all();
        continue;
      }
      v.in_flight.emplace_back(++v.sent, tasks.front().level);
      send(r, tasks_message(pool_message::tasks, tasks));
      continue;
    }
    // A donor: the most surplus (current tasks queued beyond one for its
    // own threads; all of them on the mediator's rank when its only thread
    // mediates).
    const auto surplus = [&](int d) {
      const rank_view& c = views_[static_cast<std::size_t>(d)];
      return c.giving ? 0 : (d == rank_ && threads_ <= 1 ? c.queued_current : c.queued_current - 1);
    };
    int donor = -1;
    for (std::size_t j = 0; j <= children_.size(); ++j) {
      const int d = j == 0 ? rank_ : children_[j - 1];
      if (d != r && surplus(d) > 0 && (donor < 0 || surplus(d) > surplus(donor))) donor = d;
    }
    if (donor == rank_) {  // the mediator's own queue gives directly
      take_current(queue_, transfer_horizon(), static_cast<std::size_t>((surplus(rank_) + 1) / 2), tasks);
      views_[static_cast<std::size_t>(rank_)].queued_current -= static_cast<int>(tasks.size());
      for (wire_task& t : tasks) held_.push(std::move(t.payload), t.level, t.priority);
      if (!tasks.empty()) {
        busy = true;
        --i;  // serve this request again, from what is now held
        continue;
      }
      donor = -1;
    }
    if (donor >= 0) {
      rank_view& d = views_[static_cast<std::size_t>(donor)];
      message_buffer out(pool_message::give);
      out.put(static_cast<std::uint32_t>(std::max(1, (surplus(donor) + 1) / 2)));
      send(donor, std::move(out));
      d.giving = true;
      d.queued_current = 0;  // until its next status
      busy = true;
    } else {
      // A node mediator asks rank 0 and keeps asking while its node has a
      // request it cannot match; it says no only once rank 0 has.
      if (!root) unmatched = true;
      if (root || denied_up_) {
        if (r == rank_) {
          if (!root) denied_ = true;  // a node mediator's own threads may run beyond the limit
        } else if (!v.told_denied) {
          v.told_denied = true;
          send(r, message_buffer(pool_message::denied));
          busy = true;
        }
      }
    }
  }
  if (!root && unmatched != asks_up_) asks_up_ = unmatched, busy = true;
  return busy;
}

bool pool_engine::progress_mediator() {
  const std::int64_t from = omp::bridge::now_ns();
  bool busy = receive_all([&](int sender, pool_message type, message_buffer& message) {
    child_message(sender, type, message);
  }).any;

  std::unique_lock guard(lock_);
  update_own_view();

  // The last completed global iteration: below the lowest outstanding level
  // of any rank, any task in flight and any task held.
  const pending_work left = work_below();
  if (left.lowest_level != no_level && left.lowest_level - 1 != level_sent_) {
    broadcast_level(left.lowest_level - 1);
    busy = true;
  }
  if (match_requests()) busy = true;
  if (finish_serving(heard_ == static_cast<int>(children_.size()) && left.tasks == 0)) busy = true;
  if (busy) serve_ns_ += omp::bridge::now_ns() - from;
  return busy;
}

// What rank 0 sends a node mediator: tasks for its node, a request to give,
// no (nothing anywhere), and what every rank hears (halt, level, end), which
// goes on to the node's ranks.
bool pool_engine::parent_message(pool_message type, message_buffer& message) {
  std::lock_guard guard(lock_);
  switch (type) {
    case pool_message::tasks: {
      std::vector<wire_task> tasks;
      if (!read_tasks(message, tasks)) malformed("message", mediator_);
      ++transfers_received_;
      keep_tasks(held_, tasks);
      denied_up_ = false;
      return true;
    }
    case pool_message::give: {
      std::uint32_t n = 0;
      if (!message.get(n)) malformed("message", mediator_);
      owed_up_ = std::max<std::uint32_t>(n, 1);
      return true;
    }
    case pool_message::denied:
      denied_up_ = true;
      return true;
    case pool_message::level: {
      std::int32_t level = 0;
      if (!message.get(level)) malformed("message", mediator_);
      broadcast_level(level);
      return true;
    }
    case pool_message::halt:
      stop_locked();
      stop_requested_ = false;  // rank 0 knows
      return true;
    case pool_message::end:
      end_from_parent_ = true;
      return true;
    default:
      abort_job(comm_, "task pool: an unexpected message from rank " + std::to_string(mediator_));
  }
}

// With the lock held: the node's sums to rank 0, when they changed (at most
// every status interval, unless a request, a stop or the first report).
bool pool_engine::report_to_parent() {
  update_own_view();  // matching and giving may have moved tasks out of its queue since
  const pending_work left = work_below();
  const std::int64_t outstanding = left.tasks;
  const int lowest = left.lowest_level;
  std::int64_t current = static_cast<std::int64_t>(transferable(queue_) + transferable(held_));
  for (const int r : children_) {
    const rank_view& v = views_[static_cast<std::size_t>(r)];
    current += v.giving ? 0 : v.queued_current;
  }
  const std::int64_t now = omp::bridge::now_ns();
  // The messages received from rank 0 too: until it sees them counted it
  // keeps their tasks in flight, even when they changed nothing here.
  const std::int64_t state[5] = {outstanding, current, lowest, asks_up_ ? 1 : 0, transfers_received_};
  const bool changed = !std::equal(std::begin(state), std::end(state), std::begin(reported_));
  const bool urgent = !first_report_sent_ || stop_requested_ || (asks_up_ && reported_[3] == 0);
  if (!changed && !stop_requested_) return false;
  if (!urgent && now - last_status_ns_ < pool_status_interval_ns) return false;
  message_buffer out(pool_message::status);
  out.put(outstanding);
  out.put(static_cast<std::int32_t>(std::min<std::int64_t>(current, std::numeric_limits<std::int32_t>::max())));
  out.put(static_cast<std::int32_t>(lowest));
  out.put(static_cast<std::uint32_t>(transfers_received_));
  out.put(static_cast<std::uint8_t>(asks_up_ ? 1 : 0));
  out.put(static_cast<std::uint8_t>(stop_requested_ ? 1 : 0));
  std::copy(std::begin(state), std::end(state), std::begin(reported_));
  stop_requested_ = false;
  first_report_sent_ = true;
  last_status_ns_ = now;
  send(mediator_, std::move(out));
  return true;
}

bool pool_engine::progress_node_mediator() {
  const std::int64_t from = omp::bridge::now_ns();
  bool busy = receive_all([&](int sender, pool_message type, message_buffer& message) {
    if (sender == mediator_) parent_message(type, message);
    else child_message(sender, type, message);
  }).any;

  std::unique_lock guard(lock_);
  update_own_view();
  if (match_requests()) busy = true;
  // Rank 0 asked this node to give: from what it holds, else its own queue,
  // else through its richest rank; nothing anywhere (or a stop: rank 0 waits
  // for the answer before it can end) is an empty answer.
  if (owed_up_ > 0 && forwarding_from_ < 0) {
    std::vector<wire_task> tasks;
    if (!stopped_) take_current(held_, transfer_horizon(), owed_up_, tasks);
    const std::size_t own = transferable(queue_);
    if (tasks.empty() && !stopped_ && own > (threads_ <= 1 ? 0U : 1U))
      take_current(queue_, transfer_horizon(), std::min<std::size_t>(owed_up_, own - (threads_ <= 1 ? 0 : 1)), tasks);
    int donor = -1;
    for (const int r : children_) {
      const rank_view& v = views_[static_cast<std::size_t>(r)];
      if (!v.giving && v.queued_current > 1 && (donor < 0 || v.queued_current > views_[static_cast<std::size_t>(donor)].queued_current))
        donor = r;
    }
    if (tasks.empty() && donor >= 0 && !stopped_) {
      rank_view& d = views_[static_cast<std::size_t>(donor)];
      message_buffer out(pool_message::give);
      out.put(static_cast<std::uint32_t>(std::min<int>(static_cast<int>(owed_up_), d.queued_current - 1)));
      send(donor, std::move(out));
      d.giving = true;
      d.queued_current = 0;
      forwarding_from_ = donor;
    } else {
      send(mediator_, tasks_message(pool_message::surplus, tasks));
      owed_up_ = 0;
    }
    busy = true;
  }
  if (report_to_parent()) busy = true;
  if (finish_serving(end_from_parent_)) busy = true;
  if (busy) serve_ns_ += omp::bridge::now_ns() - from;
  return busy;
}

// A rank under a mediator: tasks it sent, a request to give some, no.
bool pool_engine::mediated_message(int sender, pool_message type, message_buffer& message) {
  switch (type) {
    case pool_message::tasks: {
      std::vector<wire_task> tasks;
      if (!read_tasks(message, tasks)) malformed("message", sender);
      std::lock_guard guard(lock_);
      ++transfers_received_;
      keep_tasks(queue_, tasks);
      requesting_ = denied_ = false;
      state_changed_ = report_now_ = true;  // the mediator counts these here from now
      changed_.notify_all();
      return false;
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
        state_changed_ = report_now_ = true;
      }
      send(mediator_, tasks_message(pool_message::surplus, tasks));
      return false;
    }
    case pool_message::denied: {
      std::lock_guard guard(lock_);
      denied_ = true;
      changed_.notify_all();
      return false;
    }
    default:
      return common_message(type, sender, message);
  }
}

bool pool_engine::progress_mediation_rank() {
  report_now_ = false;
  const received_all in = receive_all([&](int sender, pool_message type, message_buffer& message) {
    return mediated_message(sender, type, message);
  });
  if (in.ended) return true;
  const bool busy = in.any;

  std::unique_lock guard(lock_);
  if (ended_) return busy;
  const std::size_t current = transferable(queue_);
  const bool wants = !stopped_ && current < asks_below();
  const std::int64_t now = omp::bridge::now_ns();
  const bool urgent = report_now_ || (wants && !requesting_) || stop_requested_ || !first_report_sent_;
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
  send(mediator_, std::move(out));
  return true;
}

}  // namespace selfsched::mpi::detail
