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

}  // namespace selfsched::techniques
