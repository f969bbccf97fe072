// Fetch-and-op as a network card serves it (--nic-atomics SECONDS).
//
// SimGrid 3.32's SMPI makes MPI_Fetch_and_op an MPI_Get and an
// MPI_Accumulate under a lock of the target's window held throughout
// (Win::get_accumulate): each claim of the rma transport holds rank 0's
// window for two one-way latencies, so claims are served one at a time
// and the code under SMPI is slower than any machine with RDMA atomics
// (InfiniBand, Slingshot, RoCE), where the target's NIC applies a 64-bit
// fetch-and-add without its CPU, one after the other, in about a
// microsecond or less (docs/simulation.md, "The real bridge under SMPI").
//
// Here, when the run asks for it, a 64-bit MPI_SUM or MPI_NO_OP
// fetch-and-op on a window made by MPI_Win_allocate is served so: the
// request reaches the target after the route's latency, waits for the
// target's NIC to finish the atomics before it, takes `seconds` there, and
// its answer returns after the latency again; MPI_Win_flush waits until
// then. The operation itself is applied to the target's memory when it is
// issued: SMPI ranks share this process (smpi/privatization:no), and
// requests issued later in simulated time reach the NIC later (every route
// of run.py's star has the same latency), so the values are those of the
// NIC's order. A 64-bit MPI_Put to such a window is written at once and
// complete two latencies later. Such a window's access epochs are the NIC's
// too: MPI_Win_lock_all and MPI_Win_unlock_all take none of SMPI's locks
// (a 4,096-rank run with SMPI's epochs was still unfinished after 10
// minutes of CPU, 92% of them in Win::unlock, each rank releasing every
// target; with the card's, the run takes 130 s). Anything else (other
// types, operations, windows) goes to SMPI's own calls.
#include <mpi.h>
#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "nic_atomics.h"
#include "rank_state.hpp"

#undef MPI_Win_allocate
#undef MPI_Win_free
#undef MPI_Fetch_and_op
#undef MPI_Win_flush
#undef MPI_Win_lock_all
#undef MPI_Win_unlock_all
#undef MPI_Put

namespace {

double nic_seconds = 0;  // the ranks share this process: one setting for all

struct window {
  std::vector<char*> bases;  // by rank in the window's communicator
  std::vector<int> disp_units;
  std::vector<sg_host_t> hosts;
  std::vector<double> nic_free;  // when each target's NIC is done with the atomics before
  int members = 0;               // ranks that have not freed it
};

// Each rank's MPI_Win is an object of its own under SMPI: a window is known
// by its communicator (the world rank of its rank 0, its size) and how many
// windows the rank made on such a communicator before, which every rank of
// it counts alike (MPI_Win_allocate is collective).
using window_key = std::tuple<int, int, int>;
std::map<window_key, window> windows;

struct rank_state {
  std::map<std::pair<int, int>, int> made;  // windows made so far, by communicator
  std::map<MPI_Win, window_key> keys;       // this rank's handles
  std::map<MPI_Win, double> answers;        // atomics in flight: when the last answer is in
};
std::vector<rank_state> ranks;  // by actor id (rank_state.hpp)

rank_state& mine() { return selfsched::smpi::this_ranks(ranks); }

// The window when the card serves it (windows are registered only then),
// else nullptr.
window* nic_window(MPI_Win win) {
  rank_state& me = mine();
  const auto key = me.keys.find(win);
  if (key == me.keys.end()) return nullptr;
  const auto w = windows.find(key->second);
  return w == windows.end() ? nullptr : &w->second;
}

// The window's part on `target` when the NIC serves it, else nullptr.
window* served_by_nic(MPI_Win win, int target) {
  window* w = nic_window(win);
  if (w == nullptr || target < 0 || static_cast<std::size_t>(target) >= w->bases.size() ||
      w->bases[static_cast<std::size_t>(target)] == nullptr)
    return nullptr;
  return w;
}

double latency_to(const window& w, int target) {
  const sg_host_t there = w.hosts[static_cast<std::size_t>(target)];
  return there == sg_host_self() ? 0 : sg_host_get_route_latency(sg_host_self(), there);
}

std::int64_t* cell(const window& w, int target, MPI_Aint disp) {
  const auto t = static_cast<std::size_t>(target);
  return reinterpret_cast<std::int64_t*>(w.bases[t] + disp * w.disp_units[t]);
}

void answer_by(MPI_Win win, double when) {
  double& answer = mine().answers[win];
  answer = std::max(answer, when);
}

int world_rank_of_first(MPI_Comm comm) {
  MPI_Group group, world;
  MPI_Comm_group(comm, &group);
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  const int first = 0;
  int in_world = 0;
  MPI_Group_translate_ranks(group, 1, &first, world, &in_world);
  MPI_Group_free(&group);
  MPI_Group_free(&world);
  return in_world;
}

}  // namespace

namespace selfsched::smpi {
void set_nic_atomics(double seconds) { nic_seconds = seconds; }
}  // namespace selfsched::smpi

extern "C" int selfsched_smpi_win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr,
                                           MPI_Win* win) {
  const int result = MPI_Win_allocate(size, disp_unit, info, comm, baseptr, win);
  if (result != MPI_SUCCESS || nic_seconds <= 0) return result;
  int rank = 0, size_of_comm = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size_of_comm);
  rank_state& me = mine();
  const std::pair<int, int> where{world_rank_of_first(comm), size_of_comm};
  const window_key key{where.first, where.second, me.made[where]++};
  me.keys[*win] = key;
  window& w = windows[key];
  if (w.bases.empty()) {
    const auto n = static_cast<std::size_t>(size_of_comm);
    w.bases.assign(n, nullptr);
    w.disp_units.assign(n, 1);
    w.hosts.assign(n, nullptr);
    w.nic_free.assign(n, 0.0);
  }
  const auto r = static_cast<std::size_t>(rank);
  w.bases[r] = *static_cast<char**>(baseptr);
  w.disp_units[r] = disp_unit;
  w.hosts[r] = sg_host_self();
  ++w.members;
  return result;
}

extern "C" int selfsched_smpi_win_free(MPI_Win* win) {
  rank_state& me = mine();
  if (const auto key = me.keys.find(*win); key != me.keys.end()) {
    if (const auto w = windows.find(key->second); w != windows.end() && --w->second.members == 0) windows.erase(w);
    me.keys.erase(key);
  }
  me.answers.erase(*win);
  return MPI_Win_free(win);
}

extern "C" int selfsched_smpi_fetch_and_op(const void* origin, void* result, MPI_Datatype type, int target,
                                           MPI_Aint disp, MPI_Op op, MPI_Win win) {
  window* w = type == MPI_INT64_T && (op == MPI_SUM || op == MPI_NO_OP) ? served_by_nic(win, target) : nullptr;
  if (w == nullptr) return MPI_Fetch_and_op(origin, result, type, target, disp, op, win);
  std::int64_t* value = cell(*w, target, disp);
  *static_cast<std::int64_t*>(result) = *value;
  if (op == MPI_SUM) *value += *static_cast<const std::int64_t*>(origin);
  const double latency = latency_to(*w, target);
  double& nic_free = w->nic_free[static_cast<std::size_t>(target)];
  nic_free = std::max(simgrid_get_clock() + latency, nic_free) + nic_seconds;
  answer_by(win, nic_free + latency);
  return MPI_SUCCESS;
}

extern "C" int selfsched_smpi_put(const void* origin, int origin_count, MPI_Datatype origin_type, int target,
                                  MPI_Aint disp, int target_count, MPI_Datatype target_type, MPI_Win win) {
  window* w = origin_type == MPI_INT64_T && target_type == MPI_INT64_T && origin_count == target_count
                  ? served_by_nic(win, target)
                  : nullptr;
  if (w == nullptr) return MPI_Put(origin, origin_count, origin_type, target, disp, target_count, target_type, win);
  std::copy_n(static_cast<const std::int64_t*>(origin), origin_count, cell(*w, target, disp));
  answer_by(win, simgrid_get_clock() + 2 * latency_to(*w, target));
  return MPI_SUCCESS;
}

extern "C" int selfsched_smpi_win_lock_all(int assertion, MPI_Win win) {
  return nic_window(win) != nullptr ? MPI_SUCCESS : MPI_Win_lock_all(assertion, win);
}

extern "C" int selfsched_smpi_win_unlock_all(MPI_Win win) {
  if (nic_window(win) == nullptr) return MPI_Win_unlock_all(win);
  return selfsched_smpi_win_flush(0, win);
}

// Waits for every operation the NIC serves in flight on the window,
// whatever its target (the bridge's have one); SMPI's own are flushed by
// SMPI, but for a window whose epochs are the NIC's (no SMPI lock is held).
extern "C" int selfsched_smpi_win_flush(int rank, MPI_Win win) {
  auto& answers = mine().answers;
  if (const auto pending = answers.find(win); pending != answers.end()) {
    const double wait = pending->second - simgrid_get_clock();
    answers.erase(pending);
    if (wait > 0) sg_actor_sleep_for(wait);
  }
  return nic_window(win) != nullptr ? MPI_SUCCESS : MPI_Win_flush(rank, win);
}
