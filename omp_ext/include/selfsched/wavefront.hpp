// selfsched wavefronts for C++: a loop nest with uniform dependences run
// with mechanism S and any selfsched technique (selfsched_wavefront.h says
// how). The body is a lambda over the index, inlined into the inner loop:
//
//   // Floyd-Steinberg (seed 000 sec. 6.1): i = row (u_s), j = column (u_c)
//   selfsched::wavefront<2>({width, height},
//                           {{0, 1}, {0, 2}, {1, -2}, {1, -1}, {1, 0}, {1, 1}},
//                           [&](std::int64_t i, std::int64_t j) { ... },
//                           {.technique = "sw-fss"});
//
// The body may also take the index as std::array<std::int64_t, Rank>.
// Illegal dependences, an unknown technique or bad options throw
// selfsched::wavefront_error before anything runs; an exception from the body
// stops the wavefront and is rethrown after the threads have joined.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <exception>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "selfsched_wavefront.h"

namespace selfsched {

struct wavefront_options {
  std::string technique;        // "" : the runtime technique if any, else "s-fss"
  std::int64_t sync_points = 0; // #SP; 0: SELFSCHED_SYNC_POINTS, else 3 x threads
  int chunk_dim = -1;           // u_c; -1: chosen
  int sync_dim = -1;            // u_s; -1: the longest legal
  int threads = 0;              // 0: omp_get_max_threads()
  std::int64_t min_chunk = 0;   // thresholds on chunks along u_c (seed 000 Table 4)
  std::int64_t max_chunk = 0;
};

using wavefront_report = selfsched_wavefront_report;

class wavefront_error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

namespace detail {

template <std::size_t Rank, typename Body>
struct wavefront_runner {
  Body& body;
  std::exception_ptr error{};
  std::atomic<bool> failed{false};

  static void call(Body& body, const std::array<std::int64_t, Rank>& x) {
    if constexpr (std::is_invocable_v<Body&, const std::array<std::int64_t, Rank>&>) body(x);
    else std::apply(body, x);
  }

  // The run's dimension as a constant, so the indices stay in registers.
  template <std::size_t Dim>
  static void along(Body& body, std::array<std::int64_t, Rank> x, std::int64_t count) {
    for (const std::int64_t end = x[Dim] + count; x[Dim] < end; ++x[Dim]) call(body, x);
  }

  static int run(void* self, const std::int64_t* start, int dim, std::int64_t count) {
    auto& r = *static_cast<wavefront_runner*>(self);
    try {
      std::array<std::int64_t, Rank> x;
      for (std::size_t d = 0; d < Rank; ++d) x[d] = start[d];
      if (dim == 0) along<0>(r.body, x, count);
      else if (dim == 1) along<1>(r.body, x, count);
      else if constexpr (Rank > 2) along<2>(r.body, x, count);
    } catch (...) {
      if (!r.failed.exchange(true)) r.error = std::current_exception();
      return 1;
    }
    return 0;
  }
};

}  // namespace detail

// Runs body over [0, extents[0]) x ... x [0, extents[Rank-1]) (Rank 2 or 3)
// so that iteration x runs after x - d for every dependence vector d.
template <std::size_t Rank, typename Body>
wavefront_report wavefront(const std::array<std::int64_t, Rank>& extents,
                           const std::vector<std::array<std::int64_t, Rank>>& dependences, Body&& body,
                           const wavefront_options& options = {}, selfsched_wavefront_chunk* chunk_log = nullptr,
                           std::int64_t chunk_log_capacity = 0) {
  static_assert(Rank == 2 || Rank == 3, "selfsched::wavefront: rank 2 or 3");
  std::vector<std::int64_t> flat;
  flat.reserve(dependences.size() * Rank);
  for (const auto& d : dependences) flat.insert(flat.end(), d.begin(), d.end());
  const selfsched_wavefront_options o{options.technique.c_str(), options.sync_points, options.chunk_dim,
                                      options.sync_dim, options.threads, options.min_chunk, options.max_chunk};
  wavefront_report report{};
  report.chunk_log = chunk_log;
  report.chunk_log_capacity = chunk_log_capacity;
  using body_type = std::remove_reference_t<Body>;
  detail::wavefront_runner<Rank, body_type> runner{body};
  const int status = selfsched_wavefront_runs(static_cast<int>(Rank), extents.data(), flat.data(),
                                              static_cast<int>(dependences.size()), &o,
                                              &detail::wavefront_runner<Rank, body_type>::run, &runner, &report);
  if (runner.error) std::rethrow_exception(runner.error);
  if (status != 0) throw wavefront_error(selfsched_wavefront_error());
  return report;
}

}  // namespace selfsched
