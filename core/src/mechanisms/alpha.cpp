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

    std::vector<int> fastest_first(static_cast<std::size_t>(lp.p));
    std::iota(fastest_first.begin(), fastest_first.end(), 0);
    std::stable_sort(fastest_first.begin(), fastest_first.end(),
                     [&](int a, int b) { return power[a] > power[b]; });
    iter_t left = part;
    for (std::size_t i = 0; i < fastest_first.size(); ++i) {
      const int w = fastest_first[i];
      const iter_t s = i + 1 == fastest_first.size()
                           ? left
                           : arith::to_iters_ceil(static_cast<double>(part) * power[w] / total);
      share_[w] = std::min(s, left);
      left -= share_[w];
    }
    dynamic_left_ = lp.n - part;
  }

  iter_t next_size(const request& r) override {
    if (iter_t& mine = share_[r.worker]; mine > 0) return take(mine);
    if (dynamic_left_ > 0) {
      request inner = r;
      inner.remaining = dynamic_left_;
      inner.step = inner_step_++;
      const iter_t size = std::min(std::max<iter_t>(1, inner_->next_size(inner)), dynamic_left_);
      dynamic_left_ -= size;
      return size;
    }
    // Only unclaimed shares are left: give the largest one away.
    return take(*std::max_element(share_.begin(), share_.end()));
  }
  void record(int worker, iter_t size, double seconds) override {
    inner_->record(worker, size, seconds);
  }

 private:
  static iter_t take(iter_t& share) { return std::exchange(share, 0); }

  technique_ptr inner_;
  std::vector<iter_t> share_;  // phase-1 iterations still reserved per worker
  iter_t dynamic_left_ = 0;
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
