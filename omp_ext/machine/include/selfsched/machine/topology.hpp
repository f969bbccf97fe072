// The machine as hwloc sees it: cores, their PUs (hardware threads, by OS
// index, the numbers sched_getcpu() returns), CPU kinds. Loaded once per
// process, only when something needs it (about 3 ms of CPU time): computing
// VP from an SIA file or the CPU kinds, or SELFSCHED_BIND. Also used by
// selfsched-calibrate, so the library and the tool agree on what "this
// machine" is.
//
// HWLOC_XMLFILE replaces the machine by an XML description (hwloc's own
// variable); tests use it to make this machine look hybrid. Binding goes
// through sched_setaffinity, so it works with such an XML too, as long as it
// describes this machine's PUs.
#pragma once

#include <sched.h>

#include <memory>
#include <string>
#include <vector>

struct hwloc_topology;

namespace selfsched::omp {

struct core_info {
  std::vector<int> pus;  // OS indices, all of them (allowed or not)
  int kind = -1;         // index into machine::kinds(), -1 if none
};

struct cpu_kind {
  int efficiency = -1;       // hwloc's rank: higher = faster; -1 unknown
  std::vector<int> pus;      // OS indices
  double linux_capacity = 0; // LinuxCapacity info (Linux cpu_capacity, 1024 = biggest), 0 if absent
  double max_mhz = 0;        // FrequencyMaxMHz info, 0 if absent
  std::string core_type;     // CoreType info (IntelCore, IntelAtom), "" if absent
};

class machine {
 public:
  // Loads the topology (from HWLOC_XMLFILE when set). The usable cores are
  // those of `process_mask` (the CPUs the process started with, before
  // libomp bound its initial thread), else of the calling thread's mask.
  // nullptr and `error` when hwloc cannot.
  static std::unique_ptr<machine> load(std::string& error, const cpu_set_t* process_mask = nullptr);
  ~machine();
  machine(const machine&) = delete;
  machine& operator=(const machine&) = delete;

  const std::vector<core_info>& cores() const { return cores_; }
  const std::vector<cpu_kind>& kinds() const { return kinds_; }
  // Core index of a PU (OS index), -1 if the machine has no such PU.
  int core_of(int pu) const;
  // Cores this process may run on (see load(); within the allowed CPUs), in
  // hwloc's logical order: SELFSCHED_BIND's places.
  const std::vector<int>& usable_cores() const { return usable_cores_; }
  // Its first usable PU (what sched_getcpu() would return on it).
  int first_usable_pu(int core) const;

  // What identifies this machine in an SIA file: CPU model, package, core and
  // PU counts and numbering, CPU kinds. Equal on identical nodes, different
  // when the hardware (or the HWLOC_XMLFILE emulating it) changes.
  const std::string& signature() const { return signature_; }

  // Binds the calling thread to the usable PUs of `core` (any of them, like
  // OMP_PLACES=cores), or with `one_pu` strictly to its first usable PU.
  // false with `error` when the OS refuses.
  bool bind_this_thread(int core, bool one_pu, std::string& error) const;

 private:
  machine() = default;
  hwloc_topology* topology_ = nullptr;
  std::vector<core_info> cores_;
  std::vector<cpu_kind> kinds_;
  std::vector<int> core_of_pu_;
  std::vector<int> usable_cores_;
  std::vector<std::vector<int>> usable_pus_;  // per core
  std::string signature_;
};

// VP per PU (OS index, fastest = 1) from the CPU kinds, or empty when the
// machine has one kind or hwloc cannot rank them. `how` says which kind
// attribute gave the numbers.
std::vector<double> kind_powers(const machine& m, std::string& how);

}  // namespace selfsched::omp
