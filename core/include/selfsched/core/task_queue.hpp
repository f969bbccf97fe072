// A task pool's priority queue: the pure part of seed 001's task pools
// (Smith & Schnabel, sec. 3.2), shared by the threads of a rank, the ranks'
// strategies and the simulator.
//
// A task is a byte payload with a level (its global iteration: the depth of
// the task precedence tree at which it was created) and a priority. Tasks of
// level k run before tasks of level k + 1, and within a level the higher
// priority first (seed 001: subregion tasks before local minimizations);
// equal ones in the order they came.
//
// Global iteration k is complete when no task of level <= k is queued or
// running; the last completed level is one below the lowest outstanding
// level. A task is *current* when its level is at most
// last_completed + async_levels (the asynchronicity level, sec. 3.2: how
// many global iterations may be in progress at once; 0 = no limit), so the
// tree is explored close to breadth-first. A task that arrives at a level
// below the last completed one lowers it again, as seed 001 prescribes.
//
// Pure: no lock, no clock. The caller serializes access. A NaN priority
// counts as 0, a negative level as 0 (the bindings reject both first).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>

namespace selfsched {

struct queued_task {
  std::string payload;  // bytes
  int level = 0;
  double priority = 0;
  std::uint64_t sequence = 0;  // arrival order, for ties
};

// Why a task cannot be put ("" if it can): a negative level, a NaN
// priority, more than max_payload bytes, or no data for a non-empty payload.
// Every pool checks its puts with this before they reach a queue.
std::string check_task(const void* data, std::size_t size, std::size_t max_payload, int level, double priority);

class task_queue {
 public:
  explicit task_queue(int async_levels = 0) : async_levels_(async_levels < 0 ? 0 : async_levels) {}

  // A new task, queued and outstanding until finish(level).
  void push(std::string payload, int level, double priority);

  // The highest-priority current task, taken out of the queue; it stays
  // outstanding (running) until finish() is called with its level. None if
  // no queued task is current (there may be queued tasks that are not).
  std::optional<queued_task> pop_current();
  // The same, with the last completed level known from elsewhere (a queue
  // that is one of several: seed 001's computation status messages tell
  // each processor the last completed global iteration).
  std::optional<queued_task> pop_current(int last_completed);
  // The highest-priority task whether current or not (seed 001: a processor
  // whose request for work was denied may run beyond the asynchronicity
  // limit), or none if the queue is empty.
  std::optional<queued_task> pop_any();

  // A task taken by pop_* has run (or was handed to someone else).
  void finish(int level);

  // Drops every queued task (a stop): returns how many.
  std::size_t discard_queued();

  std::size_t queued() const { return order_.size(); }
  std::int64_t outstanding() const { return outstanding_total_; }  // queued + running
  bool done() const { return outstanding_total_ == 0; }
  // -1 before any level has completed.
  int last_completed_level() const;
  // The lowest level of a queued or running task; none: INT_MAX.
  int lowest_outstanding_level() const;
  // Queued tasks that are current given the last completed level.
  std::size_t queued_current(int last_completed) const;
  int async_levels() const { return async_levels_; }
  bool is_current(int level) const { return is_current(level, last_completed_level()); }
  bool is_current(int level, int last_completed) const {
    return async_levels_ == 0 || level <= last_completed + async_levels_;
  }

 private:
  struct before {
    bool operator()(const queued_task& a, const queued_task& b) const {
      if (a.level != b.level) return a.level < b.level;
      if (a.priority != b.priority) return a.priority > b.priority;
      return a.sequence < b.sequence;
    }
  };
  std::optional<queued_task> take_first();

  int async_levels_;
  std::uint64_t next_sequence_ = 0;
  std::set<queued_task, before> order_;
  std::map<int, std::int64_t> outstanding_;  // per level: queued + running
  std::int64_t outstanding_total_ = 0;
  int highest_level_ = -1;                    // of any task seen
};

}  // namespace selfsched
