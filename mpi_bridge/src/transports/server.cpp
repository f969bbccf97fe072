#include "transports/server.hpp"

#include <algorithm>
#include <utility>

#include "selfsched/core/registry.hpp"

namespace selfsched::mpi::detail {

server::server(server_host& host, MPI_Comm comm, int rank, server_roles roles, schedule_spec outer,
               loop_params base)
    : host_(host), comm_(comm), rank_(rank), roles_(std::move(roles)), outer_(outer), base_(std::move(base)) {
  int size = 1;
  MPI_Comm_size(comm_, &size);
  queues_.assign(static_cast<std::size_t>(size), 1.0);
}

server::~server() {
  for (outgoing& out : outgoing_) {
    int sent = 0;
    MPI_Test(&out.request, &sent, MPI_STATUS_IGNORE);
    if (sent) continue;
    MPI_Cancel(&out.request);
    MPI_Wait(&out.request, MPI_STATUS_IGNORE);
  }
}

void server::check_not_finished(std::uint64_t index, int from) {
  if (index < forgotten_)
    host_.fatal("rank " + std::to_string(from) + " asks for chunks of shared loop " + std::to_string(index) +
                ", which every rank has finished: it skipped a loop the others ran");
}

void server::check_same_loop(std::uint64_t index, iter_t n, std::uint64_t site, int from, iter_t known_n,
                             std::uint64_t known_site, int known_from) {
  if (n == known_n && site == known_site) return;
  std::string what = "shared loop " + std::to_string(index) + " differs between ranks: rank " +
                     std::to_string(known_from) + " runs it with n=" + std::to_string(known_n) + ", rank " +
                     std::to_string(from) + " with n=" + std::to_string(n);
  what += site == known_site ? " (same source line)" : ", at another source line";
  host_.fatal(what + ". Every rank of a region must run the same schedule(runtime) loops, in the same order, "
                     "with the same bounds");
}

server::scheduled_loop& server::scheduled(std::uint64_t index, iter_t n, std::uint64_t site, chunk_bounds bounds,
                                          int from) {
  check_not_finished(index, from);
  auto found = scheduled_.find(index);
  if (found != scheduled_.end()) {
    check_same_loop(index, n, site, from, found->second.n, found->second.site, found->second.first_rank);
    return found->second;
  }
  loop_params lp = base_;
  lp.n = n;
  bounds.apply_to(lp);
  if (outer_.base->kind == technique_kind::adaptive) lp.history = &histories_[site];
  auto rule = std::make_unique<scheduler>(make_schedule(outer_, lp), lp);
  return scheduled_.emplace(index, scheduled_loop{n, site, from, std::move(rule), {}, 0}).first->second;
}

server::pooled_loop& server::pooled(std::uint64_t index, iter_t n, std::uint64_t site, int from) {
  check_not_finished(index, from);
  auto found = pooled_.find(index);
  if (found != pooled_.end()) {
    check_same_loop(index, n, site, from, found->second.n, found->second.site, found->second.first_rank);
    return found->second;
  }
  pooled_loop& loop = pooled_[index];
  loop.n = n, loop.site = site, loop.first_rank = from;
  return loop;
}

chunk server::assign(scheduled_loop& loop, int rank, iter_t reported_size, std::int64_t reported_ns, double queue) {
  // Adaptive outer techniques learn the rank's rate from its last outer chunk.
  if (reported_size > 0 && reported_ns > 0)
    loop.rule->record(rank, reported_size, static_cast<double>(reported_ns) * 1e-9);
  const chunk c = loop.rule->next(rank, queue);
  if (!roles_.duplicate) return c;
  if (c.size > 0) {
    loop.handed.push_back({c, {rank}});
    return c;
  }
  return copy_for(loop, rank);
}

void server::request(int from, const request_msg& m) {
  if (!roles_.leader) {  // the master: the technique's next chunk for this rank
    scheduled_loop& loop = scheduled(m.index, m.n, m.site, m.bounds, from);
    answer(from, m.index, assign(loop, from, m.reported_size, m.reported_ns, m.queue));
    return;
  }
  queues_[static_cast<std::size_t>(from)] = m.queue;  // passed up with the next refill
  pooled_loop& loop = pooled(m.index, m.n, m.site, from);
  loop.in_order = loop.in_order || m.in_order;
  loop.bounds = m.bounds;
  if (m.reported_size > 0) loop.reports.insert(loop.reports.end(), {from, m.reported_size, m.reported_ns});
  if (!answer_from_pool(m.index, loop, from)) loop.waiting.push_back(from);
  maybe_refill(m.index, loop);
}

// Supermaster: one chunk for each rank of the leader's node, computed for
// that rank (its weight), while there is work (seed 004, Sect. 4, step 2b).
std::vector<std::int64_t> server::make_batch(std::uint64_t index, iter_t n, std::uint64_t site, chunk_bounds bounds,
                                             int leader, const std::int64_t* queues,
                                             const std::int64_t* reports, int report_count) {
  const auto group = roles_.groups.find(leader);
  if (group == roles_.groups.end())
    host_.fatal("rank " + std::to_string(leader) + " asks for a batch but is no node master");
  scheduled_loop& loop = scheduled(index, n, site, bounds, leader);
  for (int k = 0; k < report_count; ++k) {
    const std::int64_t* r = reports + 3 * k;
    if (r[1] > 0 && r[2] > 0) loop.rule->record(static_cast<int>(r[0]), r[1], static_cast<double>(r[2]) * 1e-9);
  }
  std::vector<std::int64_t> batch{static_cast<std::int64_t>(index)};
  for (std::size_t k = 0; k < group->second.size(); ++k) {
    const int rank = group->second[k];
    if (queues[k] == queue_runs_no_chunks) continue;
    chunk c = loop.rule->next(rank, unpack_queue(queues[k]));
    if (roles_.duplicate && c.size > 0) loop.handed.push_back({c, {leader}});
    if (roles_.duplicate && c.size == 0) c = copy_for(loop, leader);  // another node's unfinished chunk
    if (c.size == 0) break;
    batch.insert(batch.end(), {rank, c.start, c.size});
  }
  return batch;
}

void server::take_batch(std::uint64_t index, pooled_loop& loop, const std::int64_t* triples, int count) {
  loop.refilling = false;
  if (count == 0) loop.done = true;
  for (int k = 0; k < count; ++k) loop.pool.push_back({triples[3 * k], triples[3 * k + 1], triples[3 * k + 2]});
  std::vector<int> waiting = std::exchange(loop.waiting, {});
  for (const int rank : waiting)
    if (!answer_from_pool(index, loop, rank)) loop.waiting.push_back(rank);
  maybe_refill(index, loop);
}

// The oldest chunk is stale when a newer batch holds another chunk for the
// same rank: that rank has not come for it for a whole batch (a rank that
// serves only, or one busy with a long chunk). Kept for it, it would be
// handed out last, a large early chunk after the small ones (64 ranks under
// SMPI: 66% efficiency where the model has 99%).
bool server::oldest_is_stale(const pooled_loop& loop) {
  const iter_t owner = loop.pool.front()[0];
  return std::any_of(std::next(loop.pool.begin()), loop.pool.end(), [&](const auto& e) { return e[0] == owner; });
}

// The chunk computed for this rank if the pool has one, else the oldest;
// the oldest also when it is stale, and always when the ranks must get
// their chunks in order (the pool holds them in increasing order, so every
// rank's come so).
bool server::answer_from_pool(std::uint64_t index, pooled_loop& loop, int rank) {
  if (loop.pool.empty()) {
    if (loop.done) answer(rank, index, roles_.duplicate ? copy_in_node(loop, rank) : chunk{loop.n, 0});
    return loop.done;
  }
  auto pick = loop.in_order || oldest_is_stale(loop)
                  ? loop.pool.end()
                  : std::find_if(loop.pool.begin(), loop.pool.end(), [&](const auto& e) { return e[0] == rank; });
  if (pick == loop.pool.end()) pick = loop.pool.begin();
  const chunk c{(*pick)[1], (*pick)[2]};
  loop.pool.erase(pick);
  if (roles_.duplicate) {
    handed_chunk& h = loop.handed[c.start];
    h.c = c;
    h.holders.push_back(rank);
  }
  answer(rank, index, c);
  return true;
}

// Ask for the next batch once half the pool is gone, so the node's ranks do
// not wait for the supermaster (seed 004, Sect. 4: "When the Task Pool of a
// master node is empty, it asks for more work"; we ask a little earlier).
// The supermaster's own node has no round trip to hide: it refills only
// when a rank waits. Refilling at half there took a stage's chunks before
// the other nodes' requests arrived (64 ranks, 4 nodes, fss under SMPI: its
// ranks ran three first-stage chunks each, 70% efficiency).
void server::maybe_refill(std::uint64_t index, pooled_loop& loop) {
  if (loop.done || loop.refilling) return;
  const bool half_gone = !roles_.root && loop.pool.size() * 2 <= roles_.group.size();
  if (loop.waiting.empty() && !half_gone) return;
  std::vector<std::int64_t> reports = std::exchange(loop.reports, {});
  const int report_count = static_cast<int>(reports.size() / 3);
  std::vector<std::int64_t> queues;  // the group's last Qs, in group order
  for (const int rank : roles_.group) {
    const double q = queues_[static_cast<std::size_t>(rank)];
    queues.push_back(q == 0.0 ? queue_runs_no_chunks : pack_queue(q));
  }
  if (roles_.root) {
    const std::vector<std::int64_t> batch =
        make_batch(index, loop.n, loop.site, loop.bounds, rank_, queues.data(), reports.data(), report_count);
    take_batch(index, loop, batch.data() + batch_header, static_cast<int>(batch.size() - batch_header) / 3);
    return;
  }
  loop.refilling = true;
  std::vector<std::int64_t> message{static_cast<std::int64_t>(index), loop.n, static_cast<std::int64_t>(loop.site),
                                    loop.bounds.min, loop.bounds.max};
  message.insert(message.end(), queues.begin(), queues.end());
  message.insert(message.end(), reports.begin(), reports.end());
  loop.batch.assign(batch_header + 3 * roles_.group.size(), 0);
  MPI_Irecv(loop.batch.data(), static_cast<int>(loop.batch.size()), MPI_INT64_T, 0, tag_batch, comm_,
            &loop.batch_request);
  send(0, tag_refill, std::move(message));
}

void server::answer(int to, std::uint64_t index, chunk c) {
  ++served_;
  if (to == rank_) host_.deliver(index, c);
  else send(to, tag_reply, {static_cast<std::int64_t>(index), c.start, c.size});
}

void server::send(int to, int tag, std::vector<std::int64_t> message) {
  outgoing& out = outgoing_.emplace_back(outgoing{std::move(message), MPI_REQUEST_NULL});
  MPI_Isend(out.message.data(), static_cast<int>(out.message.size()), MPI_INT64_T, to, tag, comm_, &out.request);
}

bool server::receive(int tag) {
  const std::optional<int> sender = receive_int64s(comm_, MPI_ANY_SOURCE, tag, incoming_);
  if (!sender) return false;
  const int from = *sender;
  const int count = static_cast<int>(incoming_.size());
  if (tag == tag_request) {
    if (count != request_msg::length) host_.fatal("malformed request from rank " + std::to_string(from));
    request(from, request_msg::unpack(incoming_.data()));
  } else if (tag == tag_finished || tag == tag_cancel) {
    if (count != chunk_note_length) host_.fatal("malformed chunk note from rank " + std::to_string(from));
    const auto index = static_cast<std::uint64_t>(incoming_[0]);
    if (tag == tag_finished) finished(from, index, {incoming_[1], incoming_[2]});
    else cancel_in_node(index, {incoming_[1], incoming_[2]});
  } else {  // refill
    const auto group = roles_.groups.find(from);
    const int group_size = group == roles_.groups.end() ? 0 : static_cast<int>(group->second.size());
    if (group_size == 0 || count < refill_header + group_size || (count - refill_header - group_size) % 3 != 0)
      host_.fatal("malformed refill from rank " + std::to_string(from));
    const auto index = static_cast<std::uint64_t>(incoming_[0]);
    const std::int64_t* queues = incoming_.data() + refill_header;
    std::vector<std::int64_t> batch =
        make_batch(index, incoming_[1], static_cast<std::uint64_t>(incoming_[2]), {incoming_[3], incoming_[4]}, from,
                   queues, queues + group_size, (count - refill_header - group_size) / 3);
    send(from, tag_batch, std::move(batch));
  }
  return true;
}

bool server::poll() {
  bool any = false;
  while (receive(tag_request)) any = true;
  if (roles_.duplicate)
    while (receive(tag_finished)) any = true;
  if (roles_.duplicate && roles_.leader && !roles_.root)
    while (receive(tag_cancel)) any = true;  // from the supermaster: another node finished a copy first
  if (roles_.root && !roles_.groups.empty())
    while (receive(tag_refill)) any = true;
  if (roles_.leader && !roles_.root) {
    for (auto& [index, loop] : pooled_) {
      if (!loop.refilling) continue;
      int arrived = 0;
      MPI_Status status;
      MPI_Test(&loop.batch_request, &arrived, &status);
      if (!arrived) continue;
      int count = 0;
      MPI_Get_count(&status, MPI_INT64_T, &count);
      if (count < batch_header || static_cast<std::uint64_t>(loop.batch[0]) != index)
        host_.fatal("batch for shared loop " + std::to_string(index) + " came back malformed");
      take_batch(index, loop, loop.batch.data() + batch_header, (count - batch_header) / 3);
      any = true;
    }
  }
  for (auto out = outgoing_.begin(); out != outgoing_.end();) {
    int sent = 0;
    MPI_Test(&out->request, &sent, MPI_STATUS_IGNORE);
    out = sent ? outgoing_.erase(out) : std::next(out);
  }
  return any;
}

void server::forget_before(std::uint64_t index) {
  forgotten_ = std::max(forgotten_, index);
  std::erase_if(scheduled_, [&](const auto& e) { return e.first < index; });
  std::erase_if(pooled_, [&](const auto& e) { return e.first < index && !e.second.refilling; });
}

}  // namespace selfsched::mpi::detail
