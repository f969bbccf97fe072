// The loops the omp benchmarks time: one parallel region that runs `loops`
// instances of an n-iteration worksharing loop with a tiny body, under one
// schedule clause. EPCC schedbench style (J. M. Bull, "Measuring
// synchronisation and scheduling overheads in OpenMP", EWOMP 1999): the body
// is small so the schedule's own cost per chunk shows.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>

namespace bench {

// The schedule clause as written in the source (fixed at compile time).
enum class clause {
  static_even,            // schedule(static): the reference, no dispatch at all
  runtime,                // schedule(runtime): selfsched's technique, or libomp's run-sched-var
  monotonic_dynamic1,     // schedule(monotonic:dynamic,1)
  nonmonotonic_dynamic1,  // schedule(nonmonotonic:dynamic,1), also what plain dynamic,1 means
  guided1,                // schedule(guided,1)
  atomic_counter,         // no OpenMP loop: fetch_add on one shared counter, the floor
};

struct clause_name {
  clause form;
  const char* name;
};
inline constexpr clause_name clause_names[] = {
    {clause::static_even, "static"},
    {clause::runtime, "runtime"},
    {clause::monotonic_dynamic1, "monotonic:dynamic,1"},
    {clause::nonmonotonic_dynamic1, "nonmonotonic:dynamic,1"},
    {clause::guided1, "guided,1"},
    {clause::atomic_counter, "atomic"},
};

inline const char* name_of(clause form) {
  for (const clause_name& c : clause_names)
    if (c.form == form) return c.name;
  return "?";
}

// False if `text` names no clause.
inline bool parse_clause(const char* text, clause& form) {
  for (const clause_name& c : clause_names)
    if (std::strcmp(c.name, text) == 0) return form = c.form, true;
  return false;
}

// About one multiply; the empty asm keeps the compiler from vectorising or
// dropping the loop, so every schedule runs the same instructions per
// iteration.
inline void tiny_body(std::int64_t i) {
  const std::uint64_t x = static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15u;
  asm volatile("" : : "r"(x));
}

// A shared counter on its own cache line, one per loop instance.
struct alignas(64) padded_counter {
  std::atomic<std::int64_t> next{0};
};

// Run by every thread of the team.
template <clause C>
void run_loops(std::int64_t n, int loops, padded_counter* counters) {
  for (int r = 0; r < loops; ++r) {
    if constexpr (C == clause::static_even) {
#pragma omp for schedule(static)
      for (std::int64_t i = 0; i < n; ++i) tiny_body(i);
    } else if constexpr (C == clause::runtime) {
#pragma omp for schedule(runtime)
      for (std::int64_t i = 0; i < n; ++i) tiny_body(i);
    } else if constexpr (C == clause::monotonic_dynamic1) {
#pragma omp for schedule(monotonic : dynamic, 1)
      for (std::int64_t i = 0; i < n; ++i) tiny_body(i);
    } else if constexpr (C == clause::nonmonotonic_dynamic1) {
#pragma omp for schedule(nonmonotonic : dynamic, 1)
      for (std::int64_t i = 0; i < n; ++i) tiny_body(i);
    } else if constexpr (C == clause::guided1) {
#pragma omp for schedule(guided, 1)
      for (std::int64_t i = 0; i < n; ++i) tiny_body(i);
    } else {
      // What any dynamic schedule does at least once per chunk of one
      // iteration; the barrier stands for the loop's implicit one.
      std::atomic<std::int64_t>& next = counters[r].next;
      for (std::int64_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < n;) tiny_body(i);
#pragma omp barrier
    }
  }
}

template <clause C>
void run_region(int threads, std::int64_t n, int loops, padded_counter* counters) {
#pragma omp parallel num_threads(threads)
  run_loops<C>(n, loops, counters);
}

// One parallel region of `loops` loop instances of n iterations each.
class region {
 public:
  region(clause form, int threads, std::int64_t n, int loops)
      : form_(form), threads_(threads), n_(n), loops_(loops),
        counters_(form == clause::atomic_counter ? new padded_counter[loops] : nullptr) {}

  void run() {
    switch (form_) {
      case clause::static_even: return run_region<clause::static_even>(threads_, n_, loops_, nullptr);
      case clause::runtime: return run_region<clause::runtime>(threads_, n_, loops_, nullptr);
      case clause::monotonic_dynamic1: return run_region<clause::monotonic_dynamic1>(threads_, n_, loops_, nullptr);
      case clause::nonmonotonic_dynamic1:
        return run_region<clause::nonmonotonic_dynamic1>(threads_, n_, loops_, nullptr);
      case clause::guided1: return run_region<clause::guided1>(threads_, n_, loops_, nullptr);
      case clause::atomic_counter:
        for (int r = 0; r < loops_; ++r) counters_[r].next.store(0, std::memory_order_relaxed);
        return run_region<clause::atomic_counter>(threads_, n_, loops_, counters_.get());
    }
  }

 private:
  clause form_;
  int threads_;
  std::int64_t n_;
  int loops_;
  std::unique_ptr<padded_counter[]> counters_;
};

}  // namespace bench
