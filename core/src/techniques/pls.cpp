// pls: performance-based loop scheduling (Shih, Yang & Tseng, J.
// Supercomputing 41, 2007): a static part, then GSS. The first p requests
// get ceil(SWR * n / p) each, SWR being the static workload ratio; the rest
// of the loop is guided self-scheduling, C = ceil(R / p). SWR = 0.5, the
// default of LB4OMP's kmp_sch_pls (the paper derives SWR from the nodes'
// performance; here that is the job of the weighting and alpha mechanisms).
// Rounded up, like GSS. N = 1000, p = 4: 125 x4, then 125, 94, 71, 53, ...
#include "arith.hpp"
#include "techniques/techniques.hpp"

namespace selfsched::techniques {
namespace {

constexpr iter_t kStaticPercent = 50;  // SWR = 0.5

class performance_based final : public technique {
 public:
  explicit performance_based(const loop_params& lp) : p_(lp.p), min_(lp.min_chunk) {
    // ceil(SWR * n / p) in 128 bits: SWR * n is exact there.
    const auto scaled = static_cast<unsigned __int128>(lp.n) * kStaticPercent;
    const auto divisor = static_cast<unsigned __int128>(100) * static_cast<unsigned __int128>(p_);
    static_chunk_ = static_cast<iter_t>((scaled + divisor - 1) / divisor);
  }

  iter_t next_size(const request& r) override {
    return r.step < p_ ? static_chunk_ : arith::ceil_div(r.remaining, p_);
  }
  // In the GSS part, once ceil(R/p) <= the minimum chunk, every chunk is it.
  iter_t constant_size_from(const request& r) const override {
    return r.step >= p_ && arith::ceil_div(r.remaining, p_) <= min_ ? min_ : 0;
  }

 private:
  iter_t p_;
  iter_t min_;
  iter_t static_chunk_ = 0;
};

}  // namespace

technique_ptr make_pls(const loop_params& lp) { return std::make_unique<performance_based>(lp); }

}  // namespace selfsched::techniques
