// auto: the schedule chosen per loop site from measured instances (see
// auto_selection.hpp). As a technique on its own (no site history, e.g. in
// selfsched-chunks) it is its first exploitation default, fss.
#include "selfsched/core/auto_selection.hpp"

#include <algorithm>
#include <limits>

#include "selfsched/core/registry.hpp"
#include "techniques/techniques.hpp"

namespace selfsched {

auto_selection::auto_selection() {
  for (std::string_view name : default_candidates) candidates_.push_back({name});
}

int auto_selection::best() const {
  int best = -1;
  double best_seconds = std::numeric_limits<double>::infinity();
  for (int i = 0; i < candidate_count(); ++i) {
    const auto& c = candidates_[static_cast<std::size_t>(i)];
    if (c.runs == 0) return -1;
    if (c.mean_seconds < best_seconds) best = i, best_seconds = c.mean_seconds;
  }
  return best;
}

int auto_selection::choose() {
  const std::int64_t instance = instances_++;
  // Explore: every candidate once, in order.
  for (int i = 0; i < candidate_count(); ++i)
    if (candidates_[static_cast<std::size_t>(i)].runs == 0) return i;
  const int exploit = best();
  if (instance % explore_every != explore_every - 1) return exploit;
  // Re-explore the candidate measured longest ago.
  int stalest = exploit;
  for (int i = 0; i < candidate_count(); ++i)
    if (i != exploit && candidates_[static_cast<std::size_t>(i)].last_run <
                            candidates_[static_cast<std::size_t>(stalest)].last_run)
      stalest = i;
  return stalest;
}

void auto_selection::record(int choice, double seconds) {
  if (choice < 0 || choice >= candidate_count() || !(seconds >= 0)) return;
  auto& c = candidates_[static_cast<std::size_t>(choice)];
  c.mean_seconds = c.runs == 0 ? seconds : 0.5 * c.mean_seconds + 0.5 * seconds;
  ++c.runs;
  c.last_run = instances_;
}

namespace techniques {

technique_ptr make_auto(const loop_params& lp) { return find_technique("fss")->make(lp); }

}  // namespace techniques
}  // namespace selfsched
