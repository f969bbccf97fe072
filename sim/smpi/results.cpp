// Seed 004's program sends each chunk's results (the Mandelbrot columns'
// pixels) to its master; under hier, to its node's master, which is why one
// master's link stops the centralized scheme scaling and node masters do
// not (its Fig. 6). The bridge itself moves no results during a loop (a
// region gathers them at its end, gather_rows), so the driver moves them as
// that program would: after each outer chunk a computing rank sends its
// master B bytes an iteration with MPI_Ssend, done once the master has taken
// them in (as selfsched-sim's workers put their results, --result-bytes); a
// serving rank keeps receives posted for them, as selfsched-sim's result
// sinks on the masters' hosts take them whatever the master is doing.
//
// The bytes are not looked at: one buffer of zero pages a side, shared by
// the ranks (reserved, not touched, by the sender; the receiver's side is
// touched only as far as its longest message).
#include "results.hpp"

#include <sys/mman.h>

#include <climits>

namespace selfsched::smpi {
namespace {

constexpr int tag_results = 100;  // on MPI_COMM_WORLD; the engine's messages travel on its own communicator
// Receives a serving rank keeps posted: a few, not one a rank (each message
// the rank is sent is matched against them).
constexpr int posted_receives = 8;
std::int64_t bytes_per_iteration = 0;
std::int64_t longest = 0;  // bytes: a whole loop's results
void* outgoing = nullptr;
void* incoming = nullptr;

void post(MPI_Request& r) {
  MPI_Irecv(incoming, static_cast<int>(longest), MPI_BYTE, MPI_ANY_SOURCE, tag_results, MPI_COMM_WORLD, &r);
}

}  // namespace

std::string result_stream::reserve(std::int64_t bytes, std::int64_t n) {
  bytes_per_iteration = bytes;
  if (bytes == 0) return "";
  if (bytes < 0 || bytes > INT_MAX / n) return "--result-bytes " + std::to_string(bytes) +
                                               ": 0 to " + std::to_string(INT_MAX / n) + " at --n " +
                                               std::to_string(n) + " (one message of a whole loop's results)";
  longest = bytes * n;
  const auto size = static_cast<std::size_t>(longest);
  outgoing = mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  incoming = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (outgoing == MAP_FAILED || incoming == MAP_FAILED) return "cannot reserve " + std::to_string(size) + " bytes";
  return "";
}

bool result_stream::send(int master, std::int64_t iterations) {
  if (bytes_per_iteration == 0 || iterations == 0) return false;
  MPI_Ssend(outgoing, static_cast<int>(bytes_per_iteration * iterations), MPI_BYTE, master, tag_results,
            MPI_COMM_WORLD);
  return true;
}

void result_stream::take() {
  if (bytes_per_iteration == 0) return;
  if (posted_.empty()) {
    posted_.assign(posted_receives, MPI_REQUEST_NULL);
    for (MPI_Request& r : posted_) post(r);
  }
  int count = 0;
  int done[posted_receives];
  MPI_Testsome(posted_receives, posted_.data(), &count, done, MPI_STATUSES_IGNORE);
  for (int k = 0; k < count; ++k) {
    ++taken_;
    post(posted_[static_cast<std::size_t>(done[k])]);
  }
}

void result_stream::finish() {
  if (posted_.empty()) return;
  take();
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (std::size_t k = 0; k < posted_.size(); ++k)  // each posted receive takes an empty message of this rank's
    MPI_Send(nullptr, 0, MPI_BYTE, rank, tag_results, MPI_COMM_WORLD);
  MPI_Waitall(static_cast<int>(posted_.size()), posted_.data(), MPI_STATUSES_IGNORE);
}

}  // namespace selfsched::smpi
