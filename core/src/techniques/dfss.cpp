// dfss: distributed factoring self-scheduling (Han & Chronopoulos, seed 004
// sec. 3.2, Algorithm 2, alpha = 2). Work goes out in stages; at the start
// of a stage, with R iterations left, the unit is ceil(R / (alpha * A)) and
// each request gets unit * A_k, rounded down (A_k = VP_k / Q_k the
// requester's available power, A = sum VP_j). The stage ends when the powers
// served in it add up to A, i.e. when it has handed out about R / alpha
// ("the master has assigned all the work in the current stage"); the next
// one starts from what is left. Equal powers and Q = 1: p requests per
// stage, exactly fss.
//
// Scale of VP: seed 004 sec. 3.1 normalises to the slowest worker, we to the
// fastest (the request's VP); the shares A_k / A do not change, only the
// rounding of the unit. A loaded worker (Q_k > 1) serves less power per
// request, so its stage lasts a little longer. Seed 004 runs with a minimum
// chunk of 5 ("dfss,5"); the default here is the catalog's 1.
#include "arith.hpp"
#include "techniques/techniques.hpp"
#include "techniques/worker_weights.hpp"

namespace selfsched::techniques {
namespace {

constexpr double kAlpha = 2.0;

class distributed_factoring final : public technique {
 public:
  explicit distributed_factoring(const loop_params& lp) : total_power_(total_relative_power(lp)) {}

  iter_t next_size(const request& r) override {
    // A relative tolerance: the served powers are summed in request order.
    if (served_ >= total_power_ * (1 - 1e-9)) {
      unit_ = ceil_div_real(r.remaining, kAlpha * total_power_);
      served_ = 0;
    }
    const double a = available_power(r);
    served_ += a;
    return scale_floor(unit_, a);
  }

 private:
  double total_power_;
  double served_ = 1e300;  // no stage yet
  iter_t unit_ = 0;
};

}  // namespace

technique_ptr make_dfss(const loop_params& lp) { return std::make_unique<distributed_factoring>(lp); }

}  // namespace selfsched::techniques
