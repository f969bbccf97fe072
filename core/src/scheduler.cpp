#include "selfsched/core/scheduler.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "mechanisms/mechanisms.hpp"
#include "selfsched/core/registry.hpp"

namespace selfsched {

std::string validate(const loop_params& lp) {
  if (lp.n < 0) return "loop size " + std::to_string(lp.n) + " is negative";
  if (lp.p < 1) return "worker count " + std::to_string(lp.p) + " must be >= 1";
  if (lp.min_chunk < 1) return "minimum chunk " + std::to_string(lp.min_chunk) + " must be >= 1";
  if (lp.granule < 1) return "granule " + std::to_string(lp.granule) + " must be >= 1";
  if (lp.max_chunk < 0) return "maximum chunk " + std::to_string(lp.max_chunk) + " must be >= 0 (0: none)";
  if (lp.max_chunk > 0 && lp.max_chunk < lp.min_chunk)
    return "maximum chunk " + std::to_string(lp.max_chunk) + " is below the minimum chunk " +
           std::to_string(lp.min_chunk) + ": give max >= min (or 0: none)";
  if (!lp.powers.empty() && lp.powers.size() != static_cast<std::size_t>(lp.p))
    return std::to_string(lp.powers.size()) + " weights given for " + std::to_string(lp.p) +
           " workers: give one per worker";
  for (std::size_t k = 0; k < lp.powers.size(); ++k)
    if (!std::isfinite(lp.powers[k]) || lp.powers[k] <= 0)
      return "weight " + std::to_string(k) + " is " + std::to_string(lp.powers[k]) +
             ": weights must be finite and > 0";
  if (!std::isfinite(lp.mu) || lp.mu <= 0) return "mu " + std::to_string(lp.mu) + " must be finite and > 0";
  if (!std::isfinite(lp.sigma) || lp.sigma < 0) return "sigma " + std::to_string(lp.sigma) + " must be finite and >= 0";
  if (!std::isfinite(lp.overhead) || lp.overhead < 0)
    return "overhead " + std::to_string(lp.overhead) + " must be finite and >= 0";
  if (const std::vector<double>* work = lp.work_prefix) {
    if (work->size() != static_cast<std::size_t>(lp.n) + 1)
      return "work prefix of " + std::to_string(work->size()) + " values for " + std::to_string(lp.n) +
             " iterations: give n + 1";
    for (std::size_t i = 0; i < work->size(); ++i)
      if (!std::isfinite((*work)[i]) || (i > 0 && (*work)[i] < (*work)[i - 1]))
        return "work prefix value " + std::to_string(i) + " is " + std::to_string((*work)[i]) +
               ": values must be finite and non-decreasing";
  }
  return {};
}

void apply_chunk(const schedule_spec& spec, loop_params& lp) {
  if (spec.min_chunk <= 0) return;
  (spec.base->chunk_is_size ? lp.chunk : lp.min_chunk) = spec.min_chunk;
}

technique_ptr make_schedule(const schedule_spec& spec, const loop_params& lp) {
  const int alpha = spec.alpha_auto ? mechanisms::alpha_from_heterogeneity(lp) : spec.alpha_percent;
  technique_ptr t = alpha > 0 ? mechanisms::two_phase_alpha(*spec.base, lp, alpha) : spec.base->make(lp);
  if (spec.weighted) t = mechanisms::weighting(std::move(t), lp.max_chunk);
  return t;
}

bool is_fixed(const schedule_spec& spec) {
  return spec.base->kind == technique_kind::fixed && !spec.weighted && spec.alpha_percent == 0 &&
         !spec.alpha_auto;
}

bool weighs_askers(const schedule_spec& spec) {
  return spec.weighted || spec.base->kind == technique_kind::weighted;
}

iter_t clamp_chunk(iter_t wanted, iter_t remaining, const loop_params& lp) {
  iter_t size = std::max(wanted, lp.min_chunk);
  if (lp.max_chunk > 0) size = std::min(size, lp.max_chunk);
  // Up to whole granules (without overflow: past `remaining`, the remainder).
  if (lp.granule > 1 && size % lp.granule != 0)
    size = size / lp.granule < remaining / lp.granule ? (size / lp.granule + 1) * lp.granule : remaining;
  return std::clamp<iter_t>(size, 1, remaining);
}

double relative_power(const loop_params& lp, int worker) {
  if (lp.powers.empty()) return 1.0;
  return lp.powers[static_cast<std::size_t>(worker)] /
         *std::max_element(lp.powers.begin(), lp.powers.end());
}

scheduler::scheduler(technique_ptr t, loop_params lp) : technique_(std::move(t)), lp_(std::move(lp)) {
  if (!lp_.powers.empty()) max_power_ = *std::max_element(lp_.powers.begin(), lp_.powers.end());
}

chunk scheduler::next(int worker, double queue) {
  const iter_t remaining = lp_.n - next_start_;
  if (remaining <= 0) return {lp_.n, 0};
  const double power = lp_.powers.empty() ? 1.0 : lp_.powers[static_cast<std::size_t>(worker)] / max_power_;
  const request r{remaining, step_, worker, power, queue};
  const chunk c{next_start_, clamp_chunk(technique_->next_size(r), remaining, lp_)};
  next_start_ += c.size;
  ++step_;
  return c;
}

}  // namespace selfsched
