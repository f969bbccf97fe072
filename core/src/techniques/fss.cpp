// fss (alias fac2): factoring with alpha = 2 (Hummel, Schonberg & Flynn 1992;
// seed 000 sec. 2). Batches of p equal chunks; each batch hands out half of
// what remains: C = ceil(R_batch / 2p). Seed 003 Table 1 (205 x5, 103 x5, ...
// for n = 2048, p = 5) and seed 002 Table 1 follow this rule.
#include "arith.hpp"
#include "techniques/techniques.hpp"

namespace selfsched::techniques {
namespace {

class factoring2 final : public technique {
 public:
  explicit factoring2(const loop_params& lp) : p_(lp.p), min_(lp.min_chunk) {}

  iter_t next_size(const request& r) override {
    if (r.step % p_ == 0) batch_size_ = arith::ceil_div(r.remaining, 2 * p_);
    return batch_size_;
  }
  // Batches only shrink: once one is at the minimum, all the rest are.
  iter_t constant_size_from(const request& r) const override {
    return r.step % p_ == 0 && arith::ceil_div(r.remaining, 2 * p_) <= min_ ? min_ : 0;
  }

 private:
  iter_t p_;
  iter_t min_;
  iter_t batch_size_ = 0;
};

}  // namespace

technique_ptr make_fss(const loop_params& lp) { return std::make_unique<factoring2>(lp); }

}  // namespace selfsched::techniques
