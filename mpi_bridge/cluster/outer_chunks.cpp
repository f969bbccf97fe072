// Where libselfsched's loops take their iterations in cluster mode
// (selfsched::omp::outer_source, installed on the initial thread): a loop
// of a shared region takes outer chunks from the agent's engine (the bridge's
// transports and outer technique, as in a selfsched::mpi region), which the
// rank's threads split with libselfsched's technique; any other loop (serial
// code, replicated regions) runs whole here.
#include <omp.h>

#include <algorithm>
#include <array>
#include <mutex>
#include <string>

#include "interposed.hpp"
#include "common/site_identity.hpp"
#include "selfsched.h"
#include "selfsched/outer_source.hpp"

namespace selfsched::cluster {
namespace {

// Outer chunks count granules: whole chunks of the loop's chunk size k
// (dynamic,k's k), so that every chunk of k iterations the rank's threads
// split off an outer chunk lies in it, and runs on one thread, as OpenMP
// promises (and LLVM's own tests check). The agent's engine sees a loop of
// ceil(n / k) units.
class cluster_outer_source final : public omp::outer_source {
 public:
  std::uint64_t loop_begin(const void* site, iter_t n, iter_t granule) override {
    cluster_process* p = cluster_process::get();
    remote_ = p != nullptr && p->region().active && p->region().shared;
    if (!remote_) {  // serial code, a replicated region: the whole loop here
      next_ = {0, n};
      return ++local_loops_;
    }
    region_had_loops_ = true;
    n_ = n;
    granule_ = std::clamp<iter_t>(granule, 1, std::max<iter_t>(n, 1));
    std::int64_t results[8];
    p->ask_agent(request_kind::loop_begin, {units(n), static_cast<std::int64_t>(mpi::detail::site_hash(site))},
                 results);
    asked_ahead_ = false;
    const auto loop = static_cast<std::uint64_t>(results[0]);
    granules_[loop % granules_.size()] = granule_;
    return loop;
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
    if (results[1] <= 0) return {results[0], results[1]};
    const iter_t start = results[0] * granule_;
    return {start, std::min(n_, (results[0] + results[1]) * granule_) - start};
  }

  // Told after every inner chunk; the agent hears of it once per outer
  // chunk, when it runs low (a round trip to the agent costs microseconds):
  // its engine then asks for the next chunk ahead. Under nowait `loop` may
  // be an earlier loop than the last begun: its own granule converts.
  bool progress(std::uint64_t loop, iter_t left, iter_t size) override {
    if (!remote_ || asked_ahead_ || left > size * 15 / 100) return true;
    asked_ahead_ = true;
    const iter_t granule = std::max<iter_t>(granules_[loop % granules_.size()], 1);
    std::int64_t results[8];
    cluster_process::get()->ask_agent(
        request_kind::progress,
        {static_cast<std::int64_t>(loop), ceil_div(left, granule), ceil_div(size, granule)}, results);
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
  static iter_t ceil_div(iter_t a, iter_t b) { return a / b + (a % b != 0); }
  iter_t units(iter_t n) const { return ceil_div(n, granule_); }

  bool remote_ = false;
  bool asked_ahead_ = false;
  bool region_had_loops_ = false;
  chunk next_{};
  std::uint64_t local_loops_ = 0;
  iter_t n_ = 0, granule_ = 1;  // the loop begun last
  // Granules of the loops begun lately, by the engine's loop number (nowait
  // chains keep a few loops open; a stale entry would only mistime a
  // request ahead).
  std::array<iter_t, 16> granules_{};
};

cluster_outer_source source;

// A standard kind chosen for runtime loops (OMP_SCHEDULE, omp_set_schedule)
// becomes libselfsched's equivalent technique, so that those loops are
// libselfsched's and so shared (a loop the runtime schedules runs replicated,
// worksharing.cpp); omp_get_schedule still answers the kind and chunk the
// program chose.
struct standard_choice {
  std::mutex lock;
  omp_sched_t kind = omp_sched_static;
  int chunk = 0;
  std::string technique;  // as selfsched_get_schedule() gives it
};
standard_choice& chosen() {
  static auto* choice = new standard_choice;  // never destroyed: atexit code may ask
  return *choice;
}

bool is_standard_kind(omp_sched_t kind) {
  switch (static_cast<int>(kind) & ~static_cast<int>(omp_sched_monotonic)) {
    case omp_sched_static: case omp_sched_dynamic: case omp_sched_guided: case omp_sched_auto: return true;
    default: return false;
  }
}

void choose_standard_kind(omp_sched_t kind, int chunk) {
  std::string name;
  switch (static_cast<int>(kind) & ~static_cast<int>(omp_sched_monotonic)) {
    case omp_sched_dynamic: name = chunk > 1 ? "css," + std::to_string(chunk) : "ss"; break;
    case omp_sched_guided: name = chunk > 1 ? "gss," + std::to_string(chunk) : "gss"; break;
    case omp_sched_auto: name = "auto"; break;
    default: name = "static"; break;
  }
  if (selfsched_set_schedule(name.c_str(), 0) != 0) return;
  char text[64] = "";
  selfsched_get_schedule(text, sizeof text);
  standard_choice& c = chosen();
  std::lock_guard guard(c.lock);
  c.kind = kind, c.chunk = chunk, c.technique = text;
}

}  // namespace

// The technique runtime loops use when OMP_SCHEDULE names none of
// libselfsched's: its equivalent of the runtime's kind.
void choose_technique_for_runtime_loops() {
  if (selfsched_get_schedule(nullptr, 0) > 0) return;
  static const auto real_get = next_definition<void (*)(omp_sched_t*, int*)>("omp_get_schedule");
  omp_sched_t kind = omp_sched_static;
  int chunk = 0;
  if (real_get != nullptr) real_get(&kind, &chunk);
  choose_standard_kind(kind, chunk);
}

// Only shared regions take outer chunks: serial code and replicated regions
// are each process's own loops (called by the initial thread before a fork).
void feed_next_region(bool shared) { omp::install_outer_source(shared ? &source : nullptr); }

}  // namespace selfsched::cluster

using namespace selfsched::cluster;

// In cluster mode only (libselfsched's own otherwise).
extern "C" __attribute__((visibility("default"))) void omp_set_schedule(omp_sched_t kind, int chunk) {
  SELFSCHED_NEXT(omp_set_schedule);
  if (cluster_process::get() == nullptr || !is_standard_kind(kind)) return real(kind, chunk);
  choose_standard_kind(kind, chunk);
}

extern "C" __attribute__((visibility("default"))) void omp_get_schedule(omp_sched_t* kind, int* chunk) {
  SELFSCHED_NEXT(omp_get_schedule);
  real(kind, chunk);
  char text[64] = "";
  selfsched_get_schedule(text, sizeof text);
  standard_choice& c = chosen();
  std::lock_guard guard(c.lock);
  if (!c.technique.empty() && c.technique == text) *kind = c.kind, *chunk = c.chunk;
}

// Fortran's omp_lib, by reference: the same.
extern "C" __attribute__((visibility("default"))) void omp_set_schedule_(const int* kind, const int* chunk) {
  omp_set_schedule(static_cast<omp_sched_t>(*kind), *chunk);
}
extern "C" __attribute__((visibility("default"))) void omp_get_schedule_(int* kind, int* chunk) {
  omp_sched_t k = omp_sched_static;
  omp_get_schedule(&k, chunk);
  *kind = static_cast<int>(k);
}
