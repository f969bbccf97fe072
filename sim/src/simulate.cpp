// The simulation itself (sim.hpp): a star platform and the transports'
// actors; each run happens in a child process (child.hpp).
//
// Platform: every host (workers, masters, the supermaster) has its own link
// (bandwidth, latency) to the centre of a star, so the messages of many
// workers to one master share that master's link, as they share its NIC.
//
// master: one master actor serves every worker. A worker sends a request
// (with the previous chunk's time), the master works claim_seconds, asks the
// scheduler for the worker's next chunk and answers. The previous chunk's
// results go first, to a sink on the master's host that takes them one at a
// time (the worker's send ends when they are in): short requests go
// eagerly, bulk results by rendezvous, as MPI moves them, and both share the
// master's link.
//
// rma: a claim is one fetch-and-add at the window owner (rank 0's host):
// the window actor there serialises them, atomic_seconds each, and the
// answer is the step whose chunk the worker computes itself (the
// technique's next chunk in claim order, as the runtime's chunk_plan).
// Requests carry 8 bytes and no timing or results.
//
// hier (seed 004 sec. 4): the supermaster holds the scheduler for all
// workers and hands batches of their chunks (one per worker of the node) to
// node masters; a node master serves its workers from its pool and asks for
// the next batch when the pool falls to half, so its workers rarely wait
// for the supermaster.

#include <simgrid/kernel/ProfileBuilder.hpp>
#include <simgrid/s4u.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <set>
#include <tuple>
#include <unordered_map>

#include "child.hpp"
#include "engine.hpp"
#include "inputs.hpp"
#include "selfsched/core/scheduler.hpp"
#include "selfsched/core/wavefront.hpp"
#include "selfsched/sim.hpp"

namespace sg4 = simgrid::s4u;

namespace selfsched::sim {
namespace {

// A time-shared worker's time left in its slice once it runs unshared.
constexpr double kUnshared = std::numeric_limits<double>::infinity();

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
  double late_by(int worker) const {
    double after = 0;
    for (const late_start& l : platform.late_starts)
      if (l.worker == worker) after = std::max(after, l.after);
    if (const time_share* t = time_share_of(worker)) after = std::max(after, first_slice(*t));  // its first slice
    return after;
  }
  // rDLB bookkeeping of a master (or a node master) when worker k asks
  // again: a worker of one thread has finished its previous chunk (a team
  // reports its outer chunks in notes instead: it asks before they end), and
  // `c` (if any) is what it runs now. Returns c, or when c is empty a copy
  // of the oldest chunk of `handed` (default: all) not finished yet and not
  // held by k (the first copy to finish counts).
  chunk rdlb(int k, chunk c, const std::vector<iter_t>* handed = nullptr) {
    const auto i = static_cast<std::size_t>(k);
    if (run.threads == 1 && running[i].size > 0) handed_out.at(running[i].start).finished = true;
    const auto copyable = [&](iter_t start) {
      const handed_chunk& h = handed_out.at(start);
      return !h.finished && std::find(h.holders.begin(), h.holders.end(), k) == h.holders.end();
    };
    if (c.size > 0) {
      handed_out[c.start] = {c.size, false, {k}};
    } else if (handed == nullptr) {
      for (const auto& [start, state] : handed_out)
        if (copyable(start)) {
          c = chunk{start, state.size}, ++out.reexecuted;
          break;
        }
    } else {
      for (const iter_t start : *handed)
        if (copyable(start)) {
          c = chunk{start, handed_out.at(start).size}, ++out.reexecuted;
          break;
        }
    }
    if (c.size > 0 && handed_out.at(c.start).holders.front() != k) handed_out.at(c.start).holders.push_back(k);
    running[i] = c;
    return c;
  }
  // A team's note: it ran the outer chunk at `start` whole.
  void rdlb_finished(iter_t start) { handed_out.at(start).finished = true; }
  // Worker k computes `seconds` of work (at speed 1) on the calling actor's
  // host; with a memory share its memory traffic flows meanwhile, at most
  // at k's speed, on its node's memory, and the work is done when both are.
  // A time-shared worker's computation and traffic stop between its slices.
  void compute(int k, double seconds) {
    const double flops = seconds * platform.flops;
    const time_share* share = time_share_of(k);
    if (memories.empty() && share == nullptr) {
      sg4::this_actor::execute(flops);
      return;
    }
    sg4::Host* memory = memories.empty() ? nullptr : memories[static_cast<std::size_t>(k / platform.workers_per_node)];
    double left = flops, traffic_left = memory != nullptr ? platform.memory_share * flops : 0;
    for (;;) {
      sg4::ExecPtr computing = left > 0 ? sg4::this_actor::exec_init(left) : nullptr;
      sg4::ExecPtr traffic = traffic_left > 0 ? sg4::this_actor::exec_init(traffic_left) : nullptr;
      if (traffic) traffic->set_host(memory)->set_bound(speed(k) * platform.flops);
      for (const sg4::ExecPtr& e : {computing, traffic})
        if (e) e->start();
      // Until both are done, or a time-shared worker's slice ends.
      const double until = share != nullptr ? sg4::Engine::get_clock() + until_off(*share) : kUnshared;
      try {
        for (const sg4::ExecPtr& e : {computing, traffic})
          if (e && until < kUnshared) e->wait_until(until);
          else if (e) e->wait();
      } catch (const simgrid::TimeoutException&) {
      }
      // What is left waits for the next slice as new activities (SimGrid's
      // suspend and resume held only once here).
      const auto rest = [](const sg4::ExecPtr& e) {
        if (!e || e->test()) return 0.0;
        const double remaining = e->get_remaining();
        e->cancel();
        return remaining;
      };
      left = rest(computing), traffic_left = rest(traffic);
      if (left <= 0 && traffic_left <= 0) return;
      wait_for_slice(k);
    }
  }
  const time_share* time_share_of(int k) const {
    for (const time_share& t : platform.time_shares)
      if (t.worker == k) return &t;
    return nullptr;
  }
  // Seconds left at `now` of the slice a time-shared worker runs in; 0 when
  // it is stopped (a slice's last nanosecond counts as over, a clock a
  // rounding error short of a slice's start is in it); kUnshared after the
  // last recorded slice.
  static double until_off(const time_share& t, double now) {
    double end = 0;
    if (!t.slices.empty()) {
      if (now >= t.slices.back().second) return kUnshared;
      const auto in = std::find_if(t.slices.begin(), t.slices.end(), [now](const auto& s) { return s.second > now; });
      if (in->first <= now + 1e-9) end = in->second;
    } else if (now + 1e-9 >= t.start) {
      end = t.start + std::floor((now - t.start) / (t.on + t.off) + 1e-9) * (t.on + t.off) + t.on;
    }
    return end - now > 1e-9 ? end - now : 0;
  }
  static double until_off(const time_share& t) { return until_off(t, sg4::Engine::get_clock()); }
  // When a stopped time-shared worker's next slice begins, after `now`: by
  // the regular pattern, or the next recorded one (the last one's end when
  // none is left: unshared from then).
  static double next_slice(const time_share& t, double now) {
    if (t.slices.empty())
      return now < t.start ? t.start : t.start + (std::floor((now - t.start) / (t.on + t.off)) + 1) * (t.on + t.off);
    const auto later = std::find_if(t.slices.begin(), t.slices.end(), [now](const auto& s) { return s.first > now; });
    return later != t.slices.end() ? later->first : std::max(now, t.slices.back().second);
  }
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

constexpr double atomic_bytes = 8;  // rma: a fetch-and-add's operand, and its answer

sg4::Mailbox* mailbox(const std::string& name) { return sg4::Mailbox::by_name(name); }
// The calling actor's own mailbox, receiving eagerly: a request travels as
// soon as it is sent, as MPI's eager protocol sends short messages, instead
// of when the receiver takes it (which made a master pay every request's
// latency in turn). Results are bulk data and go apart (results_actor).
sg4::Mailbox* own_mailbox(const std::string& name) {
  sg4::Mailbox* box = mailbox(name);
  box->set_receiver(sg4::Actor::self());
  return box;
}
std::string results_box(int m) { return "results-" + std::to_string(m); }

// Takes in the results workers send to master m, one message at a time, as
// MPI's rendezvous protocol moves long messages: a worker's send ends when
// its results are in (so a saturated master link holds workers up), and
// they share that link with the requests. A daemon: it ends with the
// simulation.
void results_actor(int m) {
  sg4::Actor::self()->daemonize();
  sg4::Mailbox* box = mailbox(results_box(m));
  for (;;) delete box->get<message>();
}
std::string worker_box(int k) { return "worker-" + std::to_string(k); }
std::string master_box(int m) { return "master-" + std::to_string(m); }

int master_of(const world& w, int worker) {
  if (w.run.via != transport::hier) return 0;  // master, rma: everyone asks rank 0
  const int per = (w.platform.workers + w.run.masters - 1) / w.run.masters;
  return worker / per;
}

// Worker k's next chunk (size 0: none left), answered to `mine`, after the
// previous one of `done` iterations that took `seconds`: its results, then
// the request. `sequence`, if given, gets the chunk's place in hand-out order.
chunk ask_for_chunk(world* w, int k, sg4::Mailbox* mine, iter_t done, double seconds, iter_t* sequence = nullptr) {
  w->wait_for_slice(k);
  sg4::Mailbox* master = mailbox(master_box(master_of(*w, k)));
  auto* req = new message{message::request, k};
  req->done = done;
  req->seconds = seconds;
  if (w->run.via != transport::rma && w->run.result_bytes > 0 && done > 0) {
    // Like a blocking MPI_Send of a long message: done once the sink took it.
    ++w->out.messages;
    mailbox(results_box(master_of(*w, k)))
        ->put(new message{message::request, k}, static_cast<std::uint64_t>(w->run.result_bytes * static_cast<double>(done)));
  }
  w->send(master, req, w->run.via == transport::rma ? atomic_bytes : w->run.request_bytes);
  std::unique_ptr<message> ans(mine->get<message>());
  if (ans->c.size == 0 && !w->exited.empty()) w->exited[static_cast<std::size_t>(k)] = true;
  if (sequence != nullptr) *sequence = ans->sequence;
  return ans->c;
}

std::string boundary_box(iter_t sequence) { return "boundary-" + std::to_string(sequence); }

// Chunk `sequence` of a dependence loop on worker k, interval by interval:
// each waits for the previous chunk's boundary of it, and sends its own on
// to the next chunk's worker (a detached send: the worker goes on
// computing, as with MPI_Isend). Returns the seconds spent computing (waits
// left out).
double run_intervals(world* w, int k, chunk c, iter_t sequence) {
  const wavefront_plan& p = w->plan;
  sg4::Mailbox* from = sequence > 0 ? mailbox(boundary_box(sequence)) : nullptr;
  if (from != nullptr) from->set_receiver(sg4::Actor::self());  // short messages travel eagerly
  sg4::Mailbox* to = c.start + c.size < w->run.n ? mailbox(boundary_box(sequence + 1)) : nullptr;
  const double rows = static_cast<double>(w->run.rows), work = w->work(c);
  double computing = 0;
  for (iter_t t = 0; t < p.tiles; ++t) {
    const auto [first, last] = p.tile_rows(t);
    if (from != nullptr) delete from->get<message>();
    const double begin = sg4::Engine::get_clock();
    w->compute(k, work * static_cast<double>(last - first) / rows);
    computing += sg4::Engine::get_clock() - begin;
    if (to != nullptr)
      w->send(to, new message{message::boundary, 0}, w->run.boundary_bytes * static_cast<double>(last - first));
  }
  return computing;
}

void log_chunk(world* w, chunk c, int k, double begin, double end) {
  if (!w->run.record_chunks) return;
  chunk_record& r = w->out.chunk_log[w->logged_at.at(c.start)];
  r.ran_on = k;
  r.begin = begin;
  r.end = end;
}

// A worker of one thread: asks, computes, asks again.
void worker_actor(world* w, int k) {
  sg4::Mailbox* mine = own_mailbox(worker_box(k));
  sg4::this_actor::sleep_for(w->late_by(k));
  iter_t done = 0;
  double seconds = 0;
  for (;;) {
    iter_t sequence = 0;
    const chunk c = ask_for_chunk(w, k, mine, done, seconds, &sequence);
    if (c.size == 0) break;
    const double begin = sg4::Engine::get_clock();
    if (w->run.rows > 0) {
      seconds = run_intervals(w, k, c, sequence);
    } else {
      w->compute(k, w->work(c));
      seconds = sg4::Engine::get_clock() - begin;
    }
    const double end = sg4::Engine::get_clock();
    done = c.size;
    w->iterations_run[static_cast<std::size_t>(k)] += c.size;
    w->out.busy[static_cast<std::size_t>(k)] += seconds;
    w->out.makespan = std::max(w->out.makespan, end);
    log_chunk(w, c, k, begin, end);
  }
}

// A worker of several threads (a rank and its team, the runtime's two
// levels): the rank asks for outer chunks, its threads split each with the
// inner technique, paying inner_claim_seconds a claim on their own core,
// and the rank asks for the next outer chunk early, as the runtime's ranks
// do (mpi_bridge engine::time_to_ask): once 15% of the current one is left
// (SELFSCHED_MPI_PREFETCH's default) and it is expected to end within two
// round trips, from the rank's rate over its earlier outer chunks (so never
// during its first), so that it comes while the threads finish this one.
struct team {
  int rank = 0;
  std::deque<chunk> outer;              // outer chunks received, not started
  std::deque<iter_t> outer_sequence;    // dependence loops: their places in hand-out order
  chunk current{};                      // the one being split
  iter_t current_sequence = 0;
  // Outer chunks with inner chunks still running, by start: logged with
  // their real end once the last of them ends and the chunk is cut whole.
  struct open_chunk {
    chunk c;
    double begin = 0, end = 0;
    int running = 0;
    bool cut = false;
    bool dropped = false;  // with losses: a copy another rank finished first (not logged here)
  };
  std::map<iter_t, open_chunk> open;
  // Dependence loops: intervals finished by each inner chunk of `current`,
  // in the order they were handed out (inner chunk i waits for i - 1).
  std::shared_ptr<std::vector<iter_t>> progress;
  std::unique_ptr<scheduler> inner;     // its split among the threads
  double current_begin = 0, current_end = 0;
  double rate = 0;        // iterations a second over its earlier outer chunks (faded); 0: none yet
  double round_trip = 0;  // seconds from asking to the answer (faded); 0: not measured
  bool want = true, done = false;       // the rank should ask; no outer chunk is left
  int running = 0;                      // threads still working
  sg4::MutexPtr lock = sg4::Mutex::create();
  sg4::ConditionVariablePtr changed = sg4::ConditionVariable::create();
};

constexpr double prefetch_fraction = 0.15;

// An exponential average that starts at its first sample (the runtime's).
void fade_in(double& mean, double sample) { mean = mean > 0 ? 0.75 * mean + 0.25 * sample : sample; }

// The runtime's rule for asking early (engine::time_to_ask), at a claim.
bool time_to_ask(const team& t, iter_t left, double now) {
  if (static_cast<double>(left) > prefetch_fraction * static_cast<double>(t.current.size)) return false;
  if (t.rate <= 0) return false;
  if (t.round_trip <= 0) return true;
  return now + 2 * t.round_trip >= t.current_begin + static_cast<double>(t.current.size) / t.rate;
}

void team_rank_actor(world* w, team* t) {
  sg4::Mailbox* mine = own_mailbox(worker_box(t->rank));
  sg4::this_actor::sleep_for(w->late_by(t->rank));
  iter_t done = 0;
  double seconds = 0;
  std::unique_lock guard(*t->lock);
  for (;;) {
    t->changed->wait(guard, [&] { return t->want; });
    guard.unlock();
    iter_t sequence = 0;
    const double asked = sg4::Engine::get_clock();
    const chunk c = ask_for_chunk(w, t->rank, mine, done, seconds, &sequence);
    guard.lock();
    fade_in(t->round_trip, sg4::Engine::get_clock() - asked);
    t->want = false;
    if (c.size == 0) t->done = true;
    else t->outer.push_back(c), t->outer_sequence.push_back(sequence);
    t->changed->notify_all();
    if (c.size == 0) return;
    done = t->current.size, seconds = t->current_end - t->current_begin;  // the last outer chunk split
  }
}

// Dependence loops: inner chunk `index` of outer chunk `sequence`, interval
// by interval. The first inner chunk waits for the boundary of the outer
// chunk before it (from whichever rank ran it, this one included), the
// others for the inner chunk before them; the last sends the boundary on.
// Returns the seconds spent computing.
double run_inner_intervals(world* w, team* t, chunk c, iter_t sequence, std::size_t index, bool last,
                           const std::shared_ptr<std::vector<iter_t>>& progress, iter_t outer_end) {
  const wavefront_plan& p = w->plan;
  sg4::Mailbox* from = index == 0 && sequence > 0 ? mailbox(boundary_box(sequence)) : nullptr;
  if (from != nullptr) from->set_receiver(sg4::Actor::self());
  sg4::Mailbox* to = last && outer_end < w->run.n ? mailbox(boundary_box(sequence + 1)) : nullptr;
  const double rows = static_cast<double>(w->run.rows), work = w->work(c);
  double computing = 0;
  for (iter_t tile = 0; tile < p.tiles; ++tile) {
    const auto [first, end] = p.tile_rows(tile);
    if (from != nullptr) {
      delete from->get<message>();
    } else if (index > 0) {
      std::unique_lock guard(*t->lock);
      t->changed->wait(guard, [&] { return (*progress)[index - 1] > tile; });
    }
    const double begin = sg4::Engine::get_clock();
    w->compute(t->rank, work * static_cast<double>(end - first) / rows);
    computing += sg4::Engine::get_clock() - begin;
    {
      std::unique_lock guard(*t->lock);
      (*progress)[index] = tile + 1;
      t->changed->notify_all();
    }
    if (to != nullptr)
      w->send(to, new message{message::boundary, 0}, w->run.boundary_bytes * static_cast<double>(end - first));
  }
  return computing;
}

// An outer chunk the team ran whole: logged; with losses its master is told
// at once (the runtime's ranks send a note when they finish a chunk), so
// that it is not copied again and copies of it elsewhere are dropped.
void ran_whole(world* w, team* t, const team::open_chunk& done) {
  log_chunk(w, done.c, t->rank, done.begin, done.end);
  if (w->platform.losses.empty()) return;
  auto* note = new message{message::finished_note, t->rank};
  note->finished_start = done.c.start;
  w->send(mailbox(master_box(master_of(*w, t->rank))), note, w->run.request_bytes);
}

// `current` is cut whole: logged now if none of its inner chunks runs, else
// by the last of them to end. Under the team's lock.
void close_cut(world* w, team* t) {
  const auto it = t->open.find(t->current.start);
  if (t->current.size == 0 || it == t->open.end() || it->second.cut) return;
  it->second.cut = true;
  if (it->second.running == 0) {
    if (!it->second.dropped) ran_whole(w, t, it->second);
    t->open.erase(it);
  }
}

void team_thread_actor(world* w, team* t, int thread) {
  const parse_result inner = parse_schedule(w->run.inner_technique);
  std::unique_lock guard(*t->lock);
  for (;;) {
    chunk c{0, 0};
    while (c.size == 0) {
      // With losses, a copy that another rank finished first is dropped at
      // the next inner claim, as the runtime's ranks drop theirs when told
      // (told at once here: the cancel message's latency is not modelled).
      if (t->inner && !w->platform.losses.empty() && w->handed_out.at(t->current.start).finished) {
        t->inner.reset();
        t->open[t->current.start].dropped = true;
      }
      if (t->inner) c = t->inner->next(thread);
      if (c.size > 0) break;
      if (!t->outer.empty()) {  // the next outer chunk: split it
        const double now = sg4::Engine::get_clock();
        if (t->current.size > 0 && now > t->current_begin)
          fade_in(t->rate, static_cast<double>(t->current.size) / (now - t->current_begin));
        close_cut(w, t);
        t->current = t->outer.front();
        t->outer.pop_front();
        if (!t->outer_sequence.empty()) {
          t->current_sequence = t->outer_sequence.front();
          t->outer_sequence.pop_front();
        }
        if (w->run.rows > 0) t->progress = std::make_shared<std::vector<iter_t>>();
        t->current_begin = t->current_end = sg4::Engine::get_clock();
        t->open[t->current.start] = {t->current, t->current_begin, t->current_begin, 0, false};
        loop_params lp;
        lp.n = t->current.size;
        lp.p = w->run.threads;
        apply_chunk(inner.spec, lp);
        t->inner = std::make_unique<scheduler>(inner.spec, lp);
        continue;
      }
      if (t->done) {
        close_cut(w, t);
        --t->running;
        return;
      }
      if (!t->want) t->want = true, t->changed->notify_all();
      t->changed->wait(guard);
    }
    const iter_t left = t->inner->remaining();
    if (!t->want && !t->done && t->outer.empty() && time_to_ask(*t, left, sg4::Engine::get_clock()))
      t->want = true, t->changed->notify_all();
    const chunk outer = t->current;
    const iter_t sequence = t->current_sequence;
    std::shared_ptr<std::vector<iter_t>> progress = t->progress;
    std::size_t index = 0;
    if (progress) index = progress->size(), progress->push_back(0);
    const bool last = left == 0;
    ++t->open[outer.start].running;
    guard.unlock();
    sg4::this_actor::execute(w->run.inner_claim_seconds * w->platform.flops);
    const double begin = sg4::Engine::get_clock();
    double computing = 0;
    if (progress) {
      computing = run_inner_intervals(w, t, {outer.start + c.start, c.size}, sequence, index, last, progress,
                                      outer.start + outer.size);
    } else {
      w->compute(t->rank, w->work({outer.start + c.start, c.size}));
      computing = sg4::Engine::get_clock() - begin;
    }
    const double end = sg4::Engine::get_clock();
    guard.lock();
    w->out.busy[static_cast<std::size_t>(t->rank)] += computing;
    w->iterations_run[static_cast<std::size_t>(t->rank)] += c.size;
    w->out.makespan = std::max(w->out.makespan, end);
    if (outer.start == t->current.start) t->current_end = std::max(t->current_end, end);
    team::open_chunk& mine = t->open[outer.start];
    mine.end = std::max(mine.end, end);
    if (--mine.running == 0 && mine.cut) {
      if (!mine.dropped) ran_whole(w, t, mine);
      t->open.erase(outer.start);
    }
  }
}

// The only master: serves every worker from the scheduler, claim_seconds a
// request. Under rma the window owner in its place: each request is a
// fetch-and-add, atomic_seconds, answered with 8 bytes, no timing learned
// (rma takes fixed techniques only). With losses (master only) it also
// re-executes (rDLB): a worker that finds no new chunk gets a copy of the
// oldest chunk not yet finished; the first copy to finish counts.
void master_actor(world* w) {
  sg4::Mailbox* box = own_mailbox(master_box(0));
  const bool rma = w->run.via == transport::rma;
  const double service_seconds = rma ? w->run.atomic_seconds : w->run.claim_seconds;
  const double answer_bytes = rma ? atomic_bytes : w->run.request_bytes;
  const bool resilient = !w->platform.losses.empty();
  while (w->active > 0) {
    std::unique_ptr<message> req(box->get<message>());
    const auto k = static_cast<std::size_t>(req->worker);
    if (resilient && w->dead[k]) continue;  // sent before its host went down
    if (req->what == message::finished_note) {
      w->rdlb_finished(req->finished_start);
      continue;
    }
    const double from = sg4::Engine::get_clock();
    sg4::this_actor::execute(service_seconds * w->platform.flops);
    if (!rma) w->record(req->worker, req->done, req->seconds);
    auto* ans = new message{message::answer, req->worker};
    ans->c = w->next(req->worker);
    ans->sequence = w->out.chunks - 1;  // chunks go out in order: the k-th is chunk k
    if (resilient) ans->c = w->rdlb(req->worker, ans->c);
    if (ans->c.size == 0) --w->active;
    w->send(mailbox(worker_box(req->worker)), ans, answer_bytes);
    w->master_busy[0] += sg4::Engine::get_clock() - from;
  }
}

// Turns worker k's host off at `at`: its actor dies with what it held.
// Under hier its node master is told (it counts the workers it waits for).
void loss_actor(world* w, sg4::Host* host, int k, double at) {
  sg4::this_actor::sleep_until(at);
  const auto i = static_cast<std::size_t>(k);
  if (w->dead[i]) return;
  w->dead[i] = true;
  if (!w->exited[i]) {
    --w->active;
    if (w->run.via == transport::hier) w->send(mailbox(master_box(master_of(*w, k))), new message{message::lost, k}, 0);
  }
  host->turn_off();
}

// hier: node master m serves workers [first, last) from a pool of chunks.
// With losses, rDLB within the node: once the pool and the supermaster are
// exhausted, a worker gets a copy of the oldest chunk of the node not
// finished yet (validate() keeps a worker alive in every node).
void node_master_actor(world* w, int m, int first, int last) {
  sg4::Mailbox* box = own_mailbox(master_box(m));
  sg4::Mailbox* super = mailbox("supermaster");
  const auto node_size = static_cast<std::size_t>(last - first);
  std::deque<std::pair<chunk, iter_t>> pool;  // chunk, its place in hand-out order
  std::deque<int> waiting;  // workers whose request found the pool empty
  std::vector<std::pair<int, std::pair<iter_t, double>>> timings;
  bool asked = false, exhausted = false;
  int active = last - first;
  const bool resilient = !w->platform.losses.empty();
  std::vector<iter_t> handed;  // rDLB: starts of the chunks this node handed out, oldest first
  const auto ask = [&] {
    auto* req = new message{message::batch_request, m};
    req->timings.swap(timings);
    w->send(super, req, w->run.request_bytes);
    asked = true;
  };
  ask();
  while (active > 0) {
    std::unique_ptr<message> msg(box->get<message>());
    const double from = sg4::Engine::get_clock();
    sg4::this_actor::execute(w->run.claim_seconds * w->platform.flops);
    if (msg->what == message::batch) {
      asked = false;
      if (msg->chunks.empty()) exhausted = true;
      for (std::size_t j = 0; j < msg->chunks.size(); ++j) pool.push_back({msg->chunks[j], msg->sequences[j]});
    } else if (msg->what == message::lost) {
      --active;  // what it held is finished by a copy
    } else if (msg->what == message::finished_note) {
      w->rdlb_finished(msg->finished_start);
    } else if (resilient && w->dead[static_cast<std::size_t>(msg->worker)]) {
      // sent before its host went down
    } else {
      if (msg->done > 0) timings.push_back({msg->worker, {msg->done, msg->seconds}});
      waiting.push_back(msg->worker);
    }
    // Oldest first: every worker gets its chunks in increasing order, as
    // a dependence loop needs (the runtime's node masters do so for them).
    while (!waiting.empty() && (!pool.empty() || exhausted)) {
      auto* ans = new message{message::answer, waiting.front()};
      if (!pool.empty()) {
        std::tie(ans->c, ans->sequence) = pool.front();
        pool.pop_front();
      }
      if (resilient) {
        if (ans->c.size > 0) handed.push_back(ans->c.start);
        ans->c = w->rdlb(waiting.front(), ans->c, &handed);
      }
      if (ans->c.size == 0) --active;
      w->send(mailbox(worker_box(waiting.front())), ans, w->run.request_bytes);
      waiting.pop_front();
    }
    // Refill at half (the runtime's hier does the same), or at once if a worker waits.
    if (!asked && !exhausted && (pool.size() * 2 <= node_size || !waiting.empty())) ask();
    w->master_busy[static_cast<std::size_t>(m)] += sg4::Engine::get_clock() - from;
  }
}

// hier: hands each node master a batch of chunks, one per worker of the node.
void supermaster_actor(world* w, std::vector<std::pair<int, int>> nodes) {
  sg4::Mailbox* box = own_mailbox("supermaster");
  int active = static_cast<int>(nodes.size());
  std::vector<bool> finished(nodes.size(), false);
  double busy = 0;
  while (active > 0) {
    std::unique_ptr<message> req(box->get<message>());
    const double from = sg4::Engine::get_clock();
    sg4::this_actor::execute(w->run.claim_seconds * w->platform.flops);
    for (const auto& [worker, t] : req->timings) w->record(worker, t.first, t.second);
    const auto [first, last] = nodes[static_cast<std::size_t>(req->worker)];
    auto* ans = new message{message::batch, req->worker};
    for (int k = first; k < last; ++k) {
      const chunk c = w->next(k);
      if (c.size == 0) break;
      ans->chunks.push_back(c);
      ans->sequences.push_back(w->out.chunks - 1);
    }
    if (ans->chunks.empty() && !finished[static_cast<std::size_t>(req->worker)]) {
      finished[static_cast<std::size_t>(req->worker)] = true;
      --active;
    }
    w->send(mailbox(master_box(req->worker)), ans,
            w->run.request_bytes * static_cast<double>(std::max<std::size_t>(1, ans->chunks.size())));
    busy += sg4::Engine::get_clock() - from;
  }
  w->master_busy.push_back(busy);
}

// The platform: built as a star, or loaded from a SimGrid file. Fills the
// hosts of the workers, masters and supermaster; speeds as given.
struct hosts {
  std::vector<sg4::Host*> workers, masters, memories;
  sg4::Host* super = nullptr;
};

// Nodes of `workers` sharing a memory (platform_spec::workers_per_node).
std::size_t nodes(const platform_spec& platform, std::size_t workers) {
  const auto per = static_cast<std::size_t>(platform.workers_per_node);
  return (workers + per - 1) / per;
}

hosts build_platform(sg4::Engine& engine, const platform_spec& platform, const run_spec& run, int masters) {
  hosts h;
  if (!platform.xml.empty()) {
    engine.load_platform(platform.xml);
    const auto named = [&](const std::string& name) { return engine.host_by_name_or_null(name); };
    for (int k = 0; sg4::Host* host = named("worker-" + std::to_string(k)); ++k) h.workers.push_back(host);
    if (h.workers.empty()) throw sim_error("platform " + platform.xml + ": no host named worker-0");
    for (int m = 0; m < masters; ++m) {
      sg4::Host* host = named("master-" + std::to_string(m));
      if (!host) throw sim_error("platform " + platform.xml + ": no host named master-" + std::to_string(m));
      h.masters.push_back(host);
    }
    if (run.via == transport::hier && !(h.super = named("supermaster")))
      throw sim_error("platform " + platform.xml + ": no host named supermaster (hier needs one)");
    for (std::size_t node = 0; platform.memory_share > 0 && node < nodes(platform, h.workers.size()); ++node) {
      sg4::Host* host = named("memory-" + std::to_string(node));
      if (!host)
        throw sim_error("platform " + platform.xml + ": no host named memory-" + std::to_string(node) +
                        " (a memory share needs one per node, its speed the node's bandwidth in flop/s of traffic)");
      h.memories.push_back(host);
    }
    return h;
  }
  sg4::NetZone* zone = sg4::create_star_zone("platform");
  const auto add_host = [&](const std::string& host_name, double speed, int cores = 1) {
    return detail::add_star_host(zone, host_name, speed * platform.flops, platform.bandwidth, platform.latency, cores);
  };
  for (int k = 0; k < platform.workers; ++k) {
    const double speed = platform.speeds.empty() ? 1.0 : platform.speeds[static_cast<std::size_t>(k) % platform.speeds.size()];
    h.workers.push_back(add_host("worker-" + std::to_string(k), speed, run.threads));
  }
  for (int m = 0; m < masters; ++m) h.masters.push_back(add_host("master-" + std::to_string(m), 1.0));
  if (run.via == transport::hier) h.super = add_host("supermaster", 1.0);
  // A node's memory is used by its workers' computations only: no link.
  for (std::size_t node = 0; platform.memory_share > 0 && node < nodes(platform, h.workers.size()); ++node)
    h.memories.push_back(zone->create_host("memory-" + std::to_string(node), platform.flops)->seal());
  zone->seal();
  return h;
}

// Cluster mode's merge at the loop's end (run_spec::merge_bytes): worker k
// diffs the pages it wrote, then the workers pass blocks round a ring, p - 1
// steps, each applying the block it received (a ring all-gather: every link
// carries each block once).
void merge_actor(world* w, int k, const std::vector<double>* wrote) {
  const int p = static_cast<int>(wrote->size());
  const auto pages = [&](int q) { return std::ceil((*wrote)[static_cast<std::size_t>(q)] / 4096.0); };
  const double page_flops = w->run.merge_page_seconds * w->platform.flops;
  sg4::this_actor::execute(pages(k) * page_flops);
  static int block;  // the payload: only the bytes' size matters here
  sg4::Mailbox* mine = own_mailbox("merge-" + std::to_string(k));
  sg4::Mailbox* next = sg4::Mailbox::by_name("merge-" + std::to_string((k + 1) % p));
  for (int step = 0; step < p - 1; ++step) {
    const int sent = (k - step + p) % p, received = (k - step - 1 + p) % p;
    sg4::CommPtr out = next->put_async(&block, static_cast<std::uint64_t>((*wrote)[static_cast<std::size_t>(sent)]));
    mine->get<int>();
    sg4::this_actor::execute(pages(received) * page_flops);
    out->wait();
  }
}

result simulate_here(platform_spec platform, const run_spec& run, std::vector<double> costs) {
  const int masters = run.via == transport::hier ? run.masters : 1;
  sg4::Engine& engine = detail::start_engine();
  const hosts h = build_platform(engine, platform, run, masters);
  // From here the workers are the platform's, with their speeds.
  platform.workers = static_cast<int>(h.workers.size());
  platform.speeds.clear();
  for (sg4::Host* host : h.workers) platform.speeds.push_back(host->get_speed() / platform.flops);
  if (run.via == transport::hier && masters > platform.workers)
    throw sim_error("masters " + std::to_string(masters) + " must be in [1, workers = " +
                    std::to_string(platform.workers) + "]");
  detail::check_named_workers(platform, platform.workers);
  if (run.via == transport::hier && !platform.losses.empty()) {
    // rDLB within a node: a node whose every worker is lost leaves its chunks unfinished.
    const int per = (platform.workers + masters - 1) / masters;
    std::vector<std::set<int>> lost(static_cast<std::size_t>(masters));
    for (const loss& l : platform.losses)
      if (l.worker < platform.workers) lost[static_cast<std::size_t>(l.worker / per)].insert(l.worker);
    for (int m = 0; m < masters; ++m) {
      const int size = std::min(per, platform.workers - m * per);
      if (size > 0 && static_cast<int>(lost[static_cast<std::size_t>(m)].size()) >= size)
        throw sim_error("hier: every worker of node " + std::to_string(m) +
                        " is lost; a node runs its lost chunks again only while one of its workers lives");
    }
  }

  world w{platform, run, std::move(costs), {}, {}, {}, nullptr, {}, {}, 0, {}, {}, {}, {}, h.memories, {}};
  w.prefix.assign(w.costs.size() + 1, 0);
  std::partial_sum(w.costs.begin(), w.costs.end(), w.prefix.begin() + 1);
  w.out.busy.assign(static_cast<std::size_t>(platform.workers), 0);
  w.iterations_run.assign(static_cast<std::size_t>(platform.workers), 0);
  w.master_busy.assign(static_cast<std::size_t>(masters), 0);

  loop_params lp;
  lp.n = run.n;
  lp.p = platform.workers;
  const parse_result parsed = parse_schedule(run.technique);
  apply_chunk(parsed.spec, lp);
  lp.max_chunk = run.max_chunk;
  // The techniques are told the speeds, or the powers declared instead;
  // equal ones give them no powers (as the runtime does).
  const std::vector<double>& told = platform.powers.empty() ? platform.speeds : platform.powers;
  if (std::any_of(told.begin(), told.end(), [&](double s) { return s != told[0]; })) {
    lp.powers.resize(static_cast<std::size_t>(platform.workers));
    for (std::size_t k = 0; k < lp.powers.size(); ++k) lp.powers[k] = told[k % told.size()];
  }
  if (run.alpha_by_work) lp.work_prefix = &w.prefix;  // the simulated costs: seed 003's known workload
  if (const std::string bad = selfsched::validate(lp); !bad.empty()) throw sim_error(bad);
  w.sched = std::make_unique<scheduler>(parsed.spec, lp);
  if (run.rows > 0) {
    // Rows are u_s, columns u_c; a point needs its left and upper neighbours.
    wavefront_problem problem;
    problem.extents = {run.rows, run.n, 0};
    problem.dependences = {{1, 0, 0}, {0, 1, 0}};
    problem.chunk_dim = 1;
    problem.sync_dim = 0;
    const iter_t sync_points = run.sync_points > 0 ? run.sync_points : 3 * iter_t{platform.workers};
    wavefront_plan_result planned = plan_wavefront(problem, sync_points);
    if (!planned.ok()) throw sim_error("dependence loop: " + planned.error);
    w.plan = planned.plan;
  }

  const std::vector<sg4::Host*>& workers = h.workers;
  const std::vector<sg4::Host*>& master_hosts = h.masters;
  sg4::Host* super = h.super;
  // Slowdowns as speed profiles: the fraction of the host's speed from each
  // date on (one profile per worker, its slowdowns in date order).
  for (int k = 0; k < platform.workers; ++k) {
    std::vector<slowdown> mine;
    for (const slowdown& d : platform.slowdowns)
      if (d.worker == k) mine.push_back(d);
    if (mine.empty()) continue;
    std::sort(mine.begin(), mine.end(), [](const slowdown& a, const slowdown& b) { return a.from < b.from; });
    std::string dates;
    for (const slowdown& d : mine)
      dates += std::to_string(d.from) + " " + std::to_string(d.factor) + "\n" + std::to_string(d.until) + " 1\n";
    workers[static_cast<std::size_t>(k)]->set_speed_profile(
        simgrid::kernel::profile::ProfileBuilder::from_string("slowdown-" + std::to_string(k), dates, -1));
  }

  w.active = platform.workers;
  w.exited.assign(static_cast<std::size_t>(platform.workers), false);
  w.dead.assign(static_cast<std::size_t>(platform.workers), false);
  w.running.assign(static_cast<std::size_t>(platform.workers), chunk{0, 0});
  for (const loss& l : platform.losses) {
    sg4::Actor::create("loss-" + std::to_string(l.worker), master_hosts[0], loss_actor, &w,
                       workers[static_cast<std::size_t>(l.worker)], l.worker, l.at);
  }
  if (run.via != transport::rma && run.result_bytes > 0)
    for (int m = 0; m < masters; ++m)
      sg4::Actor::create(results_box(m), master_hosts[static_cast<std::size_t>(m)], results_actor, m);
  if (run.via != transport::hier) {
    sg4::Actor::create(run.via == transport::rma ? "window" : "master", master_hosts[0], master_actor, &w);
  } else {
    std::vector<std::pair<int, int>> nodes;
    const int per = (platform.workers + masters - 1) / masters;
    for (int m = 0; m < masters; ++m) {
      const int first = std::min(platform.workers, m * per), last = std::min(platform.workers, (m + 1) * per);
      nodes.emplace_back(first, last);
      if (last > first) sg4::Actor::create("master-" + std::to_string(m), master_hosts[static_cast<std::size_t>(m)],
                                           node_master_actor, &w, m, first, last);
    }
    // Node masters without workers take no part.
    std::vector<std::pair<int, int>> served;
    for (const auto& node : nodes) served.push_back(node);
    while (!served.empty() && served.back().second <= served.back().first) served.pop_back();
    sg4::Actor::create("supermaster", super, supermaster_actor, &w, served);
  }
  std::vector<std::unique_ptr<team>> teams;
  for (int k = 0; k < platform.workers; ++k) {
    sg4::Host* host = workers[static_cast<std::size_t>(k)];
    if (run.threads == 1) {
      sg4::Actor::create(worker_box(k), host, worker_actor, &w, k);
      continue;
    }
    team* t = teams.emplace_back(std::make_unique<team>()).get();
    t->rank = k;
    t->running = run.threads;
    sg4::Actor::create(worker_box(k), host, team_rank_actor, &w, t);
    for (int thread = 0; thread < run.threads; ++thread)
      sg4::Actor::create(worker_box(k) + "-thread-" + std::to_string(thread), host, team_thread_actor, &w, t, thread);
  }
  engine.run();
  if (run.merge_bytes > 0 && platform.workers > 1) {
    // Every worker reaches the loop's end barrier before the merge begins.
    std::vector<double> wrote;
    for (iter_t ran : w.iterations_run) wrote.push_back(run.merge_bytes * static_cast<double>(ran));
    const double loop_end = sg4::Engine::get_clock();
    for (int k = 0; k < platform.workers; ++k)
      sg4::Actor::create("merge-" + std::to_string(k), workers[static_cast<std::size_t>(k)], merge_actor, &w, k, &wrote);
    engine.run();
    w.out.merge_seconds = sg4::Engine::get_clock() - loop_end;
    w.out.makespan += w.out.merge_seconds;
  }

  double total_work = w.prefix.back(), total_speed = 0;
  for (int k = 0; k < platform.workers; ++k)
    total_speed += w.speed(k) * std::min(run.threads, workers[static_cast<std::size_t>(k)]->get_core_count());
  w.out.ideal = total_work / total_speed;
  w.out.efficiency = w.out.makespan > 0 ? w.out.ideal / w.out.makespan : 1.0;
  const double busiest = *std::max_element(w.master_busy.begin(), w.master_busy.end());
  w.out.master_busy = w.out.makespan > 0 ? busiest / w.out.makespan : 0;
  return w.out;
}

}  // namespace

result simulate(const platform_spec& platform, const run_spec& run) {
  validate(platform, run);
  // The costs are computed here, once per model and size (a Mandelbrot
  // profile takes seconds), and reach the child with its memory.
  static std::string cached_key;
  static std::vector<double> cached;
  const std::string key = run.costs.name() + "/" + std::to_string(run.n) + "/" + std::to_string(run.costs.mean());
  if (run.costs.is_measured()) {
    cached = run.costs.costs(run.n);
    cached_key.clear();
  } else if (key != cached_key) {
    cached = run.costs.costs(run.n);
    cached_key = key;
  }
  const std::string bytes = detail::in_child([&] {
    const result r = simulate_here(platform, run, cached);
    detail::bytes_out out;
    out.put(r.makespan).put(r.ideal).put(r.efficiency).put(r.master_busy).put(r.merge_seconds);
    out.put(r.chunks).put(r.messages).put(r.reexecuted).put(r.busy).put(r.chunk_log);
    return out.take();
  });
  result r;
  detail::bytes_in in(bytes);
  in.get(r.makespan), in.get(r.ideal), in.get(r.efficiency), in.get(r.master_busy), in.get(r.merge_seconds);
  in.get(r.chunks), in.get(r.messages), in.get(r.reexecuted), in.get(r.busy), in.get(r.chunk_log);
  return r;
}

}  // namespace selfsched::sim
