// schedule(static) and schedule(static, k) loops, and loops without a
// schedule clause, over the cluster-wide team: ranks x threads, numbered
// rank by rank. Every rank computes every thread's share from the same
// numbers, so two loops with the same trip count split alike (a nowait chain
// stays correct, as OpenMP promises for static schedules).
//
// Unchunked, each thread gets one block; ranks get iterations in proportion
// to their weights (their measured power), and a rank's threads share its
// part evenly. With equal weights this is libomp's balanced split: the first
// trip % threads threads get one iteration more. Chunked (static, k), chunks
// of k go round the team in thread order, whatever the weights (OpenMP fixes
// that order).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace selfsched::cluster {

class cluster_team {
 public:
  // threads[r] > 0 threads on rank r; weights[r] > 0 its power (empty: equal).
  cluster_team(std::vector<int> threads, std::vector<double> weights);
  int ranks() const { return static_cast<int>(threads_.size()); }
  int size() const { return size_; }
  // The cluster-wide number of thread `thread` of rank `rank`.
  int number(int rank, int thread) const { return offsets_[static_cast<std::size_t>(rank)] + thread; }
  int threads(int rank) const { return threads_[static_cast<std::size_t>(rank)]; }
  int first(int rank) const { return offsets_[static_cast<std::size_t>(rank)]; }
  bool equal_weights() const { return equal_; }
  // The first iteration of thread `number`'s block of a trip-count loop.
  std::uint64_t block_start(std::uint64_t trip, int number) const;

 private:
  std::vector<int> threads_, offsets_;
  std::vector<double> cumulative_;  // of the threads' weights, one more entry than threads
  int size_ = 0;
  bool equal_ = true;
};

// A team of `threads` threads over `ranks` ranks, numbered rank by rank:
// each rank's count (the first threads % ranks ranks have one more; a
// rank may get none when threads < ranks).
std::vector<int> spread_team(int threads, int ranks);

// A thread's share of a static loop, in iterations 0 .. trip-1.
struct static_share {
  std::uint64_t first = 0;   // its first iteration
  std::uint64_t count = 0;   // unchunked: iterations in its block; chunked: iterations in its first chunk
  std::uint64_t stride = 0;  // chunked: iterations from one of its chunks to the next
  bool last = false;         // it runs iteration trip - 1
};

// One block per thread.
static_share static_block(const cluster_team& team, std::uint64_t trip, int number);
// Chunks of `chunk` (> 0) round the team.
static_share static_chunks(const cluster_team& team, std::uint64_t trip, std::uint64_t chunk, int number);

}  // namespace selfsched::cluster
