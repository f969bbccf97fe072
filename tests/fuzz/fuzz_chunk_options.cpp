// Fuzzes selfsched-chunks: an input is its argument list, NUL-separated.
// Arguments are either refused with a usage_error or give a run; small runs
// are then simulated, and every technique must hand out each iteration
// exactly once, whatever the weights, queues, times and order.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "chunk_tool.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace selfsched;
  std::vector<std::string_view> args;
  std::string_view rest(reinterpret_cast<const char*>(data), size);
  while (!rest.empty() && args.size() < 64) {
    const std::size_t nul = rest.find('\0');
    args.push_back(rest.substr(0, nul));
    rest = nul == std::string_view::npos ? std::string_view{} : rest.substr(nul + 1);
  }
  chunk_tool::run_options run;
  try {
    run = chunk_tool::parse_options(args);
  } catch (const chunk_tool::usage_error&) {
    return 0;
  }
  // Keep an input's run short: the bounds are the tool's; the simulation
  // is checked on loops small enough to run thousands of times a second.
  if (run.help || run.lp.n > 20000 || static_cast<std::int64_t>(run.instances) * run.lp.n > 100000) return 0;
  const auto n = static_cast<std::size_t>(run.lp.n);
  std::vector<std::uint8_t> hits;
  int current = -1;
  const auto all_once = [&] {
    for (std::uint8_t h : hits)
      if (h != 1) return false;
    return true;
  };
  chunk_tool::simulate(run, [&](int instance, iter_t, int worker, const chunk& c) {
    if (instance != current) {
      if (instance != current + 1 || (current >= 0 && !all_once())) __builtin_trap();
      hits.assign(n, 0);
      current = instance;
    }
    if (worker < 0 || worker >= run.lp.p || c.start < 0 || c.size <= 0 || c.start > run.lp.n ||
        c.size > run.lp.n - c.start)
      __builtin_trap();
    for (iter_t i = c.start; i < c.start + c.size; ++i)
      if (++hits[static_cast<std::size_t>(i)] > 1) __builtin_trap();
  });
  if (current >= 0 && !all_once()) __builtin_trap();
  if (current < 0 && n > 0) __builtin_trap();  // no chunk at all for a loop with iterations
  return 0;
}
