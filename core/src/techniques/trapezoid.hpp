// The trapezoid of TSS (Tzen & Ni 1993; seed 000 sec. 2), shared by tss, tfss,
// dtss and W over tss: chunks fall linearly from F to L in N steps,
// N = ceil(2n / (F + L)), D = floor((F - L) / (N - 1)), C_i = F - i D, held at
// its last value >= L. The floors follow seed 003 Table 1 (204, 194, ..., 64
// for n = 2048, p = 5).
#pragma once

#include <algorithm>
#include <cmath>
#include <utility>

#include "arith.hpp"
#include "selfsched/core/technique.hpp"

namespace selfsched::techniques {

struct trapezoid {
  iter_t first = 1;      // F
  iter_t decrement = 0;  // D
  iter_t flat_from = 0;  // the step from which C_i stays at its last value

  // L = the minimum chunk (at least 1), F = first_wanted within [L, the
  // maximum chunk]. The programmer's (F, L) of the seed: planned with a
  // capped F, the trapezoid still covers n; capping its chunks afterwards
  // would leave the rest of the loop to a tail of chunks of size L.
  static trapezoid plan(const loop_params& lp, iter_t first_wanted) {
    using wide = unsigned __int128;  // F + L and 2n may pass INT64_MAX
    const iter_t n = lp.n;
    const iter_t last = std::max<iter_t>(1, lp.min_chunk);
    trapezoid t;
    t.first = std::max(last, lp.max_chunk > 0 ? std::min(first_wanted, lp.max_chunk) : first_wanted);
    const wide f_plus_l = static_cast<wide>(t.first) + static_cast<wide>(last);
    const auto steps = static_cast<iter_t>((2 * static_cast<wide>(n) + f_plus_l - 1) / f_plus_l);
    t.decrement = steps > 1 ? (t.first - last) / (steps - 1) : 0;
    t.flat_from = t.decrement > 0 ? (t.first - last) / t.decrement : 0;
    return t;
  }

  // C_step, without overflow: from flat_from on it stays put.
  iter_t size_at(iter_t step) const { return first - std::min(step, flat_from) * decrement; }

  // A requester of power a takes the next a "units" of the trapezoid at once
  // (DTSS, seed 000 sec. 2): C = floor(a (F - D (S + (a - 1) / 2))), S the
  // units taken before it, never a unit below the last C_i, at least 1.
  // With a = 1 for every request this is size_at(step).
  iter_t take_units(double& taken, double a) const {
    if (a == 1 && taken == std::floor(taken) && taken < 0x1p52) {  // exact, whatever the size of F
      return size_at(static_cast<iter_t>(std::exchange(taken, taken + 1)));
    }
    const double smallest = static_cast<double>(size_at(flat_from));
    const double unit = std::max(smallest, static_cast<double>(first) -
                                               static_cast<double>(decrement) * (taken + (a - 1) / 2));
    taken += a;
    return std::max<iter_t>(1, arith::to_iters_floor(a * unit));
  }
};

}  // namespace selfsched::techniques
