// Included by smpi_workarounds.h, so forced into every source of the SMPI
// build: one-sided operations on 64-bit windows as a NIC serves them
// (nic_atomics.cpp), when the run asks for it (--nic-atomics).
#pragma once

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif
int selfsched_smpi_win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr,
                                MPI_Win* win);
int selfsched_smpi_win_free(MPI_Win* win);
int selfsched_smpi_fetch_and_op(const void* origin, void* result, MPI_Datatype type, int target, MPI_Aint disp,
                                MPI_Op op, MPI_Win win);
int selfsched_smpi_win_flush(int rank, MPI_Win win);
int selfsched_smpi_win_lock_all(int assertion, MPI_Win win);
int selfsched_smpi_win_unlock_all(MPI_Win win);
int selfsched_smpi_put(const void* origin, int origin_count, MPI_Datatype origin_type, int target, MPI_Aint disp,
                       int target_count, MPI_Datatype target_type, MPI_Win win);
#ifdef __cplusplus
}
#endif

#define MPI_Win_allocate(size, disp_unit, info, comm, baseptr, win) \
  selfsched_smpi_win_allocate(size, disp_unit, info, comm, baseptr, win)
#define MPI_Win_free(win) selfsched_smpi_win_free(win)
#define MPI_Fetch_and_op(origin, result, type, target, disp, op, win) \
  selfsched_smpi_fetch_and_op(origin, result, type, target, disp, op, win)
#define MPI_Win_flush(rank, win) selfsched_smpi_win_flush(rank, win)
#define MPI_Win_lock_all(assertion, win) selfsched_smpi_win_lock_all(assertion, win)
#define MPI_Win_unlock_all(win) selfsched_smpi_win_unlock_all(win)
#define MPI_Put(origin, origin_count, origin_type, target, disp, target_count, target_type, win) \
  selfsched_smpi_put(origin, origin_count, origin_type, target, disp, target_count, target_type, win)

#ifdef __cplusplus
namespace selfsched::smpi {
// Seconds a target's NIC takes per 64-bit fetch-and-add or fetch, served one
// at a time; 0 (the default): SMPI's own MPI_Fetch_and_op.
void set_nic_atomics(double seconds);
}  // namespace selfsched::smpi
#endif
