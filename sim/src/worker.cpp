// A worker of one thread (master, rma and hier alike): it asks for a chunk,
// computes it, asks again; and what every worker, of one thread or a team
// (team.cpp), sends a master: its results, then its request.
#include <algorithm>
#include <memory>

#include "worker.hpp"

namespace selfsched::sim::detail {

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

namespace {

constexpr double prefetch_fraction = 0.15;

// Like a blocking MPI_Send of a long message: done once the sink took it.
void send_results(world* w, int k, iter_t done) {
  if (w->run.via == transport::rma || w->run.result_bytes <= 0 || done == 0) return;
  ++w->out.messages;
  const auto bytes = static_cast<std::uint64_t>(w->run.result_bytes * static_cast<double>(done));
  mailbox(results_box(master_of(*w, k)))->put(new message{message::request, k}, bytes);
}

void send_request(world* w, int k, iter_t done, double seconds) {
  auto* req = new message{message::request, k};
  req->done = done;
  req->seconds = seconds;
  const double bytes = w->run.via == transport::rma ? atomic_bytes : w->run.request_bytes;
  w->send(mailbox(master_box(master_of(*w, k))), req, bytes);
}

chunk take_answer(world* w, int k, sg4::Mailbox* mine, iter_t* sequence) {
  std::unique_ptr<message> ans(mine->get<message>());
  if (ans->c.size == 0 && !w->exited.empty()) w->exited[static_cast<std::size_t>(k)] = true;
  if (sequence != nullptr) *sequence = ans->sequence;
  return ans->c;
}

}  // namespace

bool early_asking::time_to_ask(iter_t left, iter_t size, double begin, double now) const {
  if (static_cast<double>(left) > prefetch_fraction * static_cast<double>(size)) return false;
  if (rate <= 0) return false;
  if (!timed) return true;
  return now + 2 * round_trip >= begin + static_cast<double>(size) / rate;
}

chunk ask_for_chunk(world* w, int k, sg4::Mailbox* mine, iter_t done, double seconds, iter_t* sequence) {
  w->wait_for_slice(k);
  send_results(w, k, done);
  send_request(w, k, done, seconds);
  return take_answer(w, k, mine, sequence);
}

namespace {

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

}  // namespace

void log_chunk(world* w, chunk c, int k, double begin, double end) {
  if (!w->run.record_chunks) return;
  chunk_record& r = w->out.chunk_log[w->logged_at.at(c.start)];
  r.ran_on = k;
  r.begin = begin;
  r.end = end;
}

// The runtime's rank of one thread (its binding reports progress after its
// one claim of each outer chunk, nothing left of it) asks for its next chunk
// as it takes one that should end within two round trips, and times a round
// trip only when it waited for the answer (mpi_bridge's round_trip_timed):
// not one that came while it computed. Dependence loops ask after each
// chunk (not checked against the code).
void worker_actor(world* w, int k) {
  sg4::Mailbox* mine = own_mailbox(worker_box(k));
  sg4::this_actor::sleep_for(w->late_by(k));
  iter_t done = 0;  // the previous chunk and its computing time, reported with the next request
  double seconds = 0;
  early_asking early;
  bool asked = false, asked_early = false;
  double asked_at = 0, taken_at = 0;
  for (;;) {
    iter_t sequence = 0;
    if (!asked) {
      w->wait_for_slice(k);
      asked_at = sg4::Engine::get_clock();
      send_request(w, k, done, seconds);
    }
    const bool waited = !asked_early || !mine->ready();  // an early answer may have come while it computed
    const chunk c = take_answer(w, k, mine, &sequence);
    const double begin = sg4::Engine::get_clock();
    if (waited) early.time_round_trip(begin - asked_at);
    if (c.size == 0) break;
    early.time_chunk(done, begin - taken_at);
    taken_at = begin;
    asked = asked_early = w->run.rows == 0 && early.time_to_ask(0, c.size, begin, begin);
    if (asked) {
      asked_at = begin;
      send_request(w, k, done, seconds);
    }
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
    w->wait_for_slice(k);
    send_results(w, k, done);
  }
}

}  // namespace selfsched::sim::detail
