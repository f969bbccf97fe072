// Losses (rDLB, world.hpp): a worker's host goes down, and masters hand
// copies of the chunks not finished yet to the workers that ask when no new
// chunk is left; the first copy to finish counts.
#include <algorithm>

#include "world.hpp"

namespace selfsched::sim::detail {

// rDLB bookkeeping of a master (or a node master) when worker k asks
// again: a worker of one thread has finished its previous chunk (a team
// reports its outer chunks in notes instead: it asks before they end), and
// `c` (if any) is what it runs now. Returns c, or when c is empty a copy
// of the oldest chunk of `handed` (default: all) not finished yet and not
// held by k (the first copy to finish counts).
chunk world::rdlb(int k, chunk c, const std::vector<iter_t>* handed) {
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

}  // namespace selfsched::sim::detail
