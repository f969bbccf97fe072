// dtss: distributed trapezoid self-scheduling (Chronopoulos et al. 2001;
// seed 000 sec. 2, seed 004 sec. 3.2 Algorithm 1).
//
// TSS's trapezoid planned for the total power A = sum VP_j instead of p
// workers: F = floor(n / 2A), L = 1 (the minimum chunk), N = ceil(2n / (F+L)),
// D = floor((F - L) / (N - 1)), with seed 004's floors (tss.cpp has the
// same). A request of available power A_k = VP_k / Q_k takes the next A_k
// "units" of the trapezoid at once; S, the units already taken by earlier
// requests (S_{k-1} of seed 000), advances by A_k. Seed 004's loop adds
// V_j consecutive TSS chunks; seed 000's closed form of that sum, which also
// serves a fractional A_k, is
//     C = A_k * (F - D * (S + (A_k - 1) / 2)),   rounded down.
// Like tss, a unit never drops below F - floor((F - L) / D) * D (>= L), and
// the last chunk takes what is left. Equal powers and Q = 1: exactly tss.
//
// Scale of VP: seed 004 sec. 3.1 normalises to the slowest worker (V_j >= 1,
// whole units); we use the request's VP relative to the fastest (seed 000),
// so slower workers take fractions of a unit. The share A_k / A and the
// trapezoid's length in requests (about 4p) are the same on both scales;
// only the (A_k - 1) / 2 centring differs by a fraction of D.
//
// A is fixed when the loop starts, with every Q_k = 1 (the core learns Q_k
// only with each request, and re-planning F, N, D mid-loop would break the
// trapezoid): a loaded worker takes A_k = VP_k / Q_k units, so its chunks
// shrink and the trapezoid lasts longer. Seed 004 runs with a minimum chunk
// of 5 ("dtss,5"); the default here is the catalog's 1.
#include <cmath>

#include "arith.hpp"
#include "techniques/techniques.hpp"
#include "techniques/trapezoid.hpp"
#include "techniques/worker_weights.hpp"

namespace selfsched::techniques {
namespace {

class distributed_trapezoid final : public technique {
 public:
  explicit distributed_trapezoid(const loop_params& lp) {
    const double total_power = total_relative_power(lp);
    // floor(n / 2A), by integer division when A is whole (equal powers: tss's F).
    const bool whole = total_power == std::floor(total_power) && total_power < 1e18;
    const iter_t planned = whole ? lp.n / (2 * static_cast<iter_t>(total_power))
                                 : arith::to_iters_floor(static_cast<double>(lp.n) / (2 * total_power));
    shape_ = trapezoid::plan(lp, planned);
  }

  iter_t next_size(const request& r) override { return shape_.take_units(units_taken_, available_power(r)); }

 private:
  trapezoid shape_;
  double units_taken_ = 0;  // S: units handed out so far
};

}  // namespace

technique_ptr make_dtss(const loop_params& lp) { return std::make_unique<distributed_trapezoid>(lp); }

}  // namespace selfsched::techniques
