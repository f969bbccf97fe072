// What the interposed entry points share: the next definition of each (the
// OpenMP runtime's, or libselfsched's where it has one), the calling
// thread's place in a shared region, and the constructs that end a region's
// shared run.
#pragma once

#include <dlfcn.h>

#include <cstdint>

#include "program.hpp"

namespace selfsched::cluster {

// libomp's ident_t (kmp.h): what clang passes to every entry point.
struct ident {
  std::int32_t reserved_1, flags, reserved_2, reserved_3;
  const char* psource;  // ";file;function;line;col;;"
};
inline constexpr std::int32_t ident_work_sections = 0x400;

// The definition after ours of `name`, looked up once.
template <typename F>
F next_definition(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}
#define SELFSCHED_NEXT(name) \
  static const auto real = next_definition<decltype(&name)>(#name)

// The calling thread's place in the initial thread's parallel region, when
// that region is shared and the thread is at its level (not in a nested one).
member_state* shared_member();
// The same, whatever the region's mode (replicated included).
member_state* region_member();

// A worksharing construct every thread of the team meets that cannot be
// shared across ranks: this rank's threads stop here and the region runs
// again from its start, replicated (fork.cpp).
[[noreturn]] void run_region_again_replicated(ident* loc, std::int32_t gtid, const char* construct);

// The runtime's barrier among this rank's threads.
void local_barrier(ident* loc, std::int32_t gtid);

// A synchronization point of a shared region: this rank's threads meet, its
// thread 0 merges every rank's writes, and all go on, or all go back to the
// region's start when the merge found a conflict.
void synchronize(ident* loc, std::int32_t gtid, member_state& m, bool region_end = false);

// "file:line in function" of a construct, "" when the binary does not say.
std::string describe_site(const void* loc);

}  // namespace selfsched::cluster
