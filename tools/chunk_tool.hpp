// selfsched-chunks' options and its simulated loop, apart from main so that
// they can be fuzzed (tests/fuzz): any argument list either parses into a
// run whose every number is in its documented range, or is refused with one
// message, before anything is allocated for it.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "selfsched/core.hpp"

namespace selfsched::chunk_tool {

// Checked before anything is allocated for them: per-worker state is O(p),
// and the catalog's property tests cover p up to 4096.
constexpr int most_workers = 4096;
constexpr int most_instances = 100'000;

extern const char* const usage;

// Bad arguments: the message names the option, the value and the range.
struct usage_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct run_options {
  bool help = false;
  schedule_spec spec;
  loop_params lp;
  int instances = 1;
  bool sizes_only = false;
  std::vector<double> queues, times;  // per worker, or empty
  std::vector<int> order;             // who asks next (cyclic)
};

// The arguments after the program name; throws usage_error.
run_options parse_options(const std::vector<std::string_view>& args);

// Runs the loop: `on_chunk(instance, step, worker, chunk)` for every chunk
// handed out, in order.
void simulate(const run_options& run, const std::function<void(int, iter_t, int, const chunk&)>& on_chunk);

}  // namespace selfsched::chunk_tool
