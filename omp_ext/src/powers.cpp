#include "powers.hpp"

#include <atomic>

#include "settings.hpp"

namespace selfsched::omp {

std::vector<double> thread_powers(int team_size) {
  const settings& s = current_settings();
  if (s.weights.empty()) return {};
  if (s.weights.size() < static_cast<std::size_t>(team_size)) {
    static std::atomic<bool> said{false};
    if (!said.exchange(true))
      warn("SELFSCHED_WEIGHTS has %zu weights for a team of %d threads; using equal weights",
           s.weights.size(), team_size);
    return {};
  }
  return {s.weights.begin(), s.weights.begin() + team_size};
}

}  // namespace selfsched::omp
