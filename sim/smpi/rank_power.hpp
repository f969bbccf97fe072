// A simulated rank's power, as the seam (seam.cpp) tells the engine: its
// host's speed in SMPI's platform over the speed of a rank of power 1.
#pragma once

namespace selfsched::smpi {

// flop/s of a host of speed 1 (selfsched-sim's --flops); every rank sets the same.
void set_reference_flops(double flops);

// The calling rank's host speed over the reference.
double rank_power();

}  // namespace selfsched::smpi
