// How balanced a loop was, from its threads' busy times: the numbers a
// profile reports (omp_ext writes them, selfsched-report recomputes them when
// it merges the ranks of an MPI job), so both use one definition.
#pragma once

#include <algorithm>
#include <cmath>
#include <span>

namespace selfsched {

struct balance_stats {
  double mean = 0, max = 0;
  double max_over_mean = 1;      // 1: perfect
  double cov = 0;                // coefficient of variation: standard deviation / mean
  double percent_imbalance = 0;  // (max - mean) / max, in percent
};

inline balance_stats balance_of(std::span<const double> busy) {
  balance_stats b;
  if (busy.empty()) return b;
  double sum = 0, sum_sq = 0;
  for (const double x : busy) sum += x, sum_sq += x * x, b.max = std::max(b.max, x);
  const double p = static_cast<double>(busy.size());
  b.mean = sum / p;
  const double variance = std::max(0.0, sum_sq / p - b.mean * b.mean);
  if (b.mean > 0) b.max_over_mean = b.max / b.mean, b.cov = std::sqrt(variance) / b.mean;
  if (b.max > 0) b.percent_imbalance = 100.0 * (b.max - b.mean) / b.max;
  return b;
}

}  // namespace selfsched
