// Factories of the catalog's techniques: one file each in this folder, one
// row each in registry.cpp.
#pragma once

#include "selfsched/core/technique.hpp"

namespace selfsched::techniques {

technique_ptr make_static(const loop_params&);
technique_ptr make_ss(const loop_params&);
technique_ptr make_css(const loop_params&);
technique_ptr make_gss(const loop_params&);
technique_ptr make_tss(const loop_params&);
technique_ptr make_fss(const loop_params&);
// the remaining non-adaptive techniques, and bold (h1)
technique_ptr make_fac(const loop_params&);
technique_ptr make_tfss(const loop_params&);
technique_ptr make_fiss(const loop_params&);
technique_ptr make_viss(const loop_params&);
technique_ptr make_mfsc(const loop_params&);
technique_ptr make_fsc(const loop_params&);
technique_ptr make_tap(const loop_params&);
technique_ptr make_rnd(const loop_params&);
technique_ptr make_pls(const loop_params&);
technique_ptr make_bold(const loop_params&);
// weighted and adaptive (h2)
technique_ptr make_wf(const loop_params&);
technique_ptr make_dtss(const loop_params&);
technique_ptr make_dfss(const loop_params&);
technique_ptr make_dgss(const loop_params&);
technique_ptr make_awf(const loop_params&);
technique_ptr make_awf_b(const loop_params&);
technique_ptr make_awf_c(const loop_params&);
technique_ptr make_awf_d(const loop_params&);
technique_ptr make_awf_e(const loop_params&);
technique_ptr make_af(const loop_params&);

technique_ptr make_auto(const loop_params&);

}  // namespace selfsched::techniques
