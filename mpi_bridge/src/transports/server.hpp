// The serving side of the two-sided transports (seeds 000, 002, 004).
//
// master: rank 0 keeps one sequential scheduler per shared loop (the outer
//   technique over p = ranks, with the ranks' weights) and answers each
//   request with the technique's next chunk for the requesting rank.
// hier: the supermaster (rank 0) keeps the schedulers; each node master asks
//   it for a batch (one chunk per rank of its node, computed for that rank)
//   and serves its node's ranks from that pool, asking for the next batch
//   while half the pool is left (seed 004, Sect. 4).
//
// resilience (master and hier; rDLB, Mohammed, Cavelan and Ciorba): once
//   the technique has no chunk left, a request gets a copy of the oldest
//   chunk not yet finished that the asker does not hold; when a holder says
//   it has handed out all of its copy, the other holders are told to drop
//   theirs (server_copies.cpp). A stopped or slowed rank then holds the loop
//   up by at most the inner chunk it is running.
//
// Every method runs under the engine's lock; answers to the local rank go to
// host::deliver() / host::cancel() directly, others by MPI_Isend.
#pragma once

#include <mpi.h>

#include <deque>
#include <list>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "transports/protocol.hpp"
#include "selfsched/core/adaptive_history.hpp"
#include "selfsched/core/scheduler.hpp"
#include "selfsched/core/spec.hpp"

namespace selfsched::mpi::detail {

class server_host {
 public:
  virtual void deliver(std::uint64_t index, chunk c) = 0;  // the answer to this rank's own request
  virtual void cancel(std::uint64_t index, chunk c) = 0;   // resilience: this rank's copy of c is not wanted
  [[noreturn]] virtual void fatal(const std::string& message) = 0;

 protected:
  ~server_host() = default;
};

struct server_roles {
  bool root = false;             // owns the schedulers (master; hier supermaster)
  bool leader = false;           // hier: serves `group` from a pool
  std::vector<int> group;        // hier leader: the ranks it serves, itself included
  std::map<int, std::vector<int>> groups;  // hier root: each leader's ranks
  bool duplicate = false;        // hand out copies of unfinished chunks (resilience)
};

class server {
 public:
  server(server_host& host, MPI_Comm comm, int rank, server_roles roles, schedule_spec outer, loop_params base);
  ~server();  // a cancel nobody took any more is withdrawn
  server(const server&) = delete;
  server& operator=(const server&) = delete;

  // A request from `from` (this rank too): answered now or when a batch comes.
  void request(int from, const request_msg& m);
  // Receives and handles what has arrived; true if anything did.
  bool poll();
  // hier: this rank runs no chunk until it asks for one (it only serves);
  // its node's batches hold none for it.
  void serve_only() { queues_[static_cast<std::size_t>(rank_)] = 0.0; }
  // Resilience: `from` has handed out all of its copy of chunk c of loop `index`.
  void finished(int from, std::uint64_t index, chunk c);
  // Every rank has finished the loops before `index`: drop their state.
  void forget_before(std::uint64_t index);

  std::uint64_t served() const { return served_; }
  std::uint64_t copies() const { return copies_; }

 private:
  struct handed_chunk {  // resilience
    chunk c;
    std::vector<int> holders;  // the ranks (hier supermaster: node masters) running a copy, the first one it was
                               // scheduled for
    bool finished = false;
  };
  struct scheduled_loop {  // root
    iter_t n;
    std::uint64_t site;
    int first_rank;
    std::unique_ptr<scheduler> rule;
    std::vector<handed_chunk> handed;  // resilience: every chunk handed out, by start
    std::size_t unfinished_from = 0;   // handed[k] is finished for every k below this
  };
  struct pooled_loop {  // hier leader
    iter_t n;
    std::uint64_t site;
    int first_rank;
    std::deque<std::array<iter_t, 3>> pool;  // rank it was computed for, start, size
    std::vector<int> waiting;                // ranks whose request waits for a batch
    std::vector<std::int64_t> reports;       // (rank, size, ns) to pass up with the next refill
    bool refilling = false, done = false;
    bool in_order = false;                   // oldest first always (a dependence loop)
    chunk_bounds bounds;                     // passed up with refills
    std::vector<std::int64_t> batch;         // receive buffer of the batch in flight
    MPI_Request batch_request = MPI_REQUEST_NULL;
    std::map<iter_t, handed_chunk> handed;   // resilience: the node's chunks handed out, by start
  };

  scheduled_loop& scheduled(std::uint64_t index, iter_t n, std::uint64_t site, chunk_bounds bounds, int from);
  pooled_loop& pooled(std::uint64_t index, iter_t n, std::uint64_t site, int from);
  void check_not_finished(std::uint64_t index, int from);
  void check_same_loop(std::uint64_t index, iter_t n, std::uint64_t site, int from, iter_t known_n,
                       std::uint64_t known_site, int known_from);
  chunk assign(scheduled_loop& loop, int rank, iter_t reported_size, std::int64_t reported_ns, double queue);
  chunk copy_for(scheduled_loop& loop, int who);
  chunk copy_in_node(pooled_loop& loop, int rank);
  void finished_at_root(int from, std::uint64_t index, chunk c);
  void finished_in_node(int from, std::uint64_t index, chunk c);
  void cancel_in_node(std::uint64_t index, chunk c);
  void cancel_rank(int rank, std::uint64_t index, chunk c);
  [[noreturn]] void not_given(int from, std::uint64_t index, chunk c);
  std::vector<std::int64_t> make_batch(std::uint64_t index, iter_t n, std::uint64_t site, chunk_bounds bounds,
                                       int leader, const std::int64_t* queues,
                                       const std::int64_t* reports, int report_count);
  void take_batch(std::uint64_t index, pooled_loop& loop, const std::int64_t* triples, int count);
  static bool oldest_is_stale(const pooled_loop& loop);
  bool answer_from_pool(std::uint64_t index, pooled_loop& loop, int rank);
  void maybe_refill(std::uint64_t index, pooled_loop& loop);
  void answer(int to, std::uint64_t index, chunk c);
  void send(int to, int tag, std::vector<std::int64_t> message);
  bool receive(int tag);

  server_host& host_;
  MPI_Comm comm_;
  int rank_;
  server_roles roles_;
  schedule_spec outer_;
  loop_params base_;
  std::map<std::uint64_t, scheduled_loop> scheduled_;
  std::map<std::uint64_t, pooled_loop> pooled_;  // map: nodes stay put while a batch is received into them
  std::map<std::uint64_t, adaptive_history> histories_;  // by loop site
  std::vector<double> queues_;  // hier leader: each rank's Q from its last request (0: it runs no chunk)
  std::uint64_t forgotten_ = 0;  // loops before this index are finished everywhere
  struct outgoing {
    std::vector<std::int64_t> message;
    MPI_Request request;
  };
  std::list<outgoing> outgoing_;
  std::vector<std::int64_t> incoming_;
  std::uint64_t served_ = 0;
  std::uint64_t copies_ = 0;  // resilience: copies handed out
};

}  // namespace selfsched::mpi::detail
