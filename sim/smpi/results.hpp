// Results moved to the masters during the loop, as seed 004's program moves
// them (--result-bytes; results.cpp).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace selfsched::smpi {

class result_stream {
 public:
  // `bytes` an iteration; `n` the loop's iterations, the most one message
  // carries. Made before MPI_Init: every rank of this process shares it.
  static std::string reserve(std::int64_t bytes, std::int64_t n);

  // A computing rank: its chunk's results to its master (synchronous: done
  // when the master has taken them in). False when there were none to send.
  static bool send(int master, std::int64_t iterations);

  // A serving rank: counts the results taken in since the last call and
  // posts receives for more. A few are always posted, so that a result
  // travels as soon as it is sent, while the rank naps too.
  void take();
  // A serving rank, once every computing rank is done (every send was
  // synchronous: all were taken in): its posted receives withdrawn.
  void finish();
  std::int64_t messages() const { return taken_; }

 private:
  std::vector<MPI_Request> posted_;
  std::int64_t taken_ = 0;
};

}  // namespace selfsched::smpi
