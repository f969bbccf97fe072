#include "selfsched/core/task_queue.hpp"

#include <cmath>
#include <limits>
#include <utility>

namespace selfsched {

std::string check_task(const void* data, std::size_t size, std::size_t max_payload, int level, double priority) {
  if (level < 0) return "level " + std::to_string(level) + " is negative (levels start at 0)";
  if (std::isnan(priority)) return "the priority is NaN";
  if (size > max_payload)
    return "a task of " + std::to_string(size) + " bytes is larger than max_payload (" + std::to_string(max_payload) +
           " bytes)";
  if (!data && size > 0) return "data is NULL with size " + std::to_string(size);
  return "";
}

void task_queue::push(std::string payload, int level, double priority) {
  if (level < 0) level = 0;
  if (std::isnan(priority)) priority = 0;
  order_.insert(queued_task{std::move(payload), level, priority, next_sequence_++});
  ++outstanding_[level];
  ++outstanding_total_;
  if (level > highest_level_) highest_level_ = level;
}

std::optional<queued_task> task_queue::take_first() {
  if (order_.empty()) return std::nullopt;
  auto node = order_.extract(order_.begin());
  return std::move(node.value());
}

// The first task in order has the lowest level: if it is not current, no
// queued task is.
std::optional<queued_task> task_queue::pop_current() { return pop_current(last_completed_level()); }

std::optional<queued_task> task_queue::pop_current(int last_completed) {
  if (order_.empty() || !is_current(order_.begin()->level, last_completed)) return std::nullopt;
  return take_first();
}

std::optional<queued_task> task_queue::pop_any() { return take_first(); }

void task_queue::finish(int level) {
  if (level < 0) level = 0;
  const auto it = outstanding_.find(level);
  if (it == outstanding_.end()) return;  // not ours: nothing to account
  if (--it->second == 0) outstanding_.erase(it);
  --outstanding_total_;
}

std::size_t task_queue::discard_queued() {
  const std::size_t dropped = order_.size();
  for (const queued_task& t : order_) finish(t.level);
  order_.clear();
  return dropped;
}

int task_queue::lowest_outstanding_level() const {
  return outstanding_.empty() ? std::numeric_limits<int>::max() : outstanding_.begin()->first;
}

std::size_t task_queue::queued_current(int last_completed) const {
  if (async_levels_ == 0) return order_.size();
  std::size_t n = 0;
  for (const queued_task& t : order_) {  // in level order: stop at the first that is not current
    if (!is_current(t.level, last_completed)) break;
    ++n;
  }
  return n;
}

int task_queue::last_completed_level() const {
  return outstanding_.empty() ? highest_level_ : outstanding_.begin()->first - 1;
}

}  // namespace selfsched
