// Task pool strategy `central` with copies (SELFSCHED_MPI_RESILIENCE=
// duplicate; pool_engine.hpp): rDLB's rule for task pools (Mohammed,
// Cavelan, Ciorba, "rDLB: A Novel Approach for Robust Dynamic Load
// Balancing of Scientific Applications with Parallel Independent Tasks",
// 2019): work handed out and not reported finished is handed again to
// workers that would otherwise idle, and the first finish counts.
//
// Rank 0 numbers every task it hands to another rank; the number travels in
// front of the payload. A rank reports each run, after the tasks it put
// outside any task: [runs u32] then per run
// [id u64][level i32][took ns i64, -1: dropped unrun][tasks u32][task...]
// [results u32]. The tasks a run put travel with it, so rank 0 adds them
// only for the run that counts; its results stay on the rank until rank 0
// names the run in a `counted` message ([count u32][id u64...]), and are
// dropped at the pool's end otherwise (every task counted somewhere by then).
#include <algorithm>
#include <cstdio>

#include "common/fatal.hpp"
#include "pools/pool_engine.hpp"

namespace selfsched::mpi::detail {
namespace {

// A task is copied once it has been out longer than this many mean run times
// (measured from the runs reported) and never sooner than the floor. A rank
// holds up to one task per thread and one more, so a task may wait about one
// run behind another before it starts: four means leave that and a run twice
// the mean alone. The floor covers the first runs, before any is measured,
// and the messages' own delay.
constexpr std::int64_t copy_after_means = 4;
constexpr std::int64_t copy_floor_ns = 20'000'000;

}  // namespace

std::int64_t pool_engine::copy_timeout_ns() const {
  const std::int64_t mean = measured_runs_ > 0 ? measured_ns_ / measured_runs_ : 0;
  return std::max(copy_floor_ns, copy_after_means * mean);
}

wire_task pool_engine::number_handed(int to, wire_task t) {
  const std::uint64_t id = next_task_id_++;  // never reset: a late report of an earlier run matches nothing
  t.payload.insert(0, reinterpret_cast<const char*>(&id), sizeof id);
  held_tasks_.emplace(id, held_task{t, {to}, omp::bridge::now_ns()});
  return t;
}

void pool_engine::runs_heard(int sender, message_buffer& message) {
  std::uint32_t runs = 0;
  if (!message.get(runs)) malformed("report", sender);
  for (std::uint32_t k = 0; k < runs; ++k) {
    std::uint64_t id = 0;
    std::int32_t level = 0;
    std::int64_t took = 0;
    std::uint32_t results = 0;
    std::vector<wire_task> children;
    if (!message.get(id) || !message.get(level) || !message.get(took) || !read_tasks(message, children) ||
        !message.get(results))
      malformed("report", sender);
    run_record run{id, level, took, std::move(children), std::vector<std::string>(results)};
    count_run(sender, run);
  }
}

// The first run reported of a task counts: its children join the queue
// (before the task's level finishes, as for any report) and its results
// are kept, here on rank 0 or by a `counted` message to its rank.
void pool_engine::count_run(int rank, run_record& run) {
  if (run.took_ns >= 0) measured_ns_ += run.took_ns, ++measured_runs_;
  const auto held = held_tasks_.find(run.id);
  if (held == held_tasks_.end()) {  // another run of it counted first
    if (run.took_ns >= 0) ++copies_dropped_;
    return;
  }
  keep_tasks(queue_, run.children);
  queue_.finish(held->second.task.level);
  held_tasks_.erase(held);
  if (rank != 0) {
    if (!run.results.empty()) counted_[static_cast<std::size_t>(rank)].push_back(run.id);
    return;
  }
  for (std::string& bytes : run.results) results_.push_back(task_result{std::move(bytes), run.level});
  changed_.notify_all();
}

// Rank 0's own threads (other than the server) take a copy too when no
// current task is left, as the ranks that ask do.
std::optional<queued_task> pool_engine::copy_here() {
  if (stopped_ || held_tasks_.empty() || queue_.queued_current(queue_.last_completed_level()) > 0) return std::nullopt;
  const std::int64_t now = omp::bridge::now_ns(), timeout = copy_timeout_ns();
  for (auto& [id, held] : held_tasks_) {
    if (now - held.handed_ns < timeout ||
        std::find(held.holders.begin(), held.holders.end(), 0) != held.holders.end())
      continue;
    held.holders.push_back(0);
    held.handed_ns = now;
    ++copies_made_;
    return queued_task{held.task.payload, held.task.level, held.task.priority, 0};
  }
  return std::nullopt;
}

bool pool_engine::tell_counted() {
  bool sent = false;
  for (int r = 1; r < size_; ++r) {
    std::vector<std::uint64_t>& ids = counted_[static_cast<std::size_t>(r)];
    if (ids.empty()) continue;
    message_buffer out(pool_message::counted);
    out.put(static_cast<std::uint32_t>(ids.size()));
    for (const std::uint64_t id : ids) out.put(id);
    send(r, std::move(out));
    ids.clear();
    sent = true;
  }
  return sent;
}

// Only to ranks that still want tasks after every current one was handed:
// a copy takes time no original could have used (rDLB). Oldest first, never
// to a rank that holds the task already.
bool pool_engine::hand_copies() {
  if (stopped_ || held_tasks_.empty() || queue_.queued_current(queue_.last_completed_level()) > 0) return false;
  const std::int64_t now = omp::bridge::now_ns(), timeout = copy_timeout_ns();
  bool sent = false;
  for (int r = 1; r < size_; ++r) {
    int& wanted = wanted_[static_cast<std::size_t>(r)];
    std::vector<wire_task> batch;
    for (auto& [id, held] : held_tasks_) {
      if (wanted <= 0) break;
      if (now - held.handed_ns < timeout ||
          std::find(held.holders.begin(), held.holders.end(), r) != held.holders.end())
        continue;
      held.holders.push_back(r);
      held.handed_ns = now;
      batch.push_back(held.task);
      ++copies_made_;
      --wanted;
    }
    if (batch.empty()) continue;
    send(r, tasks_message(pool_message::tasks, batch));
    sent = true;
  }
  // Rank 0's idle threads wait on the condition, which no clock wakes: a
  // task newly overdue is their cue.
  if (waiting_ > 0 && threads_ > 1)
    for (const auto& [id, held] : held_tasks_)
      if (now - held.handed_ns >= timeout &&
          std::find(held.holders.begin(), held.holders.end(), 0) == held.holders.end()) {
        changed_.notify_all();
        break;
      }
  return sent;
}

// A rank stopped for good would hold the pool's end for ever (it never
// answers `end`), or its tasks when no other rank is free to copy them.
// Rank 0 times the silence while nothing runs on it: past the limit, the
// job ends naming the ranks it still waits for. A live rank is silent only
// inside a task, so the limit must exceed the longest task (docs/tasks.md).
void pool_engine::check_silent_ranks(bool heard_any) {
  const std::int64_t now = omp::bridge::now_ns();
  const auto held = static_cast<std::int64_t>(held_tasks_.size());
  const bool running_here =
      copies_running_here_ > 0 || queue_.outstanding() - static_cast<std::int64_t>(queue_.queued()) - held > 0;
  if (heard_any || running_here || wait_limit_s_ <= 0) {
    last_heard_ns_ = now;
    return;
  }
  const double silent = static_cast<double>(now - last_heard_ns_) * 1e-9;
  if (silent < wait_limit_s_) return;
  std::vector<bool> waited(static_cast<std::size_t>(size_), false);
  for (const auto& [id, task] : held_tasks_)
    for (const int r : task.holders) waited[static_cast<std::size_t>(r)] = true;
  std::string names;
  int count = 0;
  for (int r = 1; r < size_; ++r) {
    const auto i = static_cast<std::size_t>(r);
    if (waited[i] || !heard_from_[i] || (end_sent_ && !acknowledged_[i]))
      names += (count++ ? ", " : "") + std::to_string(r);
  }
  if (count == 0) return;
  abort_job(comm_, ranks_have(names, count) + " not answered the task pool for " + std::to_string(static_cast<long long>(silent)) +
                       " s while it holds tasks or the pool's end (stopped or hung? SELFSCHED_MPI_WAIT_LIMIT=" +
                       seconds_text(wait_limit_s_) + ")");
}

void pool_engine::put_runs(message_buffer& out) {
  out.put(static_cast<std::uint32_t>(finished_runs_.size()));
  for (run_record& r : finished_runs_) {
    out.put(r.id);
    out.put(static_cast<std::int32_t>(r.level));
    out.put(r.took_ns);
    out.put(static_cast<std::uint32_t>(r.children.size()));
    for (const wire_task& t : r.children) out.put_task(t);
    out.put(static_cast<std::uint32_t>(r.results.size()));
    if (r.results.empty()) continue;
    std::vector<task_result>& waiting = uncounted_results_[r.id];
    for (std::string& bytes : r.results) waiting.push_back(task_result{std::move(bytes), r.level});
  }
  finished_runs_.clear();
}

void pool_engine::counted_heard(int sender, message_buffer& message) {
  std::uint32_t count = 0;
  if (!message.get(count)) malformed("message", sender);
  std::lock_guard guard(lock_);
  for (std::uint32_t k = 0; k < count; ++k) {
    std::uint64_t id = 0;
    if (!message.get(id)) malformed("message", sender);
    const auto it = uncounted_results_.find(id);
    if (it == uncounted_results_.end()) continue;
    for (task_result& r : it->second) results_.push_back(std::move(r));
    uncounted_results_.erase(it);
  }
}

}  // namespace selfsched::mpi::detail
