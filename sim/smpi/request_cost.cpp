// A serving rank's work per request it takes in (--request-cost), charged to
// its simulated host when the request is received, before it is answered, as
// selfsched-sim's masters charge --claim. Seed 004's setting names such a
// cost (5 us, docs/simulation.md); under --code-time none the code's own
// instructions are not charged, so a request costs only its MPI calls'
// injected time (0.2 us) and no master could saturate.
//
// Requests (a rank's, to its master) and refills (a node master's, to the
// supermaster) are what the transports' servers receive with MPI_Recv
// (mpi_bridge/src/transports/protocol.hpp, under SELFSCHED_NO_MATCHED_PROBE).
// The tags are the transports' own; only the engine's communicator carries
// them (the drivers' messages travel on MPI_COMM_WORLD).
#include <mpi.h>
#include <smpi/smpi.h>

#include "request_cost.h"

#include "transports/protocol.hpp"

#undef MPI_Recv

namespace {
double cost_seconds = 0;  // the ranks share this process: one setting for all
}

namespace selfsched::smpi {
void set_request_cost(double seconds) { cost_seconds = seconds; }
}  // namespace selfsched::smpi

extern "C" int selfsched_smpi_recv(void* buffer, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                                   MPI_Status* status) {
  namespace detail = selfsched::mpi::detail;
  const int result = MPI_Recv(buffer, count, type, source, tag, comm, status);
  if (cost_seconds > 0 && comm != MPI_COMM_WORLD && (tag == detail::tag_request || tag == detail::tag_refill))
    smpi_execute_benched(cost_seconds);  // benched: SMPI's timer of the rank's own CPU stops first
  return result;
}
