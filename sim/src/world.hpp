// The state every actor of a simulated loop shares (one `world` per run, in
// its child process, child.hpp): the inputs, the scheduler, the result being
// filled, the bookkeeping of losses, the messages actors exchange and the
// mailboxes they exchange them in. The transport models (master.cpp,
// hier.cpp, worker.cpp, team.cpp) sit above it; it includes none of them.
#pragma once

#include <simgrid/s4u.hpp>

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "selfsched/core/scheduler.hpp"
#include "selfsched/core/wavefront.hpp"
#include "selfsched/sim.hpp"

namespace selfsched::sim::detail {

namespace sg4 = simgrid::s4u;

// A time-shared worker's time left in its slice once it runs unshared.
constexpr double kUnshared = std::numeric_limits<double>::infinity();

constexpr double atomic_bytes = 8;  // rma: a fetch-and-add's operand, and its answer

struct message {
  enum kind { request, answer, batch_request, batch, boundary, lost, finished_note };
  message(kind w, int who) : what(w), worker(who) {}
  kind what;
  int worker = 0;            // request: who asks; batch_request: which node master
  chunk c{};                 // answer
  iter_t sequence = 0;       // answer: the chunk's place in hand-out order (dependence loops)
  iter_t done = 0;           // request: the previous chunk's size
  double seconds = 0;        // and its time
  iter_t finished_start = 0;     // finished_note: a team ran this outer chunk whole (with losses)
  std::vector<chunk> chunks; // batch
  std::vector<iter_t> sequences;  // batch: each chunk's place in hand-out order (dependence loops)
  std::vector<std::pair<int, std::pair<iter_t, double>>> timings;  // batch_request: workers' (size, seconds)
};

struct world {
  world(platform_spec platform_in, run_spec run_in, std::vector<double> costs_in, std::vector<sg4::Host*> memories_in)
      : platform(std::move(platform_in)),
        run(std::move(run_in)),
        costs(std::move(costs_in)),
        memories(std::move(memories_in)) {}

  platform_spec platform;
  run_spec run;
  std::vector<double> costs;
  std::vector<double> prefix;  // prefix sums of costs
  result out;
  std::vector<double> master_busy;
  std::unique_ptr<scheduler> sched;
  wavefront_plan plan;       // dependence loops (run.rows > 0): the intervals of rows
  std::unordered_map<iter_t, std::size_t> logged_at;  // chunk start -> chunk_log index
  // With losses (rDLB): who runs what, which chunks are finished.
  int active = 0;                          // workers the master still waits for
  std::vector<bool> exited, dead;
  std::vector<chunk> running;              // per worker of one thread, its chunk (size 0: none)
  struct handed_chunk {
    iter_t size = 0;
    bool finished = false;
    std::vector<int> holders;  // workers running it (the first it was scheduled for)
  };
  std::map<iter_t, handed_chunk> handed_out;  // by start
  // With a memory share: each node's memory, a host of one core whose
  // speed is the node's bandwidth (platform.flops: a second of traffic at
  // full bandwidth), shared by the traffic of the node's workers.
  std::vector<sg4::Host*> memories;
  std::vector<iter_t> iterations_run;  // per worker, for cluster mode's merge

  double speed(int worker) const {
    if (platform.speeds.empty()) return 1.0;
    return platform.speeds[static_cast<std::size_t>(worker) % platform.speeds.size()];
  }
  // Seconds worker k starts after the others (platform.late_starts).
  double late_by(int worker) const;
  // rDLB bookkeeping of a master (or a node master) when worker k asks
  // again (losses.cpp): returns c, or when c is empty a copy of the oldest
  // chunk of `handed` (default: all) not finished yet and not held by k.
  chunk rdlb(int k, chunk c, const std::vector<iter_t>* handed = nullptr);
  // A team's note: it ran the outer chunk at `start` whole.
  void rdlb_finished(iter_t start) { handed_out.at(start).finished = true; }
  // Worker k computes `seconds` of work (at speed 1) on the calling actor's
  // host, sharing its node's memory and its core's time slices (world.cpp).
  void compute(int k, double seconds);
  const time_share* time_share_of(int k) const {
    for (const time_share& t : platform.time_shares)
      if (t.worker == k) return &t;
    return nullptr;
  }
  // Time slices of a time-shared worker (world.cpp).
  static double until_off(const time_share& t, double now);
  static double until_off(const time_share& t) { return until_off(t, sg4::Engine::get_clock()); }
  static double next_slice(const time_share& t, double now);
  static double first_slice(const time_share& t) { return until_off(t, 0) > 0 ? 0 : next_slice(t, 0); }
  // A stopped time-shared worker waits for its next slice (a thread off its
  // core neither computes nor asks).
  void wait_for_slice(int k) const {
    const time_share* t = time_share_of(k);
    if (t == nullptr || until_off(*t) > 0) return;
    sg4::this_actor::sleep_until(next_slice(*t, sg4::Engine::get_clock()));
  }
  double work(const chunk& c) const {
    return prefix[static_cast<std::size_t>(c.start + c.size)] - prefix[static_cast<std::size_t>(c.start)];
  }
  chunk next(int worker) {
    chunk c = sched->next(worker);
    if (c.size > 0) {
      ++out.chunks;
      if (run.record_chunks) {
        logged_at[c.start] = out.chunk_log.size();
        out.chunk_log.push_back(chunk_record{c.start, c.size, worker, -1, 0, 0});
      }
    }
    return c;
  }
  void record(int worker, iter_t size, double seconds) {
    if (size > 0) sched->record(worker, size, seconds);
  }
  void send(sg4::Mailbox* to, message* m, double bytes) {
    ++out.messages;
    to->put_init(m, static_cast<std::uint64_t>(bytes))->detach();
  }
};

// Turns worker k's host off at `at`: its actor dies with what it held
// (losses.cpp).
void loss_actor(world* w, sg4::Host* host, int k, double at);

inline sg4::Mailbox* mailbox(const std::string& name) { return sg4::Mailbox::by_name(name); }
// The calling actor's own mailbox, receiving eagerly: a request travels as
// soon as it is sent, as MPI's eager protocol sends short messages, instead
// of when the receiver takes it (which made a master pay every request's
// latency in turn). Results are bulk data and go apart (results_actor).
inline sg4::Mailbox* own_mailbox(const std::string& name) {
  sg4::Mailbox* box = mailbox(name);
  box->set_receiver(sg4::Actor::self());
  return box;
}
inline std::string results_box(int m) { return "results-" + std::to_string(m); }
inline std::string worker_box(int k) { return "worker-" + std::to_string(k); }
inline std::string master_box(int m) { return "master-" + std::to_string(m); }
inline std::string boundary_box(iter_t sequence) { return "boundary-" + std::to_string(sequence); }

// The master worker k asks: master and rma have one (rank 0), hier one per node.
inline int master_of(const world& w, int worker) {
  if (w.run.via != transport::hier) return 0;  // master, rma: everyone asks rank 0
  const int per = (w.platform.workers + w.run.masters - 1) / w.run.masters;
  return worker / per;
}

}  // namespace selfsched::sim::detail
