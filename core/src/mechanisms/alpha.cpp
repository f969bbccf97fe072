// Two-phase alpha self-scheduling (Yang & Chang, seed 002 sec. 3; Yang,
// Cheng & Li, seed 003 sec. 3.1).
//
// Phase 1: ceil(alpha% of n) iterations are split by worker speed, fastest
// first, each share ceil(part * VP_j / VP), the last share taking the rest of
// the part. A worker's first request gets its own share. Phase 2: the inner
// technique schedules the remaining iterations with all p workers, counting
// its own steps from 0 (seed 003 Table 1: GSS-80 gives 923, 328, 144, 123,
// 121, then GSS of the remaining 409: 82, 66, ...).
//
// A share whose worker never asks (a team smaller than planned) is handed to
// whoever asks once phase 2 is exhausted, so the loop always completes.
//
// Phase 2's pool is what is left minus the shares still reserved, read from
// the request's R, not counted here: the caller may hand out more or less
// than asked (minimum and maximum chunk, W around this mechanism), and a
// private count would then drift and end the loop in chunks of one.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

#include "arith.hpp"
#include "mechanisms/mechanisms.hpp"

namespace selfsched::mechanisms {
namespace {

class two_phase final : public technique {
 public:
  two_phase(const technique_info& base, const loop_params& lp, int alpha_percent)
      : share_(static_cast<std::size_t>(lp.p), 0) {
    const auto part = std::min(lp.n, static_cast<iter_t>(std::ceil(
                                         static_cast<long double>(lp.n) * alpha_percent / 100.0L)));
    loop_params rest = lp;
    rest.n = lp.n - part;
    inner_ = base.make(rest);
    std::vector<double> power(static_cast<std::size_t>(lp.p), 1.0);
    if (!lp.powers.empty()) power = lp.powers;
    const double total = std::accumulate(power.begin(), power.end(), 0.0);

    fastest_first_.resize(static_cast<std::size_t>(lp.p));
    std::iota(fastest_first_.begin(), fastest_first_.end(), 0);
    std::stable_sort(fastest_first_.begin(), fastest_first_.end(),
                     [&](int a, int b) { return power[a] > power[b]; });
    iter_t left = part;
    for (std::size_t i = 0; i < fastest_first_.size(); ++i) {
      const int w = fastest_first_[i];
      const iter_t s = i + 1 == fastest_first_.size()
                           ? left
                           : arith::to_iters_ceil(static_cast<double>(part) * power[w] / total);
      share_[w] = std::min(s, left);
      left -= share_[w];
    }
    reserved_ = part;
  }

  iter_t next_size(const request& r) override {
    if (iter_t& mine = share_[r.worker]; mine > 0) return take(mine);
    if (const iter_t pool = r.remaining - reserved_; pool > 0) {
      request inner = r;
      inner.remaining = pool;
      inner.step = inner_step_++;
      return std::clamp<iter_t>(inner_->next_size(inner), 1, pool);
    }
    // Only unclaimed shares are left (reserved_ > 0): give them away, the
    // fastest worker's (the largest) first; the cursor only moves forward.
    while (share_[fastest_first_[unclaimed_]] == 0) ++unclaimed_;
    return take(share_[fastest_first_[unclaimed_]]);
  }
  void record(int worker, iter_t size, double seconds) override {
    inner_->record(worker, size, seconds);
  }

 private:
  iter_t take(iter_t& share) {
    reserved_ -= share;
    return std::exchange(share, 0);
  }

  technique_ptr inner_;
  std::vector<iter_t> share_;       // phase-1 iterations still reserved per worker
  std::vector<int> fastest_first_;  // workers by decreasing power
  std::size_t unclaimed_ = 0;       // no share before this index of fastest_first_ is left
  iter_t reserved_ = 0;             // phase-1 iterations not yet handed out: sum of share_
  iter_t inner_step_ = 0;
};

}  // namespace

technique_ptr two_phase_alpha(const technique_info& base, const loop_params& lp, int alpha_percent) {
  return std::make_unique<two_phase>(base, lp, alpha_percent);
}

int alpha_from_heterogeneity(const loop_params& lp, int alpha_candidate) {
  if (lp.powers.empty()) return 100;
  const auto [lo, hi] = std::minmax_element(lp.powers.begin(), lp.powers.end());
  const double heterogeneity_ratio = *lo / *hi;  // HR = min / max (seed 003, step 1)
  return heterogeneity_ratio >= alpha_candidate / 100.0 ? 100 : alpha_candidate;
}

}  // namespace selfsched::mechanisms
