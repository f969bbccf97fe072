// Resilience on the serving side (rDLB, Mohammed, Cavelan and Ciorba): every
// chunk handed out is remembered with its holders; once the technique has
// none left, a rank that asks runs a copy of the oldest unfinished one; the
// first holder to hand its copy out entirely wins, the others are told to
// drop theirs (copies.cpp, on the ranks).
//
// master: rank 0 remembers chunks by the ranks holding them.
// hier: the supermaster remembers them by the node masters holding them (a
//   batch goes to a node), each node master by its ranks. A node master
//   hands out copies of its own node's unfinished chunks once the
//   supermaster has nothing more for it (no new chunk, no copy of another
//   node's), passes its ranks' reports up, and passes cancels down.
#include <algorithm>

#include "transports/server.hpp"

namespace selfsched::mpi::detail {
namespace {

bool holds(const std::vector<int>& holders, int who) {
  return std::find(holders.begin(), holders.end(), who) != holders.end();
}

}  // namespace

// The oldest chunk not finished yet (the likeliest to be held by a stopped
// or slow rank) that `who` (a rank, or a node master under hier) does not
// hold already.
chunk server::copy_for(scheduled_loop& loop, int who) {
  while (loop.unfinished_from < loop.handed.size() && loop.handed[loop.unfinished_from].finished)
    ++loop.unfinished_from;
  for (std::size_t k = loop.unfinished_from; k < loop.handed.size(); ++k) {
    handed_chunk& h = loop.handed[k];
    if (h.finished || holds(h.holders, who)) continue;
    h.holders.push_back(who);
    ++copies_;
    return h.c;
  }
  return {loop.n, 0};
}

// A node master: the oldest chunk of this node that is not finished and that
// `rank` does not hold.
chunk server::copy_in_node(pooled_loop& loop, int rank) {
  for (auto& [start, h] : loop.handed) {
    if (h.finished || holds(h.holders, rank)) continue;
    h.holders.push_back(rank);
    ++copies_;
    return h.c;
  }
  return {loop.n, 0};
}

void server::finished(int from, std::uint64_t index, chunk c) {
  // Under hier the supermaster hears from its own node's ranks as their node
  // master, and from the other node masters as the supermaster.
  if (roles_.leader && (!roles_.root || holds(roles_.group, from))) return finished_in_node(from, index, c);
  finished_at_root(from, index, c);
}

// The rank (hier: node master) `from` holds c and has handed it out.
void server::finished_at_root(int from, std::uint64_t index, chunk c) {
  const auto found = scheduled_.find(index);
  if (found == scheduled_.end()) return;  // every rank is past that loop
  std::vector<handed_chunk>& handed = found->second.handed;
  const auto h = std::lower_bound(handed.begin(), handed.end(), c.start,
                                  [](const handed_chunk& e, iter_t start) { return e.c.start < start; });
  if (h == handed.end() || h->c.start != c.start || h->c.size != c.size || !holds(h->holders, from))
    not_given(from, index, c);
  if (h->finished) return;
  h->finished = true;
  for (const int holder : h->holders) {
    if (holder == from) continue;
    if (holder != rank_) send(holder, tag_cancel, {static_cast<std::int64_t>(index), c.start, c.size});
    else if (roles_.leader) cancel_in_node(index, c);  // hier: the supermaster's own node held it too
    else host_.cancel(index, c);
  }
}

// A node master: one of its ranks has handed out all of its copy of c.
void server::finished_in_node(int from, std::uint64_t index, chunk c) {
  const auto found = pooled_.find(index);
  if (found == pooled_.end()) return;
  const auto h = found->second.handed.find(c.start);
  if (h == found->second.handed.end() || h->second.c.size != c.size || !holds(h->second.holders, from))
    not_given(from, index, c);
  if (h->second.finished) return;
  h->second.finished = true;
  for (const int holder : h->second.holders)
    if (holder != from) cancel_rank(holder, index, c);
  if (roles_.root) finished_at_root(rank_, index, c);  // the other nodes' copies
  else send(0, tag_finished, {static_cast<std::int64_t>(index), c.start, c.size});
}

// A node master: another node finished c first. Its ranks drop their
// copies, and a copy still in the pool is not handed out.
void server::cancel_in_node(std::uint64_t index, chunk c) {
  const auto found = pooled_.find(index);
  if (found == pooled_.end()) return;
  pooled_loop& loop = found->second;
  std::erase_if(loop.pool, [&](const auto& e) { return e[1] == c.start; });
  handed_chunk& h = loop.handed[c.start];
  h.c = c;
  h.finished = true;
  for (const int holder : h.holders) cancel_rank(holder, index, c);
}

void server::cancel_rank(int rank, std::uint64_t index, chunk c) {
  if (rank == rank_) host_.cancel(index, c);
  else send(rank, tag_cancel, {static_cast<std::int64_t>(index), c.start, c.size});
}

void server::not_given(int from, std::uint64_t index, chunk c) {
  host_.fatal("rank " + std::to_string(from) + " reports chunk [" + std::to_string(c.start) + ", +" +
              std::to_string(c.size) + ") of shared loop " + std::to_string(index) + ", which it was not given");
}
}  // namespace selfsched::mpi::detail
