// The interposed libomp entry points (kmpc.cpp): what start-up asks of them.
#pragma once

namespace selfsched::omp {

// Start-up step (startup.cpp), once libomp took selfsched's schedules
// (libomp_hooks.hpp): the exported dispatch entry points jump straight into
// libomp's from now on, so libomp decides every loop and a loop it serves
// costs what it costs without libselfsched.
void hand_dispatch_to_runtime();

}  // namespace selfsched::omp
