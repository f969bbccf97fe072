// dgss: distributed guided self-scheduling (Han & Chronopoulos, seed 004
// sec. 3.2, Algorithm 3): C = ceil(R / A) * A_k, rounded down, where
// A_k = VP_k / Q_k is the requester's available power and A = sum VP_j.
//
// Scale of VP: seed 004 sec. 3.1 normalises to the slowest worker (V_j >= 1);
// we use the request's VP relative to the fastest (seed 000). The share
// A_k / A is the same on either scale; only the rounding of ceil(R / A)
// differs. Equal powers and Q = 1: exactly gss. Seed 004 runs with a minimum
// chunk of 5 ("dgss,5"); the default here is the catalog's 1.
#include "arith.hpp"
#include "techniques/techniques.hpp"
#include "techniques/worker_weights.hpp"

namespace selfsched::techniques {
namespace {

class distributed_guided final : public technique {
 public:
  explicit distributed_guided(const loop_params& lp) : total_power_(total_relative_power(lp)) {}

  iter_t next_size(const request& r) override {
    return scale_floor(ceil_div_real(r.remaining, total_power_), available_power(r));
  }

 private:
  double total_power_;
};

}  // namespace

technique_ptr make_dgss(const loop_params& lp) { return std::make_unique<distributed_guided>(lp); }

}  // namespace selfsched::techniques
