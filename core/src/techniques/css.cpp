// css: chunk self-scheduling, a constant chunk k (Kruskal & Weiss 1985;
// seed 000 sec. 2). k is the OMP_SCHEDULE chunk; by default ceil(n / 2p),
// the first chunk of FSS and TSS, so css alone is a sensible schedule.
#include "arith.hpp"
#include "techniques/techniques.hpp"

namespace selfsched::techniques {
namespace {

class chunk_self_scheduling final : public technique {
 public:
  explicit chunk_self_scheduling(const loop_params& lp)
      : size_(lp.chunk > 0 ? lp.chunk : arith::ceil_div(lp.n, 2 * iter_t{lp.p})) {}
  iter_t next_size(const request&) override { return size_; }
  iter_t constant_size_from(const request&) const override { return size_; }

 private:
  iter_t size_;
};

}  // namespace

technique_ptr make_css(const loop_params& lp) {
  return std::make_unique<chunk_self_scheduling>(lp);
}

}  // namespace selfsched::techniques
