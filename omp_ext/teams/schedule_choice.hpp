// Which technique serves schedule(runtime) loops: chosen from
// SELFSCHED_SCHEDULE / OMP_SCHEDULE at load time, or selfsched_set_schedule().
#pragma once

#include <atomic>

#include "selfsched/core/spec.hpp"
#include "state/active_schedule.hpp"

namespace selfsched::omp {

namespace detail {
extern std::atomic<const active_schedule*> active;
}

// The process-wide choice: what regions started outside any other region
// inherit (teams.hpp gives each team its own). nullptr: runtime loops follow
// libomp's own run-sched-var. One load.
inline const active_schedule* active_technique() {
  return detail::active.load(std::memory_order_acquire);
}
void set_active_technique(const active_schedule* technique);

// Parses `text` into `technique` ("" or nullptr: nullptr, back to libomp).
// On error: one warning naming the value and the choices, and false.
bool parse_technique(const char* text, long chunk, const char* origin, const active_schedule*& technique);

// omp_get_schedule's kind for a selfsched technique: an implementation-
// specific kind (OpenMP allows them; libomp's own go up to 102), one per
// technique text the process has used, which omp_set_schedule takes back,
// so a program that saves and restores its schedule keeps the technique.
constexpr int first_technique_kind = 0x5e1f0000;
int technique_kind(const active_schedule* technique);
// The technique behind a kind technique_kind gave, else nullptr.
const active_schedule* technique_of_kind(int kind);

// false, after one warning naming `origin`='`text`' and why, when the
// process has an OpenMP runtime whose loops never come to selfsched.
bool loops_reach_selfsched(const char* origin, const char* text);

// selfsched's auto without mechanisms (no w-, s-, -NN, -auto): each thread
// sizes its own chunks (loop.cpp), and it is OpenMP's `auto` to
// omp_get_schedule.
bool is_plain_auto(const schedule_spec& spec);

// What serves loops written schedule(auto): selfsched's auto, or nullptr
// (libomp's) under SELFSCHED_AUTO=libomp.
const active_schedule* auto_schedule();

// Reads the environment; rewrites OMP_SCHEDULE so libomp never warns about
// our names. Runs from the library constructor. `register_with_runtime`:
// where libomp takes registered schedules, how the chosen technique is
// registered with it (libomp_hooks.hpp: then libomp reads it from
// OMP_SCHEDULE itself), else nullptr.
void choose_technique_from_environment(bool (*register_with_runtime)(const active_schedule& technique));

// SELFSCHED_DISPLAY_ENV: the settings, once per process, where OpenMP
// starts (as libomp prints OMP_DISPLAY_ENV), not in every process the
// library is preloaded into (a shell, timeout).
void display_settings_if_asked();

// From the library constructor: under SELFSCHED_VERBOSE, if a technique was
// chosen and no loop ever reached selfsched, says so at exit with why
// (runtimes.hpp).
void report_unserved_at_exit();

}  // namespace selfsched::omp
