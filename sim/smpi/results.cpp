// Seed 004's program sends each chunk's results (the Mandelbrot columns'
// pixels) to its master; under hier, to its node's master, which is why one
// master's link stops the centralized scheme scaling and node masters do
// not (its Fig. 6). The bridge itself moves no results during a loop (a
// region gathers them at its end, gather_rows), so the driver moves them as
// that program would: after each outer chunk a computing rank sends B bytes
// an iteration with MPI_Ssend, done once taken in (as selfsched-sim's
// workers put their results, --result-bytes), to a sink: a rank of its own
// on its master's host, as selfsched-sim's result sinks are actors on the
// masters' hosts. The results share the master's link, not its mailbox:
// thousands of results waiting there made every probe of the master's
// scan them (8,192 workers of master: 90% of the simulation's time in
// SMPI's matching).
//
// The bytes are not looked at: one buffer of zero pages a side, shared by
// the ranks (reserved, not touched, by the senders; the sinks' side is
// touched only as far as the longest message).
#include "results.hpp"

#include <mpi.h>
#include <sys/mman.h>

#include <climits>

namespace selfsched::smpi::results {
namespace {

constexpr int tag_results = 100, tag_taken = 101;  // on MPI_COMM_WORLD, which the engine's messages do not use
std::int64_t bytes_per_iteration = 0;
std::int64_t longest = 0;  // bytes: a whole loop's results
void* outgoing = nullptr;
void* incoming = nullptr;

}  // namespace

std::string reserve(std::int64_t bytes, std::int64_t n) {
  bytes_per_iteration = bytes;
  if (bytes == 0) return "";
  if (bytes < 0 || bytes > INT_MAX / n)
    return "--result-bytes " + std::to_string(bytes) + ": 0 to " + std::to_string(INT_MAX / n) + " at --n " +
           std::to_string(n) + " (one message of a whole loop's results)";
  longest = bytes * n;
  const auto size = static_cast<std::size_t>(longest);
  outgoing = mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  incoming = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (outgoing == MAP_FAILED || incoming == MAP_FAILED) return "cannot reserve " + std::to_string(size) + " bytes";
  return "";
}

bool moved() { return bytes_per_iteration > 0; }

bool send(int sink, std::int64_t iterations) {
  if (bytes_per_iteration == 0 || iterations == 0) return false;
  MPI_Ssend(outgoing, static_cast<int>(bytes_per_iteration * iterations), MPI_BYTE, sink, tag_results,
            MPI_COMM_WORLD);
  return true;
}

void take_until_closed(int master) {
  std::int64_t taken = 0;
  for (;;) {
    MPI_Status status;
    MPI_Recv(incoming, static_cast<int>(longest), MPI_BYTE, MPI_ANY_SOURCE, tag_results, MPI_COMM_WORLD, &status);
    int bytes = 0;
    MPI_Get_count(&status, MPI_BYTE, &bytes);
    if (bytes == 0 && status.MPI_SOURCE == master) break;  // a chunk's results are never empty
    ++taken;
  }
  MPI_Send(&taken, 1, MPI_INT64_T, master, tag_taken, MPI_COMM_WORLD);
}

std::int64_t close(int sink) {
  MPI_Send(nullptr, 0, MPI_BYTE, sink, tag_results, MPI_COMM_WORLD);
  std::int64_t taken = 0;
  MPI_Recv(&taken, 1, MPI_INT64_T, sink, tag_taken, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return taken;
}

}  // namespace selfsched::smpi::results
