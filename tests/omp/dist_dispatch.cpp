// distribute parallel for as compilers other than clang emit it: libomp's
// __kmpc_dist_dispatch_init_* followed by __kmpc_dispatch_next_*, between
// loops that selfsched serves. Every iteration must run once on both sides.
// (clang emits dispatch_init for these loops; this calls the entry points
// directly, as such a compiler's code would.)
#include <omp.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <vector>

extern "C" {
struct kmp_ident {
  std::int32_t reserved_1, flags, reserved_2, reserved_3;
  const char* psource;
};
std::int32_t __kmpc_global_thread_num(kmp_ident*);
void __kmpc_dist_dispatch_init_4(kmp_ident*, std::int32_t gtid, int schedule, std::int32_t* p_last, std::int32_t lb,
                                 std::int32_t ub, std::int32_t st, std::int32_t chunk);
int __kmpc_dispatch_next_4(kmp_ident*, std::int32_t gtid, std::int32_t* p_last, std::int32_t* p_lb,
                           std::int32_t* p_ub, std::int32_t* p_st);
void __kmpc_dispatch_deinit(kmp_ident*, std::int32_t gtid);
}

int main() {
  constexpr int n = 5003, rounds = 40;
  constexpr int dynamic_chunked = 35;  // kmp_sch_dynamic_chunked
  kmp_ident loc{0, 2, 0, 0, ";dist_dispatch.cpp;main;1;1;;"};
  std::vector<std::atomic<int>> ours(n), libomps(n);
  for (int round = 0; round < rounds; ++round) {
    // libomp's dist_dispatch needs a teams construct around the region.
#pragma omp teams num_teams(1) thread_limit(3)
#pragma omp parallel num_threads(3)
    {
#pragma omp for schedule(runtime)
      for (int i = 0; i < n; ++i) ours[i]++;
      const std::int32_t gtid = __kmpc_global_thread_num(&loc);
      std::int32_t last = 0, lb = 0, ub = 0, st = 0;
      __kmpc_dist_dispatch_init_4(&loc, gtid, dynamic_chunked, &last, 0, n - 1, 1, 7);
      while (__kmpc_dispatch_next_4(&loc, gtid, &last, &lb, &ub, &st))
        for (std::int32_t i = lb; i <= ub; ++i) libomps[i]++;
      __kmpc_dispatch_deinit(&loc, gtid);
#pragma omp barrier
    }
  }
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += (ours[i].load() != rounds) + (libomps[i].load() != rounds);
  std::printf("dist_dispatch: %d wrong of %d\n", wrong, 2 * n);
  return wrong == 0 ? 0 : 1;
}
