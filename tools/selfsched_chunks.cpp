// selfsched-chunks: the chunks a technique hands out, without threads.
//
//   selfsched-chunks --technique gss --n 1000 --p 4 --sizes
//
// Requests come from workers in --order (cyclic; default 0, 1, ..., p-1).
// With --times (seconds per iteration for each worker) the workers instead
// run a simulated clock and whoever finishes first asks next; adaptive
// techniques then learn from those times. --instances K repeats the loop
// with one history, as a time-stepping code does. The options and the loop
// are in chunk_tool.cpp.
#include <cstdio>
#include <exception>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "chunk_tool.hpp"

namespace {

using namespace selfsched;
using namespace selfsched::chunk_tool;

int run(int argc, char** argv) {
  const std::vector<std::string_view> args(argv + 1, argv + argc);
  for (std::string_view arg : args)
    if (arg == "--version") return std::cout << "selfsched-chunks " SELFSCHED_VERSION "\n", 0;
  const run_options options = parse_options(args);
  if (options.help) return std::cout << usage, 0;
  std::string line;
  int line_instance = 0;
  const auto flush = [&] {
    std::cout << line << '\n';
    line.clear();
  };
  simulate(options, [&](int instance, iter_t step, int worker, const chunk& c) {
    if (options.sizes_only) {
      for (; line_instance < instance; ++line_instance) flush();
      if (!line.empty()) line += ' ';
      line += std::to_string(c.size);
    } else {
      if (options.instances > 1) std::printf("%d ", instance);
      std::printf("%lld %d %lld %lld\n", static_cast<long long>(step), worker, static_cast<long long>(c.start),
                  static_cast<long long>(c.size));
    }
  });
  if (options.sizes_only)
    for (; line_instance < options.instances; ++line_instance) flush();
  return 0;
}

}  // namespace

// Bad arguments and whatever else escapes: one line and status 2.
int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "selfsched-chunks: " << e.what() << '\n';
    return 2;
  }
}
