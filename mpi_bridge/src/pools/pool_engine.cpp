// A rank's side of a task pool shared by ranks (pool_engine.hpp): the
// public API, the rank's threads and its message plumbing. The strategy's
// own logic is in pool_central.cpp.
#include "pools/pool_engine.hpp"

#include "common/fatal.hpp"
#include "common/nodes.hpp"
#include "common/waiting.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

namespace selfsched::mpi::detail {
namespace {

constexpr int pool_tag = 1;  // on the pool's own communicator

[[noreturn]] void refuse(const std::string& why) { throw task_pool_error("selfsched task pool: " + why); }

// The pool and, under copies, the run record of the task this thread runs:
// what its put and put_result go to.
struct running_task {
  const pool_engine* engine = nullptr;
  run_record* record = nullptr;
  int level = 0;
};
thread_local running_task running;

// Copies need one process that knows who holds which task: rank 0 under
// central. Elsewhere the pool runs without them, and says so once.
bool copies_for(pool_strategy strategy, bool wanted, int ranks) {
  if (!wanted || ranks < 2 || strategy == pool_strategy::central) return wanted;
  static bool told = false;
  if (!told)
    std::fprintf(stderr,
                 "selfsched-mpi: SELFSCHED_MPI_RESILIENCE=duplicate: task pool strategy '%s' cannot run a stopped "
                 "rank's tasks again (no one rank knows who holds which); this pool runs without copies (valid "
                 "with copies: central)\n",
                 strategy_name(strategy));
  told = true;
  return false;
}

}  // namespace

void message_buffer::put_task(const wire_task& t) {
  put(static_cast<std::int32_t>(t.level));
  put(t.priority);
  put(static_cast<std::uint64_t>(t.payload.size()));
  bytes_.insert(bytes_.end(), t.payload.begin(), t.payload.end());
}

bool message_buffer::get_task(wire_task& t) {
  std::int32_t level = 0;
  std::uint64_t size = 0;
  if (!get(level) || !get(t.priority) || !get(size) || size > bytes_.size() - read_) return false;
  t.level = level;
  t.payload.assign(bytes_.data() + read_, size);
  read_ += size;
  return true;
}

void take_current(task_queue& q, int last_completed, std::size_t n, std::vector<wire_task>& out) {
  while (out.size() < n) {
    std::optional<queued_task> t = q.pop_current(last_completed);
    if (!t) break;
    q.finish(t->level);
    out.push_back(wire_task{t->level, t->priority, std::move(t->payload)});
  }
}

message_buffer tasks_message(pool_message type, const std::vector<wire_task>& tasks) {
  message_buffer out(type);
  out.put(static_cast<std::uint32_t>(tasks.size()));
  for (const wire_task& t : tasks) out.put_task(t);
  return out;
}

bool read_tasks(message_buffer& message, std::vector<wire_task>& tasks) {
  std::uint32_t count = 0;
  if (!message.get(count)) return false;
  tasks.resize(count);
  for (wire_task& t : tasks)
    if (!message.get_task(t)) return false;
  return true;
}

pool_engine::pool_engine(MPI_Comm comm, const task_pool_options& options) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) refuse("MPI is not initialized");
  // Rank 0 decides and says why not, so every rank throws alike.
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::string error;
  pool_strategy strategy = pool_strategy::central;
  bool by_threshold = false;
  if (rank == 0) {
    if (options.threads < 0) error = "threads " + std::to_string(options.threads) + " is negative";
    else if (options.async_levels < 0)
      error = "async_levels " + std::to_string(options.async_levels) + " is negative (0: no limit)";
    else if (!options.strategy.empty()) {
      if (const std::string why = parse_pool_strategy(options.strategy, strategy); !why.empty())
        error = "unknown strategy '" + options.strategy + "'; " + why;
    } else {
      strategy = current_settings(true).strategy;
    }
    if (error.empty() && !options.transfer.empty()) {
      if (const std::string why = parse_pool_transfer(options.transfer, by_threshold); !why.empty())
        error = "unknown transfer policy '" + options.transfer + "'; " + why;
    } else if (error.empty()) {
      by_threshold = current_settings(true).pool_by_threshold;
    }
  }
  int level = MPI_THREAD_SINGLE, is_main = 0;
  MPI_Query_thread(&level);
  MPI_Is_thread_main(&is_main);
  int local_ok = level >= MPI_THREAD_FUNNELED && (is_main || level == MPI_THREAD_MULTIPLE) ? 1 : 0, all_ok = 0;
  MPI_Allreduce(&local_ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
  if (rank == 0 && error.empty() && !all_ok)
    error = "needs MPI_THREAD_FUNNELED or more, and the pool made and run on the thread that initialized MPI";
  std::uint64_t length = error.size();
  MPI_Bcast(&length, 1, MPI_UINT64_T, 0, comm);
  error.resize(length);
  MPI_Bcast(error.data(), static_cast<int>(length), MPI_CHAR, 0, comm);
  if (!error.empty()) refuse(error);
  int chosen[3] = {static_cast<int>(strategy), by_threshold ? 1 : 0, 0};
  if (rank == 0) {
    int ranks = 1;
    MPI_Comm_size(comm, &ranks);
    chosen[2] = copies_for(strategy, current_settings(true).duplicate, ranks) ? 1 : 0;
    wait_limit_s_ = current_settings(true).wait_limit;
  }
  MPI_Bcast(chosen, 3, MPI_INT, 0, comm);
  MPI_Bcast(&wait_limit_s_, 1, MPI_DOUBLE, 0, comm);
  strategy_ = static_cast<pool_strategy>(chosen[0]);
  by_threshold_ = chosen[1] != 0;
  copies_ = chosen[2] != 0;

  MPI_Comm_dup(comm, &comm_);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  // Rank 0 serves every other rank, except under hier-mediation: there it
  // serves its node's ranks and the other nodes' mediators, each of which
  // serves the ranks of its node.
  if (strategy_ != pool_strategy::hier_mediation) {
    if (rank_ == 0)
      for (int r = 1; r < size_; ++r) children_.push_back(r);
  } else {
    const std::vector<int> leaders = node_leaders(comm_, current_settings(false).node_size);
    for (int r = 0; r < size_; ++r) {
      const int leader = leaders[static_cast<std::size_t>(r)];
      if (r != rank_ && (leader == rank_ || (rank_ == 0 && leader == r))) children_.push_back(r);
    }
    const int mine = leaders[static_cast<std::size_t>(rank_)];
    mediator_ = mine == rank_ ? 0 : mine;
  }
  threads_option_ = options.threads;
  max_payload_ = options.max_payload > 0 ? options.max_payload : 65536;
  queue_ = task_queue(options.async_levels);
}

pool_engine::~pool_engine() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized && comm_ != MPI_COMM_NULL) {
    complete_sends(true);
    MPI_Comm_free(&comm_);
  }
}

void pool_engine::put(const void* data, std::size_t size, int level, double priority) {
  if (const std::string why = check_task(data, size, max_payload_, level, priority); !why.empty()) refuse("put: " + why);
  std::string payload(static_cast<const char*>(data), size);
  if (running.engine == this && running.record) {  // a run's children count only if the run does
    running.record->children.push_back(wire_task{level, priority, std::move(payload)});
    return;
  }
  std::lock_guard guard(lock_);
  if (stopped_) {
    ++discarded_;
    return;
  }
  if (rank_ == 0 || strategy_ != pool_strategy::central) {
    queue_.push(std::move(payload), level, priority);
    state_changed_ = true;
    if (waiting_ > 0) changed_.notify_one();
  } else {  // central: every task goes to rank 0
    new_tasks_.push_back(wire_task{level, priority, std::move(payload)});
  }
}

void pool_engine::put_result(const void* data, std::size_t size) {
  if (running.engine != this) refuse("put_result: only from a task of this pool, as it runs");
  if (size > 0 && !data) refuse("put_result: no data for " + std::to_string(size) + " bytes");
  std::string bytes(static_cast<const char*>(data), size);
  if (running.record) {
    running.record->results.push_back(std::move(bytes));
    return;
  }
  std::lock_guard guard(lock_);
  results_.push_back(task_result{std::move(bytes), running.level});
}

void pool_engine::stop() {
  std::lock_guard guard(lock_);
  if (running_) stop_locked();
}

void pool_engine::stop_locked() {
  if (stopped_) return;
  stopped_ = true;
  if (rank_ == 0 || strategy_ != pool_strategy::central) {
    discarded_ += static_cast<std::int64_t>(queue_.discard_queued());
    if (!children_.empty()) discarded_ += static_cast<std::int64_t>(held_.discard_queued());
    if (rank_ != 0) stop_requested_ = true;
    state_changed_ = true;
  } else {
    stop_requested_ = true;
    // What rank 0 handed out and is still queued here counts as finished
    // for its accounting.
    while (auto t = queue_.pop_any()) {
      queue_.finish(t->level);
      drop_handed(t->payload, t->level);
    }
  }
  changed_.notify_all();
}

void pool_engine::drop_handed(const std::string& payload, int level) {
  ++discarded_;
  if (!copies_on()) {
    finished_levels_.push_back(level);
    return;
  }
  run_record r;
  std::memcpy(&r.id, payload.data(), sizeof r.id);
  r.level = level;
  finished_runs_.push_back(std::move(r));
}

void pool_engine::run_one(std::unique_lock<std::mutex>& guard, queued_task t, int thread, bool numbered) {
  const bool recorded = numbered;
  const bool copy_here = recorded && rank_ == 0;  // not in rank 0's queue: the original is held
  if (copy_here) ++copies_running_here_;
  run_record record;
  record.level = t.level;
  if (recorded) {
    std::memcpy(&record.id, t.payload.data(), sizeof record.id);
    t.payload.erase(0, sizeof record.id);
  }
  guard.unlock();
  running = running_task{this, recorded ? &record : nullptr, t.level};
  const selfsched_task view{t.payload.data(), t.payload.size(), t.level, t.priority};
  const std::int64_t from = omp::bridge::now_ns();
  std::exception_ptr failure;
  try {
    (*body_)(task(view, thread));
  } catch (...) {
    failure = std::current_exception();
  }
  const std::int64_t took = omp::bridge::now_ns() - from;
  running = running_task{};
  guard.lock();
  busy_ns_ += took;
  ++tasks_run_;
  const int completed_before = queue_.last_completed_level();
  if (copy_here) --copies_running_here_;
  else queue_.finish(t.level);
  if (copies_on() && rank_ == 0 && !copy_here) measured_ns_ += took, ++measured_runs_;  // the copies' timeout
  record.took_ns = took;
  if (copy_here) count_run(0, record);
  else if (recorded) finished_runs_.push_back(std::move(record));
  else if (rank_ != 0 && strategy_ == pool_strategy::central) finished_levels_.push_back(t.level);
  state_changed_ = true;
  if (failure) {
    if (!error_) error_ = failure;
    stop_locked();
  } else if (waiting_ > 0 && (queue_.done() || queue_.last_completed_level() != completed_before)) {
    changed_.notify_all();
  }
}

std::optional<queued_task> pool_engine::next_task() {
  if (size_ == 1) return queue_.pop_current();
  switch (strategy_) {
    case pool_strategy::central:  // rank 0 hands out current tasks only
      return rank_ == 0 ? queue_.pop_current() : queue_.pop_any();
    case pool_strategy::mediation:  // seed 001: beyond the limit once a request was denied
    case pool_strategy::hier_mediation:
    case pool_strategy::receiver:
    case pool_strategy::sender:
      if (auto t = queue_.pop_current(global_completed_)) return t;
      // Under the threshold policy a rank that holds enough tasks does not
      // ask, so it is never told no: it runs what it holds, as an idle
      // processor under an application-independent policy must.
      return denied_ || by_threshold_ ? queue_.pop_any() : std::nullopt;
  }
  return std::nullopt;
}

void pool_engine::work(int thread, int threads) {
  // A serving rank's thread 0 (rank 0's, or a node mediator's) serves and
  // runs no task, as seed 001's dedicated master; alone, it runs tasks like
  // any thread.
  const bool communicates = thread == 0;
  const bool runs_tasks = !(communicates && dedicated_server());
  std::unique_lock guard(lock_);
  if (thread == 0) threads_ = threads;
  // Thread 0's wait between polls when nothing happens: short, as a message
  // cannot wake it, and growing, so an idle rank leaves its CPU to others.
  auto quiet = std::chrono::microseconds(10);
  for (;;) {
    if (ended_) break;
    if (communicates) {
      guard.unlock();
      const bool busy = progress();
      guard.lock();
      if (ended_) break;
      if (busy) quiet = std::chrono::microseconds(10);
    }
    if (runs_tasks && !stopped_) {
      std::optional<queued_task> t = next_task();
      bool numbered = t && copies_on() && rank_ != 0;
      if (!t && copies_on() && rank_ == 0) numbered = (t = copy_here()).has_value();
      if (t) {
        run_one(guard, std::move(*t), thread, numbered);
        continue;
      }
    }
    const std::int64_t from = omp::bridge::now_ns();
    ++waiting_;
    if (communicates) {
      // Alone, no thread can wake it: a plain sleep (which SMPI's runs
      // take as simulated time; sim/smpi/pool_driver.cpp).
      if (threads_ == 1) {
        guard.unlock();
        sleep_ns(std::chrono::nanoseconds(quiet).count());
        guard.lock();
      } else {
        changed_.wait_for(guard, quiet);
      }
      quiet = std::min(quiet * 2, std::chrono::microseconds(100));
    } else {
      changed_.wait(guard);
    }
    --waiting_;
    if (runs_tasks) idle_ns_ += omp::bridge::now_ns() - from;
  }
  changed_.notify_all();
}

task_pool_report pool_engine::run(const std::function<void(const task&)>& body,
                                   const std::function<void(const task&)>* on_result) {
  begin_run(body);
  [[maybe_unused]] const int threads =  // unused where OpenMP is not (the SMPI build)
      threads_option_ > 0 ? threads_option_ : omp_get_max_threads();
  const std::int64_t started = omp::bridge::now_ns();
#pragma omp parallel num_threads(threads)
  work(omp_get_thread_num(), omp_get_num_threads());
  complete_sends(true);
  task_pool_report report = end_run(static_cast<double>(omp::bridge::now_ns() - started) * 1e-9);
  std::vector<task_result> results;
  {
    std::lock_guard guard(lock_);
    results.swap(results_);
    uncounted_results_.clear();  // the pool ended: every task's counting run is known, these lost
  }
  report.results = static_cast<std::int64_t>(results.size());
  if (error_) std::rethrow_exception(error_);
  if (on_result)
    for (const task_result& r : results) {
      const selfsched_task view{r.bytes.data(), r.bytes.size(), r.level, 0};
      (*on_result)(task(view, 0));
    }
  return report;
}

// Every per-run field back to its start: a pool runs again after a run.
void pool_engine::begin_run(const std::function<void(const task&)>& body) {
  {
    std::lock_guard guard(lock_);
    if (running_) refuse("run: the pool is already running (runs do not nest)");
    running_ = true;
    stopped_ = ended_ = false;
    error_ = nullptr;
    body_ = &body;
    tasks_run_ = discarded_ = busy_ns_ = idle_ns_ = 0;
    results_.clear();
    finished_runs_.clear();
  }
  held_tasks_.clear();
  measured_ns_ = measured_runs_ = copies_made_ = copies_dropped_ = 0;
  last_heard_ns_ = run_started_ns_ = omp::bridge::now_ns();
  work_done_ns_ = 0;
  counted_.assign(static_cast<std::size_t>(size_), {});
  if (!children_.empty() || rank_ == 0) {
    wanted_.assign(static_cast<std::size_t>(size_), 0);
    serve_from_ = 1;
    heard_from_.assign(static_cast<std::size_t>(size_), false);
    acknowledged_.assign(static_cast<std::size_t>(size_), false);
    heard_ = acks_ = 0;
    halt_sent_ = end_sent_ = false;
    serve_ns_ = 0;
    views_.assign(static_cast<std::size_t>(size_), rank_view{});
    held_ = task_queue(queue_.async_levels());
    level_sent_ = -1;
  }
  requested_ = 0;
  first_report_sent_ = false;
  asks_up_ = denied_up_ = end_from_parent_ = false;
  owed_up_ = 0;
  forwarding_from_ = -1;
  std::fill(std::begin(reported_), std::end(reported_), -1);
  global_completed_ = -1;
  denied_ = requesting_ = false;
  pair_counts_.clear();
  pairs_changed_.clear();
  stealing_ = false;
  next_steal_ns_ = 0;
  steal_backoff_ns_ = 0;
  random_ = 0x9e3779b97f4a7c15ULL * static_cast<std::uint64_t>(rank_ + 1);
  if (rank_ == 0) pair_views_.assign(static_cast<std::size_t>(size_), pair_view{});
  state_changed_ = true;
  transfers_received_ = 0;
  last_status_ns_ = 0;
  messages_sent_ = 0;
}

// This rank's figures, then the whole pool's (collective: every rank is here).
task_pool_report pool_engine::end_run(double seconds) {
  task_pool_report report;
  {
    std::lock_guard guard(lock_);
    running_ = false;
    report.strategy = strategy_name(strategy_);
    report.rank = rank_;
    report.ranks = size_;
    report.threads = threads_;
    report.tasks = tasks_run_;
    report.seconds = seconds;
    report.busy_seconds = static_cast<double>(busy_ns_) * 1e-9;
    report.idle_seconds = static_cast<double>(idle_ns_) * 1e-9;
    report.last_completed_level = queue_.last_completed_level();
    report.messages_sent = messages_sent_;
    stopped_ = false;  // what is put from now on is for the next run
    // Under copies a rank may still hold handed tasks at the end (it was
    // stopped or slow while their copies ran elsewhere): they counted there.
    if (copies_on() && rank_ != 0)
      while (auto t = queue_.pop_any()) queue_.finish(t->level);
  }
  std::int64_t local[2] = {report.tasks, discarded_}, total[2] = {0, 0};
  MPI_Allreduce(local, total, 2, MPI_INT64_T, MPI_SUM, comm_);
  std::int64_t copies[2] = {copies_made_, copies_dropped_};  // rank 0's counts
  MPI_Bcast(copies, 2, MPI_INT64_T, 0, comm_);
  report.copies = copies[0];
  report.copies_dropped = copies[1];
  double work = work_done_ns_ > 0 ? static_cast<double>(work_done_ns_ - run_started_ns_) * 1e-9 : seconds;
  MPI_Bcast(&work, 1, MPI_DOUBLE, 0, comm_);
  report.work_seconds = work;
  report.tasks_everywhere = total[0];
  report.discarded = total[1];
  // A serving rank's thread 0 runs no task (central, mediation, hier-mediation).
  const bool serves = dedicated_server();
  const int working_threads = serves ? report.threads - 1 : report.threads;
  const double utilization =
      working_threads > 0 && seconds > 0 ? report.busy_seconds / (working_threads * seconds) : -1;
  double mine[2] = {working_threads > 0 ? utilization : 2.0, working_threads > 0 ? utilization : -1.0};
  double range[2] = {0, 0};
  MPI_Allreduce(&mine[0], &range[0], 1, MPI_DOUBLE, MPI_MIN, comm_);
  MPI_Allreduce(&mine[1], &range[1], 1, MPI_DOUBLE, MPI_MAX, comm_);
  report.utilization_min = range[0] > 1.5 ? 0 : range[0];
  report.utilization_max = std::max(0.0, range[1]);
  double server = rank_ == 0 && seconds > 0 ? static_cast<double>(serve_ns_) * 1e-9 / seconds : 0;
  MPI_Bcast(&server, 1, MPI_DOUBLE, 0, comm_);
  report.server_utilization = server;
  // Every task passed through some rank's queue, and at the end each queue's
  // last completed level is the deepest it saw: the deepest of all is the
  // pool's (rank 0's alone would do under central).
  int deepest = report.last_completed_level;
  MPI_Allreduce(&deepest, &report.last_completed_level, 1, MPI_INT, MPI_MAX, comm_);
  return report;
}

void pool_engine::keep_tasks(task_queue& into, std::vector<wire_task>& tasks) {
  for (wire_task& t : tasks) {
    if (stopped_) ++discarded_;
    else into.push(std::move(t.payload), t.level, t.priority);
  }
}

void pool_engine::broadcast_level(int level) {
  level_sent_ = global_completed_ = level;
  changed_.notify_all();
  message_buffer out(pool_message::level);
  out.put(static_cast<std::int32_t>(level));
  for (const int r : children_) send(r, out);
}

bool pool_engine::finish_serving(bool can_end) {
  bool sent = false;
  if (stopped_ && !halt_sent_) {
    halt_sent_ = sent = true;
    for (const int r : children_) send(r, message_buffer(pool_message::halt));
  }
  if (!end_sent_ && can_end) {
    end_sent_ = sent = true;
    if (rank_ == 0) work_done_ns_ = omp::bridge::now_ns();
    for (const int r : children_) send(r, message_buffer(pool_message::end));
  }
  if (end_sent_ && acks_ == static_cast<int>(children_.size()) && !ended_) {
    ended_ = true;
    changed_.notify_all();
    if (rank_ != 0) send(mediator_, message_buffer(pool_message::end_ack));  // a node mediator: its node is done
  }
  return sent;
}

void pool_engine::malformed(const char* what, int sender) const {
  abort_job(comm_, std::string("task pool: a malformed ") + what + " from rank " + std::to_string(sender));
}

bool pool_engine::common_message(pool_message type, int sender, message_buffer& message) {
  switch (type) {
    case pool_message::halt: {  // the pool was stopped: no need to tell anyone
      std::lock_guard guard(lock_);
      stop_locked();
      stop_requested_ = false;
      return false;
    }
    case pool_message::level: {
      std::int32_t level = 0;
      if (!message.get(level)) malformed("message", sender);
      std::lock_guard guard(lock_);
      global_completed_ = level;
      state_changed_ = true;
      changed_.notify_all();
      return false;
    }
    case pool_message::end: {
      {
        std::lock_guard guard(lock_);
        ended_ = true;
        changed_.notify_all();
      }
      send(mediator_, message_buffer(pool_message::end_ack));
      return true;
    }
    default:
      abort_job(comm_, "task pool: an unexpected message from rank " + std::to_string(sender));
  }
}

bool pool_engine::progress() {
  complete_sends(false);
  switch (strategy_) {
    case pool_strategy::central:
      return rank_ == 0 ? progress_central_master() : progress_central_rank();
    case pool_strategy::mediation:
    case pool_strategy::hier_mediation:
      return rank_ == 0            ? progress_mediator()
             : !children_.empty() ? progress_node_mediator()
                                  : progress_mediation_rank();
    case pool_strategy::receiver:
    case pool_strategy::sender:
      return progress_distributed();
  }
  return false;
}

void pool_engine::send(int to, message_buffer message) {
  sends_.push_back(pending_send{MPI_REQUEST_NULL, std::move(message.bytes())});
  pending_send& s = sends_.back();
  MPI_Isend(s.bytes.data(), static_cast<int>(s.bytes.size()), MPI_BYTE, to, pool_tag, comm_, &s.request);
  ++messages_sent_;
}

void pool_engine::complete_sends(bool wait) {
  for (auto it = sends_.begin(); it != sends_.end();) {
    int done = 0;
    if (wait) {
      MPI_Wait(&it->request, MPI_STATUS_IGNORE);
      done = 1;
    } else {
      MPI_Test(&it->request, &done, MPI_STATUS_IGNORE);
    }
    it = done ? sends_.erase(it) : std::next(it);
  }
}

std::optional<std::pair<int, message_buffer>> pool_engine::receive() {
  int flag = 0;
  MPI_Status status;
  MPI_Iprobe(MPI_ANY_SOURCE, pool_tag, comm_, &flag, &status);
  if (!flag) return std::nullopt;
  int count = 0;
  MPI_Get_count(&status, MPI_BYTE, &count);
  std::vector<char> bytes(static_cast<std::size_t>(count));
  MPI_Recv(bytes.data(), count, MPI_BYTE, status.MPI_SOURCE, pool_tag, comm_, MPI_STATUS_IGNORE);
  return std::make_pair(status.MPI_SOURCE, message_buffer(std::move(bytes)));
}

}  // namespace selfsched::mpi::detail

namespace selfsched::mpi {

task_pool::task_pool(MPI_Comm comm, const task_pool_options& options)
    : engine_(std::make_unique<detail::pool_engine>(comm, options)) {}
task_pool::~task_pool() = default;
void task_pool::put_bytes(const void* data, std::size_t size, int level, double priority) {
  engine_->put(data, size, level, priority);
}
void task_pool::stop() { engine_->stop(); }
task_pool_report task_pool::run(const std::function<void(const task&)>& body) { return engine_->run(body); }
task_pool_report task_pool::run(const std::function<void(const task&)>& body,
                                const std::function<void(const task&)>& on_result) {
  return engine_->run(body, &on_result);
}
void task_pool::put_result_bytes(const void* data, std::size_t size) { engine_->put_result(data, size); }

}  // namespace selfsched::mpi
