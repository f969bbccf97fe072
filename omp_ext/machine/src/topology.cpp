#include "selfsched/machine/topology.hpp"

#include <hwloc.h>
#include <hwloc/glibc-sched.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace selfsched::omp {
namespace {

// An hwloc bitmap that frees itself.
struct bitmap {
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  bitmap() = default;
  bitmap(const bitmap&) = delete;
  bitmap& operator=(const bitmap&) = delete;
  ~bitmap() { hwloc_bitmap_free(set); }
};

std::vector<int> indices(hwloc_const_bitmap_t set) {
  std::vector<int> out;
  for (int i = hwloc_bitmap_first(set); i >= 0; i = hwloc_bitmap_next(set, i)) out.push_back(i);
  return out;
}

std::string list_text(hwloc_const_bitmap_t set) {
  char* text = nullptr;
  if (hwloc_bitmap_list_asprintf(&text, set) < 0) return "?";
  std::string out(text);
  std::free(text);
  return out;
}

double info_number(const hwloc_info_s* infos, unsigned count, const char* name) {
  for (unsigned i = 0; i < count; ++i)
    if (std::strcmp(infos[i].name, name) == 0) return std::strtod(infos[i].value, nullptr);
  return 0;
}

std::string info_text(const hwloc_info_s* infos, unsigned count, const char* name) {
  for (unsigned i = 0; i < count; ++i)
    if (std::strcmp(infos[i].name, name) == 0) return infos[i].value;
  return {};
}

}  // namespace

std::unique_ptr<machine> machine::load(std::string& error, const cpu_set_t* process_mask) {
  std::unique_ptr<machine> m(new machine);
  hwloc_topology_t topology = nullptr;
  if (hwloc_topology_init(&topology) != 0) return error = "hwloc_topology_init failed", nullptr;
  m->topology_ = topology;
  // The whole machine, also PUs outside our cgroup (the signature must not
  // change with the job's CPU allocation); no caches or I/O devices, which
  // we never look at.
  hwloc_topology_set_flags(topology, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
  hwloc_topology_set_cache_types_filter(topology, HWLOC_TYPE_FILTER_KEEP_NONE);
  hwloc_topology_set_io_types_filter(topology, HWLOC_TYPE_FILTER_KEEP_NONE);
  if (hwloc_topology_load(topology) != 0)
    return error = std::string("hwloc could not load the topology: ") + std::strerror(errno), nullptr;

  // Some virtual machines report PUs but no cores: then each PU is a core.
  const hwloc_obj_type_t core_type =
      hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
  const int core_count = hwloc_get_nbobjs_by_type(topology, core_type);

  const int kind_count = hwloc_cpukinds_get_nr(topology, 0);
  for (int k = 0; k < kind_count; ++k) {
    bitmap pus;
    int efficiency = -1;
    unsigned info_count = 0;
    hwloc_info_s* infos = nullptr;
    if (hwloc_cpukinds_get_info(topology, static_cast<unsigned>(k), pus.set, &efficiency, &info_count, &infos, 0) != 0)
      continue;
    m->kinds_.push_back({efficiency, indices(pus.set), info_number(infos, info_count, "LinuxCapacity"),
                         info_number(infos, info_count, "FrequencyMaxMHz"), info_text(infos, info_count, "CoreType")});
  }

  // Asked from the OS, not through hwloc's binding calls: those do nothing
  // (and report success) when HWLOC_XMLFILE describes the machine.
  bitmap usable;
  cpu_set_t mask;
  if (process_mask != nullptr)
    hwloc_cpuset_from_glibc_sched_affinity(topology, usable.set, process_mask, sizeof *process_mask);
  else if (sched_getaffinity(0, sizeof mask, &mask) == 0)
    hwloc_cpuset_from_glibc_sched_affinity(topology, usable.set, &mask, sizeof mask);
  else
    hwloc_bitmap_copy(usable.set, hwloc_topology_get_allowed_cpuset(topology));
  if (hwloc_bitmap_intersects(usable.set, hwloc_topology_get_allowed_cpuset(topology)))
    hwloc_bitmap_and(usable.set, usable.set, hwloc_topology_get_allowed_cpuset(topology));

  for (int c = 0; c < core_count; ++c) {
    const hwloc_obj_t core = hwloc_get_obj_by_type(topology, core_type, static_cast<unsigned>(c));
    core_info info;
    info.pus = indices(core->cpuset);
    info.kind = kind_count > 1 ? hwloc_cpukinds_get_by_cpuset(topology, core->cpuset, 0) : (kind_count == 1 ? 0 : -1);
    for (int pu : info.pus) {
      if (pu >= static_cast<int>(m->core_of_pu_.size())) m->core_of_pu_.resize(static_cast<std::size_t>(pu) + 1, -1);
      m->core_of_pu_[static_cast<std::size_t>(pu)] = c;
    }
    bitmap here;
    hwloc_bitmap_and(here.set, core->cpuset, usable.set);
    m->usable_pus_.push_back(indices(here.set));
    if (!hwloc_bitmap_iszero(here.set)) m->usable_cores_.push_back(c);
    m->cores_.push_back(std::move(info));
  }

  const hwloc_obj_t package = hwloc_get_obj_by_type(topology, HWLOC_OBJ_PACKAGE, 0);
  const char* model = package ? hwloc_obj_get_info_by_name(package, "CPUModel") : nullptr;
  if (model == nullptr) model = hwloc_obj_get_info_by_name(hwloc_get_root_obj(topology), "CPUModel");
  std::string signature = model ? model : "unknown CPU";
  signature += " | " + std::to_string(hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_PACKAGE)) + " package(s), " +
               std::to_string(core_count) + " cores, PUs " +
               list_text(hwloc_get_root_obj(topology)->complete_cpuset);
  if (kind_count > 1) {
    signature += " | kinds";
    for (const cpu_kind& kind : m->kinds_) {
      bitmap pus;
      for (int pu : kind.pus) hwloc_bitmap_set(pus.set, static_cast<unsigned>(pu));
      signature += " " + std::to_string(kind.efficiency) + ":" + list_text(pus.set);
    }
  }
  m->signature_ = std::move(signature);
  return m;
}

machine::~machine() {
  if (topology_ != nullptr) hwloc_topology_destroy(topology_);
}

int machine::core_of(int pu) const {
  return pu >= 0 && pu < static_cast<int>(core_of_pu_.size()) ? core_of_pu_[static_cast<std::size_t>(pu)] : -1;
}

int machine::first_usable_pu(int core) const {
  const auto& pus = usable_pus_[static_cast<std::size_t>(core)];
  return pus.empty() ? cores_[static_cast<std::size_t>(core)].pus.front() : pus.front();
}

bool machine::bind_this_thread(int core, bool one_pu, std::string& error) const {
  const auto& pus = usable_pus_[static_cast<std::size_t>(core)];
  if (pus.empty()) return error = "core " + std::to_string(core) + " has no PU this process may use", false;
  bitmap set;
  for (int pu : pus) {
    hwloc_bitmap_set(set.set, static_cast<unsigned>(pu));
    if (one_pu) break;
  }
  // sched_setaffinity, not hwloc_set_cpubind: see load().
  cpu_set_t mask;
  hwloc_cpuset_to_glibc_sched_affinity(topology_, set.set, &mask, sizeof mask);
  if (sched_setaffinity(0, sizeof mask, &mask) != 0)
    return error = "binding to PUs " + list_text(set.set) + " failed: " + std::strerror(errno), false;
  return true;
}

std::vector<double> kind_powers(const machine& m, std::string& how) {
  const auto& kinds = m.kinds();
  if (kinds.size() < 2) return {};
  // Best first: Linux's capacity (it includes IPC differences, e.g. from the
  // device tree's capacity-dmips-mhz), then the maximum frequency, then the
  // bare efficiency rank, which only orders the kinds.
  const auto all = [&](auto has) { return std::all_of(kinds.begin(), kinds.end(), has); };
  std::vector<double> speed;
  if (all([](const cpu_kind& k) { return k.linux_capacity > 0; })) {
    how = "hwloc CPU kinds (LinuxCapacity)";
    for (const cpu_kind& k : kinds) speed.push_back(k.linux_capacity);
  } else if (all([](const cpu_kind& k) { return k.max_mhz > 0; })) {
    how = "hwloc CPU kinds (FrequencyMaxMHz)";
    for (const cpu_kind& k : kinds) speed.push_back(k.max_mhz);
  } else if (all([](const cpu_kind& k) { return k.efficiency >= 0; })) {
    // A guess: rank r of K kinds runs at (r + 1) / K of the fastest.
    how = "hwloc CPU kinds (efficiency rank only: a rough guess)";
    for (const cpu_kind& k : kinds) speed.push_back(k.efficiency + 1.0);
  } else {
    return {};
  }
  const double fastest = *std::max_element(speed.begin(), speed.end());
  int max_pu = -1;
  for (const cpu_kind& k : kinds)
    for (int pu : k.pus) max_pu = std::max(max_pu, pu);
  std::vector<double> powers(static_cast<std::size_t>(max_pu + 1), 0.0);  // 0: PU of no kind
  for (std::size_t k = 0; k < kinds.size(); ++k)
    for (int pu : kinds[k].pus) powers[static_cast<std::size_t>(pu)] = speed[k] / fastest;
  return powers;
}

}  // namespace selfsched::omp
