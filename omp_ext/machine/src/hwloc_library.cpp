#include "hwloc_library.hpp"

#include <dlfcn.h>

namespace selfsched::omp::hwloc_library {
namespace {

struct opening {
  functions table{};
  std::string error;
  bool ok = false;
};

template <typename F>
bool find(void* library, F& slot, const char* name, std::string& error) {
  slot = reinterpret_cast<F>(dlsym(library, name));
  if (slot == nullptr && error.empty()) error = std::string(SELFSCHED_HWLOC_SONAME) + " has no " + name;
  return slot != nullptr;
}

bool find_all(void* library, functions& f, std::string& error) {
  find(library, f.bitmap_alloc, "hwloc_bitmap_alloc", error);
  find(library, f.bitmap_free, "hwloc_bitmap_free", error);
  find(library, f.bitmap_first, "hwloc_bitmap_first", error);
  find(library, f.bitmap_next, "hwloc_bitmap_next", error);
  find(library, f.bitmap_set, "hwloc_bitmap_set", error);
  find(library, f.bitmap_zero, "hwloc_bitmap_zero", error);
  find(library, f.bitmap_copy, "hwloc_bitmap_copy", error);
  find(library, f.bitmap_and, "hwloc_bitmap_and", error);
  find(library, f.bitmap_intersects, "hwloc_bitmap_intersects", error);
  find(library, f.bitmap_iszero, "hwloc_bitmap_iszero", error);
  find(library, f.bitmap_list_asprintf, "hwloc_bitmap_list_asprintf", error);
  find(library, f.topology_init, "hwloc_topology_init", error);
  find(library, f.topology_set_flags, "hwloc_topology_set_flags", error);
  find(library, f.topology_set_cache_types_filter, "hwloc_topology_set_cache_types_filter", error);
  find(library, f.topology_set_io_types_filter, "hwloc_topology_set_io_types_filter", error);
  find(library, f.topology_load, "hwloc_topology_load", error);
  find(library, f.topology_destroy, "hwloc_topology_destroy", error);
  find(library, f.topology_get_allowed_cpuset, "hwloc_topology_get_allowed_cpuset", error);
  find(library, f.get_type_depth, "hwloc_get_type_depth", error);
  find(library, f.get_nbobjs_by_depth, "hwloc_get_nbobjs_by_depth", error);
  find(library, f.get_obj_by_depth, "hwloc_get_obj_by_depth", error);
  find(library, f.cpukinds_get_nr, "hwloc_cpukinds_get_nr", error);
  find(library, f.cpukinds_get_info, "hwloc_cpukinds_get_info", error);
  find(library, f.cpukinds_get_by_cpuset, "hwloc_cpukinds_get_by_cpuset", error);
  return error.empty();
}

const opening& library() {
  static const opening opened = [] {
    opening o;
    // SELFSCHED_HWLOC_SONAME: the SONAME of the hwloc whose headers the
    // build used (CMakeLists.txt). Kept open for the process: a loaded
    // machine holds hwloc's objects. Global, as when the loader loaded it:
    // hwloc's own plugins (its XML reader for HWLOC_XMLFILE) look its
    // functions up there.
    void* handle = dlopen(SELFSCHED_HWLOC_SONAME, RTLD_NOW | RTLD_GLOBAL);
    if (handle == nullptr) {
      const char* why = dlerror();
      o.error = std::string("cannot open ") + SELFSCHED_HWLOC_SONAME + ": " + (why ? why : "?");
      return o;
    }
    o.ok = find_all(handle, o.table, o.error);
    return o;
  }();
  return opened;
}

}  // namespace

const functions* open(std::string& error) {
  const opening& o = library();
  if (!o.ok) error = o.error;
  return o.ok ? &o.table : nullptr;
}

const functions& opened() { return library().table; }

int count_of_type(hwloc_topology_t topology, hwloc_obj_type_t type) {
  const int depth = opened().get_type_depth(topology, type);
  if (depth == HWLOC_TYPE_DEPTH_UNKNOWN) return 0;
  if (depth == HWLOC_TYPE_DEPTH_MULTIPLE) return -1;
  return static_cast<int>(opened().get_nbobjs_by_depth(topology, depth));
}

hwloc_obj_t object_of_type(hwloc_topology_t topology, hwloc_obj_type_t type, unsigned index) {
  const int depth = opened().get_type_depth(topology, type);
  if (depth == HWLOC_TYPE_DEPTH_UNKNOWN || depth == HWLOC_TYPE_DEPTH_MULTIPLE) return nullptr;
  return opened().get_obj_by_depth(topology, depth, index);
}

hwloc_obj_t root(hwloc_topology_t topology) { return opened().get_obj_by_depth(topology, 0, 0); }

void set_from_mask(hwloc_bitmap_t set, const cpu_set_t& mask) {
  opened().bitmap_zero(set);
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &mask)) opened().bitmap_set(set, static_cast<unsigned>(cpu));
}

void mask_from_set(hwloc_const_bitmap_t set, cpu_set_t& mask) {
  CPU_ZERO(&mask);
  for (int pu = opened().bitmap_first(set); pu >= 0; pu = opened().bitmap_next(set, pu))
    if (pu < CPU_SETSIZE) CPU_SET(pu, &mask);
}

}  // namespace selfsched::omp::hwloc_library
