#include "static_split.hpp"

#include <cmath>

namespace selfsched::cluster {

cluster_team::cluster_team(std::vector<int> threads, std::vector<double> weights) : threads_(std::move(threads)) {
  offsets_.reserve(threads_.size());
  for (int t : threads_) {
    offsets_.push_back(size_);
    size_ += t;
  }
  cumulative_.assign(1, 0.0);
  for (std::size_t r = 0; r < threads_.size(); ++r) {
    const double w = weights.empty() ? 1.0 : weights[r];
    if (r > 0 && (weights.empty() ? 1.0 : weights[0]) / threads_[0] != w / threads_[r]) equal_ = false;
    for (int t = 0; t < threads_[r]; ++t) cumulative_.push_back(cumulative_.back() + w / threads_[r]);
  }
}

std::uint64_t cluster_team::block_start(std::uint64_t trip, int number) const {
  const auto g = static_cast<std::uint64_t>(number), p = static_cast<std::uint64_t>(size_);
  if (g >= p) return trip;
  if (equal_) {  // libomp's balanced split, exactly
    const std::uint64_t small = trip / p, extra = trip % p;
    return g * small + (g < extra ? g : extra);
  }
  // By weight: the block boundaries are the weights' cumulative shares of
  // the trip count, rounded up (the same doubles on every rank).
  const double share = cumulative_[g] / cumulative_.back();
  const auto start = static_cast<std::uint64_t>(std::ceil(static_cast<long double>(trip) * share));
  return start < trip ? start : trip;
}

std::vector<int> spread_team(int threads, int ranks) {
  std::vector<int> counts(static_cast<std::size_t>(ranks > 0 ? ranks : 0));
  for (int r = 0; r < ranks; ++r) counts[static_cast<std::size_t>(r)] = threads / ranks + (r < threads % ranks ? 1 : 0);
  return counts;
}

static_share static_block(const cluster_team& team, std::uint64_t trip, int number) {
  static_share s;
  s.first = team.block_start(trip, number);
  const std::uint64_t end = team.block_start(trip, number + 1);
  s.count = end > s.first ? end - s.first : 0;
  s.last = s.count > 0 && end == trip;
  return s;
}

static_share static_chunks(const cluster_team& team, std::uint64_t trip, std::uint64_t chunk, int number) {
  static_share s;
  const auto g = static_cast<std::uint64_t>(number), p = static_cast<std::uint64_t>(team.size());
  s.stride = chunk * p;
  const std::uint64_t chunks = trip == 0 ? 0 : (trip - 1) / chunk + 1;
  if (g < chunks) {
    s.first = g * chunk;
    s.count = trip - s.first < chunk ? trip - s.first : chunk;
  } else {
    s.first = trip;
  }
  s.last = chunks > 0 && (chunks - 1) % p == g;
  return s;
}

}  // namespace selfsched::cluster
