// tap: taper (Lucco, PLDI 1992). GSS's chunk T = R/p, tapered by the
// iterations' variability so that a chunk is unlikely to end after the
// others: with v = alpha * sigma / mu,
//   K = ceil(T + v^2/2 - v sqrt(2T + v^2/4)),
// at least the minimum chunk (the clamp). mu and sigma are loop_params.mu /
// .sigma; alpha = 1, LB4OMP's default (kmp_sch_tap). Rounded up, like GSS,
// which tap is exactly when sigma = 0 (the default). K(T) is negative for
// T < v^2 and increasing beyond 3v^2/8, so once K <= the minimum chunk it
// stays there. N = 1000, p = 4, mu = sigma = 1: 229, 174, 133, ...
#include <cmath>

#include "arith.hpp"
#include "techniques/techniques.hpp"

namespace selfsched::techniques {
namespace {

constexpr double kAlpha = 1.0;  // the scale of v: LB4OMP's default

class taper final : public technique {
 public:
  explicit taper(const loop_params& lp) : p_(lp.p), min_(lp.min_chunk), v_(kAlpha * lp.sigma / lp.mu) {}

  iter_t next_size(const request& r) override { return chunk_for(r.remaining); }
  iter_t constant_size_from(const request& r) const override {
    return chunk_for(r.remaining) <= min_ ? min_ : 0;
  }

 private:
  iter_t chunk_for(iter_t remaining) const {
    if (v_ == 0) return arith::ceil_div(remaining, p_);  // GSS, exact in integers
    const double t = static_cast<double>(remaining) / static_cast<double>(p_);
    return arith::to_iters_ceil(t + v_ * v_ / 2 - v_ * std::sqrt(2 * t + v_ * v_ / 4));
  }

  iter_t p_;
  iter_t min_;
  double v_;
};

}  // namespace

technique_ptr make_tap(const loop_params& lp) { return std::make_unique<taper>(lp); }

}  // namespace selfsched::techniques
