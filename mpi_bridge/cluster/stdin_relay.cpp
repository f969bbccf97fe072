#include "stdin_relay.hpp"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <vector>

#include "mpi_wait.hpp"

namespace selfsched::cluster {
namespace {

constexpr std::size_t chunk_bytes = std::size_t{1} << 16;  // a pipe's capacity
constexpr long stop_relaying = -1;                         // in the chunk header: finish() came before the end

}  // namespace

stdin_relay::stdin_relay(MPI_Comm comm, int threads_served) {
  if (threads_served < MPI_THREAD_MULTIPLE) return;
  MPI_Comm_dup(comm, &comm_);
  MPI_Comm_rank(comm_, &rank_);
  if (pipe2(pipe_, O_CLOEXEC) != 0 || (rank_ == 0 && pipe2(stop_, O_CLOEXEC) != 0)) {
    std::perror("selfsched-mpirun --cluster: cannot make the pipe for the program's standard input");
    MPI_Abort(comm_, 70);
  }
}

stdin_relay::~stdin_relay() {
  for (int fd : {pipe_[0], pipe_[1], stop_[0], stop_[1]})
    if (fd >= 0) close(fd);
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

void stdin_relay::start() {
  if (comm_ == MPI_COMM_NULL) return;
  close(pipe_[0]);
  pipe_[0] = -1;
  thread_ = std::thread([this] { relay(); });
}

void stdin_relay::finish() {
  if (!thread_.joinable()) return;
  if (rank_ == 0) (void)!write(stop_[1], "x", 1);
  thread_.join();
}

// Rank 0 reads, everyone gets the chunk; a header of 0 (the end) or
// stop_relaying ends it.
void stdin_relay::relay() {
  std::vector<char> buffer(chunk_bytes);
  for (long n = 1; n > 0;) {
    if (rank_ == 0) n = next_chunk(buffer.data(), buffer.size());
    broadcast(&n, 1, MPI_LONG);
    if (n <= 0) break;
    broadcast(buffer.data(), static_cast<int>(n), MPI_CHAR);
    deliver(buffer.data(), static_cast<std::size_t>(n));
  }
  close(pipe_[1]);  // the program reads to its end
  pipe_[1] = -1;
}

void stdin_relay::broadcast(void* bytes, int count, MPI_Datatype type) {
  MPI_Request r;
  MPI_Ibcast(bytes, count, type, 0, comm_, &r);
  wait_without_spinning(r, std::chrono::milliseconds(5), [] {});
}

// Rank 0: the next bytes of standard input, 0 at its end (or an error),
// stop_relaying once finish() was called.
long stdin_relay::next_chunk(char* buffer, std::size_t size) {
  for (;;) {
    pollfd ready[2] = {{0, POLLIN, 0}, {stop_[0], POLLIN, 0}};
    if (poll(ready, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return 0;
    }
    if (ready[1].revents != 0) return stop_relaying;
    const ssize_t n = read(0, buffer, size);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    return n > 0 ? static_cast<long>(n) : 0;
  }
}

// Into the program's pipe; a program that closed it (or ended) reads no
// more, and the rest is dropped.
void stdin_relay::deliver(const char* bytes, std::size_t size) {
  for (std::size_t done = 0; delivering_ && done < size;) {
    const ssize_t n = write(pipe_[1], bytes + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) delivering_ = false;
    else done += static_cast<std::size_t>(n);
  }
}

}  // namespace selfsched::cluster
