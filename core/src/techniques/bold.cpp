// bold: the Bold strategy (Hagerup, "Allocating independent tasks to parallel
// processors: an experimental study", JPDC 47, 1997), as read by LB4OMP
// (kmp_sch_bold). A factoring-like rule that hedges against the variance of
// the iterations (mu, sigma) and the cost h of a chunk, and that tracks how
// much of the handed-out work is actually done:
//   M  iterations not known to be finished (starts at n; a request from
//      worker k means k's previous chunk is finished),
//   N  estimated iterations not yet executed (starts at n; falls with time
//      at the total expected speed of the busy workers, each worker's chunk
//      running at c / (c mu + h)).
// With R left, q = R/p > 1, r = max(R, N), t = r/p and the constants
//   a = 2 (sigma/mu)^2, b = 8a ln(8a), c1 = h / (mu ln 2), c2 = sqrt(2 pi) c1,
//   c3 = ln c2,  v = q/(b + q),  d = R / (1 + 1/ln q - v):
//   K = t                                  if d <= c2,
//   K = min(t, t + s/2 - sqrt(s (t + s/4)) + max(0, c1 w))  otherwise,
//   s = a (ln d - c3)(1 + M/(r p)),  w = ln(v ln q) + ln b  (ln(ln q) if b <= 0);
// K = 1 once q <= 1. Rounded up, so that with sigma = 0 K is ceil(r/p).
// mu and sigma are loop_params.mu / .sigma; h = overhead * mu, since
// loop_params.overhead counts mean iteration times. sigma = 0 (the default)
// leaves nothing to hedge against: K = t, and the first p chunks are a static
// split, as in fac. overhead = 0 means "not given" (the model would answer
// K -> 0, one iteration per chunk): bold then takes overhead = 1, a chunk
// costing one mean iteration, as fsc does.
//
// Time is what makes bold adaptive. There is no clock in the core, so bold
// keeps a virtual one in mu's unit: worker k's request happens when its
// previous chunk ends, at that chunk's start plus its duration. The duration
// is the measured one when record() reported it, converted from seconds to
// mu's unit by the mean seconds per iteration measured so far, plus h;
// otherwise the expected c mu + h.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "arith.hpp"
#include "techniques/techniques.hpp"

namespace selfsched::techniques {
namespace {

class bold_strategy final : public technique {
 public:
  explicit bold_strategy(const loop_params& lp)
      : p_(lp.p),
        mu_(lp.mu),
        h_((lp.overhead > 0 ? lp.overhead : 1.0) * lp.mu),
        workers_(static_cast<std::size_t>(lp.p)),
        not_known_done_(static_cast<double>(lp.n)),
        not_executed_(static_cast<double>(lp.n)) {
    const double ratio = lp.sigma / lp.mu;
    a_ = 2 * ratio * ratio;
    b_ = a_ > 0 ? 8 * a_ * std::log(8 * a_) : 0;
    ln_b_ = b_ > 0 ? std::log(b_) : 0;
    c1_ = h_ / (mu_ * std::numbers::ln2);
    c2_ = std::sqrt(2 * std::numbers::pi) * c1_;
    c3_ = std::log(c2_);  // h > 0
  }

  iter_t next_size(const request& r) override {
    settle_previous_handout(r.remaining);
    const double now = finish_chunk_of(r.worker);
    const double size = chunk_for(static_cast<double>(r.remaining));
    in_flight& mine = workers_[static_cast<std::size_t>(r.worker)];
    mine.start = now;
    mine.measured = -1;
    last_worker_ = r.worker;
    last_remaining_ = r.remaining;
    return arith::to_iters_ceil(size);
  }

  void record(int worker, iter_t size, double seconds) override {
    if (worker < 0 || worker >= p_ || size <= 0 || !std::isfinite(seconds) || seconds < 0) return;
    measured_seconds_ += seconds;
    measured_iters_ += static_cast<double>(size);
    if (measured_seconds_ > 0)
      workers_[static_cast<std::size_t>(worker)].measured =
          seconds * mu_ * measured_iters_ / measured_seconds_ + h_;
  }

 private:
  struct in_flight {
    double size = 0;       // iterations of the worker's current chunk (0: idle)
    double start = 0;      // virtual time it was handed out
    double speed = 0;      // expected iterations per time unit
    double measured = -1;  // its duration from record(), < 0 if none
  };

  // The chunk handed out at the previous request is R_then - R_now (after
  // the caller's clamp and any mechanism around bold): start counting it.
  void settle_previous_handout(iter_t remaining) {
    if (last_worker_ < 0) return;
    in_flight& w = workers_[static_cast<std::size_t>(last_worker_)];
    w.size = static_cast<double>(last_remaining_ - remaining);
    w.speed = w.size / (w.size * mu_ + h_);
    total_speed_ += w.speed;
    last_worker_ = -1;
  }

  // Worker k asks, so its chunk is done: advance the clock to its end and
  // update M and N (Hagerup's monitor, as LB4OMP computes it).
  double finish_chunk_of(int worker) {
    in_flight& w = workers_[static_cast<std::size_t>(worker)];
    if (w.size <= 0) return clock_;
    const double duration = w.measured >= 0 ? w.measured : w.size * mu_ + h_;
    const double now = std::max(clock_, w.start + duration);
    // Everyone busy progressed at total_speed_ since the last event; k's
    // chunk is now fully done, not just the part credited to it so far.
    not_executed_ -= (now - clock_) * total_speed_ + w.size - (now - w.start) * w.speed;
    not_known_done_ -= w.size;
    total_speed_ = std::max(0.0, total_speed_ - w.speed);
    w = in_flight{};
    clock_ = now;
    return now;
  }

  double chunk_for(double remaining) const {
    const double q = remaining / p_;
    if (q <= 1) return 1;
    const double r = std::max(remaining, not_executed_);
    const double t = r / p_;
    if (a_ == 0) return t;
    const double ln_q = std::log(q);
    const double v = q / (b_ + q);  // b >= -1/e and q > 1: positive
    const double d = remaining / (1 + 1 / ln_q - v);
    if (d <= c2_) return t;
    const double s = a_ * (std::log(d) - c3_) * (1 + not_known_done_ / (r * p_));
    const double w = b_ > 0 ? std::log(v * ln_q) + ln_b_ : std::log(ln_q);
    // t + s/2 - sqrt(s (t + s/4)) without the cancellation: its conjugate.
    const double hedged = t * t / (t + s / 2 + std::sqrt(s * (t + s / 4)));
    return std::min(t, hedged + std::max(0.0, c1_ * w));
  }

  int p_;
  double mu_, h_;
  double a_ = 0, b_ = 0, ln_b_ = 0, c1_ = 0, c2_ = 0, c3_ = 0;
  std::vector<in_flight> workers_;
  double not_known_done_;  // M
  double not_executed_;    // N
  double total_speed_ = 0;
  double clock_ = 0;
  int last_worker_ = -1;
  iter_t last_remaining_ = 0;
  double measured_seconds_ = 0, measured_iters_ = 0;
};

}  // namespace

technique_ptr make_bold(const loop_params& lp) { return std::make_unique<bold_strategy>(lp); }

}  // namespace selfsched::techniques
