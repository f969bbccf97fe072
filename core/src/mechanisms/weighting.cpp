// Mechanism W (Ciorba et al., seed 000 sec. 4.2, eq. 2): the chunk the
// technique would give, scaled by the requester's available power
// A_k = VP_k / Q_k. The seed writes A_k with a floor, which would make every
// power below 1 zero; its own Table 2 (VP 0.8, Q 2 -> 1250 becomes 500) uses
// the real quotient, and so do we, rounding the chunk down (Table 2's W-GSS
// column rounds down too). A technique may answer for itself
// (technique::weighted_size): tss takes A_k units of its trapezoid.
#include <algorithm>

#include "arith.hpp"
#include "mechanisms/mechanisms.hpp"

namespace selfsched::mechanisms {
namespace {

class weighted final : public technique {
 public:
  explicit weighted(technique_ptr inner) : inner_(std::move(inner)) {}

  iter_t next_size(const request& r) override {
    // available <= 1 (VP_k relative to the fastest, Q_k >= 1): W only shrinks.
    const double available = std::min(1.0, r.power / std::max(1.0, r.queue));
    if (const iter_t own = inner_->weighted_size(r, available); own > 0) return own;
    const iter_t base = inner_->next_size(r);
    // Above 2^53 the product in double may round up; never past the base.
    if (available >= 1.0) return base;
    const iter_t weighted_size = arith::to_iters_floor(static_cast<double>(base) * available);
    return std::clamp<iter_t>(weighted_size, 1, std::max<iter_t>(1, base));
  }
  void record(int worker, iter_t size, double seconds) override {
    inner_->record(worker, size, seconds);
  }

 private:
  technique_ptr inner_;
};

}  // namespace

technique_ptr weighting(technique_ptr inner) { return std::make_unique<weighted>(std::move(inner)); }

}  // namespace selfsched::mechanisms
