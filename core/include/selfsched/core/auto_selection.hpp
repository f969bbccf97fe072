// `auto`: pick, per loop site, the technique that ran its earlier instances
// fastest (in the spirit of Auto4OMP, Korndörfer et al. 2022: explore the
// candidates, then exploit the best, re-exploring now and then because load
// and inputs change).
//
// OMP_SCHEDULE=auto is OpenMP's own kind and stays libomp's; the alias `best`
// (OMP_SCHEDULE=best), SELFSCHED_SCHEDULE=auto or selfsched_set_schedule("auto")
// choose this one.
//
// Pure bookkeeping: the caller (the libomp binding, keyed by ident_t*) owns
// one auto_selection per loop site, asks choose() when an instance starts and
// reports its makespan with record() when it ends.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace selfsched {

class auto_selection {
 public:
  // The candidates, in exploration order: cheap fixed techniques first, then
  // the ones that adapt to imbalance and to slower workers.
  static constexpr std::string_view default_candidates[] = {"static", "fss", "gss", "tss", "tfss", "ss",
                                                            "awf-c", "af"};
  // One exploration of a non-best candidate every this many instances.
  static constexpr std::int64_t explore_every = 32;

  auto_selection();

  // The index into candidates() the next instance should use.
  int choose();
  // The instance that used candidate `choice` took `seconds`.
  void record(int choice, double seconds);

  std::string_view candidate(int i) const { return candidates_[static_cast<std::size_t>(i)].name; }
  int candidate_count() const { return static_cast<int>(candidates_.size()); }
  int best() const;  // -1 until every candidate has run once
  std::int64_t instances() const { return instances_; }

 private:
  struct candidate_stats {
    std::string_view name;
    double mean_seconds = 0;  // exponential moving average, recent runs weigh 1/2
    std::int64_t runs = 0;
    std::int64_t last_run = -1;  // instance number
  };
  std::vector<candidate_stats> candidates_;
  std::int64_t instances_ = 0;
};

}  // namespace selfsched
