// tss: trapezoid self-scheduling (Tzen & Ni 1993; seed 000 sec. 2).
// F = floor(n / 2p), L = 1 (or the minimum chunk), N = ceil(2n / (F + L))
// steps, D = floor((F - L) / (N - 1)); C_i = F - i*D, never below L, and the
// last chunk takes whatever is left. The floors follow seed 003 Table 1
// (204, 194, ..., 64, 38 for n = 2048, p = 5), which also matches seed 002.
#include <algorithm>

#include "arith.hpp"
#include "techniques/techniques.hpp"

namespace selfsched::techniques {
namespace {

class trapezoid final : public technique {
 public:
  explicit trapezoid(const loop_params& lp) {
    last_ = std::max<iter_t>(1, lp.min_chunk);
    first_ = std::max(last_, lp.n / (2 * iter_t{lp.p}));
    // N = ceil(2n / (F + L)), in 128 bits: F + L and 2n may pass INT64_MAX.
    const unsigned __int128 f_plus_l = static_cast<unsigned __int128>(first_) + last_;
    const auto steps = static_cast<iter_t>((2 * static_cast<unsigned __int128>(lp.n) + f_plus_l - 1) / f_plus_l);
    decrement_ = steps > 1 ? (first_ - last_) / (steps - 1) : 0;
    flat_from_ = decrement_ > 0 ? (first_ - last_) / decrement_ : 0;
  }

  iter_t next_size(const request& r) override { return size_at(r.step); }
  iter_t constant_size_from(const request& r) const override {
    return r.step >= flat_from_ ? size_at(r.step) : 0;
  }

 private:
  // F - i*D, computed without overflow: from step flat_from_ on it stays put.
  iter_t size_at(iter_t step) const { return first_ - std::min(step, flat_from_) * decrement_; }

  iter_t first_ = 1, last_ = 1, decrement_ = 0, flat_from_ = 0;
};

}  // namespace

technique_ptr make_tss(const loop_params& lp) { return std::make_unique<trapezoid>(lp); }

}  // namespace selfsched::techniques
