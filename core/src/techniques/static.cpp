// static: p chunks of ceil(n/p), the last one shorter; one per worker in
// request order. (OpenMP's schedule(static) without a chunk.)
#include "arith.hpp"
#include "techniques/techniques.hpp"

namespace selfsched::techniques {
namespace {

class static_split final : public technique {
 public:
  explicit static_split(const loop_params& lp) : size_(arith::ceil_div(lp.n, lp.p)) {}
  iter_t next_size(const request&) override { return size_; }
  iter_t constant_size_from(const request&) const override { return size_; }

 private:
  iter_t size_;
};

}  // namespace

technique_ptr make_static(const loop_params& lp) { return std::make_unique<static_split>(lp); }

}  // namespace selfsched::techniques
