// Helpers shared by the weighted techniques (wf, dtss, dfss, dgss) and the
// adaptive ones (awf, awf-b..e, af): worker powers and weights, rounding that
// stays exact when every weight is 1, and the adaptive history.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include "selfsched/core/adaptive_history.hpp"
#include "selfsched/core/technique.hpp"

namespace selfsched::techniques {

// A = sum of VP_k relative to the fastest worker (what relative_power() puts
// in request::power), every Q_k taken as 1: the core learns Q_k only with
// each request. p when no powers are given.
double total_relative_power(const loop_params& lp);

// A_k = VP_k / Q_k, the requester's available computing power (seed 000
// sec. 2). The seed prints a floor, which would make every VP_k < 1 zero; its
// own Table 2 (VP 0.8, Q 2: A = 0.4) uses the real quotient, and so do we.
inline double available_power(const request& r) { return r.power / std::max(1.0, r.queue); }

// ceil(r / a) for a real a > 0, by integer division when a is a whole number,
// so that equal powers give exactly the integer techniques (fss, gss).
iter_t ceil_div_real(iter_t r, double a);

// base * w rounded down / up, exactly base when w == 1.
iter_t scale_floor(iter_t base, double w);
iter_t scale_ceil(iter_t base, double w);

// A measured chunk time worth learning from: timers can read 0 (or garbage)
// for a short chunk, and such a record says nothing about the worker's rate.
inline bool usable_time(double seconds) { return seconds > 0 && std::isfinite(seconds); }

// The loop site's history made ready for a new instance: sized for p (a
// history kept for another p starts afresh) and its instance counter
// advanced. Null when the caller keeps none.
adaptive_history* begin_instance(const loop_params& lp);

// One finished chunk added to the history's time-step weighted sums
// (instance j counts j times). No-op without a history.
void add_to_history(adaptive_history* history, int worker, iter_t size, double seconds);

// Initial weights of an adaptive technique, one per worker, summing to p:
// the speeds learned in earlier instances (history) where there are any,
// else the relative powers, else all 1. A worker the history knows nothing
// about gets the mean learned speed.
std::vector<double> initial_weights(const loop_params& lp, const adaptive_history* history);

}  // namespace selfsched::techniques
