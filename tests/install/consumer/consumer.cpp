// Uses both installed libraries: the core names a technique's chunks, and a
// schedule(runtime) loop chosen through the C API runs every iteration once.
#include <selfsched.h>

#include <cstdio>
#include <selfsched/core.hpp>
#include <vector>

int main() {
  const auto parsed = selfsched::parse_schedule("w-fss,2");
  if (!parsed.ok()) return std::fprintf(stderr, "core: %s\n", parsed.error.c_str()), 1;
  if (selfsched_set_schedule("gss", 3) != 0) return std::fprintf(stderr, "selfsched_set_schedule failed\n"), 1;
  char name[32];
  selfsched_get_schedule(name, sizeof name);

  const int n = 10007;
  std::vector<int> hits(n, 0);
#pragma omp parallel for schedule(runtime) num_threads(2)
  for (int i = 0; i < n; ++i) hits[i] += 1;
  for (int i = 0; i < n; ++i)
    if (hits[i] != 1) return std::fprintf(stderr, "iteration %d ran %d times\n", i, hits[i]), 1;
  std::printf("consumer ok: %s, %s\n", parsed.spec.name().c_str(), name);
  return 0;
}
