// Mechanism W (Ciorba et al., seed 000 sec. 4.2, eq. 2): the chunk the
// technique would give, scaled by the requester's available power
// A_k = VP_k / Q_k. The seed writes A_k with a floor, which would make every
// power below 1 zero; its own Table 2 (VP 0.8, Q 2 -> 1250 becomes 500) uses
// the real quotient, and so do we, rounding the chunk down (Table 2's W-GSS
// column rounds down too). A technique may answer for itself
// (technique::weighted_size): tss takes A_k units of its trapezoid.
// An upper threshold bounds the technique's chunk before W scales it, as in
// seed 000 sec. 6 (bounds "on the size of the chunks given by the
// self-scheduling algorithms"); bounding after W would give a slow worker
// the same capped chunk as a fast one and cancel W.
#include <algorithm>

#include "arith.hpp"
#include "mechanisms/mechanisms.hpp"

namespace selfsched::mechanisms {
namespace {

class weighted final : public technique {
 public:
  weighted(technique_ptr inner, iter_t max_chunk) : inner_(std::move(inner)), max_chunk_(max_chunk) {}

  iter_t next_size(const request& r) override {
    // available <= 1 (VP_k relative to the fastest, Q_k >= 1): W only shrinks.
    const double available = std::min(1.0, r.power / std::max(1.0, r.queue));
    if (const iter_t own = inner_->weighted_size(r, available); own > 0)
      return max_chunk_ > 0 ? std::min(own, scale(max_chunk_, available)) : own;
    const iter_t base = inner_->next_size(r);
    return scale(max_chunk_ > 0 ? std::min(base, max_chunk_) : base, available);
  }
  void record(int worker, iter_t size, double seconds) override {
    inner_->record(worker, size, seconds);
  }

 private:
  // floor(size * available), at least 1; above 2^53 the product in double
  // may round up: never past size.
  static iter_t scale(iter_t size, double available) {
    if (available >= 1.0) return size;
    const iter_t scaled = arith::to_iters_floor(static_cast<double>(size) * available);
    return std::clamp<iter_t>(scaled, 1, std::max<iter_t>(1, size));
  }

  technique_ptr inner_;
  iter_t max_chunk_;  // the upper threshold bounds the technique's chunk, before W scales it
};

}  // namespace

technique_ptr weighting(technique_ptr inner, iter_t max_chunk) {
  return std::make_unique<weighted>(std::move(inner), max_chunk);
}

}  // namespace selfsched::mechanisms
