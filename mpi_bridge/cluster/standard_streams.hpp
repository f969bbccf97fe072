// Standard output and error inside a shared region (standard_streams.cpp):
// stdio's printing functions write straight to the descriptor there.
#pragma once

namespace selfsched::cluster {

// Writes out what serial code left in stdout's and stderr's buffers: at a
// region's start, on every rank alike, so that serial output comes first.
void flush_standard_streams();

}  // namespace selfsched::cluster
