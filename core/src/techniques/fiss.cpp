// fiss: fixed increase self-scheduling (Philip & Das, PDCS 1997). The loop
// is scheduled in B stages of p equal chunks; the chunk grows by a fixed
// increment A from stage to stage, chosen so that the B stages cover n:
//   X = B + 2,  K_0 = n / (X p),  A = 2n (1 - B/X) / (p B (B - 1)),
//   K_i = K_0 + i A  (stage i = step / p).
// Default B = max(2, ceil(log2(n/p))): about as many chunks as factoring
// (fac2), the rule mfsc uses to replace fsc's parameters; at least 2 because
// A divides by B - 1. (LB4OMP's default, p - 1, gives p^2 chunks: 16.7
// million at p = 4096, too many for a chunk_plan.) Rounding: K_i = floor(n
// (B(B-1) + 4i) / (X p B (B-1))), the exact K_0 + i A rounded down once.
// LB4OMP floors K_0 and A separately, which loses the increase whenever
// A < 1; a single floor keeps it. Iterations the floors leave after stage
// B-1 go to further stages, still growing: about B p chunks in B + 1
// runs. N = 1000, p = 4: B = 8, K_0 = 25,
// A = 1.79: 25 x4, 26 x4, 28 x4, 30 x4, ..., 37 x4, then the 16 left.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>

#include "arith.hpp"
#include "techniques/techniques.hpp"

namespace selfsched::techniques {
namespace {

using wide = unsigned __int128;

class fixed_increase final : public technique {
 public:
  explicit fixed_increase(const loop_params& lp) : n_(lp.n), p_(lp.p), max_(lp.max_chunk) {
    // ceil(log2(T)) = bit_width(T - 1) for T = ceil(n/p) >= 1.
    const auto per_worker = static_cast<std::uint64_t>(std::max<iter_t>(1, arith::ceil_div(n_, p_)));
    const wide stages = std::max<std::uint64_t>(2, std::bit_width(per_worker - 1));
    base_ = stages * (stages - 1);                                // B(B-1) < 2^12
    denominator_ = (stages + 2) * static_cast<wide>(p_) * base_;  // X p B(B-1) < 2^50
  }

  iter_t next_size(const request& r) override { return stage_chunk(r.step / p_); }
  // Chunks only grow, so there is no constant tail, except that once a chunk
  // reaches the maximum chunk (if set) every later one is clamped to it.
  iter_t constant_size_from(const request& r) const override {
    return max_ > 0 && stage_chunk(r.step / p_) >= max_ ? max_ : 0;
  }

 private:
  iter_t stage_chunk(iter_t stage) const {
    const wide growth = base_ + 4 * static_cast<wide>(stage);  // B(B-1) + 4i < 2^66
    wide numerator;
    // The loop ends long before the product could overflow (i stays near
    // B); saturate rather than wrap, should anyone ask that far.
    if (__builtin_mul_overflow(static_cast<wide>(n_), growth, &numerator))
      return std::numeric_limits<iter_t>::max();
    const wide size = numerator / denominator_;
    return size > static_cast<wide>(std::numeric_limits<iter_t>::max()) ? std::numeric_limits<iter_t>::max()
                                                                         : static_cast<iter_t>(size);
  }

  iter_t n_;
  iter_t p_;
  iter_t max_;
  wide base_ = 0;
  wide denominator_ = 1;
};

}  // namespace

technique_ptr make_fiss(const loop_params& lp) { return std::make_unique<fixed_increase>(lp); }

}  // namespace selfsched::techniques
