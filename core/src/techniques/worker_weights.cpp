#include "techniques/worker_weights.hpp"

#include <numeric>

#include "arith.hpp"

namespace selfsched::techniques {

namespace {

// VP_k / max VP, as relative_power() computes it, for all workers at once
// (relative_power() per worker would be O(p^2)).
std::vector<double> relative_powers(const loop_params& lp) {
  std::vector<double> relative(static_cast<std::size_t>(lp.p), 1.0);
  if (lp.powers.empty()) return relative;
  const double fastest = *std::max_element(lp.powers.begin(), lp.powers.end());
  for (std::size_t k = 0; k < relative.size(); ++k) relative[k] = lp.powers[k] / fastest;
  return relative;
}

}  // namespace

double total_relative_power(const loop_params& lp) {
  if (lp.powers.empty()) return lp.p;
  const std::vector<double> relative = relative_powers(lp);
  return std::accumulate(relative.begin(), relative.end(), 0.0);
}

iter_t ceil_div_real(iter_t r, double a) {
  if (a >= 1 && a < 9e18 && a == std::floor(a)) return arith::ceil_div(r, static_cast<iter_t>(a));
  return arith::to_iters_ceil(static_cast<double>(r) / a);
}

iter_t scale_floor(iter_t base, double w) {
  return w == 1.0 ? base : arith::to_iters_floor(static_cast<double>(base) * w);
}

iter_t scale_ceil(iter_t base, double w) {
  return w == 1.0 ? base : arith::to_iters_ceil(static_cast<double>(base) * w);
}

adaptive_history* begin_instance(const loop_params& lp) {
  adaptive_history* h = lp.history;
  if (h == nullptr) return nullptr;
  if (h->workers.size() != static_cast<std::size_t>(lp.p)) {
    h->workers.assign(static_cast<std::size_t>(lp.p), {});
    h->instances = 0;
  }
  ++h->instances;
  return h;
}

void add_to_history(adaptive_history* history, int worker, iter_t size, double seconds) {
  if (history == nullptr || !usable_time(seconds) || size <= 0) return;
  const auto j = static_cast<double>(history->instances);
  auto& w = history->workers[static_cast<std::size_t>(worker)];
  w.weighted_seconds += j * seconds;
  w.weighted_iterations += j * static_cast<double>(size);
}

std::vector<double> initial_weights(const loop_params& lp, const adaptive_history* history) {
  const auto p = static_cast<std::size_t>(lp.p);
  std::vector<double> weights = relative_powers(lp);

  if (history != nullptr && history->workers.size() == p) {
    // AWF (Banicescu et al. 2003): pi_k = sum_j j*T_kj / sum_j j*N_kj, and
    // worker k's weight is proportional to 1 / pi_k, its learned speed.
    std::vector<double> speed(p, 0.0);
    double known_sum = 0;
    int known = 0;
    for (std::size_t k = 0; k < p; ++k) {
      const auto& w = history->workers[k];
      const double s = w.weighted_iterations / w.weighted_seconds;
      if (w.weighted_seconds > 0 && std::isfinite(s) && s > 0) {
        speed[k] = s;
        known_sum += s;
        ++known;
      }
    }
    if (known > 0 && std::isfinite(known_sum)) {
      const double mean = known_sum / known;
      for (double& s : speed)
        if (s == 0) s = mean;
      weights = std::move(speed);
    }
  }
  const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
  for (double& w : weights) w *= static_cast<double>(lp.p) / total;
  return weights;
}

}  // namespace selfsched::techniques
