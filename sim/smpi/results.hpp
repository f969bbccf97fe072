// Results moved to the masters during the loop, as seed 004's program moves
// them (--result-bytes; results.cpp).
#pragma once

#include <cstdint>
#include <string>

namespace selfsched::smpi::results {

// `bytes` an iteration; `n` the loop's iterations, the most one message
// carries. Called before MPI_Init: every rank of this process shares it.
// "" when all is well, else what is wrong.
std::string reserve(std::int64_t bytes, std::int64_t n);
bool moved();  // bytes an iteration > 0

// A computing rank: its chunk's results to its master's sink (MPI_COMM_WORLD
// rank), synchronous: done once the sink has taken them in.
bool send(int sink, std::int64_t iterations);
// A sink: takes results in until `master` (an MPI_COMM_WORLD rank) closes it.
void take_until_closed(int master);
// A master, once every computing rank is done (their sends all taken in):
// its sink stops; the result messages it took in.
std::int64_t close(int sink);

}  // namespace selfsched::smpi::results
