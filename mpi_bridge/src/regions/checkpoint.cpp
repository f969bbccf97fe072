// Checkpoints: after each parallel region that ran shared loops, and at the
// region's end, the ranks compare where they are; when they agree, results
// move (movement.cpp); when not, the job stops with one message naming them.
#include <cstdlib>
#include <map>

#include "regions/engine.hpp"
#include "common/fatal.hpp"
#include "regions/movement.hpp"
#include "common/site_identity.hpp"
#include "common/waiting.hpp"

namespace selfsched::mpi::detail {

void engine::checkpoint(phase at) {
  std::size_t count = 0;
  std::int64_t mine[5] = {at, 0, 0, 0, 0};
  std::string where;  // this rank's last loop, for a message
  {
    std::lock_guard lock(mutex_);
    while (count < loops_.size() && loops_[count].ended) ++count;
    if (at == after_loops && count == 0) return;
    // Where this rank is: after which loop, its n and site, and a digest of
    // all the loops since the last checkpoint.
    std::uint64_t digest = 0xcbf29ce484222325ULL;
    for (std::size_t k = 0; k < count; ++k) {
      digest = fnv(digest, &loops_[k].n, sizeof(iter_t));
      digest = fnv(digest, &loops_[k].site, sizeof(std::uint64_t));
    }
    mine[1] = static_cast<std::int64_t>(count > 0 ? loops_[count - 1].index + 1 : begun_);
    if (at == region_end) mine[1] = static_cast<std::int64_t>(begun_);
    if (count > 0) mine[2] = loops_[count - 1].n, mine[3] = static_cast<std::int64_t>(loops_[count - 1].site);
    if (count > 0) where = describe(loops_[count - 1].site_ident);
    mine[4] = static_cast<std::int64_t>(digest & ((1ULL << 62) - 1));
  }
  arrival_watch watch;
  if (duplicate_) deliver_reports(), announce_arrival(watch);
  // Max of (x, -x) gives every rank both the max and the min of each field.
  std::int64_t both[10];
  for (int k = 0; k < 5; ++k) both[k] = mine[k], both[5 + k] = -mine[k];
  MPI_Request request;
  MPI_Iallreduce(MPI_IN_PLACE, both, 10, MPI_INT64_T, MPI_MAX, comm_, &request);
  wait_for(request, watch);
  if (duplicate_) finish_arrivals(watch);
  for (int k = 0; k < 5; ++k)
    if (both[k] != -both[5 + k]) report_mismatch(mine, where);

  // Every rank has finished these loops: check (or merge) what they wrote
  // outside the declared movements, move their results, forget them.
  if (count > 0 && window_ && window_->is_open()) check_writes(count);
  for (std::size_t k = 0; k < count; ++k) move_results(loops_[k]);
  if (at == region_end)
    for (const options::reduction& r : opts_.reductions_)
      if (r.at == when::region_end) reduce(comm_, r);
  std::lock_guard lock(mutex_);
  if (count > 0 && server_) server_->forget_before(loops_[count - 1].index + 1);
  loops_.erase(loops_.begin(), loops_.begin() + static_cast<std::ptrdiff_t>(count));
  loops_done_ += count;
}

// Resilience: every report of this rank has reached the master (which then
// has every holder's word before the ranks agree the loops are over).
void engine::deliver_reports() {
  for (back_off wait;;) {
    {
      std::lock_guard lock(mutex_);
      exchange_reports();
      if (serve_inline_) server_->poll();
      if (unsent_reports_.empty() && sent_reports_.empty()) return;
    }
    wait();
  }
}

// A collective of ours completes while this rank keeps serving the others.
void engine::wait_for(MPI_Request& request, arrival_watch& watch) {
  for (back_off wait;;) {
    int complete = 0;
    {
      std::lock_guard lock(mutex_);
      MPI_Test(&request, &complete, MPI_STATUS_IGNORE);
      if (!complete && serve_inline_) server_->poll();
      if (duplicate_) exchange_reports();
      if (!complete) check_arrivals(watch);
    }
    if (complete) return;
    wait();
  }
}

void engine::report_mismatch(const std::int64_t* mine, const std::string& where) {
  std::vector<std::int64_t> all(static_cast<std::size_t>(5 * size_));
  MPI_Allgather(mine, 5, MPI_INT64_T, all.data(), 5, MPI_INT64_T, comm_);
  if (rank_ != 0) {  // rank 0 explains and stops the job
    MPI_Barrier(comm_);
    std::abort();
  }
  // Ranks in the same place, grouped.
  std::map<std::vector<std::int64_t>, std::vector<int>> places;
  for (int r = 0; r < size_; ++r)
    places[std::vector<std::int64_t>(all.begin() + 5 * r, all.begin() + 5 * r + 5)].push_back(r);
  const std::int64_t first_site = all[3];
  std::string text = "the ranks of a region ran different shared loops:";
  const char* separator = " ";
  for (const auto& [place, ranks] : places) {
    text += separator + std::string(ranks.size() == 1 ? "rank" : "ranks");
    separator = "; ";
    for (std::size_t k = 0; k < ranks.size(); ++k) text += (k ? "," : " ") + std::to_string(ranks[k]);
    if (place[0] == region_end) {
      text += " reached the end of the region after " + std::to_string(place[1]) + " shared loop" +
              (place[1] == 1 ? "" : "s");
    } else {
      text += " finished shared loop " + std::to_string(place[1] - 1) + " (n=" + std::to_string(place[2]);
      if (place[3] != first_site) text += ", another source line";
      if (ranks.front() == 0) text += where;  // rank 0 knows its own source line
      text += ")";
    }
  }
  text += ". Every rank must run the same schedule(runtime) loops of the region, in the same order, with the "
          "same bounds";
  abort_job(comm_, text);
}

void engine::move_results(const client_loop& loop) {
  const std::vector<chunk> own = duplicate_ ? settle_copies(comm_, loop.own) : loop.own;
  for (const options::fixed_rows& rows : opts_.fixed_) gather_fixed_rows(comm_, rows, own);
  for (const options::variable_rows& rows : opts_.variable_) gather_variable_rows(comm_, rows, own);
  for (const options::reduction& r : opts_.reductions_)
    if (r.at == when::each_loop) reduce(comm_, r);
  const loop_info info{user_comm_, loop.index, loop.n, own};
  for (const auto& callback : opts_.callbacks_) callback(info);
}
}  // namespace selfsched::mpi::detail
