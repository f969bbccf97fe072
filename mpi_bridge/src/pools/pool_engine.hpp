// A task pool shared by ranks (selfsched/mpi_tasks.hpp): one engine per
// rank. Its threads share the rank's queue (core/task_queue.hpp) under one
// lock; thread 0 also moves tasks and messages between ranks, as the
// strategy says. Only thread 0 calls MPI, on the pool's own communicator
// (a duplicate of the user's), always non-blocking, so no two ranks can
// wait on each other's sends.
//
// Strategy central (seed 001 Fig. 1; pool_central.cpp): rank 0's queue is
// the global one. Every task put on another rank goes to rank 0; a rank asks
// rank 0 for tasks (one per thread it has free) and reports each task it
// finished, with the tasks that task put, in one message. Rank 0 counts a
// task handed out as running until it is reported finished, so its queue
// knows every outstanding task: levels complete and the pool ends exactly
// there.
//
// Strategy mediation (seed 001 Fig. 3; pool_mediation.cpp): every rank
// keeps the tasks it puts; rank 0's thread 0 mediates. A rank whose queue
// has no current task asks the mediator, which hands it a task it holds or
// asks the most loaded rank to give some; ranks report their load and their
// outstanding tasks, from which the mediator knows the last completed level
// (broadcast to all) and the end.
//
// Strategy hier-mediation (seed 001 sec. 5.4, pool_mediation.cpp): the same
// on two levels. Thread 0 of each node's lowest rank mediates between the
// ranks of its node; rank 0 mediates between its node's ranks and the other
// nodes' mediators, each of which it sees as one rank: its node's load and
// outstanding tasks summed, its node's requests that it could not match at
// home. So a request crosses nodes only when no rank of its node has surplus.
#pragma once

#include <mpi.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <limits>
#include <exception>
#include <functional>
#include <list>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "selfsched/bridge.hpp"  // the clock
#include "selfsched/core/task_queue.hpp"
#include "selfsched/mpi_tasks.hpp"
#include "common/settings.hpp"

namespace selfsched::mpi::detail {

// What travels between ranks.
enum class pool_message : std::uint8_t {
  report = 1,  // rank -> rank 0: finished levels, new tasks, tasks wanted, stop
  tasks = 2,   // rank 0 -> rank: tasks to run
  halt = 3,    // rank 0 -> rank: the pool was stopped; drop what is queued
  end = 4,     // rank 0 -> rank: nothing is left anywhere
  end_ack = 5, // rank -> rank 0: the last message of this rank
  // mediation (pool_mediation.cpp)
  status = 6,   // rank -> mediator: its load and outstanding tasks, a request, a stop
  give = 7,     // mediator -> rank: send up to n tasks
  surplus = 8,  // rank -> mediator: the tasks given (perhaps none)
  denied = 9,   // mediator -> rank: no surplus anywhere now
  level = 10,   // mediator -> rank: the last completed global iteration
  // receiver, sender (pool_distributed.cpp)
  steal = 11,   // idle rank -> random rank: give me work (forwarded at most ranks - 1 times)
  counts = 12,  // rank -> rank 0: outstanding tasks, lowest level, task messages sent and received per rank
  // sender (pool_distributed.cpp)
  pushed = 13,  // loaded rank -> random rank: tasks to keep or pass on (with a hop count)
  // central with copies (pool_copies.cpp)
  counted = 14, // rank 0 -> rank: the runs of this rank that counted and gave results
};

struct wire_task {
  int level = 0;
  double priority = 0;
  std::string payload;
};

// One message, built and read field by field.
class message_buffer {
 public:
  explicit message_buffer(pool_message type) { put(static_cast<std::uint8_t>(type)); }
  explicit message_buffer(std::vector<char> bytes) : bytes_(std::move(bytes)) {}

  template <typename T>
  void put(const T& value) {
    const char* p = reinterpret_cast<const char*>(&value);
    bytes_.insert(bytes_.end(), p, p + sizeof(T));
  }
  void put_task(const wire_task& t);

  // Readers: false when the message is shorter than it claims.
  template <typename T>
  bool get(T& value) {
    if (read_ + sizeof(T) > bytes_.size()) return false;
    std::memcpy(&value, bytes_.data() + read_, sizeof(T));
    read_ += sizeof(T);
    return true;
  }
  bool get_task(wire_task& t);

  std::vector<char>& bytes() { return bytes_; }

 private:
  std::vector<char> bytes_;
  std::size_t read_ = 0;
};

// Tasks out of a queue and into messages (mediation, receiver).
// Up to n current tasks of q, highest priority first; they leave q's accounting.
void take_current(task_queue& q, int last_completed, std::size_t n, std::vector<wire_task>& out);
message_buffer tasks_message(pool_message type, const std::vector<wire_task>& tasks);
bool read_tasks(message_buffer& message, std::vector<wire_task>& tasks);

// A rank's status or counts go out at most this often, unless urgent.
inline constexpr std::int64_t pool_status_interval_ns = 50'000;

// central with copies: a run of a handed task on a rank, until rank 0 has it.
struct run_record {
  std::uint64_t id = 0;            // rank 0's number of the task
  int level = 0;
  std::int64_t took_ns = -1;       // -1: dropped unrun after a stop
  std::vector<wire_task> children; // what the run put
  std::vector<std::string> results;// what it gave put_result (stay on the rank)
};

// A task's value given to put_result, kept until run's end.
struct task_result {
  std::string bytes;
  int level = 0;
};

class pool_engine {
 public:
  pool_engine(MPI_Comm comm, const task_pool_options& options);
  ~pool_engine();

  void put(const void* data, std::size_t size, int level, double priority);
  void put_result(const void* data, std::size_t size);
  void stop();
  task_pool_report run(const std::function<void(const task&)>& body,
                       const std::function<void(const task&)>* on_result = nullptr);

 private:
  // Run by every thread of the rank's parallel region.
  void begin_run(const std::function<void(const task&)>& body);
  task_pool_report end_run(double seconds);
  void work(int thread, int threads);
  // With the lock held: runs one task (the lock is released meanwhile).
  // `numbered`: a handed task under copies (its id in front of its payload),
  // or a copy rank 0's own thread runs.
  void run_one(std::unique_lock<std::mutex>& guard, queued_task t, int thread, bool numbered);
  // With the lock held: no new task starts; queued ones are dropped.
  void stop_locked();

  // Thread 0: messages in and out. Returns true if anything happened.
  bool progress();
  bool progress_central_master();
  bool progress_central_rank();
  bool progress_mediator();
  bool progress_mediation_rank();
  bool mediated_message(int sender, pool_message type, message_buffer& message);  // true: the end
  // A mediator's parts (pool_mediation.cpp), with the lock held unless said:
  // a message from a rank it serves (status, surplus, end_ack; without the
  // lock), its own rank seen as one of them, and the matching of requests
  // with held tasks and surplus (what cannot be matched is denied on rank 0,
  // asked of rank 0 on a node mediator).
  void child_message(int sender, pool_message type, message_buffer& message);
  void update_own_view();
  bool match_requests();
  // After update_own_view: what is left below this mediator (its own rank,
  // what it holds, the ranks it serves by their last statuses, one more for
  // each tasks message not yet seen received, each give not yet answered,
  // each rank not heard from yet, tasks on their way up) and its lowest level.
  struct pending_work {
    std::int64_t tasks = 0;
    int lowest_level = 0;
  };
  pending_work work_below() const;
  bool progress_distributed();  // receiver and sender
  // Its parts (pool_distributed.cpp): a message, true for the pool's end;
  // the sender's push or the receiver's ask; a rank's counts to rank 0.
  bool distributed_message(int sender, pool_message type, message_buffer& message);
  void steal_asked(int sender, message_buffer& message);
  void tasks_pushed(int sender, message_buffer& message);
  void counts_heard(int sender, message_buffer& message);
  bool push_or_ask(std::unique_lock<std::mutex>& guard, std::int64_t now);
  bool send_counts(std::unique_lock<std::mutex>& guard, std::int64_t now);
  // central (pool_central.cpp): a rank's report to rank 0, and the tasks
  // rank 0 hands out for it.
  void report_heard(int sender, message_buffer& message);
  void tasks_handed(int sender, message_buffer& message);
  bool serve_wanted();
  // central with copies (pool_copies.cpp). Rank 0, with the lock held: a
  // task handed out is numbered and kept (its id goes in front of its
  // payload); a rank's runs are read, the first of each task counted; the
  // overdue tasks go again to ranks that want work and find none current;
  // past SELFSCHED_MPI_WAIT_LIMIT without a word while only held tasks or
  // answers are awaited, the job ends naming who holds them.
  wire_task number_handed(int to, wire_task t);
  void runs_heard(int sender, message_buffer& message);
  void count_run(int rank, run_record& run);
  std::optional<queued_task> copy_here();  // an overdue task for rank 0's own thread
  bool hand_copies();
  bool tell_counted();
  void check_silent_ranks(bool heard_any);
  std::int64_t copy_timeout_ns() const;
  // A rank: its runs into a report; the runs rank 0 counted.
  void put_runs(message_buffer& out);
  void counted_heard(int sender, message_buffer& message);
  // A rank, with the lock held: a handed task dropped unrun (a stop),
  // reported as finished.
  void drop_handed(const std::string& payload, int level);
  bool copies_on() const { return copies_ && strategy_ == pool_strategy::central && size_ > 1; }
  // With the lock held. Tasks that came in a message go into `into`, or are
  // counted discarded after a stop.
  void keep_tasks(task_queue& into, std::vector<wire_task>& tasks);
  // Rank 0 (and node mediators passing it on): the last completed level is
  // now `level`; every rank served is told.
  void broadcast_level(int level);
  // Rank 0 and node mediators, the end every server shares: halt the ranks
  // served after a stop, tell them the end once `can_end` (rank 0: every
  // rank heard from, nothing left anywhere; a node mediator: rank 0 said
  // so), and end here when each has answered (a node mediator then answers
  // rank 0). True if it sent.
  bool finish_serving(bool can_end);
  // The messages every strategy's ranks answer alike (halt, level, end):
  // returns true for end (the caller's progress is over). Anything else
  // stops the job with a message: the ranks no longer agree on the protocol.
  bool common_message(pool_message type, int sender, message_buffer& message);
  // A message from `sender` that does not parse: the ranks no longer agree
  // on the protocol, and the job stops naming `what` it was.
  [[noreturn]] void malformed(const char* what, int sender) const;
  bool detect_end_by_counts();  // rank 0: from every rank's counts (receiver, sender)
  // The transfer policy (seed 001 sec. 3.2): which queued tasks may move
  // between ranks, and when a rank asks for more. Application-dependent
  // (priority): current tasks only, highest priority first, and a rank asks
  // when it has no current task. Application-independent (threshold): any
  // task, whatever its level, and a rank asks when it has fewer queued than
  // threads.
  int transfer_horizon() const { return by_threshold_ ? std::numeric_limits<int>::max() / 2 : global_completed_; }
  std::size_t transferable(const task_queue& q) const { return q.queued_current(transfer_horizon()); }
  std::size_t asks_below() const { return by_threshold_ ? static_cast<std::size_t>(threads_) : 1; }
  // Whether this rank's thread 0 serves and runs no task: rank 0's under
  // central and mediation, every mediator's with ranks to serve under
  // hier-mediation.
  bool dedicated_server() const {
    if (children_.empty()) return false;
    return strategy_ == pool_strategy::central || strategy_ == pool_strategy::mediation ||
           strategy_ == pool_strategy::hier_mediation;
  }
  bool mediated() const {
    return strategy_ == pool_strategy::mediation || strategy_ == pool_strategy::hier_mediation;
  }
  // hier-mediation, a node's mediator other than rank 0: what it reports
  // to rank 0, and what rank 0 asks of it.
  bool progress_node_mediator();
  bool parent_message(pool_message type, message_buffer& message);
  bool report_to_parent();
  // With the lock held: the next task this rank's threads may start.
  std::optional<queued_task> next_task();
  void send(int to, message_buffer message);
  void complete_sends(bool wait);
  std::optional<std::pair<int, message_buffer>> receive();
  // The one receive loop: every message waiting, each to handle(sender,
  // type, message). A handler that returns bool says with true that the
  // pool has ended here (the messages after it are not read). Returns
  // whether any message came and whether the pool ended.
  struct received_all {
    bool any = false, ended = false;
  };
  template <typename Handle>
  received_all receive_all(Handle&& handle) {
    received_all r;
    while (auto received = receive()) {
      r.any = true;
      auto& [sender, message] = *received;
      std::uint8_t type = 0;
      message.get(type);
      if constexpr (std::is_void_v<decltype(handle(sender, pool_message{}, message))>) {
        handle(sender, static_cast<pool_message>(type), message);
      } else if (handle(sender, static_cast<pool_message>(type), message)) {
        r.ended = true;
        break;
      }
    }
    return r;
  }

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
  // Who this rank reports to (rank 0, or its node's mediator under
  // hier-mediation) and, on rank 0 and node mediators, the ranks it serves
  // (itself excluded): what halt, level and end go to, and acks come from.
  int mediator_ = 0;
  std::vector<int> children_;
  pool_strategy strategy_ = pool_strategy::central;
  bool by_threshold_ = false;  // the transfer policy: threshold, else priority
  int threads_option_ = 0;
  std::size_t max_payload_ = 65536;

  std::mutex lock_;  // guards everything below except what thread 0 alone touches
  std::condition_variable changed_;
  task_queue queue_;  // central: rank 0's is the global queue; a rank's holds what it was handed
  int waiting_ = 0;
  bool running_ = false, stopped_ = false, ended_ = false;
  const std::function<void(const task&)>* body_ = nullptr;
  std::exception_ptr error_;
  std::int64_t tasks_run_ = 0, discarded_ = 0, busy_ns_ = 0, idle_ns_ = 0;
  std::vector<task_result> results_;  // put_result values that counted, for run's on_result

  // central with copies (pool_copies.cpp).
  bool copies_ = false;
  double wait_limit_s_ = 60;
  // A rank: runs finished, not yet reported; results awaiting rank 0's word.
  std::vector<run_record> finished_runs_;
  std::map<std::uint64_t, std::vector<task_result>> uncounted_results_;
  // Rank 0: the tasks handed out whose run is not reported yet.
  struct held_task {
    wire_task task;                // as handed (id in front)
    std::vector<int> holders;      // ranks it was handed to
    std::int64_t handed_ns = 0;    // last handed
  };
  std::map<std::uint64_t, held_task> held_tasks_;
  std::uint64_t next_task_id_ = 1;
  std::int64_t measured_ns_ = 0, measured_runs_ = 0;  // run times reported
  std::int64_t copies_made_ = 0, copies_dropped_ = 0;
  int copies_running_here_ = 0;
  std::int64_t last_heard_ns_ = 0;
  std::int64_t run_started_ns_ = 0, work_done_ns_ = 0;  // rank 0: the run's start, when end went out
  std::vector<std::vector<std::uint64_t>> counted_;   // per rank: runs that counted with results, to tell it

  // A rank's outbox for rank 0 (central), filled by its threads.
  std::vector<int> finished_levels_;
  std::vector<wire_task> new_tasks_;
  bool stop_requested_ = false;
  int threads_ = 1;  // of the running region

  // Thread 0 only.
  struct pending_send {
    MPI_Request request;
    std::vector<char> bytes;
  };
  std::list<pending_send> sends_;
  std::int64_t messages_sent_ = 0;
  // central, rank 0:
  std::vector<int> wanted_;          // tasks each rank asked for and has not got
  int serve_from_ = 1;               // central: the rank rank 0 serves first next time
  std::vector<bool> heard_from_;     // a rank's first report has come (its early puts are in)
  std::vector<bool> acknowledged_;   // end_ack received
  int heard_ = 0, acks_ = 0;
  bool halt_sent_ = false, end_sent_ = false;
  std::int64_t serve_ns_ = 0;
  // central, other ranks:
  int requested_ = 0;                // asked of rank 0, not yet received
  bool first_report_sent_ = false;

  // mediation, every rank (under the lock):
  int global_completed_ = -1;        // the last completed level, as the mediator last said
  bool denied_ = false;              // a request found no surplus: may run beyond the limit
  bool requesting_ = false;          // asked the mediator, not yet answered with tasks
  bool state_changed_ = true;        // a status is due
  bool report_now_ = false;          // a message handled asks for it without waiting the interval
  std::uint32_t transfers_received_ = 0;
  std::int64_t last_status_ns_ = 0;
  // mediation, the mediator (thread 0 of rank 0):
  struct rank_view {
    std::int64_t outstanding = 0;    // queued + running, at its last status
    int queued_current = 0;
    int lowest_level = 0;            // of its outstanding tasks (INT_MAX: none)
    std::uint32_t received = 0;      // tasks messages it had received then
    std::uint32_t sent = 0;          // tasks messages sent to it
    std::vector<std::pair<std::uint32_t, int>> in_flight;  // (message number, lowest level) not yet seen received
    bool requesting = false, told_denied = false, giving = false;
  };
  std::vector<rank_view> views_;
  task_queue held_;                  // tasks given to the mediator, not yet handed on
  int level_sent_ = -1;
  // hier-mediation, a node mediator toward rank 0 (thread 0 only):
  bool asks_up_ = false;             // a request of its node no rank of it could match
  bool denied_up_ = false;           // rank 0 had nothing either
  std::uint32_t owed_up_ = 0;        // tasks rank 0 asked this node to give
  int forwarding_from_ = -1;         // the rank whose surplus goes on to rank 0
  bool end_from_parent_ = false;
  std::int64_t reported_[5] = {-1, -1, -1, -1, -1};  // outstanding, current, lowest, request, received last sent

  // receiver and sender, every rank:
  // Task messages sent to and received from each rank it exchanged any
  // with (a rank talks to few: dense, P x P counts were 1 GiB on rank 0 at
  // 8,192 ranks, and every counts message P long), and the ranks whose
  // pair changed since its last counts message to rank 0, which carries
  // only those.
  struct pair_counts {
    std::int64_t sent = 0, received = 0;
  };
  std::map<int, pair_counts> pair_counts_;
  std::set<int> pairs_changed_;
  void count_sent(int to) { ++pair_counts_[to].sent, pairs_changed_.insert(to); }
  void count_received(int from) { ++pair_counts_[from].received, pairs_changed_.insert(from); }
  bool stealing_ = false;            // a steal request is out
  std::int64_t next_steal_ns_ = 0, steal_backoff_ns_ = 0;  // when to ask (receiver) or push (sender) next
  std::uint64_t random_ = 1;
  // receiver and sender, rank 0: each rank's last counts
  struct pair_view {
    bool heard = false;
    std::int64_t outstanding = 0;
    int lowest_level = 0;
    std::map<int, pair_counts> pairs;
  };
  std::vector<pair_view> pair_views_;
};

}  // namespace selfsched::mpi::detail
