// ss: pure self-scheduling, one iteration per request (Tang & Yew 1986;
// seed 002 sec. 2 "PSS"). The OMP_SCHEDULE chunk raises the minimum, as for
// every technique.
#include "techniques/techniques.hpp"

namespace selfsched::techniques {
namespace {

class self_scheduling final : public technique {
 public:
  iter_t next_size(const request&) override { return 1; }
  iter_t constant_size_from(const request&) const override { return 1; }
};

}  // namespace

technique_ptr make_ss(const loop_params&) { return std::make_unique<self_scheduling>(); }

}  // namespace selfsched::techniques
