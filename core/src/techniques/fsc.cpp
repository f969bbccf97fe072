// fsc: fixed-size chunking (Kruskal & Weiss, IEEE TSE 11(10), 1985). The
// constant chunk that minimises the expected finishing time of n iterations
// with standard deviation sigma on p workers, each chunk costing overhead h:
//   K = (sqrt(2) n h / (sigma p sqrt(ln p)))^(2/3).
// sigma is loop_params.sigma (mu's time unit); h = overhead * mu, since
// loop_params.overhead counts mean iteration times. overhead = 0 means "not
// given" (no real chunk is free; the model would answer K -> 0, one
// iteration per chunk): fsc then takes overhead = 1, a chunk costing one
// mean iteration, as bold does. Rounded up (ceil), as the DLS library does: K >= 1
// and no more chunks than the optimum. K is capped at ceil(n/p): sigma = 0
// (the default: equal iterations) and p = 1 make K infinite, a static split.
// N = 1000, p = 4, mu = sigma = overhead = 1: K = ceil(44.84) = 45.
#include <algorithm>
#include <cmath>
#include <numbers>

#include "arith.hpp"
#include "techniques/techniques.hpp"

namespace selfsched::techniques {
namespace {

iter_t kruskal_weiss_chunk(const loop_params& lp) {
  const iter_t static_chunk = std::max<iter_t>(1, arith::ceil_div(lp.n, lp.p));
  if (lp.sigma == 0 || lp.p == 1) return static_chunk;
  const double p = lp.p;
  const double h = (lp.overhead > 0 ? lp.overhead : 1.0) * lp.mu;
  const double ratio = std::numbers::sqrt2 * static_cast<double>(lp.n) * h /
                       (lp.sigma * p * std::sqrt(std::log(p)));
  return std::clamp<iter_t>(arith::to_iters_ceil(std::pow(ratio, 2.0 / 3.0)), 1, static_chunk);
}

class fixed_size final : public technique {
 public:
  explicit fixed_size(const loop_params& lp) : size_(kruskal_weiss_chunk(lp)) {}
  iter_t next_size(const request&) override { return size_; }
  iter_t constant_size_from(const request&) const override { return size_; }

 private:
  iter_t size_;
};

}  // namespace

technique_ptr make_fsc(const loop_params& lp) { return std::make_unique<fixed_size>(lp); }

}  // namespace selfsched::techniques
