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
// Given the loop's work (loop_params::work_prefix), phase 1 is alpha % of the
// work instead (seed 003 sec. 3.2: x, the iteration where the accumulated
// work reaches alpha %), each worker's share part * VP_j / VP of it, cut from
// wherever the share starts when its worker asks.
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
      : share_(static_cast<std::size_t>(lp.p), 0), n_(lp.n), work_(lp.work_prefix) {
    iter_t part = std::min(lp.n, static_cast<iter_t>(std::ceil(
                                     static_cast<long double>(lp.n) * alpha_percent / 100.0L)));
    double part_work = 0;
    if (work_ != nullptr) {
      part_work = (work_->back() - work_->front()) * alpha_percent / 100.0;
      part = std::min(lp.n, first_reaching(0, part_work));
    }
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
    if (work_ != nullptr) {
      share_work_.resize(share_.size());
      for (std::size_t w = 0; w < share_.size(); ++w)
        share_work_[w] = share_[w] > 0 ? part_work * power[w] / total : 0;
    }
  }

  iter_t next_size(const request& r) override {
    if (share_[r.worker] > 0) return take(r, r.worker);
    if (const iter_t pool = r.remaining - reserved_; pool > 0) {
      request inner = r;
      inner.remaining = pool;
      inner.step = inner_step_++;
      return std::clamp<iter_t>(inner_->next_size(inner), 1, pool);
    }
    // Only unclaimed shares are left (reserved_ > 0): give them away, the
    // fastest worker's (the largest) first; the cursor only moves forward.
    while (share_[fastest_first_[unclaimed_]] == 0) ++unclaimed_;
    return take(r, fastest_first_[unclaimed_]);
  }
  void record(int worker, iter_t size, double seconds) override {
    inner_->record(worker, size, seconds);
  }

 private:
  // Worker w's phase-1 share, handed out now. By work, its iterations are
  // those from the request's start that carry the share's work, and what
  // stays reserved for the others is their planned iterations (all of them
  // once no share is left).
  iter_t take(const request& r, int worker) {
    const auto w = static_cast<std::size_t>(worker);
    iter_t size = std::exchange(share_[w], 0);
    if (work_ != nullptr) {
      const iter_t start = n_ - r.remaining;
      size = std::max<iter_t>(1, first_reaching(start, std::exchange(share_work_[w], 0)) - start);
      if (std::all_of(share_.begin(), share_.end(), [](iter_t s) { return s == 0; })) {
        reserved_ = 0;
        return size;
      }
    }
    reserved_ = std::max<iter_t>(0, reserved_ - size);
    return size;
  }

  // The first iteration e >= from whose work since `from` reaches `work`.
  iter_t first_reaching(iter_t from, double work) const {
    const auto begin = work_->begin() + from;
    return std::lower_bound(begin, work_->end(), *begin + work) - work_->begin();
  }

  technique_ptr inner_;
  std::vector<iter_t> share_;       // phase-1 iterations still reserved per worker
  std::vector<int> fastest_first_;  // workers by decreasing power
  std::size_t unclaimed_ = 0;       // no share before this index of fastest_first_ is left
  iter_t reserved_ = 0;             // phase-1 iterations not yet handed out: sum of share_
  iter_t inner_step_ = 0;
  iter_t n_ = 0;
  const std::vector<double>* work_ = nullptr;  // loop_params::work_prefix: shares by work
  std::vector<double> share_work_;             // with work_: phase-1 work still reserved per worker
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
