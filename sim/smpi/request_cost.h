// Included by smpi_workarounds.h, so forced into every source of the SMPI
// build: the serving ranks' work per request (request_cost.cpp).
#pragma once

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif
int selfsched_smpi_recv(void* buffer, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                        MPI_Status* status);
#ifdef __cplusplus
}
#endif

#define MPI_Recv(buffer, count, type, source, tag, comm, status) \
  selfsched_smpi_recv(buffer, count, type, source, tag, comm, status)

#ifdef __cplusplus
namespace selfsched::smpi {
// Seconds a serving rank works on each request or refill it receives; 0
// (the default): nothing but what --code-time charges.
void set_request_cost(double seconds);
}  // namespace selfsched::smpi
#endif
