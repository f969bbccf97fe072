// wf: weighted factoring (Hummel, Schmidt, Uma & Wein 1996; seed 000 sec. 1).
// Factoring's batches of p chunks: at the start of each batch (i mod p = 0)
// base = ceil(R / 2p), as in fss; worker k's chunk is ceil(w_k * base) with
// w_k = p * A_k / A, its available power A_k = VP_k / Q_k over the total
// A = sum VP_j (weights normalised to sum p). Equal powers and Q = 1 give
// w_k = 1: exactly fss. Unlike dfss, a batch ends after p chunks whoever
// asked for them.
#include "arith.hpp"
#include "techniques/techniques.hpp"
#include "techniques/worker_weights.hpp"

namespace selfsched::techniques {
namespace {

class weighted_factoring final : public technique {
 public:
  explicit weighted_factoring(const loop_params& lp) : p_(lp.p), total_power_(total_relative_power(lp)) {}

  iter_t next_size(const request& r) override {
    if (r.step % p_ == 0) batch_base_ = arith::ceil_div(r.remaining, 2 * p_);
    return scale_ceil(batch_base_, static_cast<double>(p_) * available_power(r) / total_power_);
  }

 private:
  iter_t p_;
  double total_power_;
  iter_t batch_base_ = 0;
};

}  // namespace

technique_ptr make_wf(const loop_params& lp) { return std::make_unique<weighted_factoring>(lp); }

}  // namespace selfsched::techniques
