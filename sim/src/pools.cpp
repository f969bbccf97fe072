// Task pools on simulated processors (sim_pools.hpp): the processors and
// the masters or mediators as SimGrid actors, running the tree of
// task_tree.cpp. Hosts run at
// one flop/s, so an actor's execute(x) is x simulated seconds of its time.
#include <simgrid/s4u.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "child.hpp"
#include "engine.hpp"
#include "selfsched/core/task_queue.hpp"
#include "selfsched/sim.hpp"
#include "selfsched/sim_pools.hpp"

namespace sg4 = simgrid::s4u;

namespace selfsched::sim {
namespace {

struct pool_message {
  enum kind { tasks, request, no_work, level_done, demand, status, give, surplus, stop, counts };
  explicit pool_message(kind k, int f = -1, int h = 0, std::vector<int> i = {})
      : what(k), from(f), hops(h), items(std::move(i)) {}
  kind what;
  int from = -1;            // request: the processor that asked; status, surplus: its sender
  int hops = 0;             // request (receiver): how often it was passed on; status: current tasks queued;
                            // give: how many
  std::vector<int> items;   // tasks: task ids; central's request: the tasks created; counts: see counts_view
};

// The library's receiver (pool_distributed.cpp): what processor 0 knows
// from the others' counts messages (its own counts it reads directly):
// each one's outstanding tasks and lowest outstanding level, and per pair
// of processors the task messages one counts as sent to the other and the
// other as received. The last completed level is one below the lowest
// outstanding one, once every processor was heard from and every pair
// agrees (no task in a message).
struct counts_view {
  explicit counts_view(int processors)
      : heard(static_cast<std::size_t>(processors), 0), lowest(static_cast<std::size_t>(processors), 0) {}
  std::vector<char> heard;
  int heard_count = 0;
  std::vector<int> lowest;  // INT_MAX: none outstanding
  // (from, to): the tasks messages `from` counts as sent to `to`, and `to` as received from `from`.
  std::map<std::pair<int, int>, std::pair<int, int>> pairs;
  int unbalanced = 0;  // pairs whose two counts differ
  int level_sent = -1;

  void heard_from(int p, int lowest_level) {
    if (!heard[static_cast<std::size_t>(p)]) heard[static_cast<std::size_t>(p)] = 1, ++heard_count;
    lowest[static_cast<std::size_t>(p)] = lowest_level;
  }
  // Processor p's counts of its messages with processor r.
  void pair_counted(int p, int r, int sent, int received) {
    count({p, r}, sent, true);
    count({r, p}, received, false);
  }
  // The level to tell everyone, or -2 when there is none new.
  int new_level() const {
    if (heard_count != static_cast<int>(heard.size()) || unbalanced != 0) return -2;
    const int low = *std::min_element(lowest.begin(), lowest.end());
    return low == std::numeric_limits<int>::max() || low - 1 == level_sent ? -2 : low - 1;
  }

 private:
  void count(std::pair<int, int> key, int n, bool sent) {
    std::pair<int, int>& e = pairs[key];
    const bool was = e.first != e.second;
    (sent ? e.first : e.second) = n;
    unbalanced += static_cast<int>(e.first != e.second) - static_cast<int>(was);
  }
};

struct pool_world {
  pool_spec spec;
  std::vector<tree_task> tree;
  std::int64_t remaining = 0;
  bool done = false;
  std::vector<double> busy;
  std::vector<double> master_busy;  // per master or mediator
  std::int64_t tasks_run = 0, transfers = 0, messages = 0;
  std::vector<sg4::Mailbox*> processors, mediators;  // mediators: central's master, or the mediators
  sg4::Mailbox* top = nullptr;                        // hier-mediation
  std::mt19937_64 random{12345};
  std::vector<std::int64_t> outstanding;  // per level: tasks created and not finished
  std::unique_ptr<counts_view> counts;    // the library's receivers: processor 0's view
  std::vector<std::int64_t> sent_by;      // messages sent, by actor id

  // The last completed global iteration (seed 001 sec. 3.2), known to every
  // processor at once here (the status messages that spread it are not
  // simulated).
  int completed() const {
    for (std::size_t level = 0; level < outstanding.size(); ++level)
      if (outstanding[level] > 0) return static_cast<int>(level) - 1;
    return static_cast<int>(outstanding.size());
  }
  bool independent() const { return spec.strategy == pool_strategy::receiver_threshold; }

  int node_of(int p) const {
    const int per = (spec.processors + spec.nodes - 1) / spec.nodes;
    return p / per;
  }
  // Sending costs the sender message_seconds of its time (then the link's latency).
  void send(sg4::Mailbox* to, pool_message* m) {
    if (done) return delete m;  // the last task has ended: nobody listens any more
    sg4::this_actor::execute(spec.message_seconds);
    ++messages;
    ++sent_here();
    to->put_init(m, 64 + 8 * m->items.size())->detach();
  }
  // Messages the calling actor has sent (whether a poll did something).
  std::int64_t& sent_here() {
    const auto pid = static_cast<std::size_t>(sg4::this_actor::get_pid());
    if (pid >= sent_by.size()) sent_by.resize(pid + 1, 0);
    return sent_by[pid];
  }
  // A mediator's level to its children: the sends go at once, and each
  // costs the same once it went (the code's MPI_Test that completes it).
  void broadcast(const std::vector<sg4::Mailbox*>& to, int level) {
    if (done) return;
    for (sg4::Mailbox* box : to) box->put_init(new pool_message{pool_message::level_done, -1, level}, 64)->detach();
    messages += static_cast<std::int64_t>(to.size());
    sent_here() += static_cast<std::int64_t>(to.size());
    sg4::this_actor::execute(spec.message_seconds * static_cast<double>(to.size()));
  }
  // Taking one in costs the same.
  std::unique_ptr<pool_message> take(sg4::Mailbox* box) {
    std::unique_ptr<pool_message> m(box->get<pool_message>());
    sg4::this_actor::execute(spec.message_seconds);
    return m;
  }
  void stop_everyone() {
    done = true;
    for (sg4::Mailbox* box : processors) box->put_init(new pool_message{pool_message::stop}, 0)->detach();
    for (sg4::Mailbox* box : mediators) box->put_init(new pool_message{pool_message::stop}, 0)->detach();
    if (top) top->put_init(new pool_message{pool_message::stop}, 0)->detach();
  }
  bool central() const { return spec.strategy == pool_strategy::central; }
  // receiver: how often a request is passed on at most (the library's: 64 too).
  int most_forwards() const { return std::min(spec.processors - 1, spec.library_policies ? 64 : spec.processors); }
  bool pulls() const {
    return spec.library_policies &&
           (spec.strategy == pool_strategy::mediation || spec.strategy == pool_strategy::hier_mediation);
  }
  bool receiver() const {
    return spec.strategy == pool_strategy::receiver || spec.strategy == pool_strategy::receiver_threshold;
  }
  // The library's receivers: processors poll, and learn the last completed
  // level from processor 0, which gathers counts (pool_distributed.cpp).
  bool polls_for_counts() const { return spec.library_policies && receiver(); }
  sg4::Mailbox* mediator_of(int p) const {
    return spec.strategy == pool_strategy::hier_mediation ? mediators[static_cast<std::size_t>(node_of(p))]
                                                          : mediators[0];
  }
};

std::string payload(int id) { return std::string(reinterpret_cast<const char*>(&id), sizeof id); }
int id_of(const queued_task& t) {
  int id = 0;
  std::memcpy(&id, t.payload.data(), sizeof id);
  return id;
}

sg4::Mailbox* own_box(const std::string& name) {
  sg4::Mailbox* box = sg4::Mailbox::by_name(name);
  box->set_receiver(sg4::Actor::self());  // short messages travel eagerly
  return box;
}

// A tree task into a queue, at its level and priority.
void queue_task(const pool_world& w, task_queue& queue, int id) {
  const tree_task& t = w.tree[static_cast<std::size_t>(id)];
  queue.push(payload(id), t.level, task_priority(t));
}

// A task taken from a master's or mediator's queue goes to processor `to`.
void hand_over(pool_world* w, task_queue& queue, const queued_task& t, int to) {
  queue.finish(t.level);
  ++w->transfers;
  w->send(w->processors[static_cast<std::size_t>(to)], new pool_message{pool_message::tasks, -1, 0, {id_of(t)}});
}

// A master's or mediator's next message, its handling paid (nullptr: the
// run is over); the time spent waiting for it counts as idle.
std::unique_ptr<pool_message> next_message(pool_world* w, sg4::Mailbox* box, double& idle) {
  const double before = sg4::Engine::get_clock();
  std::unique_ptr<pool_message> m(box->get<pool_message>());
  idle += sg4::Engine::get_clock() - before;
  if (m->what == pool_message::stop) return nullptr;
  sg4::this_actor::execute(w->spec.message_seconds);
  return m;
}

class processor {
 public:
  processor(pool_world* w, int me) : w_(w), me_(me) {}

  void operator()() {
    sg4::Mailbox* box = own_box("processor-" + std::to_string(me_));
    if (!w_->central())
      for (int r = me_; r < w_->spec.tree.roots; r += w_->spec.processors) push(r);
    if (learns_level()) return poll(box);
    std::vector<int> created;  // central: sent with the next request
    while (!w_->done) {
      while (box->ready() && !w_->done) handle(w_->take(box), created);
      if (w_->done) break;
      if (w_->central() && w_->spec.library_policies) {
        // The library's rank: after each task a report of the tasks it put
        // and how many more it wants, one running and one queued (so it
        // never waits a round trip); it runs what it was handed.
        const int want = std::max(0, 2 - static_cast<int>(queue_.queued()) - requested_);
        if (!asked_ || !created.empty() || want > 0) {
          w_->send(w_->mediators[0], new pool_message{pool_message::request, me_, want, created});
          created.clear();
          requested_ += want;
          asked_ = true;
        }
        if (std::optional<queued_task> t = queue_.pop_any()) {
          run(id_of(*t), &created);
          queue_.finish(t->level);
          continue;
        }
      } else if (w_->central()) {
        if (!asked_) {
          w_->send(w_->mediators[0], new pool_message{pool_message::request, me_, 0, created});
          created.clear();
          asked_ = true;
        }
      } else if (std::optional<queued_task> t = next()) {
        run(id_of(*t), nullptr);
        queue_.finish(t->level);
        if (w_->pulls()) report();
        else offer();
        continue;
      } else if (w_->pulls()) {
        report();  // it asks: at once
      } else if (!asked_ && wants_work()) {
        ask();
      }
      // Wait for a message: tasks, or the news that an iteration completed
      // (the processor's own tasks may have become current).
      handle(w_->take(box), created);
    }
  }

 private:
  // The last completed level: as processor 0 (the library's receivers) or
  // its mediator (the library's mediation) last said, else known to every
  // processor when it completes (seed 001's status messages).
  int level() const { return learns_level() ? known_ : w_->completed(); }
  bool learns_level() const { return w_->polls_for_counts() || w_->pulls(); }

  // The library's ranks (pool_engine.cpp's work and progress): a poll
  // between tasks takes in every message come (a probe each, and one more
  // that finds none; a message on its way is seen, and taking it waits for
  // it, as SMPI's MPI_Iprobe and MPI_Recv do); then a mediated processor
  // reports to its mediator (pool_mediation.cpp), a receiver asks a random
  // processor when no current task is queued (not before the pause after a
  // no) and sends processor 0 its counts, processor 0 telling everyone a
  // newly completed level (pool_distributed.cpp); then a task, or a sleep
  // of 10 us after a poll that did something, doubling to 100 us.
  void poll(sg4::Mailbox* box) {
    std::vector<int> none;
    double quiet = 10e-6;
    while (!w_->done) {
      bool busy = false;
      while (box->listen() && !w_->done) handle(w_->take(box), none), busy = true;
      if (w_->done) break;
      sg4::this_actor::execute(w_->spec.message_seconds);  // the probe that finds none
      const std::int64_t sent = w_->sent_here();
      if (w_->pulls()) {
        report();
      } else {
        if (!asked_ && wants_work() && sg4::Engine::get_clock() >= next_ask_) ask();
        send_counts();
      }
      if (busy || w_->sent_here() != sent) quiet = 10e-6;
      if (std::optional<queued_task> t = next()) {
        run(id_of(*t), nullptr);
        queue_.finish(t->level);
        state_changed_ = true;
        continue;
      }
      sg4::this_actor::sleep_for(quiet);
      quiet = std::min(2 * quiet, 100e-6);
    }
  }
  // Its counts when they changed, at once after tasks came or went, else
  // at most every status interval: outstanding tasks, lowest outstanding
  // level, and each pair changed since its last counts. Processor 0 reads
  // its own and says a new level. True if it sent.
  bool send_counts() {
    counts_view& view = *w_->counts;
    if (me_ == 0) {
      view.heard_from(0, queue_.lowest_outstanding_level());
      for (int r : pairs_changed_) view.pair_counted(0, r, pairs_[r].first, pairs_[r].second);
      pairs_changed_.clear();
      const int level = view.new_level();
      if (level == -2) return false;
      view.level_sent = known_ = level;
      for (int p = 1; p < w_->spec.processors; ++p)
        w_->send(w_->processors[static_cast<std::size_t>(p)], new pool_message{pool_message::level_done, 0, level});
      return true;
    }
    const double now = sg4::Engine::get_clock();
    const bool urgent = report_now_ || !reported_;
    if (!state_changed_ || (!urgent && now - last_report_ < w_->spec.status_seconds)) return false;
    std::vector<int> items{static_cast<int>(queue_.outstanding()), queue_.lowest_outstanding_level()};
    for (int r : pairs_changed_) items.insert(items.end(), {r, pairs_[r].first, pairs_[r].second});
    pairs_changed_.clear();
    state_changed_ = report_now_ = false;
    reported_ = true;
    last_report_ = now;
    w_->send(w_->processors[0], new pool_message{pool_message::counts, me_, 0, std::move(items)});
    return true;
  }
  // A tasks message sent to or received from processor r.
  void counted(int r, bool sent) {
    std::pair<int, int>& c = pairs_[r];
    ++(sent ? c.first : c.second);
    pairs_changed_.insert(r);
    state_changed_ = report_now_ = true;
  }

  // Seed 001's scheduling: current tasks only (within the asynchronicity
  // level of the last completed iteration); beyond them only once a request
  // for work was denied. The application-independent policy never knows
  // which tasks are current, so it is never denied: it waits (the
  // library's runs what it holds).
  std::optional<queued_task> next() {
    if (std::optional<queued_task> t = queue_.pop_current(level())) return t;
    if (w_->independent() ? w_->spec.library_policies : denied_) return queue_.pop_any();
    return std::nullopt;
  }
  // When to ask: no current task (application-dependent), or fewer than two
  // tasks of any kind (the threshold policy; the library's: none).
  bool wants_work() const {
    return w_->independent() ? queue_.queued() < (w_->spec.library_policies ? 1u : 2u)
                             : queue_.queued_current(level()) == 0;
  }

  void push(int id) { queue_task(*w_, queue_, id); }

  void run(int id, std::vector<int>* created) {
    const tree_task& t = w_->tree[static_cast<std::size_t>(id)];
    sg4::this_actor::execute(t.seconds);
    w_->busy[static_cast<std::size_t>(me_)] += t.seconds;
    ++w_->tasks_run;
    for (int child : t.children) {
      ++w_->outstanding[static_cast<std::size_t>(w_->tree[static_cast<std::size_t>(child)].level)];
      if (created) created->push_back(child);
      else push(child);
    }
    const int before = w_->completed();
    --w_->outstanding[static_cast<std::size_t>(t.level)];
    if (--w_->remaining == 0) return w_->stop_everyone();
    // A global iteration completed: tell every processor (and central's
    // master), as seed 001's computation status messages do.
    if (w_->completed() != before && w_->spec.async_levels > 0 && !learns_level()) {
      for (int p = 0; p < w_->spec.processors; ++p)
        if (p != me_) w_->send(w_->processors[static_cast<std::size_t>(p)], new pool_message{pool_message::level_done});
      if (w_->central()) w_->send(w_->mediators[0], new pool_message{pool_message::level_done});
    }
  }

  void ask() {
    asked_ = true;
    if (w_->receiver()) {
      w_->send(random_other(-1), new pool_message{pool_message::request, me_});
    } else {
      w_->send(w_->mediator_of(me_), new pool_message{pool_message::request, me_});
    }
  }

  // Mediation (seed 001 Fig. 3): a processor with too much work sends a
  // task to the mediator, at the end of each task.
  void offer() {
    if (w_->central() || w_->receiver() || !has_surplus()) return;
    std::optional<queued_task> t = w_->independent() ? queue_.pop_any() : queue_.pop_current(level());
    queue_.finish(t->level);
    ++w_->transfers;
    w_->send(w_->mediator_of(me_), new pool_message{pool_message::tasks, me_, 0, {id_of(*t)}});
  }

  // The library's mediation (pool_spec::library_policies): its current tasks
  // and whether it asks (none current), after its state changed (a task
  // ended, tasks came or went, a level came) or it starts asking; at once
  // when it starts asking or tasks came or went, else at most every status
  // interval (pool_mediation.cpp's progress_mediation_rank).
  void report() {
    const int current = static_cast<int>(queue_.queued_current(level()));
    const bool wants = current == 0;
    const double now = sg4::Engine::get_clock();
    if (reported_ && !report_now_ && !state_changed_ && wants == requesting_) return;
    const bool urgent = !reported_ || report_now_ || (wants && !requesting_);
    if (!urgent && now - last_report_ < w_->spec.status_seconds) return;
    reported_ = true;
    report_now_ = state_changed_ = false;
    requesting_ = wants;
    last_report_ = now;
    w_->send(w_->mediator_of(me_),
             new pool_message{pool_message::status, me_, current,
                              {wants ? 1 : 0, tasks_received_, queue_.lowest_outstanding_level()}});
  }
  // Asked to give n: up to n of its current tasks, highest priority first,
  // keeping one for itself.
  void give(int n) {
    std::vector<int> items;
    const int current = static_cast<int>(queue_.queued_current(level()));
    for (int k = 0; k < std::min(n, current - 1); ++k) {
      std::optional<queued_task> t = queue_.pop_current(level());
      queue_.finish(t->level);
      items.push_back(id_of(*t));
    }
    w_->transfers += static_cast<std::int64_t>(items.size());
    report_now_ = true;
    w_->send(w_->mediator_of(me_), new pool_message{pool_message::surplus, me_, 0, std::move(items)});
  }

  // Can it give? Two current tasks or more (application-dependent), two
  // tasks of any kind (threshold).
  bool has_surplus() const {
    return (w_->independent() ? queue_.queued() : queue_.queued_current(level())) >= 2;
  }
  // Half of what it can give: its current tasks highest priority first, or
  // (threshold) any.
  std::vector<int> give_half() {
    std::vector<int> items;
    const bool any = w_->independent();
    const std::size_t count = (any ? queue_.queued() : queue_.queued_current(level())) / 2;
    for (std::size_t k = 0; k < count; ++k) {
      std::optional<queued_task> t = any ? queue_.pop_any() : queue_.pop_current(level());
      if (!t) break;
      items.push_back(id_of(*t));
      queue_.finish(t->level);
    }
    w_->transfers += static_cast<std::int64_t>(items.size());
    return items;
  }

  sg4::Mailbox* random_other(int besides) {
    const int p = w_->spec.processors;
    for (;;) {
      const int k = static_cast<int>(w_->random() % static_cast<std::uint64_t>(p));
      if (k != me_ && k != besides) return w_->processors[static_cast<std::size_t>(k)];
    }
  }

  // `created`: central's tasks created since the last request.
  void handle(std::unique_ptr<pool_message> m, std::vector<int>& created) {
    switch (m->what) {
      case pool_message::tasks:
        for (int id : m->items) {
          if (w_->central() && !w_->spec.library_policies) run(id, &created);  // the master's answer: run it now
          else push(id);
        }
        requested_ -= static_cast<int>(m->items.size());
        ++tasks_received_;
        if (w_->polls_for_counts()) counted(m->from, false);
        asked_ = false;
        denied_ = false;
        pause_ = 0;
        report_now_ = true;
        break;
      case pool_message::give:
        give(m->hops);
        break;
      case pool_message::counts:  // processor 0: another's counts
        w_->counts->heard_from(m->from, m->items[1]);
        for (std::size_t k = 2; k + 2 < m->items.size(); k += 3)
          w_->counts->pair_counted(m->from, m->items[k], m->items[k + 1], m->items[k + 2]);
        break;
      case pool_message::request:  // receiver: give, pass on, or say no
        if (has_surplus()) {
          if (w_->polls_for_counts()) counted(m->from, true);
          w_->send(w_->processors[static_cast<std::size_t>(m->from)],
                   new pool_message{pool_message::tasks, me_, 0, give_half()});
        } else if (m->hops + 1 < w_->most_forwards()) {
          w_->send(random_other(m->from), new pool_message{pool_message::request, m->from, m->hops + 1});
        } else {
          w_->send(w_->processors[static_cast<std::size_t>(m->from)], new pool_message{pool_message::no_work, me_});
        }
        break;
      case pool_message::level_done:  // more tasks are current now: may give some
        if (learns_level()) known_ = std::max(known_, m->hops), state_changed_ = true;
        if (w_->pulls()) report();
        else if (!w_->polls_for_counts()) offer();
        break;
      case pool_message::no_work:
        // The library's mediators and hier-mediation's top keep the
        // request: no need to ask again.
        if (w_->pulls() || w_->spec.strategy == pool_strategy::hier_mediation) {
          denied_ = true;
          break;
        }
        // nobody had any; ask again after a pause (the library's: meanwhile
        // it runs what it holds and answers others)
        if (w_->polls_for_counts()) {
          pause_ = std::clamp(pause_ * 2, 100e-6, 5e-3);  // pool_distributed.cpp's
          next_ask_ = sg4::Engine::get_clock() + pause_;
          asked_ = false;
          denied_ = true;
          break;
        }
        pause_ = std::clamp(pause_ * 2, 0.1 * w_->spec.message_seconds, 50 * w_->spec.message_seconds);
        sg4::this_actor::sleep_for(pause_);
        asked_ = false;
        denied_ = true;
        break;
      default:
        break;
    }
  }

  pool_world* w_;
  int me_;
  task_queue queue_{w_->spec.async_levels};
  bool asked_ = false;
  bool denied_ = false;
  double pause_ = 0;
  int requested_ = 0;  // the library's central: tasks asked for, not come yet
  // report()'s: what the mediator last heard, and when.
  bool reported_ = false, report_now_ = false, requesting_ = false;
  double last_report_ = 0;
  // The library's receivers: the level processor 0 last told, when to ask
  // again after a no, and the counts (tasks messages sent to and received
  // from each processor; those changed since the last counts).
  int known_ = -1;  // also the library's mediated processors'
  int tasks_received_ = 0;  // tasks messages (the library's mediation: in its reports)
  double next_ask_ = 0;
  bool state_changed_ = true;
  std::map<int, std::pair<int, int>> pairs_;
  std::set<int> pairs_changed_;
};

// Central's master: every task, every request.
void master(pool_world* w) {
  sg4::Mailbox* box = own_box("mediator-0");
  task_queue queue(w->spec.async_levels);
  for (int r = 0; r < w->spec.tree.roots; ++r) queue.push(payload(r), 0, 1);
  std::deque<int> waiting;
  std::vector<int> wanted(static_cast<std::size_t>(w->spec.processors), 0);  // the library's: by processor
  int serve_from = 0;
  std::set<int> wanting;  // the library's: processors with tasks asked for, not handed yet
  const double start = sg4::Engine::get_clock();
  double idle = 0;
  while (!w->done) {
    const std::unique_ptr<pool_message> m = next_message(w, box, idle);
    if (!m) break;
    for (int id : m->items) queue_task(*w, queue, id);
    if (w->spec.library_policies) {
      // The library's master (pool_central.cpp's serve_wanted): every
      // message that has come, then what each processor asked for, one
      // task a processor per pass, the passes starting after the processor
      // served last, while current tasks last.
      const auto asked = [&](const pool_message& r) {
        if (r.what != pool_message::request || r.hops <= 0) return;
        wanted[static_cast<std::size_t>(r.from)] += r.hops;
        wanting.insert(r.from);
      };
      asked(*m);
      while (box->ready() && !w->done) {
        const std::unique_ptr<pool_message> more = next_message(w, box, idle);
        if (!more) break;
        for (int id : more->items) queue_task(*w, queue, id);
        asked(*more);
      }
      std::map<int, std::vector<int>> batches;
      int last = -1;
      for (bool handed = true; handed && !wanting.empty();) {
        handed = false;
        auto it = wanting.lower_bound(serve_from);  // a pass: from serve_from on, round
        for (std::size_t k = 0, n = wanting.size(); k < n; ++k) {
          if (it == wanting.end()) it = wanting.begin();
          const std::optional<queued_task> t = queue.pop_current(w->completed());
          if (!t) break;
          const int p = *it;
          queue.finish(t->level);
          batches[p].push_back(id_of(*t));
          it = --wanted[static_cast<std::size_t>(p)] == 0 ? wanting.erase(it) : std::next(it);
          handed = true;
          last = p;
        }
      }
      if (last >= 0) serve_from = (last + 1) % w->spec.processors;
      for (auto& [p, batch] : batches) {
        w->transfers += static_cast<std::int64_t>(batch.size());
        w->send(w->processors[static_cast<std::size_t>(p)],
                new pool_message{pool_message::tasks, -1, 0, std::move(batch)});
      }
      continue;
    }
    if (m->what == pool_message::request) waiting.push_back(m->from);
    // Current tasks only; the others wait for their iteration (seed 001:
    // the central scheduler waits).
    while (!waiting.empty()) {
      const std::optional<queued_task> t = queue.pop_current(w->completed());
      if (!t) break;
      hand_over(w, queue, *t, waiting.front());
      waiting.pop_front();
    }
  }
  w->master_busy[0] = sg4::Engine::get_clock() - start - idle;
}

// A mediator (seed 001 Fig. 3): keeps the tasks processors send it and
// answers requests from them, or says no when it has none. Under
// hier-mediation (seed 001 sec. 5.4) a node's mediator (`node` >= 0) does
// so for its node's processors but passes a request it cannot serve on to
// the top mediator (`node` == -2), which keeps it until some node sends it a
// task: it asks the nodes in turn for one, and a node mediator sends one up
// for each time it was asked, as soon as it holds one its own processors
// do not wait for. Meanwhile the top tells the asker no: it may run tasks
// beyond the asynchronicity limit (else it could wait for ever on a level
// whose tasks it holds), and its request stands, at the top and at its
// node, whichever has a task first (a second may come: it runs it).
void mediator(pool_world* w, int node) {
  const bool top = node == -2, hier = node >= 0;
  sg4::Mailbox* box = own_box(top ? "top" : "mediator-" + std::to_string(std::max(node, 0)));
  task_queue pool(w->spec.async_levels);
  std::deque<int> waiting;    // top, node: processors whose request waits for a task
  int wanted = 0;             // node: tasks the top asked for
  int next_node = 0;          // top: the node to ask next
  const double start = sg4::Engine::get_clock();
  double idle = 0;
  const auto serve = [&](int asker) { hand_over(w, pool, *pool.pop_any(), asker); };
  while (!w->done) {
    const std::unique_ptr<pool_message> m = next_message(w, box, idle);
    if (!m) break;
    if (m->what == pool_message::tasks) {
      for (int id : m->items) queue_task(*w, pool, id);
    } else if (m->what == pool_message::demand) {
      ++wanted;
    } else if (m->what == pool_message::request) {
      if (pool.queued() > 0) {
        serve(m->from);
      } else if (hier) {
        waiting.push_back(m->from);  // served here if a task comes first
        w->send(w->top, new pool_message{pool_message::request, m->from});
      } else if (top) {
        waiting.push_back(m->from);
        // Ask the nodes in turn, not the asker's (it had none).
        int asked = next_node;
        if (asked == w->node_of(m->from)) asked = (asked + 1) % w->spec.nodes;
        next_node = (asked + 1) % w->spec.nodes;
        w->send(w->mediators[static_cast<std::size_t>(asked)], new pool_message{pool_message::demand});
        w->send(w->processors[static_cast<std::size_t>(m->from)], new pool_message{pool_message::no_work});
      } else {
        w->send(w->processors[static_cast<std::size_t>(m->from)], new pool_message{pool_message::no_work});
      }
    }
    while (!waiting.empty() && pool.queued() > 0) {
      serve(waiting.front());
      waiting.pop_front();
    }
    for (; hier && wanted > 0 && pool.queued() > 0; --wanted) {
      std::optional<queued_task> t = pool.pop_any();
      pool.finish(t->level);
      w->send(w->top, new pool_message{pool_message::tasks, -1, 0, {id_of(*t)}});
    }
  }
  const double busy = sg4::Engine::get_clock() - start - idle;
  if (top) w->master_busy.push_back(busy);
  else w->master_busy[static_cast<std::size_t>(std::max(node, 0))] = busy;
}

// The library's mediator (pool_spec::library_policies; the pools' code:
// mpi_bridge/src/pools/pool_mediation.cpp). From its children's reports it
// answers each request with a task it holds, else asks the child with the
// most current tasks to give half of all but one, else says no once and
// keeps the request for the next task that comes. Its children are the
// processors (mediation: `node` -1), or under hier-mediation its node's
// processors and, for node 0's mediator, which is the top one too (as rank
// 0 is), the other nodes' mediators. A node mediator is one child to node
// 0's: it reports its node's current tasks summed and whether a request of
// its node is unmatched, says no to its processors only once node 0's
// mediator has said no to it, and gives when asked, from what it holds or
// through its richest processor.
class pulling_mediator {
 public:
  pulling_mediator(pool_world* w, int node)
      : w_(w), node_(node), processors_(w->spec.processors), root_(node <= 0), held_(w->spec.async_levels) {
    for (int p = 0; p < processors_; ++p)
      if (node_ < 0 || w->node_of(p) == node_) children_.push_back(w->processors[static_cast<std::size_t>(p)]);
    for (std::size_t k = 1; node_ == 0 && k < w->mediators.size(); ++k) children_.push_back(w->mediators[k]);
  }

  // As the code's serving thread polls (pool_engine.cpp's work): a poll
  // takes in every message come (a probe each, one more that finds none)
  // and does what they ask; node 0's tells its children a newly completed
  // level (one below the lowest outstanding, pool_mediation.cpp's
  // progress_mediator), and a node mediator passes node 0's on. A poll that
  // did something counts as busy, and the mediator then sleeps 10 us,
  // doubling to 100 us while polls find none.
  void operator()() {
    sg4::Mailbox* box = own_box("mediator-" + std::to_string(std::max(node_, 0)));
    double busy = 0, quiet = 10e-6;
    while (!w_->done) {
      const double from = sg4::Engine::get_clock();
      const std::int64_t sent = w_->sent_here();
      bool any = false;
      while (box->listen() && !w_->done) {
        const std::unique_ptr<pool_message> m = w_->take(box);
        if (m->what != pool_message::stop) heard(*m), any = true;
      }
      if (w_->done) break;
      sg4::this_actor::execute(w_->spec.message_seconds);  // the probe that finds none
      if (const int lowest = lowest_below(); root_ && lowest != std::numeric_limits<int>::max() &&
                                             lowest - 1 != level_sent_)
        w_->broadcast(children_, level_sent_ = lowest - 1);
      if (owed_ > 0 && forwarding_ < 0) give_what_is_owed();
      const bool unmatched = match_requests();
      if (!root_) report(unmatched);
      if (any || w_->sent_here() != sent) busy += sg4::Engine::get_clock() - from, quiet = 10e-6;
      sg4::this_actor::sleep_for(quiet);
      quiet = std::min(2 * quiet, 100e-6);
    }
    w_->master_busy[static_cast<std::size_t>(std::max(node_, 0))] = busy;
  }

 private:
  struct view {
    int current = 0;
    bool requesting = false, told_no = false, giving = false;
    int sent = 0;  // tasks messages sent it
    int lowest = std::numeric_limits<int>::max();  // its lowest outstanding level, by its last report
    std::deque<std::pair<int, int>> in_flight;     // tasks messages it has not reported yet: (number, level)
  };

  sg4::Mailbox* box_of(int child) const {  // a processor, or processors + k: node k's mediator
    return child < processors_ ? w_->processors[static_cast<std::size_t>(child)]
                               : w_->mediators[static_cast<std::size_t>(child - processors_)];
  }
  sg4::Mailbox* parent() const { return w_->mediators[0]; }

  // The lowest outstanding level below it (pool_mediation.cpp's
  // work_below): of what it holds, of its children by their last reports,
  // and of the tasks sent them since.
  int lowest_below() const {
    int lowest = held_.lowest_outstanding_level();
    for (const auto& [child, v] : views_) {
      lowest = std::min(lowest, v.lowest);
      for (const auto& f : v.in_flight) lowest = std::min(lowest, f.second);
    }
    return lowest;
  }
  void set_current(int child, int current) {
    view& v = views_[child];
    donors_.erase({v.current, -child});
    v.current = current;
    if (!v.giving) donors_.insert({v.current, -child});
  }
  // The richest child other than `besides` with surplus (all but one current task), or -1.
  int richest(int besides) const {
    for (auto it = donors_.rbegin(); it != donors_.rend() && it->first - 1 > 0; ++it)
      if (-it->second != besides) return -it->second;
    return -1;
  }
  // Half its surplus, (surplus + 1) / 2, or (`most` >= 0: for node 0's) up to `most`, all but one.
  void ask_to_give(int donor, int most = -1) {
    view& d = views_[donor];
    const int n = most < 0 ? d.current / 2 : std::min(most, d.current - 1);
    w_->send(box_of(donor), new pool_message{pool_message::give, -1, n});
    donors_.erase({d.current, -donor});
    d.giving = true;
    d.current = 0;  // until its next report
  }
  std::vector<int> take_current(int most) {
    std::vector<int> items;
    while (static_cast<int>(items.size()) < most) {
      std::optional<queued_task> t = held_.pop_current(level_sent_);
      if (!t) break;
      held_.finish(t->level);
      items.push_back(id_of(*t));
    }
    return items;
  }

  void heard(const pool_message& m) {
    if (m.what == pool_message::status) {
      view& v = views_[m.from];
      // A request sent before the last tasks sent it came was answered.
      const bool wants = m.items[0] != 0 && m.items[1] >= v.sent;
      v.lowest = m.items[2];
      while (!v.in_flight.empty() && v.in_flight.front().first <= m.items[1]) v.in_flight.pop_front();
      if (wants && !v.requesting) v.told_no = false;
      v.requesting = wants;
      if (wants) asking_.insert(m.from);
      else asking_.erase(m.from);
      set_current(m.from, m.hops);
    } else if (m.what == pool_message::surplus) {
      views_[m.from].giving = false;
      set_current(m.from, views_[m.from].current);
      if (m.from == forwarding_) {  // asked of this node by node 0's mediator: on up
        forwarding_ = -1;
        owed_ = 0;
        w_->send(parent(), new pool_message{pool_message::surplus, processors_ + node_, 0, m.items});
      } else {
        for (int id : m.items) queue_task(*w_, held_, id);
      }
    } else if (m.what == pool_message::tasks) {  // from node 0's, which took the request as served
      for (int id : m.items) queue_task(*w_, held_, id);
      ++received_up_;
      denied_up_ = false;
      report_now_ = true;
    } else if (m.what == pool_message::give) {
      owed_ = std::max(m.hops, 1);
    } else if (m.what == pool_message::no_work) {
      denied_up_ = true;
    } else if (m.what == pool_message::level_done) {  // from node 0's: on to this node's processors
      w_->broadcast(children_, level_sent_ = m.hops);
    }
  }

  // Node 0's asked this node to give: from what it holds, else through its richest.
  void give_what_is_owed() {
    std::vector<int> items = take_current(owed_);
    const int donor = items.empty() ? richest(-1) : -1;
    if (donor >= 0) {
      ask_to_give(donor, owed_);
      forwarding_ = donor;
      return;
    }
    w_->transfers += static_cast<std::int64_t>(items.size());
    w_->send(parent(), new pool_message{pool_message::surplus, processors_ + node_, 0, std::move(items)});
    owed_ = 0;
  }

  // Each standing request: a held task, else a give asked of the richest,
  // else no (once; a node mediator only once node 0's said no). True when
  // a node mediator has a request it could not match.
  bool match_requests() {
    bool unmatched = false;
    for (auto it = asking_.begin(); it != asking_.end();) {
      const int child = *it;
      view& a = views_[child];
      if (std::vector<int> one = take_current(1); !one.empty()) {
        ++w_->transfers;
        a.in_flight.emplace_back(++a.sent, w_->tree[static_cast<std::size_t>(one.front())].level);
        w_->send(box_of(child), new pool_message{pool_message::tasks, -1, 0, std::move(one)});
        a.requesting = false;
        it = asking_.erase(it);
        continue;
      }
      if (const int donor = richest(child); donor >= 0) {
        ask_to_give(donor);
      } else {
        unmatched = !root_;
        if ((root_ || denied_up_) && !a.told_no) {
          a.told_no = true;
          w_->send(box_of(child), new pool_message{pool_message::no_work});
        }
      }
      ++it;
    }
    return unmatched;
  }

  // A node mediator to node 0's, as one child: its node's current tasks
  // summed, whether it asks, the tasks messages it had from node 0's and
  // its node's lowest outstanding level; at once when it starts asking or
  // tasks came, else at most every status interval.
  void report(bool unmatched) {
    const int lowest = lowest_below();
    int current = static_cast<int>(held_.queued_current(level_sent_));
    for (const auto& [child, v] : views_) current += v.giving ? 0 : v.current;
    const double now = sg4::Engine::get_clock();
    const bool changed = !reported_ || report_now_ || current != reported_current_ || unmatched != reported_asks_ ||
                         lowest != reported_lowest_;
    const bool urgent = !reported_ || report_now_ || (unmatched && !reported_asks_);
    if (!changed || !(urgent || now - last_report_ >= w_->spec.status_seconds)) return;
    reported_ = true, reported_current_ = current, reported_asks_ = unmatched, last_report_ = now;
    reported_lowest_ = lowest;
    report_now_ = false;
    w_->send(parent(), new pool_message{pool_message::status, processors_ + node_, current,
                                        {unmatched ? 1 : 0, received_up_, lowest}});
  }

  pool_world* w_;
  int node_, processors_;
  bool root_;
  // The level goes to these (pool_engine.cpp's broadcast_level): its
  // node's processors, and from node 0's the other nodes' mediators.
  std::vector<sg4::Mailbox*> children_;
  int level_sent_ = -1;
  std::map<int, view> views_;
  std::set<int> asking_;                  // children whose request stands, in order
  std::set<std::pair<int, int>> donors_;  // (current tasks, -child) of those not giving: richest, lowest first
  task_queue held_;
  int owed_ = 0;          // a node mediator's: tasks node 0's asked it to give
  int forwarding_ = -1;   // the processor whose surplus goes on up to node 0's
  bool denied_up_ = false;
  bool reported_ = false, reported_asks_ = false, report_now_ = false;  // report_now: node 0's sent tasks
  int reported_current_ = 0;
  int received_up_ = 0;  // tasks messages from node 0's (in its reports)
  int reported_lowest_ = 0;
  double last_report_ = 0;
};

pool_result simulate_here(const pool_spec& spec) {
  sg4::Engine& engine = detail::start_engine();
  sg4::NetZone* zone = sg4::create_star_zone("platform");
  const auto add_host = [&](const std::string& host_name) {
    return detail::add_star_host(zone, host_name, 1.0, 1e9, spec.latency);
  };

  pool_world w;
  w.spec = spec;
  w.tree = task_tree(spec.tree);
  w.remaining = static_cast<std::int64_t>(w.tree.size());
  w.outstanding.assign(static_cast<std::size_t>(spec.tree.levels), 0);
  w.outstanding[0] = spec.tree.roots;
  w.busy.assign(static_cast<std::size_t>(spec.processors), 0);
  if (w.polls_for_counts()) w.counts = std::make_unique<counts_view>(spec.processors);
  std::vector<sg4::Host*> hosts;
  for (int p = 0; p < spec.processors; ++p) {
    hosts.push_back(add_host("processor-" + std::to_string(p)));
    w.processors.push_back(sg4::Mailbox::by_name("processor-" + std::to_string(p)));
  }
  const int mediators = spec.strategy == pool_strategy::hier_mediation ? spec.nodes
                        : spec.strategy == pool_strategy::central || spec.strategy == pool_strategy::mediation ? 1
                                                                                                               : 0;
  std::vector<sg4::Host*> mediator_hosts;
  for (int m = 0; m < mediators; ++m) {
    mediator_hosts.push_back(add_host("mediator-" + std::to_string(m)));
    w.mediators.push_back(sg4::Mailbox::by_name("mediator-" + std::to_string(m)));
  }
  w.master_busy.assign(static_cast<std::size_t>(mediators), 0);
  sg4::Host* top_host = nullptr;
  const bool own_top = spec.strategy == pool_strategy::hier_mediation && !spec.library_policies;
  if (own_top) {  // the library's top mediator is node 0's (rank 0)
    top_host = add_host("top");
    w.top = sg4::Mailbox::by_name("top");
  }
  zone->seal();

  for (int p = 0; p < spec.processors; ++p)
    sg4::Actor::create("processor-" + std::to_string(p), hosts[static_cast<std::size_t>(p)], processor(&w, p));
  if (spec.strategy == pool_strategy::central) sg4::Actor::create("master", mediator_hosts[0], master, &w);
  if (spec.strategy == pool_strategy::mediation && spec.library_policies)
    sg4::Actor::create("mediator", mediator_hosts[0], pulling_mediator(&w, -1));
  else if (spec.strategy == pool_strategy::mediation)
    sg4::Actor::create("mediator", mediator_hosts[0], mediator, &w, -1);
  if (spec.strategy == pool_strategy::hier_mediation) {
    for (int n = 0; n < spec.nodes; ++n)
      if (spec.library_policies)
        sg4::Actor::create("mediator-" + std::to_string(n), mediator_hosts[static_cast<std::size_t>(n)],
                           pulling_mediator(&w, n));
      else
        sg4::Actor::create("mediator-" + std::to_string(n), mediator_hosts[static_cast<std::size_t>(n)], mediator, &w,
                           n);
    if (own_top) sg4::Actor::create("top", top_host, mediator, &w, -2);
  }
  engine.run();

  pool_result r;
  r.makespan = sg4::Engine::get_clock();
  for (const tree_task& t : w.tree) r.work += t.seconds;
  for (double b : w.busy) r.utilization.push_back(r.makespan > 0 ? b / r.makespan : 0);
  for (double b : w.master_busy) r.master_utilization = std::max(r.master_utilization, r.makespan > 0 ? b / r.makespan : 0);
  r.tasks = w.tasks_run;
  r.transfers = w.transfers;
  r.messages = w.messages;
  if (w.remaining != 0)
    throw std::runtime_error("selfsched-sim: the task pool ended with " + std::to_string(w.remaining) +
                             " tasks not run");
  return r;
}

}  // namespace

const char* pool_strategy_name(pool_strategy s) {
  switch (s) {
    case pool_strategy::central: return "central";
    case pool_strategy::mediation: return "mediation";
    case pool_strategy::receiver: return "receiver";
    case pool_strategy::receiver_threshold: return "receiver-threshold";
    case pool_strategy::hier_mediation: return "hier-mediation";
  }
  return "?";
}

pool_strategy parse_pool_strategy(const std::string& name) {
  for (pool_strategy s : {pool_strategy::central, pool_strategy::mediation, pool_strategy::receiver,
                          pool_strategy::receiver_threshold, pool_strategy::hier_mediation})
    if (name == pool_strategy_name(s)) return s;
  throw sim_error("unknown pool strategy '" + name +
                  "'; valid: central, mediation, receiver, receiver-threshold, hier-mediation");
}

pool_result simulate_pool(const pool_spec& spec) {
  if (spec.processors < 2 || spec.processors > 100000)
    throw sim_error("processors " + std::to_string(spec.processors) + " must be in [2, 100000]");
  if (spec.strategy == pool_strategy::hier_mediation && (spec.nodes < 2 || spec.nodes > spec.processors))
    throw sim_error("nodes " + std::to_string(spec.nodes) + " must be in [2, processors = " +
                    std::to_string(spec.processors) + "] for hier-mediation");
  if (!(spec.message_seconds >= 0) || !(spec.latency >= 0) || !(spec.status_seconds >= 0))
    throw sim_error("message time, latency and status interval must be >= 0");
  const task_tree_spec& t = spec.tree;
  if (t.roots < 1 || t.levels < 1 || t.levels > 24)
    throw sim_error("a task tree needs roots >= 1 and levels in [1, 24] (roots " + std::to_string(t.roots) +
                    ", levels " + std::to_string(t.levels) + ")");
  if (!(t.subregion_seconds > 0) || !(t.minimization_seconds > 0) || !(t.minimizations >= 0) || t.minimizations > 100)
    throw sim_error("task times must be > 0 and minimizations per subregion in [0, 100]");
  const std::string bytes = detail::in_child([&] {
    const pool_result r = simulate_here(spec);
    detail::bytes_out out;
    out.put(r.makespan).put(r.work).put(r.utilization).put(r.master_utilization);
    out.put(r.tasks).put(r.transfers).put(r.messages);
    return out.take();
  });
  pool_result r;
  detail::bytes_in in(bytes);
  in.get(r.makespan), in.get(r.work), in.get(r.utilization), in.get(r.master_utilization);
  in.get(r.tasks), in.get(r.transfers), in.get(r.messages);
  return r;
}

}  // namespace selfsched::sim
