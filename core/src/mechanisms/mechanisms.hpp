// The mechanisms of seeds 000/002/003 as wrappers around any technique.
#pragma once

#include "selfsched/core/registry.hpp"

namespace selfsched::mechanisms {

// W: C' = min(C, max_chunk) * VP_k / Q_k (seed 000, eq. 2), VP_k relative
// to the fastest; max_chunk 0: no upper threshold.
technique_ptr weighting(technique_ptr inner, iter_t max_chunk);

// alpha: alpha_percent of n split by worker speed, the rest by `base`
// (seeds 002, 003). alpha_percent in 1..100.
technique_ptr two_phase_alpha(const technique_info& base, const loop_params& lp, int alpha_percent);

// seed 003 sec. 3.1: alpha = 100 on a relatively homogeneous system
// (min VP / max VP >= alpha'/100), alpha' otherwise.
int alpha_from_heterogeneity(const loop_params& lp, int alpha_candidate = 80);

}  // namespace selfsched::mechanisms
