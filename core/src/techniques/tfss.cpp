// tfss: trapezoid factoring self-scheduling (Chronopoulos, Andonie, Benche &
// Grosu, IEEE Cluster 2001): TSS's chunks handed out in batches of p
// equal chunks, as in factoring. Batch j replaces TSS chunks jp .. jp+p-1 and
// gives each worker their mean. TSS is the catalog's (tss.cpp): F =
// floor(n/2p), L = the minimum chunk (default 1), N = ceil(2n/(F+L)),
// D = floor((F-L)/(N-1)), C_i = F - i*D, held at its last value >= L.
// The mean is rounded up (ceil), so a batch hands out at least the TSS
// chunks it replaces and tfss never needs more batches than TSS has steps
// / p. N = 1000, p = 4: TSS 125, 117, 109, 101 | 93, ... gives 113 x4,
// 81 x4, 49 x4, then 17 and the remaining 11.
#include <algorithm>

#include "techniques/techniques.hpp"
#include "techniques/trapezoid.hpp"

namespace selfsched::techniques {
namespace {

using wide = unsigned __int128;

class trapezoid_factoring final : public technique {
 public:
  explicit trapezoid_factoring(const loop_params& lp)
      : p_(lp.p), shape_(trapezoid::plan(lp, lp.n / (2 * iter_t{lp.p}))) {}

  iter_t next_size(const request& r) override { return batch_chunk(batch_start(r.step)); }
  // From the first batch that lies wholly in TSS's flat tail on, every chunk
  // is that tail's size.
  iter_t constant_size_from(const request& r) const override {
    const iter_t start = batch_start(r.step);
    return start >= shape_.flat_from ? batch_chunk(start) : 0;
  }

 private:
  iter_t batch_start(iter_t step) const { return step - step % p_; }

  // ceil(mean of TSS chunks a .. a+p-1) = F - floor(D * sum(min(i, K)) / p),
  // K = the trapezoid's flat_from. D * sum <= p * (F - L), so 128 bits hold it.
  iter_t batch_chunk(iter_t a) const {
    const iter_t k = shape_.flat_from;
    wide index_sum;
    if (a >= k) {
      index_sum = static_cast<wide>(p_) * static_cast<wide>(k);
    } else {
      const iter_t hi = std::min(k, a + (p_ - 1));  // a < k, so no overflow
      index_sum = (static_cast<wide>(a) + static_cast<wide>(hi)) * static_cast<wide>(hi - a + 1) / 2 +
                  static_cast<wide>(p_ - 1 - (hi - a)) * static_cast<wide>(k);
    }
    return shape_.first - static_cast<iter_t>(static_cast<wide>(shape_.decrement) * index_sum / static_cast<wide>(p_));
  }

  iter_t p_;
  trapezoid shape_;
};

}  // namespace

technique_ptr make_tfss(const loop_params& lp) { return std::make_unique<trapezoid_factoring>(lp); }

}  // namespace selfsched::techniques
