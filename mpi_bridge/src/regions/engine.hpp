// The outer_source behind a region: where a rank's outer chunks come from.
//
// Thread levels. Under MPI_THREAD_MULTIPLE any thread of the team may call
// MPI (under the engine's lock), and serving ranks answer requests from a
// progress thread. Under FUNNELED, SERIALIZED or SINGLE only the thread that
// created the region (it is thread 0 of the teams it starts) calls MPI: the
// other threads never do; when one of them finds the current outer chunk
// exhausted before the next has arrived, next_outer() answers
// outer_pending, the binding lets go of the loop, and thread 0 fetches the
// chunk at its next claim. Serving ranks then answer requests between their
// own chunks (inline), on every claim of thread 0.
//
// Checkpoints. After each parallel region that ran shared loops (and after a
// shared loop outside parallel regions), and when the region ends, the ranks
// compare where they are with one non-blocking allreduce, serving requests
// while it completes. Equal: every rank has finished those loops, so results
// can move and the servers forget them. Different (a rank skipped a loop, or
// ran it with other bounds): one message naming the ranks, and the job stops.
#pragma once

#include <mpi.h>
#include <pthread.h>

#include <array>
#include <atomic>
#include <deque>
#include <list>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "transports/protocol.hpp"
#include "transports/rma.hpp"
#include "selfsched/core/spec.hpp"
#include "selfsched/mpi.hpp"
#include "selfsched/outer_source.hpp"
#include "transports/server.hpp"
#include "common/settings.hpp"
#include "common/waiting.hpp"
#include "regions/undeclared_writes.hpp"

namespace selfsched::mpi::detail {

// This rank's view of one shared loop.
struct client_loop {
  std::uint64_t index = 0;
  iter_t n = 0;
  std::uint64_t site = 0;
  const void* site_ident = nullptr;
  bool in_order = false;   // a dependence loop: this rank's chunks must come in increasing order
  chunk_bounds bounds;     // its thresholds
  std::vector<chunk> own;  // the outer chunks this rank ran, for result movement
  chunk next{};            // the chunk after the current one, when has_next
  bool has_next = false;
  bool done = false;       // no more chunks for this rank
  bool asked = false;      // a request is out ...
  std::int64_t asked_at = 0;  // ... since then (ns)
  std::int64_t looked_at = 0;  // ... and was last found unanswered then (ns)
  bool wanted = false;     // a thread that may not call MPI wants a request sent
  bool ended = false;      // every thread of the team has left the loop
  chunk current{};         // the outer chunk the threads are splitting
  std::int64_t current_since = 0;
  iter_t report_size = 0;  // the last finished outer chunk, for adaptive outer techniques
  std::int64_t report_ns = 0;
  double rate_per_ns = 0;  // this rank's speed in this loop (iterations per ns), averaged; 0: unknown
  // Resilience (SELFSCHED_MPI_RESILIENCE=duplicate).
  bool current_reported = true;    // the master knows `current` is handed out (or it was dropped)
  bool drop_current = false;       // a copy of `current` finished elsewhere: hand out no more of it
  std::vector<iter_t> cancelled;   // starts of chunks finished elsewhere before their reply came
  std::int64_t request[request_msg::length] = {};
  std::int64_t reply[reply_length] = {};
  MPI_Request request_handle = MPI_REQUEST_NULL, reply_handle = MPI_REQUEST_NULL;
};

// "single", "funneled", "serialized", "multiple".
const char* thread_level_name(int level);

// Whose loops an engine feeds: this process's threads (a region), or a
// program in another process of this rank that asks through cluster mode's
// agent (mpi_bridge/cluster): then it installs nothing in this process.
enum class serving { this_process, program_elsewhere };

class engine final : public omp::outer_source, public server_host {
 public:
  engine(MPI_Comm comm, options opts, serving remote = serving::this_process);  // collective
  ~engine() override;                           // collective

  std::uint64_t loop_begin(const void* site, iter_t n, iter_t granule) override;
  // A loop of the program elsewhere: its site as site_hash() gave it there.
  std::uint64_t loop_begin_elsewhere(std::uint64_t site, iter_t n);
  // This rank will run no chunk, only serve (a node master of its own, as
  // seed 004's): hier's batches for its node hold none for it.
  void serve_only();
  chunk next_outer() override;
  bool progress(std::uint64_t index, iter_t left, iter_t size) override;
  iter_t inner_chunk_limit(iter_t outer_size, int team_size) override;
  void loop_end() override;
  void parallel_end() override;

  statistics stats() const;
  const std::vector<double>& weights() const { return weights_; }

  // For loops the MPI layer runs itself (wavefront.cpp): its communicator
  // (the region's duplicate), and answering waiting requests when this rank
  // serves between its own chunks (a caller spinning on something else):
  // true if a message was handled (sim/smpi/ counts a master's busy time so).
  MPI_Comm comm() const { return comm_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  bool runs_copies() const { return duplicate_; }
  bool serve();
  // loop_begin for a loop whose chunks every rank must get in increasing
  // order, with thresholds on its chunks.
  std::uint64_t begin_dependence_loop(iter_t n, chunk_bounds bounds);
  // Asks for the loop's next outer chunk without waiting; true once
  // next_outer() would answer at once.
  bool prefetch(std::uint64_t index);

 private:
  enum phase : std::int64_t { after_loops = 1, region_end = 2 };

  void deliver(std::uint64_t index, chunk c) override;
  void cancel(std::uint64_t index, chunk c) override;
  [[noreturn]] void fatal(const std::string& message) override;

  std::uint64_t begin(const void* site, std::uint64_t hash, iter_t n, bool in_order, chunk_bounds bounds);
  void choose_configuration(const options& opts);
  void set_up_transport();
  void set_up_hierarchy(server_roles& roles);
  void choose_inner_technique();

  bool may_call_mpi() const { return !funneled_ || pthread_equal(pthread_self(), owner_); }
  void ask(client_loop& loop);    // sends (or queues) the request for the loop's next chunk
  // Receives its answer if it has come; `waiting`: the rank has been
  // waiting for it since a poll that found none (its round trip is timed).
  void poll(client_loop& loop, bool waiting = false);
  bool serve_inline(bool rate_limited);
  chunk take_next(client_loop& loop);
  void report_finished(client_loop& loop);  // resilience: `current` is handed out
  void exchange_reports();                   // resilience: send reports, take cancels (may_call_mpi)
  bool drop_if_cancelled(client_loop& loop);
  bool time_to_ask(const client_loop& loop, iter_t left, iter_t size) const;
  client_loop* find(std::uint64_t index);

  void checkpoint(phase at);
  void deliver_reports();
  // Resilience: who has reached a checkpoint, so that a rank that never
  // does is named (stopped_ranks.cpp).
  struct arrival_watch {
    std::int64_t number = 0;  // the checkpoint's, counted alike on every rank
    std::int64_t since = 0;   // this rank's arrival (ns)
    std::vector<char> arrived;
    MPI_Request sent = MPI_REQUEST_NULL;
  };
  void announce_arrival(arrival_watch& watch);
  void note_arrivals(arrival_watch& watch);
  void check_arrivals(arrival_watch& watch);
  void finish_arrivals(arrival_watch& watch);
  void check_server_alive(std::int64_t asked_at);
  void wait_for(MPI_Request& request, arrival_watch& watch);
  [[noreturn]] void report_mismatch(const std::int64_t* mine, const std::string& where);
  void move_results(const client_loop& loop);
  // Writes no declared movement covers (engine_writes.cpp).
  void set_up_write_tracking();
  void check_writes(std::size_t count);  // the first `count` loops, every rank past them
  void serve_forever();
  void print_stats() const;

  // Configuration (rank 0's choices, broadcast).
  MPI_Comm user_comm_;
  MPI_Comm comm_ = MPI_COMM_NULL;  // our duplicate: no tag of ours can meet the application's
  int rank_ = 0, size_ = 1;
  int level_ = MPI_THREAD_SINGLE;
  pthread_t owner_;
  bool remote_ = false;  // serving::program_elsewhere
  bool funneled_ = true;
  transport_kind transport_ = transport_kind::master;
  std::string outer_text_;
  schedule_spec outer_;
  loop_params base_;  // p = ranks, powers = rank weights
  std::vector<double> weights_;  // the ranks' powers; their Q travels with each request
  bool load_correction_ = true;  // SELFSCHED_MPI_LOAD: requests carry the asking thread's Q
  double prefetch_ = 0;
  bool prefetching_ = false;
  // Latency hiding: the round trip of a request, exponentially averaged; 0
  // while unknown.
  double round_trip_ns_ = 0;
  bool stats_ = false;
  bool duplicate_ = false;  // resilience: run copies of unfinished chunks (master transport)
  double wait_limit_s_ = 0;  // resilience: SELFSCHED_MPI_WAIT_LIMIT
  std::uint64_t checkpoints_ = 0;
  options opts_;

  std::mutex mutex_;  // everything below, and every MPI call of ours but the collectives of movement
  std::deque<client_loop> loops_;  // begun and not yet checkpointed, oldest first
  std::uint64_t begun_ = 0;
  int parent_ = 0;  // whom this rank asks for chunks (master, hier: its node master)
  std::unique_ptr<server> server_;
  std::unique_ptr<rma_counter> rma_;
  // Resilience: chunk reports (index, start, size) not sent yet, and those on their way.
  std::vector<std::array<std::int64_t, chunk_note_length>> unsent_reports_;
  std::list<std::pair<std::array<std::int64_t, chunk_note_length>, MPI_Request>> sent_reports_;
  bool serve_inline_ = false;
  bool local_asks_free_ = false;  // this rank's own requests need no MPI (the master's)
  std::int64_t last_serve_ns_ = 0;
  std::thread progress_thread_;
  wake_on_activity quiet_;  // where the progress thread sleeps when quiet for long
  std::atomic<bool> stop_{false};
  omp::outer_source* previous_ = nullptr;
  bool set_inner_ = false;

  // Undeclared writes: tracked (warn, merge) or not; the sites warned about.
  writes_kind writes_ = writes_kind::off;
  std::unique_ptr<write_window> window_;
  std::set<std::uint64_t> warned_sites_;

  // Statistics.
  std::uint64_t undeclared_bytes_ = 0, merged_bytes_received_ = 0;
  std::int64_t writes_ns_ = 0;
  std::uint64_t loops_done_ = 0, outer_chunks_ = 0;
  iter_t iterations_ = 0;
  std::int64_t wait_ns_ = 0;
  std::uint64_t dropped_ = 0;  // resilience: outer chunks left unfinished because a copy finished elsewhere
};

}  // namespace selfsched::mpi::detail
