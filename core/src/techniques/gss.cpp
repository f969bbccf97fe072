// gss: guided self-scheduling, C_i = ceil(R_i / p) (Polychronopoulos & Kuck
// 1987; seed 000 sec. 2, seed 002 Table 1: 250, 188, 141, ... for N=1000, p=4).
#include "arith.hpp"
#include "techniques/techniques.hpp"

namespace selfsched::techniques {
namespace {

class guided final : public technique {
 public:
  explicit guided(const loop_params& lp) : p_(lp.p), min_(lp.min_chunk) {}
  iter_t next_size(const request& r) override { return arith::ceil_div(r.remaining, p_); }
  // Once ceil(R/p) <= min_chunk, the clamp makes every chunk min_chunk.
  iter_t constant_size_from(const request& r) const override {
    return arith::ceil_div(r.remaining, p_) <= min_ ? min_ : 0;
  }

 private:
  iter_t p_;
  iter_t min_;
};

}  // namespace

technique_ptr make_gss(const loop_params& lp) { return std::make_unique<guided>(lp); }

}  // namespace selfsched::techniques
