// Where libselfsched's loops take their iterations in cluster mode
// (selfsched::omp::outer_source, installed on the initial thread): a loop
// of a shared region gets this rank's part of the iteration space, which
// the rank's threads then split with libselfsched's technique; any other
// loop (serial code, replicated regions) runs whole.
#include <omp.h>

#include "interposed.hpp"
#include "selfsched.h"
#include "selfsched/outer_source.hpp"

namespace selfsched::cluster {
namespace {

class cluster_outer_source final : public omp::outer_source {
 public:
  std::uint64_t loop_begin(const void*, iter_t n) override {
    cluster_process* p = cluster_process::get();
    chunk whole{0, n};
    if (p != nullptr && p->region().active && p->region().shared) {
      // Rank r's part: the iterations its threads would get of a static
      // split over the cluster-wide team.
      const cluster_team& t = *p->region().team;
      const auto count = static_cast<std::uint64_t>(n);
      const std::uint64_t first = t.block_start(count, t.first(p->rank()));
      const std::uint64_t end = t.block_start(count, t.first(p->rank()) + t.threads(p->rank()));
      whole = {static_cast<iter_t>(first), static_cast<iter_t>(end - first)};
    }
    next_ = whole;
    return ++loops_;
  }
  chunk next_outer() override {
    const chunk c = next_;
    next_ = {c.start + c.size, 0};
    return c;
  }
  void loop_end() override {}

 private:
  chunk next_{};
  std::uint64_t loops_ = 0;
};

cluster_outer_source source;

}  // namespace

// The technique runtime loops use when OMP_SCHEDULE names none of
// libselfsched's: its equivalent of the runtime's kind, so that they are
// libselfsched's loops and so shared (as a selfsched::mpi region does).
void choose_technique_for_runtime_loops() {
  if (selfsched_get_schedule(nullptr, 0) > 0) return;
  static const auto real_get = next_definition<void (*)(omp_sched_t*, int*)>("omp_get_schedule");
  omp_sched_t kind = omp_sched_static;
  int chunk = 0;
  if (real_get != nullptr) real_get(&kind, &chunk);
  std::string name;
  switch (static_cast<int>(kind) & ~static_cast<int>(omp_sched_monotonic)) {
    case omp_sched_dynamic: name = chunk > 1 ? "css," + std::to_string(chunk) : "ss"; break;
    case omp_sched_guided: name = chunk > 1 ? "gss," + std::to_string(chunk) : "gss"; break;
    case omp_sched_auto: name = "auto"; break;
    default: name = "static"; break;
  }
  selfsched_set_schedule(name.c_str(), 0);
}

void install_outer_source() { omp::install_outer_source(&source); }

}  // namespace selfsched::cluster
