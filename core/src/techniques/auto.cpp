// auto: the chunk rule of auto_tuning.hpp. The rule itself is shared by every
// binding; this file also holds the sequential technique, which keeps one
// estimate per worker and learns from record().
#include "selfsched/core/auto_tuning.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "arith.hpp"
#include "techniques/techniques.hpp"
#include "techniques/worker_weights.hpp"

namespace selfsched {

void auto_estimate::record_chunk(iter_t size, double seconds) {
  if (size <= 0 || !techniques::usable_time(seconds)) return;
  busy_seconds = fade * busy_seconds + seconds;
  iterations = fade * iterations + static_cast<double>(size);
}

void auto_estimate::record_claim(double seconds) {
  if (!techniques::usable_time(seconds)) return;
  claim_seconds = claim_seconds == 0 ? seconds : claim_fade * claim_seconds + (1 - claim_fade) * seconds;
}

auto_estimate auto_estimate::for_next_instance() const {
  auto_estimate next = *this;
  next.last_size = std::max(largest_size, last_size) >> auto_tuning::restart_doublings;
  next.largest_size = 0;
  return next;
}

iter_t auto_tuning::next_size(const auto_estimate& me, iter_t remaining, double team_rate, iter_t min_chunk) {
  min_chunk = std::max<iter_t>(min_chunk, 1);
  const double t = me.seconds_per_iteration();
  if (t <= 0 || me.last_size <= 0) return std::max(min_chunk, me.last_size);
  const double claim = std::max(me.claim_seconds, least_claim_seconds);
  const double overhead_bound = claim / (claim_share * t);
  // Unknown team rate (nothing claimed yet): this worker's share of the
  // remainder is not known either, so the balance bound stays at the minimum.
  const double balance_bound =
      team_rate > 0 && std::isfinite(team_rate) ? static_cast<double>(remaining) / (factor * team_rate * t) : 0;
  // The ramp doubles, and may jump towards the overhead bound (a chunk the
  // claim is claim_share of: 20 us of work at the least claim cost), but by
  // at most `jump` at once: the first chunk's time may be one cheap
  // iteration's, and a contended claim reads long.
  const double last = static_cast<double>(me.last_size);
  const double ramp_bound = std::max(growth * last, std::min(overhead_bound, jump * last));
  const double wanted = std::min(balance_bound, ramp_bound);
  return std::max(min_chunk, arith::to_iters_ceil(wanted));
}

namespace techniques {
namespace {

// For a sequential caller, which measures no claims (the rule's least claim
// cost stands for them): the team's rate is the sum of the workers'
// measured rates; a worker without one yet counts at the requester's. The
// sum is kept as records come (O(1) per request), re-added from scratch
// every p records so that rounding cannot drift.
class auto_technique final : public technique {
 public:
  explicit auto_technique(const loop_params& lp)
      : workers_(static_cast<std::size_t>(lp.p)), min_chunk_(lp.min_chunk) {}

  iter_t next_size(const request& r) override {
    auto_estimate& me = workers_[static_cast<std::size_t>(r.worker)];
    const double mine = me.seconds_per_iteration();
    const double team_rate =
        mine > 0 ? rate_sum_ + static_cast<double>(workers_.size() - measured_) / mine : 0;
    const iter_t size = std::min(auto_tuning::next_size(me, r.remaining, team_rate, min_chunk_), r.remaining);
    me.record_size(size);
    return size;
  }

  void record(int worker, iter_t size, double seconds) override {
    auto_estimate& w = workers_[static_cast<std::size_t>(worker)];
    const double before = w.seconds_per_iteration();
    w.record_chunk(size, seconds);
    const double after = w.seconds_per_iteration();
    if (after <= 0) return;
    if (before > 0) rate_sum_ -= 1 / before; else ++measured_;
    rate_sum_ += 1 / after;
    if (++records_ % workers_.size() == 0) {
      rate_sum_ = 0;
      for (const auto_estimate& e : workers_)
        if (const double t = e.seconds_per_iteration(); t > 0) rate_sum_ += 1 / t;
    }
  }

 private:
  std::vector<auto_estimate> workers_;
  iter_t min_chunk_;
  double rate_sum_ = 0;   // iterations per second of the measured workers
  std::size_t measured_ = 0;
  std::size_t records_ = 0;
};

}  // namespace

technique_ptr make_auto(const loop_params& lp) { return std::make_unique<auto_technique>(lp); }

}  // namespace techniques
}  // namespace selfsched
