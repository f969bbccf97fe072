// Forced into every source of the SMPI build (-include), after smpicxx's
// own smpi_helpers.h (which maps sleep, nanosleep and clock_gettime onto
// simulated time): what SimGrid's SMPI 3.32 lacks for the bridge, each
// named, mended here rather than in the bridge's code.
#pragma once

#include <mpi.h>
#include <sched.h>
#include <unistd.h>

#ifdef __cplusplus
extern "C" {
#endif
int smpi_usleep(useconds_t usecs);
int selfsched_smpi_test(MPI_Request* request, int* flag, MPI_Status* status);
int selfsched_smpi_yield(void);
int selfsched_smpi_iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                              MPI_Comm comm, MPI_Request* request);
int selfsched_smpi_wait(MPI_Request* request, MPI_Status* status);
#ifdef __cplusplus
}
#endif

// 1. Waiting (waits.cpp). sched_yield takes no simulated time: a rank
//    polling for a message (MPI_Test, then a yield: mpi_bridge/src/
//    waiting.hpp, rma.cpp) would poll at the same instant for ever, and the
//    message could never arrive. A yield is a simulated microsecond (what it
//    costs on a real machine) on a rank that serves others; a rank that
//    serves nobody blocks in MPI_Wait on the request its last MPI_Test found
//    incomplete (MPI_Test is wrapped to note it), so that a wait is one
//    simulation event, not one per simulated microsecond.
#define MPI_Test(request, flag, status) selfsched_smpi_test(request, flag, status)
#define sched_yield() selfsched_smpi_yield()

// 2. MPI_Is_thread_main is true on one simulated rank only (SMPI answers
//    "is this the actor of pid 1"), and MPI_Init_thread / MPI_Query_thread
//    give MPI_THREAD_SINGLE whatever is asked. Every simulated rank is a
//    process of one thread, its main thread, which alone calls MPI: that is
//    MPI_THREAD_FUNNELED, what the bridge's regions and task pools ask of a
//    rank whose other threads do not call MPI.
static inline int selfsched_smpi_is_thread_main(int* flag) {
  *flag = 1;
  return MPI_SUCCESS;
}
static inline int selfsched_smpi_query_thread(int* provided) {
  *provided = MPI_THREAD_FUNNELED;
  return MPI_SUCCESS;
}
static inline int selfsched_smpi_init_thread(int* argc, char*** argv, int required, int* provided) {
  *provided = required < MPI_THREAD_FUNNELED ? required : MPI_THREAD_FUNNELED;
  return MPI_Init(argc, argv);
}
#define MPI_Is_thread_main(flag) selfsched_smpi_is_thread_main(flag)
#define MPI_Query_thread(provided) selfsched_smpi_query_thread(provided)
#define MPI_Init_thread(argc, argv, required, provided) selfsched_smpi_init_thread(argc, argv, required, provided)

// 3. MPI_Iallreduce (tree_allreduce.cpp) sends every rank's buffer to every
//    other rank in SMPI 3.32: P(P-1) messages, 67 million at 8,192 ranks,
//    for each of the bridge's checkpoints. It becomes a binomial tree, still
//    nonblocking: MPI_Test and MPI_Wait move it on.
#define MPI_Iallreduce(sendbuf, recvbuf, count, type, op, comm, request) \
  selfsched_smpi_iallreduce(sendbuf, recvbuf, count, type, op, comm, request)
#define MPI_Wait(request, status) selfsched_smpi_wait(request, status)

// 4. MPI_Fetch_and_op holds the target's window for two one-way latencies
//    (a get and an accumulate under a lock), where RDMA NICs apply 64-bit
//    atomics themselves: with --nic-atomics a NIC's service instead
//    (nic_atomics.cpp).
#include "nic_atomics.h"

// Not something SMPI lacks but a setting of the run, forced in with the
// above: a serving rank's work per request (--request-cost), charged as its
// MPI_Recv of one returns.
#include "request_cost.h"
