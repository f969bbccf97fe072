// Integer helpers that stay exact up to INT64_MAX (no a + b - 1 overflow).
#pragma once

#include <cmath>
#include <limits>

#include "selfsched/core/technique.hpp"

namespace selfsched::arith {

// ceil(a / b) for a >= 0, b > 0.
constexpr iter_t ceil_div(iter_t a, iter_t b) { return a / b + (a % b != 0); }

// A non-negative real chunk size as an iteration count: NaN and negatives
// give 0, values beyond the int64 range saturate.
inline iter_t to_iters_floor(double x) {
  if (!(x > 0)) return 0;
  if (x >= 9.2e18) return std::numeric_limits<iter_t>::max();
  return static_cast<iter_t>(x);
}
inline iter_t to_iters_ceil(double x) { return to_iters_floor(std::ceil(x)); }

}  // namespace selfsched::arith
