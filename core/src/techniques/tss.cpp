// tss: trapezoid self-scheduling (Tzen & Ni 1993; seed 000 sec. 2).
// F = floor(n / 2p) (at most the maximum chunk), L = 1 (or the minimum
// chunk), the trapezoid of trapezoid.hpp; the last chunk takes whatever is
// left.
//
// Under W (w-tss, seed 000 Table 1: "new notation for DTSS") a request of
// power A_k takes A_k units of the trapezoid, as in DTSS, instead of a whole
// step scaled by A_k: scaling alone would leave what W withholds from slow
// workers for the end of the loop, handed out at L (seed 000 Table 2's W-TSS
// column advances by A_k: its third chunk is 0.4 (1250 - 78 * 1.7) = 446).
#include "techniques/techniques.hpp"
#include "techniques/trapezoid.hpp"

namespace selfsched::techniques {
namespace {

class trapezoid_self_scheduling final : public technique {
 public:
  explicit trapezoid_self_scheduling(const loop_params& lp)
      : shape_(trapezoid::plan(lp, lp.n / (2 * iter_t{lp.p}))) {}

  iter_t next_size(const request& r) override { return shape_.size_at(r.step); }
  iter_t constant_size_from(const request& r) const override {
    return r.step >= shape_.flat_from ? shape_.size_at(r.step) : 0;
  }
  iter_t weighted_size(const request& /*r*/, double available) override {
    return shape_.take_units(units_taken_, available);
  }

 private:
  trapezoid shape_;
  double units_taken_ = 0;  // under W: S, the units handed out so far
};

}  // namespace

technique_ptr make_tss(const loop_params& lp) { return std::make_unique<trapezoid_self_scheduling>(lp); }

}  // namespace selfsched::techniques
