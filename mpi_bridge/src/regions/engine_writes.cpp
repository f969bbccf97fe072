// The engine's part in finding (and merging) the writes of shared loops that
// no declared movement covers: which memory, when a window opens (engine.cpp,
// at a loop's begin) and closes (the checkpoint, before results move).
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>

#include "regions/engine.hpp"
#include "common/fatal.hpp"
#include "selfsched/bridge.hpp"  // libselfsched's seam: the clock, warn
#include "common/site_identity.hpp"
#include "regions/write_exchange.hpp"

namespace selfsched::mpi::detail {

using omp::bridge::now_ns;

void engine::set_up_write_tracking() {
  if (writes_ == writes_kind::off) return;
  // The ranges are compared by index and offset: every rank must name the
  // same number of ranges of the same sizes.
  std::vector<std::pair<void*, std::size_t>> user;
  std::uint64_t digest = 0xcbf29ce484222325ULL;
  for (const options::tracked_range& t : opts_.tracked_) {
    user.emplace_back(t.data, t.bytes);
    digest = fnv(digest, &t.bytes, sizeof t.bytes);
  }
  const auto mine = static_cast<std::int64_t>(digest & ((1ULL << 62) - 1));
  std::int64_t both[2] = {mine, -mine};
  MPI_Allreduce(MPI_IN_PLACE, both, 2, MPI_INT64_T, MPI_MAX, comm_);
  if (both[0] != -both[1])
    abort_job(comm_, "options::track_writes: the ranks name different ranges (" + std::to_string(user.size()) +
                         " on rank " + std::to_string(rank_) +
                         "); every rank must name the same number of ranges, of the same sizes, in the same order");
  auto window = std::make_unique<write_window>();
  std::string why;
  int ok = window->start(program_ranges(user), why) ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm_);
  if (!ok) {
    if (!why.empty())
      omp::bridge::warn("MPI region, rank %d: writes of shared loops are not tracked (%s); undeclared writes are "
                        "neither reported nor merged",
                        rank_, why.c_str());
    writes_ = writes_kind::off;
    return;
  }
  window_ = std::move(window);
}

void engine::check_writes(std::size_t count) {
  const std::int64_t started = now_ns();
  // What the declared movements move is theirs, on this rank's addresses.
  iter_t largest = 0;
  for (std::size_t k = 0; k < count; ++k) largest = std::max(largest, loops_[k].n);
  std::vector<cluster::address_range> covered;
  for (const options::fixed_rows& rows : opts_.fixed_) {
    const auto begin = reinterpret_cast<std::uintptr_t>(rows.rows);
    covered.push_back({begin, begin + static_cast<std::uintptr_t>(largest) * rows.row_bytes});
  }
  for (const options::reduction& r : opts_.reductions_) {
    MPI_Aint lower = 0, extent = 0;
    MPI_Type_get_extent(r.type, &lower, &extent);
    const auto begin = reinterpret_cast<std::uintptr_t>(r.buffer);
    covered.push_back({begin, begin + static_cast<std::uintptr_t>(r.count) * static_cast<std::uintptr_t>(extent)});
  }
  const changed_bytes mine = window_->collect(covered);
  const std::string where = describe(loops_[0].site_ident);
  const std::string site = " " + std::to_string(loops_[0].index) + " of the region" + where;
  const exchange_outcome outcome = exchange_writes(comm_, *window_, mine, writes_ == writes_kind::merge, site);
  window_->close();
  if (!outcome.message.empty() && rank_ == 0 && warned_sites_.insert(loops_[0].site).second)
    omp::bridge::warn("MPI region: %s", outcome.message.c_str());
  undeclared_bytes_ += outcome.undeclared_bytes;
  merged_bytes_received_ += outcome.received_bytes;
  writes_ns_ += now_ns() - started;
}

}  // namespace selfsched::mpi::detail
