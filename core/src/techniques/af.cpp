// af: adaptive factoring (Banicescu & Liu 2000). With mu_j and sigma_j the
// mean and standard deviation of one iteration's time on worker j,
// D = sum_j sigma_j^2 / mu_j and E = (sum_j 1 / mu_j)^-1, worker k asking
// with R iterations left gets
//     C_k = (D + 2 E R - sqrt(D^2 + 4 D E R)) / (2 mu_k),   rounded up,
// computed as 2 E^2 R^2 / (mu_k (D + 2 E R + sqrt(D^2 + 4 D E R))), the same
// number without the cancellation when D >> E R. (E is the inverse of the
// sum: then C_k is in iterations, and with sigma = 0 it is R times worker
// k's share of the total speed, E R / mu_k.)
//
// Estimates: from worker k's finished chunks (n_c iterations in t_c
// seconds), mu_k = sum t_c / sum n_c and, since a chunk's mean iteration
// time t_c / n_c has variance sigma^2 / n_c,
//     sigma_k^2 = sum_c n_c (t_c / n_c - mu_k)^2 / (chunks - 1),
// kept as running sums (sum t_c^2 / n_c). A worker has estimates once it has
// finished two chunks (one gives no variance), or from the history of an
// earlier instance (loop_params::history) until then. Workers still without
// estimates enter D and E with the requester's own values.
// Fallback while the requester has none: an fss-like chunk,
// ceil(w_k * ceil(R / 2p)), w_k its initial weight (history, else powers,
// else 1; sum p).
//
// Per request the work is O(1): record() keeps sum 1/mu_j and
// sum sigma_j^2/mu_j over the workers with estimates, re-added from scratch
// every p records so that rounding cannot drift.
#include <cmath>
#include <vector>

#include "arith.hpp"
#include "techniques/techniques.hpp"
#include "techniques/worker_weights.hpp"

namespace selfsched::techniques {
namespace {

class adaptive_factoring final : public technique {
 public:
  explicit adaptive_factoring(const loop_params& lp)
      : p_(lp.p),
        history_(begin_instance(lp)),
        initial_(initial_weights(lp, history_)),
        workers_(static_cast<std::size_t>(lp.p)) {
    if (history_ == nullptr) return;
    for (std::size_t k = 0; k < workers_.size(); ++k)
      set_estimate(workers_[k], history_->workers[k].mu, history_->workers[k].sigma);
  }

  iter_t next_size(const request& r) override {
    const stats& me = workers_[static_cast<std::size_t>(r.worker)];
    if (me.mu == 0) return scale_ceil(arith::ceil_div(r.remaining, 2 * p_), initial_[static_cast<std::size_t>(r.worker)]);

    const double unknown = static_cast<double>(p_ - estimated_);
    const double d = d_sum_ + unknown * me.sigma * me.sigma / me.mu;
    const double e = 1 / (inverse_mu_sum_ + unknown / me.mu);
    const double er = e * static_cast<double>(r.remaining);
    return arith::to_iters_ceil(2 * er * er / (me.mu * (d + 2 * er + std::sqrt(d * d + 4 * d * er))));
  }

  void record(int worker, iter_t size, double seconds) override {
    if (!usable_time(seconds) || size <= 0) return;
    add_to_history(history_, worker, size, seconds);
    stats& w = workers_[static_cast<std::size_t>(worker)];
    const auto n = static_cast<double>(size);
    w.iterations += n;
    w.seconds += seconds;
    w.seconds_squared_per_iteration += seconds * seconds / n;
    if (++w.chunks >= 2) {
      const double mu = w.seconds / w.iterations;
      const double spread = w.seconds_squared_per_iteration - w.seconds * mu;  // sum n_c (x_c - mu)^2
      const double sigma = std::sqrt(std::max(0.0, spread) / static_cast<double>(w.chunks - 1));
      set_estimate(w, mu, sigma);
      if (history_ != nullptr && w.mu > 0) {
        history_->workers[static_cast<std::size_t>(worker)].mu = w.mu;
        history_->workers[static_cast<std::size_t>(worker)].sigma = w.sigma;
      }
    }
    if (++records_ % p_ == 0) resum();
  }

 private:
  struct stats {
    double iterations = 0, seconds = 0, seconds_squared_per_iteration = 0;
    iter_t chunks = 0;
    double mu = 0, sigma = 0;  // mu = 0: no estimate
  };

  static double inverse(const stats& w) { return w.mu > 0 ? 1 / w.mu : 0; }
  static double d_term(const stats& w) { return w.mu > 0 ? w.sigma * w.sigma / w.mu : 0; }

  // Replaces w's estimates and its terms in the running sums. Estimates
  // whose terms are not finite (a timer that read next to nothing) are
  // dropped.
  void set_estimate(stats& w, double mu, double sigma) {
    const bool usable = mu > 0 && std::isfinite(1 / mu) && std::isfinite(sigma * sigma / mu);
    if (w.mu > 0) {
      inverse_mu_sum_ -= inverse(w);
      d_sum_ -= d_term(w);
      --estimated_;
    }
    w.mu = usable ? mu : 0;
    w.sigma = usable ? sigma : 0;
    if (w.mu > 0) {
      inverse_mu_sum_ += inverse(w);
      d_sum_ += d_term(w);
      ++estimated_;
    }
  }

  void resum() {
    inverse_mu_sum_ = d_sum_ = 0;
    for (const stats& w : workers_) {
      inverse_mu_sum_ += inverse(w);
      d_sum_ += d_term(w);
    }
  }

  iter_t p_;
  adaptive_history* history_;
  std::vector<double> initial_;
  std::vector<stats> workers_;
  double inverse_mu_sum_ = 0, d_sum_ = 0;  // over the workers with estimates
  iter_t estimated_ = 0, records_ = 0;
};

}  // namespace

technique_ptr make_af(const loop_params& lp) { return std::make_unique<adaptive_factoring>(lp); }

}  // namespace selfsched::techniques
