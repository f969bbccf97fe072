// awf, awf-b, awf-c, awf-d, awf-e: adaptive weighted factoring.
//
// All five hand out weighted factoring chunks, ceil(w_k * base) with
// base = ceil(R / 2p) and weights w_k (summing to p) that follow the
// workers' measured speeds; they differ in when the weights are learned.
//
// awf (Banicescu, Velusamy & Devaprasad 2003) is for time-stepping codes:
//   during a loop instance the weights are fixed and the chunks are wf's
//   (batches of p); between instances they are learned. With T_kj, N_kj the
//   busy seconds and iterations of worker k in instance j,
//   pi_k = sum_j j*T_kj / sum_j j*N_kj, and w_k is proportional to 1 / pi_k.
//   The sums live in the caller's adaptive_history (loop_params::history):
//   without one, every instance is the first, and awf is wf with the powers.
// awf-b, awf-c (Carino & Banicescu 2008) also learn during the instance,
//   from each worker's finished chunks, its c-th chunk counting c times:
//   pi_k = sum_c c*t_kc / sum_c c*n_kc. A worker with no measured chunk
//   keeps its initial weight; the K measured ones get
//   w_k = K * (1/pi_k) / sum_measured (1/pi_j).
//   awf-b keeps fss's batches (base fixed for p requests) and updates the
//   weights once per batch: what is measured during a batch counts from the
//   next one on. awf-c updates them after every chunk and recomputes base
//   from R at every request.
// awf-d, awf-e are awf-b and awf-c with the scheduling overhead in the
//   chunk times (t + h). The core has no clock: h is loop_params::overhead,
//   in units of the mean iteration time (as for fac), turned into seconds
//   with the mean iteration time measured so far. Default h = 0, which makes
//   them awf-b and awf-c; a binding that measures its dispatch cost sets it.
//
// Initial weights: learned in earlier instances (history), else the powers,
// else equal. Every variant adds its records to the history, so the next
// instance starts with what this one learned. Per request the work is O(1):
// record() keeps the sum of the measured speeds, re-added from scratch every
// p records so that rounding cannot drift.
#include <cmath>
#include <vector>

#include "arith.hpp"
#include "techniques/techniques.hpp"
#include "techniques/worker_weights.hpp"

namespace selfsched::techniques {
namespace {

struct variant {
  bool learns_in_loop;  // awf-b..e; awf learns between instances only
  bool per_batch;       // base and weights fixed for a batch of p requests
  bool with_overhead;   // awf-d, awf-e
};

class adaptive_weighted_factoring final : public technique {
 public:
  adaptive_weighted_factoring(const loop_params& lp, variant v)
      : v_(v),
        p_(lp.p),
        history_(begin_instance(lp)),
        initial_(initial_weights(lp, history_)),
        overhead_in_iterations_(lp.overhead / lp.mu) {
    if (v_.learns_in_loop) workers_.resize(static_cast<std::size_t>(lp.p));
  }

  iter_t next_size(const request& r) override {
    const bool batch_start = r.step % p_ == 0;
    if (batch_start) {
      ++batch_;
      frozen_speed_sum_ = speed_sum_;
      frozen_measured_ = measured_;
    }
    if (batch_start || !v_.per_batch) base_ = arith::ceil_div(r.remaining, 2 * p_);
    return scale_ceil(base_, weight(r.worker));
  }

  void record(int worker, iter_t size, double seconds) override {
    if (!usable_time(seconds) || size <= 0) return;
    if (v_.with_overhead) {
      all_seconds_ += seconds;
      all_iterations_ += static_cast<double>(size);
      seconds += overhead_in_iterations_ * all_seconds_ / all_iterations_;
    }
    add_to_history(history_, worker, size, seconds);
    if (!v_.learns_in_loop) return;

    rate& w = workers_[static_cast<std::size_t>(worker)];
    if (v_.per_batch && w.batch != batch_) {  // first change in this batch
      w.speed_at_batch_start = w.speed;
      w.batch = batch_;
    }
    const double c = static_cast<double>(++w.chunks);
    w.seconds += c * seconds;
    w.iterations += c * static_cast<double>(size);
    set_speed(w, w.iterations / w.seconds);
    if (++records_ % p_ == 0) resum();
  }

 private:
  struct rate {
    double seconds = 0, iterations = 0;  // sum_c c*t_c, sum_c c*n_c
    double speed = 0;                    // 1 / pi; 0: not measured
    iter_t chunks = 0;
    double speed_at_batch_start = 0;  // awf-b, awf-d: valid when batch is the current one
    iter_t batch = 0;
  };

  double weight(int worker) const {
    const auto k = static_cast<std::size_t>(worker);
    if (!v_.learns_in_loop) return initial_[k];
    const rate& w = workers_[k];
    const bool frozen = v_.per_batch;
    const double speed = frozen && w.batch == batch_ ? w.speed_at_batch_start : w.speed;
    if (speed == 0) return initial_[k];
    return speed * static_cast<double>(frozen ? frozen_measured_ : measured_) /
           (frozen ? frozen_speed_sum_ : speed_sum_);
  }

  void set_speed(rate& w, double speed) {
    if (!(std::isfinite(speed) && speed > 0)) speed = 0;
    if (w.speed > 0) {
      speed_sum_ -= w.speed;
      --measured_;
    }
    if (speed > 0) {
      speed_sum_ += speed;
      ++measured_;
    }
    w.speed = speed;
  }

  void resum() {
    speed_sum_ = 0;
    for (const rate& w : workers_) speed_sum_ += w.speed;
  }

  variant v_;
  iter_t p_;
  adaptive_history* history_;
  std::vector<double> initial_;  // weights before any measurement, sum p
  double overhead_in_iterations_;
  std::vector<rate> workers_;
  double speed_sum_ = 0;  // over measured workers
  iter_t measured_ = 0;
  double frozen_speed_sum_ = 0;  // at the start of the batch
  iter_t frozen_measured_ = 0;
  iter_t batch_ = 0, base_ = 0, records_ = 0;
  double all_seconds_ = 0, all_iterations_ = 0;  // for h in seconds
};

}  // namespace

technique_ptr make_awf(const loop_params& lp) {
  return std::make_unique<adaptive_weighted_factoring>(lp, variant{false, true, false});
}
technique_ptr make_awf_b(const loop_params& lp) {
  return std::make_unique<adaptive_weighted_factoring>(lp, variant{true, true, false});
}
technique_ptr make_awf_c(const loop_params& lp) {
  return std::make_unique<adaptive_weighted_factoring>(lp, variant{true, false, false});
}
technique_ptr make_awf_d(const loop_params& lp) {
  return std::make_unique<adaptive_weighted_factoring>(lp, variant{true, true, true});
}
technique_ptr make_awf_e(const loop_params& lp) {
  return std::make_unique<adaptive_weighted_factoring>(lp, variant{true, false, true});
}

}  // namespace selfsched::techniques
