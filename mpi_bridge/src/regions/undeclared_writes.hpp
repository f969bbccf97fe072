// Writes of a region's shared loops that no declared movement covers
// (gather_rows, reduce): found by write tracking, as cluster mode finds a
// program's writes (write_tracking/tracking.hpp), then reported or merged
// across the ranks (write_exchange.cpp).
//
// What is tracked: the writable data of the program's own modules (the
// executable and its libraries; not the runtime's: the C and C++ libraries,
// libomp, MPI, selfsched, hwloc) and the ranges the program names with
// options::track_writes. Not the heap as a whole: in a region the C
// library's heap holds MPI's and the runtime's allocations next to the
// program's, at addresses that differ by rank once MPI_Init has run, and
// their writes during a loop are each rank's own business; cluster mode can
// merge the heap because it owns the program's allocator, a region does not.
//
// A window opens when a shared loop begins (nothing of the window's pages is
// copied until then) and closes at the checkpoint after it, when every rank
// has finished the loops: the bytes that differ from the copies taken at
// the opening are the loops' writes (and those of code running beside them
// in the same parallel region, which every rank runs alike).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "tracking.hpp"

namespace selfsched::mpi::detail {

// A range of memory tracked on every rank, by the same index everywhere (the
// same binary loads the same modules in the same order; track_writes ranges
// are checked to have the same sizes).
struct watched_range {
  std::uintptr_t begin = 0, end = 0;  // on this rank
  std::string name;                   // for messages: "the global data of app", "track_writes range 0"
};

// Bytes this rank changed in a window: [offset, offset + length) of range
// `range`, the bytes now at `at` in `data`.
struct changed_run {
  std::uint32_t range = 0;
  std::uint32_t length = 0;
  std::uint64_t offset = 0;
  std::size_t at = 0;
};

struct changed_bytes {
  std::vector<changed_run> runs;
  std::vector<std::byte> data;
  std::size_t pages_written = 0;  // pages the kernel (or the comparison) found written
};

// The ranges a region tracks: the program modules' writable data, then the
// user's ranges.
std::vector<watched_range> program_ranges(std::span<const std::pair<void*, std::size_t>> user_ranges);

class write_window {
 public:
  // false with `why` when pages cannot be tracked at all.
  bool start(std::vector<watched_range> ranges, std::string& why);
  const std::vector<watched_range>& ranges() const { return ranges_; }
  bool is_open() const { return open_; }
  // A shared loop begins: pages written since the last window become their
  // own copies; the kernel tracks writes from now on.
  void open();
  // This rank's changed bytes in the tracked ranges, less `covered` (this
  // rank's addresses of the declared movements' memory).
  changed_bytes collect(std::span<const cluster::address_range> covered);
  // The window closes: what memory holds now (the others' bytes applied) is
  // the copy the next window is compared with.
  void close();

 private:
  cluster::page_tracker tracker_;
  std::vector<watched_range> ranges_;
  std::vector<cluster::address_range> pages_;  // the ranges rounded out to pages, merged
  std::vector<std::uintptr_t> written_;
  std::byte* blob_ = nullptr;  // the tracker's diffs, read back at once
  std::size_t blob_capacity_ = 0;
  bool open_ = false;
};

}  // namespace selfsched::mpi::detail
