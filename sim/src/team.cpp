// The team model (team.hpp): a rank asks for outer chunks as a worker does
// (worker.hpp), early, and its threads split each with the inner technique.
#include <algorithm>
#include <memory>
#include <mutex>

#include "team.hpp"
#include "worker.hpp"

namespace selfsched::sim::detail {

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
    t->early.time_round_trip(sg4::Engine::get_clock() - asked);
    t->want = false;
    if (c.size == 0) t->done = true;
    else t->outer.push_back(c), t->outer_sequence.push_back(sequence);
    t->changed->notify_all();
    if (c.size == 0) return;
    done = t->current.size, seconds = t->current_end - t->current_begin;  // the last outer chunk split
  }
}

namespace {

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

// The next outer chunk becomes `current`, split among the threads by the
// inner technique. Under the team's lock.
void split_next_outer(world* w, team* t, const parse_result& inner) {
  const double now = sg4::Engine::get_clock();
  t->early.time_chunk(t->current.size, now - t->current_begin);
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
}

// A thread's next inner chunk (offsets in `current`), waiting for the rank
// to bring an outer chunk when none is left; size 0 once the team is done
// (the thread has left it). Under the team's lock, held by `guard`.
chunk claim_inner(world* w, team* t, int thread, const parse_result& inner, std::unique_lock<sg4::Mutex>& guard) {
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
    if (!t->outer.empty()) {
      split_next_outer(w, t, inner);
      continue;
    }
    if (t->done) {
      close_cut(w, t);
      --t->running;
      return c;
    }
    if (!t->want) t->want = true, t->changed->notify_all();
    t->changed->wait(guard);
  }
  return c;
}

// Runs inner chunk `c` of `current` (the lock released meanwhile), asking
// the rank for the next outer chunk first if it is time, and logs the
// outer chunk once its last inner chunk ends and it is cut whole.
void run_inner(world* w, team* t, chunk c, std::unique_lock<sg4::Mutex>& guard) {
  const iter_t left = t->inner->remaining();
  if (!t->want && !t->done && t->outer.empty() &&
      t->early.time_to_ask(left, t->current.size, t->current_begin, sg4::Engine::get_clock()))
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

}  // namespace

void team_thread_actor(world* w, team* t, int thread) {
  const parse_result inner = parse_schedule(w->run.inner_technique);
  std::unique_lock guard(*t->lock);
  for (;;) {
    const chunk c = claim_inner(w, t, thread, inner, guard);
    if (c.size == 0) return;
    run_inner(w, t, c, guard);
  }
}

}  // namespace selfsched::sim::detail
