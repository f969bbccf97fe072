// Which pages of the program's memory a rank wrote, and what they held
// before: a copy of every tracked page as it was at the last
// synchronization point (its shadow), and the kernel's record of the pages
// written since (userfaultfd write protection, asynchronous mode, read and
// re-armed with the PAGEMAP_SCAN ioctl; Linux 6.7 and later). No signal, no
// copy at the first write: a write to a protected page costs the kernel one
// minor fault, and a system call writing into such a page just works. A
// page written in one window stays unprotected (hot) and is compared with
// its shadow at every synchronization point until it has been found
// unchanged for as many windows as one fault is worth (measured at start);
// then it is protected again, so a loop that writes the same pages at every
// step, or every other step, pays the fault once. Without the kernel's help every tracked page is
// compared every time: the same result, slower.
//
// Pages changed since the parallel region began keep their shadow of that
// moment too (the undo log), so a region that must run again from its start
// (a conflict) finds its memory as it was.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "modules.hpp"
#include "page_diff.hpp"

namespace selfsched::cluster {

class page_tracker {
 public:
  page_tracker() = default;
  ~page_tracker();
  page_tracker(const page_tracker&) = delete;
  page_tracker& operator=(const page_tracker&) = delete;

  // Sets up the kernel's write tracking (unless `kernel` is false: tests of
  // the other way) and the heap's shadow (heap: the program's heap region).
  // false with `why` when it cannot at all.
  bool start(address_range heap, std::string& why, bool kernel = true);
  bool write_protected() const { return uffd_ >= 0; }

  // A range outside the heap (a module's data, the main stack), page-aligned:
  // tracked from now on, its shadow a copy of it now.
  bool add_range(address_range r);
  // The heap's part in use grows: [begin, end) of it is tracked from now on
  // (its written pages become their shadow, unless `quiet`: the caller does).
  void grow_heap(address_range r, bool quiet);
  // The main thread's stack (a range added above): in the current parallel
  // region only the bytes from `floor` up are the program's shared memory;
  // below are the frames of the thread that merges and rolls back.
  void set_stack(address_range stack, std::uintptr_t floor) {
    stack_ = stack;
    stack_floor_ = floor;
  }

  // A window begins (a parallel region starts): pages written since the last
  // synchronization point (serial code, run by every rank) become their own
  // shadow, and are listed in `written` (every tracked page when `all`).
  void begin_window(const std::vector<address_range>& ranges, bool all, std::vector<std::uintptr_t>& written);
  // A page's tracked bytes, hashed (64 bits).
  std::uint64_t hash_page(std::uintptr_t page) const;
  // A page's tracked bytes as another rank has them: into memory and shadow.
  void install_page(std::uintptr_t page, const std::byte* bytes);
  std::size_t tracked_bytes(std::uintptr_t page) const { return page_bytes - lowest(page); }
  // Writes the runs of every page changed since the window began. false:
  // out of room.
  bool write_diffs(const std::vector<address_range>& ranges, diff_writer& out);
  // Another rank's runs: written into memory.
  void apply(diff_reader& reader);
  // Another rank's runs of the current window, before the window ends: that
  // rank waits at the synchronization point while this one's threads still
  // run, perhaps spinning on one of its writes (a flag set by a thread of
  // the other rank; OpenMP lets a racy read see another thread's write at
  // any time). Each byte goes into memory and into the shadow, so it does
  // not count as this rank's own change, and only if this rank has not
  // changed it (a compare-and-swap against the shadow: a byte both ranks
  // changed stays this rank's, and the merge finds the conflict). A page's
  // shadow from the region's start is kept first (roll_back_region); pages
  // outside `ranges`, or with no room left to keep them, are left for the
  // merge. The caller ensures no merge or roll-back runs meanwhile.
  struct early_result {
    std::uint64_t pages = 0;  // pages written into
    bool clashed = false;     // a byte this rank had changed too
  };
  early_result apply_early(diff_reader& reader, const std::vector<address_range>& ranges);
  // The merge is over: every changed page's shadow is its content now (its
  // first shadow of the region kept for undo); pages found unchanged are
  // protected again.
  // `undo`: keep the region's first shadows (not at its end, nor in a
  // region that never runs again).
  void finish_merge(const std::vector<address_range>& ranges, bool undo = true);
  // The written pages' contents, hashed together (the same writes on every
  // rank give the same hash). Cheaper than writing diffs.
  std::uint64_t hash_written(const std::vector<address_range>& ranges);
  // A conflict: this window's own writes are undone (memory from shadows).
  void roll_back_window();
  // The same before any diff was written: every written page from its shadow.
  void discard_window(const std::vector<address_range>& ranges);
  // Back to the region's start: every page changed since, memory and shadow.
  void roll_back_region();
  // The region ended: its undo log is dropped.
  void end_region();

  // Statistics for the profile and the benchmarks.
  struct counters {
    std::uint64_t merges = 0, pages_diffed = 0, pages_changed = 0, pages_applied = 0, bytes_sent = 0;
    std::uint64_t scanned_pages = 0;
  };
  const counters& stats() const { return stats_; }
  // Windows an unchanged hot page stays unprotected (1: protected at once).
  unsigned protect_after() const { return protect_after_; }

 private:
  std::byte* shadow_of(std::uintptr_t page) const;
  // The first byte of `page` that is tracked (page_bytes: none).
  std::size_t lowest(std::uintptr_t page) const {
    if (!stack_.contains(page) || page >= stack_floor_) return 0;
    return page + page_bytes > stack_floor_ ? stack_floor_ - page : page_bytes;
  }
  // Calls f(page) for every page of r the kernel says was written (present
  // or swapped; a page never touched reads as zero, as its shadow).
  template <typename F>
  void for_written(address_range r, F&& f);
  // The same for every page present or swapped with all of `required`'s
  // categories (0: every page that exists).
  template <typename F>
  void for_pages(address_range r, std::uint64_t required, F&& f);
  void protect(std::uintptr_t begin, std::uintptr_t end);
  // Only the pages of r that exist (present or swapped).
  void protect_populated(address_range r);
  unsigned windows_worth_a_fault();
  // A hot page was found unchanged: protected again after protect_after_ such windows.
  void found_unchanged(std::uintptr_t page);
  // false: the undo log is full (the page's region-start shadow is not kept).
  bool keep_for_undo(std::uintptr_t page);

  int uffd_ = -1, pagemap_ = -1;
  address_range heap_{};
  std::byte* heap_shadow_ = nullptr;
  struct other_range {
    address_range range;
    std::byte* shadow;
  };
  std::vector<other_range> others_;
  std::byte* other_shadows_ = nullptr;
  std::size_t other_used_ = 0;
  // Per arena in use: its start, and how far the kernel watches it.
  std::vector<std::pair<std::uintptr_t, std::uintptr_t>> heap_grown_;

  address_range stack_{};
  std::uintptr_t stack_floor_ = 0;
  std::vector<std::uintptr_t> changed_;    // pages this window changed (own) or received
  std::vector<std::uintptr_t> unchanged_;  // written pages found unchanged: protect again
  std::unordered_map<std::uintptr_t, unsigned> idle_windows_;  // hot pages: windows found unchanged in a row
  unsigned protect_after_ = 1;
  page_changes changes_;  // the page being diffed
  // Undo: a page's shadow from before its first change in the region.
  std::unordered_map<std::uintptr_t, std::size_t> undo_index_;
  std::byte* undo_ = nullptr;
  std::size_t undo_used_ = 0;
  counters stats_;
};

}  // namespace selfsched::cluster
