// viss: variable increase self-scheduling (Philip & Das, PDCS 1997). Stages
// of p equal chunks, like fiss, but the increment halves from stage to stage:
//   K_0 = n / (X p),  K_i = K_{i-1} + K_0 / 2^i = K_0 (2 - 2^-i),
// so chunks grow from K_0 towards 2 K_0 (the reading of LB4OMP's
// kmp_sch_viss). Default X = p, LB4OMP's default. Rounding: up throughout,
// K_0 = ceil(n / p^2) (LB4OMP means ceil but divides in integers; rounding
// down would give 0 for n < p^2) and K_i = ceil(K_0 (2 - 2^-i)) =
// 2 K_0 - floor(K_0 / 2^i), exact in integers. Once 2^i > K_0 every chunk
// is 2 K_0. N = 1000, p = 4: K_0 = 63, then 95, 111, 119, ...
#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>

#include "arith.hpp"
#include "techniques/techniques.hpp"

namespace selfsched::techniques {
namespace {

class variable_increase final : public technique {
 public:
  explicit variable_increase(const loop_params& lp)
      : p_(lp.p),
        max_(lp.max_chunk),
        first_(std::max<iter_t>(1, arith::ceil_div(lp.n, p_ * p_))),  // p^2 < 2^62
        flat_from_stage_(static_cast<iter_t>(std::bit_width(static_cast<std::uint64_t>(first_)))) {}

  iter_t next_size(const request& r) override { return stage_chunk(r.step / p_); }
  // Chunks only grow: constant once they reach 2 K_0, or the maximum chunk.
  iter_t constant_size_from(const request& r) const override {
    const iter_t stage = r.step / p_;
    if (max_ > 0 && stage_chunk(stage) >= max_) return max_;
    return stage >= flat_from_stage_ ? stage_chunk(stage) : 0;
  }

 private:
  // K_0 + (K_0 - floor(K_0 / 2^i)), saturating: 2 K_0 may pass INT64_MAX.
  iter_t stage_chunk(iter_t stage) const {
    const iter_t halved = stage >= 63 ? 0 : first_ >> stage;
    return first_ + std::min(first_ - halved, std::numeric_limits<iter_t>::max() - first_);
  }

  iter_t p_;
  iter_t max_;
  iter_t first_;            // K_0
  iter_t flat_from_stage_;  // first stage with K_0 / 2^i < 1
};

}  // namespace

technique_ptr make_viss(const loop_params& lp) { return std::make_unique<variable_increase>(lp); }

}  // namespace selfsched::techniques
