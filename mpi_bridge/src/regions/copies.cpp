// Resilience (SELFSCHED_MPI_RESILIENCE=duplicate; rDLB, Mohammed, Cavelan and
// Ciorba): a rank reports each outer chunk it has handed out entirely, and
// drops the rest of a chunk whose copy finished elsewhere. The master's side
// is in server.cpp, the settling of copies after the loop in movement.cpp.
#include <algorithm>

#include "regions/engine.hpp"

namespace selfsched::mpi::detail {

// The threads have taken all of `current` (they finish it within an inner
// chunk): the master may tell the other holders of a copy to drop theirs.
void engine::report_finished(client_loop& loop) {
  if (loop.current_reported || loop.current.size == 0) return;
  loop.current_reported = true;
  unsent_reports_.push_back({static_cast<std::int64_t>(loop.index), loop.current.start, loop.current.size});
}

void engine::exchange_reports() {
  for (const auto& report : unsent_reports_) {
    if (parent_ == rank_) {
      server_->finished(rank_, static_cast<std::uint64_t>(report[0]), {report[1], report[2]});
      continue;
    }
    // Synchronous: once it completes the master has it, so every report of
    // a loop is in before the checkpoint that ends the loop (checkpoint()).
    auto& sent = sent_reports_.emplace_back(report, MPI_REQUEST_NULL);
    MPI_Issend(sent.first.data(), chunk_note_length, MPI_INT64_T, parent_, tag_finished, comm_, &sent.second);
  }
  unsent_reports_.clear();
  std::erase_if(sent_reports_, [](auto& sent) {
    int done = 0;
    MPI_Test(&sent.second, &done, MPI_STATUS_IGNORE);
    return done != 0;
  });
  if (parent_ == rank_) return;  // our own server cancels through cancel()
  std::vector<std::int64_t> note;
  while (receive_int64s(comm_, parent_, tag_cancel, note)) {
    if (note.size() != chunk_note_length) fatal("malformed cancel from rank " + std::to_string(parent_));
    cancel(static_cast<std::uint64_t>(note[0]), {note[1], note[2]});
  }
}

// A rank learns that its copy is not wanted at its next inner claim, so no
// thread may take much of an outer chunk at once: under static with one
// thread the whole chunk is one claim, and a rank at a tenth of the speed
// would run its copy to the end (rDLB's bound on the time a straggler holds
// the loop is one inner chunk at its speed). A thread's share is cut in
// pieces_per_thread: with a first chunk of n/2 (static over 2 ranks) a
// straggler s times slower then holds the loop about s / (2 K) of the ideal
// makespan on average rows, up to three times that on mandelbrot's heaviest
// (32 pieces measured 1.4x the ideal under fss, 128 pieces 1.31x under
// static, at a tenth of the speed: benchmarks/mpi/straggler_techniques.py).
// Each claim costs a lock and a test of the master's messages (progress()).
iter_t engine::inner_chunk_limit(iter_t outer_size, int team_size) {
  if (!duplicate_) return 0;
  constexpr iter_t pieces_per_thread = 256;
  const iter_t pieces = pieces_per_thread * std::max(team_size, 1);
  return std::max<iter_t>(1, (outer_size + pieces - 1) / pieces);
}

// Another rank finished its copy of c first.
void engine::cancel(std::uint64_t index, chunk c) {
  client_loop* loop = find(index);
  if (loop == nullptr || loop->ended) return;
  if (loop->current.start == c.start && loop->current.size == c.size) {
    if (!loop->current_reported) loop->drop_current = true;  // else it is handed out: runs to its end
  } else if (loop->has_next && loop->next.start == c.start) {
    loop->has_next = false;  // not started: the next claim asks again
  } else if (loop->asked) {
    loop->cancelled.push_back(c.start);  // its reply may still be on the way
  }
}

// The rest of the current chunk is not handed out; the inner chunks already
// taken finish, but the chunk is not this rank's: its rows come from the
// copy that finished.
bool engine::drop_if_cancelled(client_loop& loop) {
  if (!loop.drop_current) return false;
  loop.drop_current = false;
  loop.current_reported = true;
  if (!loop.own.empty() && loop.own.back().start == loop.current.start) loop.own.pop_back();
  iterations_ -= loop.current.size;
  --outer_chunks_;
  ++dropped_;
  loop.current = {};
  return true;
}
}  // namespace selfsched::mpi::detail
