// hwloc, opened when the topology is first needed instead of by the loader.
// A library preloaded into every process of a job would otherwise map and
// relocate libhwloc and its dependencies (libudev) at every start, also in
// processes that never ask what the machine is (make bench-startup). Only
// topology.cpp calls hwloc, through this table; the helpers hwloc's headers
// define inline over its exported functions are written here over the table.
#pragma once

#include <hwloc.h>
#include <sched.h>

#include <string>

namespace selfsched::omp::hwloc_library {

// hwloc's exported functions that topology.cpp uses.
struct functions {
  decltype(&::hwloc_bitmap_alloc) bitmap_alloc;
  decltype(&::hwloc_bitmap_free) bitmap_free;
  decltype(&::hwloc_bitmap_first) bitmap_first;
  decltype(&::hwloc_bitmap_next) bitmap_next;
  decltype(&::hwloc_bitmap_set) bitmap_set;
  decltype(&::hwloc_bitmap_zero) bitmap_zero;
  decltype(&::hwloc_bitmap_copy) bitmap_copy;
  decltype(&::hwloc_bitmap_and) bitmap_and;
  decltype(&::hwloc_bitmap_intersects) bitmap_intersects;
  decltype(&::hwloc_bitmap_iszero) bitmap_iszero;
  decltype(&::hwloc_bitmap_list_asprintf) bitmap_list_asprintf;
  decltype(&::hwloc_topology_init) topology_init;
  decltype(&::hwloc_topology_set_flags) topology_set_flags;
  decltype(&::hwloc_topology_set_cache_types_filter) topology_set_cache_types_filter;
  decltype(&::hwloc_topology_set_io_types_filter) topology_set_io_types_filter;
  decltype(&::hwloc_topology_load) topology_load;
  decltype(&::hwloc_topology_destroy) topology_destroy;
  decltype(&::hwloc_topology_get_allowed_cpuset) topology_get_allowed_cpuset;
  decltype(&::hwloc_get_type_depth) get_type_depth;
  decltype(&::hwloc_get_nbobjs_by_depth) get_nbobjs_by_depth;
  decltype(&::hwloc_get_obj_by_depth) get_obj_by_depth;
  decltype(&::hwloc_cpukinds_get_nr) cpukinds_get_nr;
  decltype(&::hwloc_cpukinds_get_info) cpukinds_get_info;
  decltype(&::hwloc_cpukinds_get_by_cpuset) cpukinds_get_by_cpuset;
};

// hwloc's functions, the library opened at the first call (thread-safe);
// nullptr, and `error` saying why, if it cannot be opened.
const functions* open(std::string& error);

// The table once open() has succeeded: what a loaded machine calls.
const functions& opened();

// hwloc_get_nbobjs_by_type, hwloc_get_obj_by_type, hwloc_get_root_obj.
int count_of_type(hwloc_topology_t topology, hwloc_obj_type_t type);
hwloc_obj_t object_of_type(hwloc_topology_t topology, hwloc_obj_type_t type, unsigned index);
hwloc_obj_t root(hwloc_topology_t topology);

// hwloc_cpuset_from/to_glibc_sched_affinity (hwloc/glibc-sched.h).
void set_from_mask(hwloc_bitmap_t set, const cpu_set_t& mask);
void mask_from_set(hwloc_const_bitmap_t set, cpu_set_t& mask);

}  // namespace selfsched::omp::hwloc_library
