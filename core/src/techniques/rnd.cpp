// rnd: random chunk sizes (LB4OMP, Korndoerfer et al., TPDS 2021,
// kmp_sch_rnd): each chunk is drawn uniformly from [lower, upper]. lower is
// the minimum chunk (default 1); upper is the maximum chunk if one is set,
// else ceil(n / 2p), the first chunk of fss and tss (LB4OMP's default upper
// bound, n - 1, would let one chunk take nearly the whole loop).
// Chunk i is drawn from the i-th output of SplitMix64 (Steele, Lea & Flood,
// OOPSLA 2014) seeded with loop_params.seed: it depends only on (i, n, p,
// params), never on who asks or on earlier draws, so the same parameters
// give the same sequence on every machine and a chunk_plan can serve it.
#include <algorithm>
#include <cstdint>

#include "arith.hpp"
#include "techniques/techniques.hpp"

namespace selfsched::techniques {
namespace {

// The i-th output (from 0) of the SplitMix64 stream that starts at `seed`.
std::uint64_t splitmix64(std::uint64_t seed, std::uint64_t i) {
  std::uint64_t z = seed + (i + 1) * 0x9e3779b97f4a7c15u;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

class random_size final : public technique {
 public:
  explicit random_size(const loop_params& lp)
      : seed_(lp.seed),
        lower_(lp.min_chunk),
        upper_(std::max(lower_, lp.max_chunk > 0 ? lp.max_chunk : arith::ceil_div(lp.n, 2 * iter_t{lp.p}))) {}

  iter_t next_size(const request& r) override {
    // Scale 64 random bits to [0, span): the multiply-high keeps the bias
    // below span / 2^64.
    const auto span = static_cast<std::uint64_t>(upper_ - lower_) + 1;  // <= 2^63
    const std::uint64_t bits = splitmix64(seed_, static_cast<std::uint64_t>(r.step));
    return lower_ + static_cast<iter_t>((static_cast<unsigned __int128>(bits) * span) >> 64);
  }
  iter_t constant_size_from(const request&) const override { return lower_ == upper_ ? lower_ : 0; }

 private:
  std::uint64_t seed_;
  iter_t lower_;
  iter_t upper_;
};

}  // namespace

technique_ptr make_rnd(const loop_params& lp) { return std::make_unique<random_size>(lp); }

}  // namespace selfsched::techniques
