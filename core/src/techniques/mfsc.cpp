// mfsc: modified fixed-size chunking (Carino & Banicescu's DLS library; LB4OMP,
// Korndoerfer et al., TPDS 2021): fsc without profiling. The constant chunk
// is chosen so that the loop has as many chunks as factoring (fac2), about
// p log2(n/p): with T = ceil(n/p),
//   K = floor(0.55 + T ln 2 / ln T)   (T / K = log2 T chunks per worker).
// The 0.55 (rounding to nearest, slightly up) is the DLS library's and
// LB4OMP's. T <= 2 gives K = T (ln 1 = 0 has no quotient). No parameters.
// N = 1000, p = 4: T = 250, K = floor(0.55 + 31.38) = 31.
#include <algorithm>
#include <cmath>
#include <numbers>

#include "arith.hpp"
#include "techniques/techniques.hpp"

namespace selfsched::techniques {
namespace {

iter_t modified_fixed_chunk(iter_t n, int p) {
  const iter_t per_worker = arith::ceil_div(n, p);
  if (per_worker <= 2) return std::max<iter_t>(1, per_worker);
  const auto t = static_cast<double>(per_worker);
  return arith::to_iters_floor(0.55 + t * std::numbers::ln2 / std::log(t));
}

class modified_fixed_size final : public technique {
 public:
  explicit modified_fixed_size(const loop_params& lp) : size_(modified_fixed_chunk(lp.n, lp.p)) {}
  iter_t next_size(const request&) override { return size_; }
  iter_t constant_size_from(const request&) const override { return size_; }

 private:
  iter_t size_;
};

}  // namespace

technique_ptr make_mfsc(const loop_params& lp) { return std::make_unique<modified_fixed_size>(lp); }

}  // namespace selfsched::techniques
