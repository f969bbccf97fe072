// hier (seed 004 sec. 4): the supermaster holds the scheduler for all
// workers and hands batches of their chunks (one per worker of the node) to
// node masters; a node master serves its workers from its pool and asks for
// the next batch when the pool falls to half, so its workers rarely wait
// for the supermaster.
#include <algorithm>
#include <deque>
#include <memory>
#include <set>
#include <tuple>

#include "hier.hpp"

namespace selfsched::sim::detail {
namespace {

// hier: node master m serves workers [first, last) from a pool of chunks.
// With losses, rDLB within the node: once the pool and the supermaster are
// exhausted, a worker gets a copy of the oldest chunk of the node not
// finished yet (check_every_node_keeps_a_worker keeps a worker alive in
// every node).
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

}  // namespace

void check_every_node_keeps_a_worker(const platform_spec& platform, int masters) {
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

void start_hier(world* w, const std::vector<sg4::Host*>& master_hosts, sg4::Host* super) {
  const int workers = w->platform.workers, masters = w->run.masters;
  std::vector<std::pair<int, int>> nodes;
  const int per = (workers + masters - 1) / masters;
  for (int m = 0; m < masters; ++m) {
    const int first = std::min(workers, m * per), last = std::min(workers, (m + 1) * per);
    nodes.emplace_back(first, last);
    if (last > first) sg4::Actor::create("master-" + std::to_string(m), master_hosts[static_cast<std::size_t>(m)],
                                         node_master_actor, w, m, first, last);
  }
  // Node masters without workers take no part.
  std::vector<std::pair<int, int>> served;
  for (const auto& node : nodes) served.push_back(node);
  while (!served.empty() && served.back().second <= served.back().first) served.pop_back();
  sg4::Actor::create("supermaster", super, supermaster_actor, w, served);
}

}  // namespace selfsched::sim::detail
