// The chunks libselfsched hands out in a real OpenMP loop are exactly the
// core's sequence for the technique (as a multiset: which thread gets which
// chunk depends on timing). Read back from the profile
// (SELFSCHED_PROFILE_CHUNKS=1), so this also checks the profile.
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "selfsched.h"
#include "selfsched/core.hpp"

namespace {

std::vector<selfsched::iter_t> core_sizes(const std::string& technique, selfsched::iter_t n, int p) {
  const auto parsed = selfsched::parse_schedule(technique);
  selfsched::loop_params lp;
  lp.n = n;
  lp.p = p;
  selfsched::apply_chunk(parsed.spec, lp);
  selfsched::scheduler s(parsed.spec, lp);
  std::vector<selfsched::iter_t> sizes;
  for (int w = 0;; w = (w + 1) % p) {
    const auto c = s.next(w);
    if (c.size == 0) break;
    sizes.push_back(c.size);
  }
  std::sort(sizes.begin(), sizes.end());
  return sizes;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::getenv("SELFSCHED_PROFILE") == nullptr || std::getenv("SELFSCHED_PROFILE_CHUNKS") == nullptr) {
    std::fprintf(stderr, "usage: SELFSCHED_PROFILE=f SELFSCHED_PROFILE_CHUNKS=1 %s out.json\n", argv[0]);
    return 2;
  }
  // Fixed techniques: the sequence depends only on (n, p, params).
  std::vector<std::string> techniques;
  for (const auto& t : selfsched::catalog())
    if (t.kind == selfsched::technique_kind::fixed) techniques.emplace_back(t.name);
  techniques.push_back("css,7");
  techniques.push_back("gss,5");

  const long n = 10007;
  long sink = 0;
  for (const auto& technique : techniques) {
    selfsched_set_schedule(technique.c_str(), 0);
    for (int threads : {1, 2, 3, 4, 8}) {
#pragma omp parallel for schedule(runtime) num_threads(threads) reduction(+ : sink)
      for (long i = 0; i < n; ++i) sink += i % 7;
    }
  }
  if (selfsched_write_profile(argv[1]) != 0) {
    std::fprintf(stderr, "FAIL: selfsched_write_profile(%s)\n", argv[1]);
    return 1;
  }

  std::ifstream in(argv[1]);
  const auto profile = nlohmann::json::parse(in);
  int failures = 0, checked = 0;
  for (const auto& site : profile["sites"])
    for (const auto& loop : site["loops"]) {
      std::vector<selfsched::iter_t> served;
      for (const auto& c : loop["chunks"]) served.push_back(c["size"].get<selfsched::iter_t>());
      std::sort(served.begin(), served.end());
      const std::string technique = loop["technique"];
      const int p = loop["p"];
      selfsched::iter_t iterations = 0;
      for (const auto& t : loop["threads"]) iterations += t["iterations"].get<selfsched::iter_t>();
      ++checked;
      if (served != core_sizes(technique, loop["n"], p) || iterations != n || loop["threads"].size() != std::size_t(p)) {
        ++failures;
        std::fprintf(stderr, "FAIL %s, %d threads: %zu chunks served, %zu expected, %lld iterations\n",
                     technique.c_str(), p, served.size(), core_sizes(technique, loop["n"], p).size(),
                     static_cast<long long>(iterations));
      }
    }
  const std::size_t expected_loops = techniques.size() * 5;
  if (checked != static_cast<int>(expected_loops)) {
    std::fprintf(stderr, "FAIL: the profile has %d loops, expected %zu\n", checked, expected_loops);
    ++failures;
  }
  std::printf("%d loops compared with the core's sequence (sink %ld): %d failures\n", checked, sink, failures);
  return failures == 0 ? 0 : 1;
}
