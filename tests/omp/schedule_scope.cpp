// Who sees a schedule change, and what a program that changes it may rely
// on. OpenMP's run-sched-var belongs to a task: omp_set_schedule inside a
// region changes the regions that thread starts next, never the loops of its
// current team, whose members must all agree on who schedules a loop (half
// a team in selfsched's loop and half in libomp's runs iterations twice or
// hangs). selfsched_set_schedule follows the same rule. Also: deep nesting
// of serialized regions is correct and says nothing.
//
//   omp_schedule_scope
// A watchdog turns a hang into a failure naming the case.
#include <omp.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "case_watchdog.hpp"
#include "selfsched.h"

namespace {

using case_watchdog::check;
using case_watchdog::failures;

// Runs one case; a case that does not finish in 20 s fails the test.
template <typename Case>
void run_case(const char* name, Case body) {
  case_watchdog::begin_case(name);
  body();
  case_watchdog::end_cases();
}

std::string schedule_text() {
  char text[64];
  selfsched_get_schedule(text, sizeof text);
  return text;
}

// Each iteration exactly once; else the first one that was not.
std::string once_each(const std::vector<std::atomic<int>>& visits) {
  for (std::size_t i = 0; i < visits.size(); ++i)
    if (visits[i].load() != 1)
      return "iteration " + std::to_string(i) + " ran " + std::to_string(visits[i].load()) + " times";
  return "";
}

// Thread 0 gives runtime loops back to libomp while thread 1 is already
// inside the team's next runtime loop: both must still share that loop.
void set_schedule_while_team_mate_in_loop(bool with_selfsched_call) {
  const int n = 1000;
  std::vector<std::atomic<int>> visits(n);
  std::atomic<bool> mate_inside{false}, schedule_changed{false};
#pragma omp parallel num_threads(2)
  {
    if (omp_get_num_threads() == 2 && omp_get_thread_num() == 0) {
      while (!mate_inside.load()) std::this_thread::yield();
      if (with_selfsched_call)
        selfsched_set_schedule(nullptr, 0);
      else
        omp_set_schedule(omp_sched_static, 0);
      schedule_changed = true;
    }
#pragma omp for schedule(runtime)
    for (int i = 0; i < n; ++i) {
      if (omp_get_thread_num() == 1 && !mate_inside.exchange(true))
        while (!schedule_changed.load()) std::this_thread::yield();
      visits[static_cast<std::size_t>(i)].fetch_add(1);
    }
  }
  const std::string wrong = once_each(visits);
  check(wrong.empty(), wrong);
}

// The scope of a change made inside a region.
void change_inside_region_is_the_tasks_own() {
  std::string seen_by_setter, seen_by_mate, seen_in_nested;
  omp_set_max_active_levels(2);
#pragma omp parallel num_threads(2)
  {
    if (omp_get_thread_num() == 0) {
      selfsched_set_schedule("gss", 0);
      seen_by_setter = schedule_text();
#pragma omp parallel num_threads(2)
      {
#pragma omp single
        seen_in_nested = schedule_text();
      }
    }
#pragma omp barrier
    if (omp_get_thread_num() == 1) seen_by_mate = schedule_text();
  }
  omp_set_max_active_levels(1);
  check(seen_by_setter == "gss", "the setter sees '" + seen_by_setter + "', not gss");
  check(seen_in_nested == "gss", "a region the setter starts inherits '" + seen_in_nested + "', not gss");
  check(seen_by_mate == "css,7", "its team mate sees '" + seen_by_mate + "', not its own css,7");
  check(schedule_text() == "css,7", "after the region: '" + schedule_text() + "', not css,7");
}

// One root thread keeps switching the process-wide choice while another's
// teams run loop after loop: each team must still agree on every loop.
void switch_while_other_roots_run_loops() {
  const int n = 200, instances = 2000;
  std::vector<std::atomic<int>> visits(n);
  std::atomic<bool> done{false};
  std::thread switcher([&] {
    for (bool ours = false; !done.load(); ours = !ours) {
      if (ours)
        selfsched_set_schedule("css,7", 0);
      else
        omp_set_schedule(omp_sched_dynamic, 3);
      std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
  });
  std::thread worker([&] {
    for (int k = 0; k < instances; ++k) {
#pragma omp parallel for schedule(runtime) num_threads(2)
      for (int i = 0; i < n; ++i) visits[static_cast<std::size_t>(i)].fetch_add(1);
    }
  });
  worker.join();
  done = true;
  switcher.join();
  for (int i = 0; i < n; ++i)
    if (visits[static_cast<std::size_t>(i)].load() != instances) {
      check(false, "iteration " + std::to_string(i) + " ran " + std::to_string(visits[i].load()) + " times in " +
                       std::to_string(instances) + " loops");
      break;
    }
  selfsched_set_schedule("css,7", 0);
}

// Recursion with a parallel region per level: the levels past the ones
// selfsched tracks are serialized teams, run correctly and silently.
long nested_sum(int depth) {
  long sum = 0;
#pragma omp parallel for schedule(runtime) reduction(+ : sum)
  for (int i = 0; i < 100; ++i) sum += i;
  if (depth == 0) return sum;
  long deeper = 0;
#pragma omp parallel num_threads(2)
  {
#pragma omp single
    deeper = nested_sum(depth - 1);
  }
  return sum + deeper;
}

void deep_serialized_nesting_is_silent() {
  omp_set_max_active_levels(1);
  std::fflush(stderr);
  FILE* captured = std::tmpfile();
  const int saved = dup(2);
  dup2(fileno(captured), 2);
  const long sum = nested_sum(24);
  std::fflush(stderr);
  dup2(saved, 2);
  close(saved);
  std::rewind(captured);
  char said[512] = {};
  const std::size_t length = std::fread(said, 1, sizeof said - 1, captured);
  std::fclose(captured);
  check(sum == 25 * 4950, "sum " + std::to_string(sum) + ", expected " + std::to_string(25 * 4950));
  check(length == 0, "a correct program got a message: " + std::string(said));
}

// omp_get_schedule names a selfsched technique by a kind of its own (never
// the `dynamic` libomp was told), and a program that saves its schedule,
// sets another and restores it gets the technique back, also inside a region.
void save_and_restore_keeps_the_technique() {
  selfsched_set_schedule("fss,3", 0);
  omp_sched_t kind{};
  int chunk = 0;
  omp_get_schedule(&kind, &chunk);
  check(kind != omp_sched_static && kind != omp_sched_dynamic && kind != omp_sched_guided && kind != omp_sched_auto,
        "fss,3 reported as the standard kind " + std::to_string(static_cast<int>(kind)));
  check(chunk == 3, "fss,3 reported with chunk " + std::to_string(chunk));
  omp_set_schedule(omp_sched_guided, 5);
  omp_sched_t guided{};
  int guided_chunk = 0;
  omp_get_schedule(&guided, &guided_chunk);
  check(guided == omp_sched_guided && guided_chunk == 5,
        "after omp_set_schedule(guided, 5): kind " + std::to_string(static_cast<int>(guided)) + ", chunk " +
            std::to_string(guided_chunk));
  check(schedule_text().empty(), "guided set, yet selfsched still serves '" + schedule_text() + "'");
  omp_set_schedule(kind, chunk);
  check(schedule_text() == "fss,3", "restored: '" + schedule_text() + "', not fss,3");
  std::string inside;
#pragma omp parallel num_threads(2)
  {
    omp_sched_t k{};
    int c = 0;
    omp_get_schedule(&k, &c);
#pragma omp master
    {
      omp_set_schedule(omp_sched_static, 0);
      omp_set_schedule(k, c);
      inside = schedule_text();
    }
  }
  check(inside == "fss,3", "restored inside a region: '" + inside + "', not fss,3");
  check(schedule_text() == "fss,3", "after the region: '" + schedule_text() + "', not fss,3");

  // selfsched's auto is OpenMP's auto (as OMP_SCHEDULE=auto), both ways.
  omp_set_schedule(omp_sched_auto, 0);
  check(schedule_text() == "auto", "omp_set_schedule(auto, 0) chose '" + schedule_text() + "', not auto");
  omp_get_schedule(&kind, &chunk);
  check(kind == omp_sched_auto && chunk == 1, "auto reported as kind " + std::to_string(static_cast<int>(kind)) +
                                                  ", chunk " + std::to_string(chunk) + ", not auto, 1");
  selfsched_set_schedule("css,7", 0);
}

}  // namespace

int main() {
  case_watchdog::start_watchdog();
  if (selfsched_set_schedule("css,7", 0) != 0) return std::fprintf(stderr, "FAIL: css,7 refused\n"), 1;
  run_case("omp_set_schedule while a team mate is in the loop", [] {
    for (int k = 0; k < 5; ++k) set_schedule_while_team_mate_in_loop(false);
  });
  selfsched_set_schedule("css,7", 0);
  run_case("selfsched_set_schedule while a team mate is in the loop", [] {
    for (int k = 0; k < 5; ++k) set_schedule_while_team_mate_in_loop(true);
  });
  selfsched_set_schedule("css,7", 0);
  run_case("a change inside a region", change_inside_region_is_the_tasks_own);
  run_case("switching while other root threads run loops", switch_while_other_roots_run_loops);
  run_case("25 levels of nested regions", deep_serialized_nesting_is_silent);
  run_case("saving and restoring the schedule", save_and_restore_keeps_the_technique);
  std::printf("schedule scope: %d failures\n", failures);
  return failures == 0 ? 0 : 1;
}
