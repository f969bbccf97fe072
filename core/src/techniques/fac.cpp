// fac: factoring (Hummel, Schonberg & Flynn, CACM 35(8), 1992).
// Chunks come in batches of p equal chunks. At the start of batch j, with R_j
// iterations left and b_j = p * sigma / (2 * mu * sqrt(R_j)):
//   x_0 = 1 + b_0^2 + b_0 * sqrt(b_0^2 + 2)          (first batch)
//   x_j = 2 + b_j^2 + b_j * sqrt(b_j^2 + 4)   j > 0  (every later batch)
//   F_j = ceil(R_j / (x_j * p))
// The paper rounds up (ceil), so no chunk is 0 and a batch never hands out
// less than R_j / x_j. mu and sigma are loop_params.mu / .sigma (same time
// unit). With sigma = 0 (the default: no variance known) b = 0, so the first
// batch is a static split ceil(n/p) and later batches are fac2's ceil(R/2p):
// the paper's answer for uniform iterations. Without a measured sigma,
// Hummel et al. advise x = 2 throughout, which is `fss` (alias fac2).
#include <cmath>

#include "arith.hpp"
#include "techniques/techniques.hpp"

namespace selfsched::techniques {
namespace {

class factoring final : public technique {
 public:
  explicit factoring(const loop_params& lp)
      : p_(lp.p), min_(lp.min_chunk), b_scale_(lp.p * lp.sigma / (2 * lp.mu)) {}

  iter_t next_size(const request& r) override {
    if (r.step % p_ == 0) batch_size_ = batch_chunk(r);
    return batch_size_;
  }
  // F_j only shrinks from batch to batch (R_j falls, x_j grows): once a batch
  // is at the minimum, all the rest are.
  iter_t constant_size_from(const request& r) const override {
    return r.step % p_ == 0 && batch_chunk(r) <= min_ ? min_ : 0;
  }

 private:
  // Called at a batch start only, so step 0 is batch 0.
  iter_t batch_chunk(const request& r) const {
    const bool first_batch = r.step == 0;
    // sigma = 0: x is exactly 1 or 2; stay in integers (exact up to INT64_MAX).
    if (b_scale_ == 0) return arith::ceil_div(r.remaining, first_batch ? p_ : 2 * p_);
    const auto remaining = static_cast<double>(r.remaining);
    const double b = b_scale_ / std::sqrt(remaining);
    const double x = first_batch ? 1 + b * b + b * std::sqrt(b * b + 2) : 2 + b * b + b * std::sqrt(b * b + 4);
    return arith::to_iters_ceil(remaining / (x * static_cast<double>(p_)));
  }

  iter_t p_;
  iter_t min_;
  double b_scale_;  // b_j * sqrt(R_j) = p * sigma / (2 * mu)
  iter_t batch_size_ = 0;
};

}  // namespace

technique_ptr make_fac(const loop_params& lp) { return std::make_unique<factoring>(lp); }

}  // namespace selfsched::techniques
