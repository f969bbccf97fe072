// The program's standard input, the same bytes on every rank. mpirun hands
// its standard input to rank 0 only (the other ranks read /dev/null), but
// every rank runs the program's serial code, which must read what rank 0's
// reads or its results diverge. So every agent gives its program a pipe:
// rank 0's agent reads its own standard input and broadcasts it in chunks
// to the other agents, and each writes what it gets into its program's pipe.
//
// A thread of each agent does this with a communicator of its own
// (MPI_THREAD_MULTIPLE) and waits for each broadcast without spinning
// (mpi_wait.hpp): the programs' threads need the cores. It streams: a
// program reading as it goes gets bytes as they come, and input larger than
// memory is fine. A program that never reads only fills its pipe; once
// every rank's program has ended, finish() stops rank 0's reading (a
// terminal, or mpirun's stdin pipe, may never end), so nothing waits for
// input nobody wants. Without MPI_THREAD_MULTIPLE the relay stays off: rank
// 0's program reads the agent's standard input itself, as before.
#pragma once

#include <mpi.h>

#include <atomic>
#include <thread>

namespace selfsched::cluster {

class stdin_relay {
 public:
  // Collective over `comm`. `threads_served`: what MPI_Init_thread provided.
  stdin_relay(MPI_Comm comm, int threads_served);
  ~stdin_relay();
  stdin_relay(const stdin_relay&) = delete;
  stdin_relay& operator=(const stdin_relay&) = delete;

  // The descriptor to give the program as its standard input, or -1 (the
  // relay is off: the agent's own).
  int program_input() const { return pipe_[0]; }
  // Once the program started: the program's end closed here, relaying on.
  void start();
  // Every rank's program ended: relaying stops; collective.
  void finish();

 private:
  void relay();
  void broadcast(void* bytes, int count, MPI_Datatype type);
  long next_chunk(char* buffer, std::size_t size);
  void deliver(const char* bytes, std::size_t size);

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int pipe_[2] = {-1, -1};  // the program reads [0], the relay writes [1]
  int stop_[2] = {-1, -1};  // rank 0: finish() wakes the reader
  bool delivering_ = true;  // false once the program stopped reading (EPIPE)
  std::thread thread_;
};

}  // namespace selfsched::cluster
