// Where libselfsched's loops take their iterations in cluster mode
// (selfsched::omp::outer_source, installed on the initial thread): a loop
// of a shared region takes outer chunks from the agent's engine (the bridge's
// transports and outer technique, as in a selfsched::mpi region), which the
// rank's threads split with libselfsched's technique; any other loop (serial
// code, replicated regions) runs whole here.
#include <omp.h>

#include "interposed.hpp"
#include "common/site_identity.hpp"
#include "selfsched.h"
#include "selfsched/outer_source.hpp"

namespace selfsched::cluster {
namespace {

class cluster_outer_source final : public omp::outer_source {
 public:
  std::uint64_t loop_begin(const void* site, iter_t n) override {
    cluster_process* p = cluster_process::get();
    remote_ = p != nullptr && p->region().active && p->region().shared;
    if (!remote_) {  // serial code, a replicated region: the whole loop here
      next_ = {0, n};
      return ++local_loops_;
    }
    region_had_loops_ = true;
    std::int64_t results[8];
    p->ask_agent(request_kind::loop_begin, {n, static_cast<std::int64_t>(mpi::detail::site_hash(site))}, results);
    asked_ahead_ = false;
    return static_cast<std::uint64_t>(results[0]);
  }

  chunk next_outer() override {
    if (!remote_) {
      const chunk c = next_;
      next_ = {c.start + c.size, 0};
      return c;
    }
    std::int64_t results[8];
    cluster_process::get()->ask_agent(request_kind::next_outer, {}, results);
    asked_ahead_ = false;
    return {results[0], results[1]};
  }

  // Told after every inner chunk; the agent hears of it once per outer
  // chunk, when it runs low (a round trip to the agent costs microseconds):
  // its engine then asks for the next chunk ahead.
  bool progress(std::uint64_t loop, iter_t left, iter_t size) override {
    if (!remote_ || asked_ahead_ || left > size * 15 / 100) return true;
    asked_ahead_ = true;
    std::int64_t results[8];
    cluster_process::get()->ask_agent(request_kind::progress, {static_cast<std::int64_t>(loop), left, size}, results);
    return results[0] != 0;
  }

  void loop_end() override {
    if (remote_) cluster_process::get()->ask_agent(request_kind::loop_end, {}, nullptr);
  }

  void parallel_end() override {
    if (!region_had_loops_) return;
    region_had_loops_ = false;
    cluster_process::get()->ask_agent(request_kind::parallel_end, {}, nullptr);
  }

 private:
  bool remote_ = false;
  bool asked_ahead_ = false;
  bool region_had_loops_ = false;
  chunk next_{};
  std::uint64_t local_loops_ = 0;
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

// Only shared regions take outer chunks: serial code and replicated regions
// are each process's own loops (called by the initial thread before a fork).
void feed_next_region(bool shared) { omp::install_outer_source(shared ? &source : nullptr); }

}  // namespace selfsched::cluster
