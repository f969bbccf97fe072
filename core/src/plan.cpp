#include "selfsched/core/plan.hpp"

#include <algorithm>

#include "selfsched/core/scheduler.hpp"

namespace selfsched {

std::optional<chunk_plan> chunk_plan::build(technique& t, const loop_params& lp,
                                            std::size_t max_segments) {
  chunk_plan plan;
  iter_t start = 0;
  iter_t step = 0;
  // Chunks computed one at a time are bounded too: a max_chunk that clamps a
  // decreasing technique (gss on 10^12 iterations, max_chunk 100) makes one
  // long run that constant_size_from() cannot announce.
  const auto max_single_steps = static_cast<iter_t>(max_segments);
  const auto append = [&](iter_t size, iter_t count) {
    if (plan.runs_.empty() || plan.runs_.back().size != size) plan.runs_.push_back({step, start, size});
    start += size * count;
    step += count;
  };
  while (start < lp.n) {
    if (plan.runs_.size() >= max_segments || step >= max_single_steps) return std::nullopt;
    const iter_t remaining = lp.n - start;
    const request r{remaining, step, static_cast<int>(step % lp.p), 1.0, 1.0};
    if (const iter_t constant = t.constant_size_from(r); constant > 0) {
      const iter_t size = clamp_chunk(constant, remaining, lp);
      append(size, remaining / size);
      if (remaining % size != 0) append(remaining % size, 1);
      break;
    }
    append(clamp_chunk(t.next_size(r), remaining, lp), 1);
  }
  plan.chunk_count_ = step;
  plan.runs_.push_back({step, lp.n, 0});
  return plan;
}

chunk chunk_plan::at(iter_t step, std::size_t& hint) const {
  if (step < 0 || step >= chunk_count_) return {runs_.back().start, 0};
  // Invariant sought: runs_[h].first_step <= step < runs_[h + 1].first_step
  // (the sentinel run ends the search).
  std::size_t h = hint + 1 < runs_.size() && runs_[hint].first_step <= step ? hint : 0;
  if (runs_[h + 1].first_step <= step) {
    // Every run holds at least one chunk, so the run sought is at most
    // step - first_step(h) runs after h: exact when the runs in between are
    // single chunks (the start of gss, tss, rnd), a short search otherwise.
    const auto furthest = static_cast<std::size_t>(
        std::min<iter_t>(step - runs_[h].first_step, static_cast<iter_t>(runs_.size() - 2 - h)));
    const auto first = runs_.begin() + static_cast<std::ptrdiff_t>(h) + 1;
    const auto last = runs_.begin() + static_cast<std::ptrdiff_t>(h + furthest) + 1;
    const auto after = last[-1].first_step <= step
                           ? last
                           : std::upper_bound(first, last, step, [](iter_t s, const run& r) { return s < r.first_step; });
    h = static_cast<std::size_t>(after - runs_.begin()) - 1;
  }
  hint = h;
  const run& r = runs_[h];
  return {r.start + (step - r.first_step) * r.size, r.size};
}

}  // namespace selfsched
