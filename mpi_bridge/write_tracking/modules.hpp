// The shared objects in the process, told apart: the runtime's (the loader,
// the C and C++ libraries, the OpenMP runtime, selfsched, hwloc and what it
// loads) and the program's (the executable and its own libraries). The
// program's writable segments are memory cluster mode merges; the runtime's
// state is each process's own. An allocation is the program's unless the
// runtime asked for it (allocation.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace selfsched::cluster {

struct address_range {
  std::uintptr_t begin = 0, end = 0;
  bool contains(std::uintptr_t a) const { return a - begin < end - begin; }
};

struct module_info {
  std::string path;
  address_range text;                   // its executable segments
  std::vector<address_range> data;      // writable, not RELRO, page-aligned
  bool runtime = false;                 // its state is per process, never merged
  bool allocates_for_runtime = false;   // its malloc calls are the runtime's
};

// Runtime or program, by the object's file name.
bool is_runtime_module(const std::string& path);
bool allocates_for_runtime(const std::string& path);

// The modules loaded now (dl_iterate_phdr): cold, takes the loader's lock.
std::vector<module_info> loaded_modules();
// The load address (dl_phdr_info::dlpi_addr) of every object loaded now.
std::vector<std::uintptr_t> loaded_objects();
// Objects the runtime loaded (an OpenMP tool, hwloc's plugins and the
// libraries they need, whatever their names): the runtime's from now on.
void mark_loaded_by_runtime(const std::vector<std::uintptr_t>& objects);

// How many objects the loader has loaded so far (dlopen adds one or more):
// cheap, to see whether loaded_modules() would say anything new.
unsigned long long loads_so_far();

// Does a call from `caller` allocate for the runtime? Lock-free after the
// first call; looks the modules up again when `caller` is in none it knows
// (a library loaded since). Calls from the dynamic loader are the runtime's
// without any lookup (it may hold its lock).
bool caller_is_runtime(std::uintptr_t caller);
// Is `caller` code of the runtime's (libselfsched, libomp...)? It asks the
// OpenMP API for its own process's team, never the cluster-wide one.
bool code_of_runtime(std::uintptr_t caller);

}  // namespace selfsched::cluster
