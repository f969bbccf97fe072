#include "tracking.hpp"

#include "raw_memory.hpp"

#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace selfsched::cluster {
namespace {

// PAGEMAP_SCAN (Linux 6.7, include/uapi/linux/fs.h), absent from older headers.
constexpr std::uint64_t page_is_written = 1 << 1, page_is_present = 1 << 3, page_is_swapped = 1 << 4;
struct page_region {
  std::uint64_t start, end, categories;
};
struct pm_scan_arg {
  std::uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages, category_inverted, category_mask,
      category_anyof_mask, return_mask;
};
constexpr unsigned long pagemap_scan = _IOWR('f', 16, pm_scan_arg);
constexpr std::uint64_t uffd_feature_wp_unpopulated = 1 << 13, uffd_feature_wp_async = 1 << 15;
constexpr int uffd_user_mode_only = 1;

constexpr std::size_t other_shadow_bytes = std::size_t{64} << 30;
constexpr std::size_t undo_bytes = std::size_t{256} << 30;

// Copies of pages: filled densely (the heap's copy mirrors the heap, the
// others are appended), so huge pages where the system allows them (THP in
// `madvise` mode): one fault for 512 copies, where a VM's minor fault can
// cost as much as copying 20 pages.
void* reserve(std::size_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  madvise(p, bytes, MADV_HUGEPAGE);
  return p;
}

}  // namespace

page_tracker::~page_tracker() {
  if (uffd_ >= 0) close(uffd_);
  if (pagemap_ >= 0) close(pagemap_);
}

bool page_tracker::start(address_range heap, std::string& why, bool kernel) {
  heap_ = heap;
  // No heap (a region of libselfsched_mpi: the C library's heap is not the
  // program's alone): only the ranges added later are tracked.
  const bool has_heap = heap.end > heap.begin;
  if (has_heap) heap_shadow_ = static_cast<std::byte*>(reserve(heap.end - heap.begin));
  other_shadows_ = static_cast<std::byte*>(reserve(other_shadow_bytes));
  undo_ = static_cast<std::byte*>(reserve(undo_bytes));
  if ((has_heap && heap_shadow_ == nullptr) || other_shadows_ == nullptr || undo_ == nullptr) {
    why = std::string("cannot reserve address space for the copies of the program's pages (") + std::strerror(errno) +
          ")";
    return false;
  }
  // The kernel's write tracking, when it has it; else every page is compared.
  if (!kernel) return true;
  const int fd = static_cast<int>(syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK | uffd_user_mode_only));
  if (fd < 0) return true;
  uffdio_api api{};
  api.api = UFFD_API;
  api.features = uffd_feature_wp_async | uffd_feature_wp_unpopulated;
  uffdio_register reg{};
  reg.range = {heap.begin, heap.end - heap.begin};
  reg.mode = UFFDIO_REGISTER_MODE_WP;
  const int pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  page_region probe[1];
  const std::uintptr_t probed = has_heap ? heap.begin : page_floor(reinterpret_cast<std::uintptr_t>(probe));
  pm_scan_arg scan{sizeof(pm_scan_arg), 0, probed, probed + page_bytes, 0, reinterpret_cast<std::uint64_t>(probe),
                   1, 0, 0, page_is_written, 0, page_is_written};
  if (ioctl(fd, UFFDIO_API, &api) != 0 || (has_heap && ioctl(fd, UFFDIO_REGISTER, &reg) != 0) || pagemap < 0 ||
      ioctl(pagemap, pagemap_scan, &scan) < 0) {
    close(fd);
    if (pagemap >= 0) close(pagemap);
    return true;
  }
  uffd_ = fd;
  pagemap_ = pagemap;
  protect_after_ = windows_worth_a_fault();
  return true;
}

// How many windows an unchanged page stays unprotected before it is
// protected again: a ski-rental rule. Keeping a page hot costs two
// compares with its shadow per synchronization point; protecting it costs
// one write fault when it is written again. Comparing until the compares
// have cost one fault, then protecting, pays at most twice the better of
// the two whatever the program does next. Both costs measured here, once:
// a minor fault costs about 1 us on bare metal and 25-30 us on some VMs,
// where protecting every unchanged page at once made a loop that writes
// its arrays every other step pay a fault per page per step.
unsigned page_tracker::windows_worth_a_fault() {
  constexpr std::size_t probe_pages = 16;
  constexpr std::size_t bytes = probe_pages * page_bytes;
  auto* p = static_cast<std::byte*>(reserve(bytes));
  auto* copy = static_cast<std::byte*>(reserve(bytes));
  if (p == nullptr || copy == nullptr) return 1;
  std::memset(p, 1, bytes);
  std::memset(copy, 1, bytes);
  const auto begin = reinterpret_cast<std::uintptr_t>(p);
  uffdio_register reg{};
  reg.range = {begin, bytes};
  reg.mode = UFFDIO_REGISTER_MODE_WP;
  unsigned windows = 1;
  if (ioctl(uffd_, UFFDIO_REGISTER, &reg) == 0) {
    protect(begin, begin + bytes);
    using clock = std::chrono::steady_clock;
    const auto t0 = clock::now();
    for (std::size_t i = 0; i < probe_pages; ++i) *reinterpret_cast<volatile std::byte*>(p + i * page_bytes) = std::byte{2};
    const auto t1 = clock::now();
    int differ = 0;
    for (std::size_t i = 0; i < probe_pages; ++i)
      differ += std::memcmp(p + i * page_bytes + 1, copy + i * page_bytes + 1, page_bytes - 1) != 0;
    const auto t2 = clock::now();
    const double fault = std::chrono::duration<double>(t1 - t0).count();
    const double compare = std::max(1e-9, std::chrono::duration<double>(t2 - t1).count()) * (1 + differ);
    windows = static_cast<unsigned>(std::clamp(std::lround(fault / (2 * compare)), 1L, 256L));
    uffdio_range range{begin, bytes};
    ioctl(uffd_, UFFDIO_UNREGISTER, &range);
  }
  munmap(p, bytes);
  munmap(copy, bytes);
  return windows;
}

void page_tracker::found_unchanged(std::uintptr_t page) {
  if (protect_after_ <= 1) {
    unchanged_.push_back(page);
    return;
  }
  unsigned& idle = idle_windows_[page];
  if (++idle < protect_after_) return;
  idle_windows_.erase(page);
  unchanged_.push_back(page);
}

bool page_tracker::add_range(address_range r) {
  const std::size_t bytes = r.end - r.begin;
  if (other_used_ + bytes > other_shadow_bytes) return false;
  std::byte* shadow = other_shadows_ + other_used_;
  other_used_ += bytes;
  raw_copy(shadow, reinterpret_cast<const void*>(r.begin), bytes);
  others_.push_back({r, shadow});
  if (uffd_ >= 0) {
    uffdio_register reg{};
    reg.range = {r.begin, bytes};
    reg.mode = UFFDIO_REGISTER_MODE_WP;
    if (ioctl(uffd_, UFFDIO_REGISTER, &reg) == 0) protect(r.begin, r.end);
  }
  return true;
}

void page_tracker::grow_heap(address_range r, bool quiet) {
  auto it = std::find_if(heap_grown_.begin(), heap_grown_.end(), [&](const auto& g) { return g.first == r.begin; });
  if (it == heap_grown_.end()) {
    heap_grown_.push_back({r.begin, r.begin});
    it = std::prev(heap_grown_.end());
  }
  if (r.end <= it->second) return;
  const address_range fresh{it->second, r.end};
  // What serial code wrote there is its shadow now; then the kernel watches it.
  if (!quiet)
    for_written(fresh, [&](std::uintptr_t page) { raw_copy(shadow_of(page), reinterpret_cast<const void*>(page), page_bytes); });
  if (uffd_ >= 0) protect_populated(fresh);
  it->second = r.end;
}

// A page that was never touched holds zeros, as its shadow does, and gets no
// write protection: under UFFD_FEATURE_WP_UNPOPULATED a protected empty page
// is a marker, and the kernel maps its first write's new page protected and
// then takes a second fault to unprotect it (mm/memory.c, do_anonymous_page
// with the marker's uffd-wp bit), with a page table allocated for every
// marker. Unprotected, its first write is the one fault any program pays,
// and PAGEMAP_SCAN reports it written from then on (present, not protected):
// compared with its zero shadow at the next merge like any written page.
void page_tracker::protect_populated(address_range r) {
  std::uintptr_t begin = 0, end = 0;
  for_pages(r, 0, [&](std::uintptr_t page) {
    if (page == end) {
      end += page_bytes;
      return;
    }
    if (end > begin) protect(begin, end);
    begin = page;
    end = page + page_bytes;
  });
  if (end > begin) protect(begin, end);
}

std::byte* page_tracker::shadow_of(std::uintptr_t page) const {
  if (heap_.contains(page)) return heap_shadow_ + (page - heap_.begin);
  for (const other_range& o : others_)
    if (o.range.contains(page)) return o.shadow + (page - o.range.begin);
  return nullptr;
}

template <typename F>
void page_tracker::for_written(address_range r, F&& f) {
  for_pages(r, page_is_written, std::forward<F>(f));
}

template <typename F>
void page_tracker::for_pages(address_range r, std::uint64_t required, F&& f) {
  if (r.end <= r.begin) return;
  if (uffd_ < 0) {
    for (std::uintptr_t p = r.begin; p < r.end; p += page_bytes) f(p);
    stats_.scanned_pages += (r.end - r.begin) / page_bytes;
    return;
  }
  page_region found[256];
  pm_scan_arg a{};
  a.size = sizeof a;
  a.start = r.begin;
  a.end = r.end;
  a.vec = reinterpret_cast<std::uint64_t>(found);
  a.vec_len = 256;
  a.category_mask = required;
  a.category_anyof_mask = page_is_present | page_is_swapped;  // never-touched pages read as zero, as their shadow
  a.return_mask = required != 0 ? required : page_is_present | page_is_swapped;
  for (;;) {
    const long n = ioctl(pagemap_, pagemap_scan, &a);
    if (n < 0) {  // cannot say: compare everything
      for (std::uintptr_t p = a.start; p < r.end; p += page_bytes) f(p);
      return;
    }
    for (long i = 0; i < n; ++i)
      for (std::uintptr_t p = found[i].start; p < found[i].end; p += page_bytes) f(p);
    stats_.scanned_pages += (a.walk_end - a.start) / page_bytes;
    if (a.walk_end >= r.end || a.walk_end <= a.start) return;
    a.start = a.walk_end;
  }
}

void page_tracker::protect(std::uintptr_t begin, std::uintptr_t end) {
  uffdio_writeprotect wp{};
  wp.range = {begin, end - begin};
  wp.mode = UFFDIO_WRITEPROTECT_MODE_WP;
  ioctl(uffd_, UFFDIO_WRITEPROTECT, &wp);
}

void page_tracker::begin_window(const std::vector<address_range>& ranges, bool all,
                                std::vector<std::uintptr_t>& written) {
  changed_.clear();
  written.clear();
  for (const address_range& r : ranges) {
    // A page written in an earlier window stays unprotected (hot): it is
    // the serial code's only if it differs from its shadow.
    const auto take = [&](std::uintptr_t page) {
      const std::size_t from = lowest(page);
      if (from >= page_bytes) return;
      const auto* now = reinterpret_cast<const std::byte*>(page);
      if (!all && raw_equal(shadow_of(page) + from, now + from, page_bytes - from)) return;
      raw_copy(shadow_of(page) + from, now + from, page_bytes - from);
      written.push_back(page);
    };
    if (all) {
      // Every page that exists: one never touched reads as zero on every
      // rank, as its shadow does, and stays untouched (no shadow page made).
      for_pages(r, 0, take);
    } else {
      for_written(r, take);
    }
    // A heap extent new since the last window: watched by the kernel from now.
    if (heap_.contains(r.begin)) grow_heap(r, true);
  }
}

SELFSCHED_READS_PROGRAM_MEMORY std::uint64_t page_tracker::hash_page(std::uintptr_t page) const {
  const std::size_t from = lowest(page);
  std::uint64_t h = 0x9e3779b97f4a7c15ULL ^ page;
  const auto* bytes = reinterpret_cast<const unsigned char*>(page);
  std::size_t at = from;
  for (; at < page_bytes && at % 8 != 0; ++at) h = (h ^ bytes[at]) * 0x100000001b3ULL;
  for (; at < page_bytes; at += 8) {
    std::uint64_t w;
    std::memcpy(&w, bytes + at, 8);
    h = (h ^ w) * 0x9fb21c651e98df25ULL;
    h ^= h >> 29;
  }
  return h;
}

void page_tracker::install_page(std::uintptr_t page, const std::byte* bytes) {
  const std::size_t from = lowest(page);
  if (from >= page_bytes) return;
  raw_copy(reinterpret_cast<std::byte*>(page) + from, bytes, page_bytes - from);
  std::memcpy(shadow_of(page) + from, bytes, page_bytes - from);
}

bool page_tracker::write_diffs(const std::vector<address_range>& ranges, diff_writer& out) {
  bool fits = true;
  unchanged_.clear();
  changed_.clear();
  // A heap extent that grew in this window is compared with zero, its
  // shadow: the kernel reports its pages as written until it watches them
  // (finish_merge).
  for (const address_range& r : ranges) {
    for_written(r, [&](std::uintptr_t page) {
      const std::size_t from = lowest(page);
      if (from >= page_bytes) return;
      ++stats_.pages_diffed;
      const auto* now = reinterpret_cast<const std::byte*>(page);
      if (find_changes(shadow_of(page), now, from, changes_) == 0) {
        if (from == 0) found_unchanged(page);
        return;
      }
      if (!idle_windows_.empty()) idle_windows_.erase(page);
      ++stats_.pages_changed;
      changed_.push_back(page);
      fits = fits && out.add_page(page, now, changes_);
    });
  }
  return fits;
}

void page_tracker::apply(diff_reader& reader) {
  apply_diff(reader, [&](std::uintptr_t) { ++stats_.pages_applied; });
}

bool page_tracker::keep_for_undo(std::uintptr_t page) {
  if (undo_index_.count(page) != 0) return true;
  if (undo_used_ + page_bytes > undo_bytes) return false;
  std::memcpy(undo_ + undo_used_, shadow_of(page), page_bytes);
  undo_index_.emplace(page, undo_used_);
  undo_used_ += page_bytes;
  return true;
}

namespace {

// One byte of another rank's into memory, only if it still holds `before`
// (no thread of this rank wrote it), atomically against this rank's threads.
SELFSCHED_READS_PROGRAM_MEMORY bool swap_byte(std::byte* at, std::byte before, std::byte now) {
  auto* p = reinterpret_cast<unsigned char*>(at);
  auto expected = static_cast<unsigned char>(before);
  return __atomic_compare_exchange_n(p, &expected, static_cast<unsigned char>(now), false, __ATOMIC_SEQ_CST,
                                     __ATOMIC_SEQ_CST);
}

// Eight bytes at once, the same way: false when this rank changed one of
// them (then each goes byte by byte), or when they hold what the shadow
// holds already.
SELFSCHED_READS_PROGRAM_MEMORY bool swap_word(std::byte* at, std::byte* shadow, const std::byte* theirs) {
  std::uint64_t expected, wanted;
  std::memcpy(&expected, shadow, 8);
  std::memcpy(&wanted, theirs, 8);
  if (expected == wanted) return true;
  if (!__atomic_compare_exchange_n(reinterpret_cast<std::uint64_t*>(at), &expected, wanted, false, __ATOMIC_SEQ_CST,
                                   __ATOMIC_SEQ_CST))
    return false;
  std::memcpy(shadow, &wanted, 8);
  return true;
}

}  // namespace

page_tracker::early_result page_tracker::apply_early(diff_reader& reader, const std::vector<address_range>& ranges) {
  early_result result;
  page_diff page;
  while (reader.next(page)) {
    const std::uintptr_t last = page.address + page_bytes - 1;
    const bool inside = std::any_of(ranges.begin(), ranges.end(),
                                    [&](const address_range& r) { return r.contains(page.address) && r.contains(last); });
    std::byte* shadow = inside ? shadow_of(page.address) : nullptr;
    const std::size_t from = shadow != nullptr ? lowest(page.address) : page_bytes;
    if (from >= page_bytes || !keep_for_undo(page.address)) continue;
    ++result.pages;
    auto* memory = reinterpret_cast<std::byte*>(page.address);
    const auto put = [&](std::size_t at, std::byte value) {
      if (at < from || shadow[at] == value) return;
      if (swap_byte(memory + at, shadow[at], value)) shadow[at] = value;
      else result.clashed = true;
    };
    // `theirs`: the page's bytes as the other rank has them where `wanted`
    // says (bit k of byte group at/8: byte at + k), its shadow's elsewhere.
    const auto put_group = [&](std::size_t at, const std::byte* theirs, unsigned wanted) {
      if (wanted == 0xff && at >= from && swap_word(memory + at, shadow + at, theirs)) return;
      for (unsigned k = 0; k < 8; ++k)
        if (wanted & (1u << k)) put(at + k, theirs[k]);
    };
    if (page.mask != nullptr) {
      for (std::size_t at = 0; at < page_bytes; at += 8)
        put_group(at, page.data + at, static_cast<unsigned>(page.mask[at / 64] >> (at % 64) & 0xff));
      continue;
    }
    const std::byte* data = page.data;
    for (const byte_run& run : page.runs) {
      std::size_t i = 0;
      for (; i < run.length && (run.offset + i) % 8 != 0; ++i) put(run.offset + i, data[i]);
      for (; i + 8 <= run.length; i += 8) put_group(run.offset + i, data + i, 0xff);
      for (; i < run.length; ++i) put(run.offset + i, data[i]);
      data += run.length;
    }
  }
  return result;
}

std::uint64_t page_tracker::hash_written(const std::vector<address_range>& ranges) {
  std::uint64_t h = 0;
  unchanged_.clear();
  changed_.clear();
  for (const address_range& r : ranges)
    for_written(r, [&](std::uintptr_t page) {
      const std::size_t from = lowest(page);
      if (from >= page_bytes) return;
      if (raw_equal(shadow_of(page) + from, reinterpret_cast<const std::byte*>(page) + from, page_bytes - from)) {
        if (from == 0) found_unchanged(page);
        return;
      }
      if (!idle_windows_.empty()) idle_windows_.erase(page);
      h = (h ^ hash_page(page)) * 0x9fb21c651e98df25ULL;
      changed_.push_back(page);  // for roll_back_window
    });
  return h;
}

void page_tracker::finish_merge(const std::vector<address_range>& ranges, bool undo) {
  ++stats_.merges;
  // Whatever differs from its shadow now (this rank's writes, the others'
  // runs, the heap's settled frees) is the shadow of the next window.
  for (const address_range& r : ranges)
    for_written(r, [&](std::uintptr_t page) {
      const std::size_t from = lowest(page);
      if (from >= page_bytes) return;
      std::byte* shadow = shadow_of(page);
      const auto* now = reinterpret_cast<const std::byte*>(page);
      if (raw_equal(shadow + from, now + from, page_bytes - from)) return;
      if (undo) keep_for_undo(page);
      raw_copy(shadow + from, now + from, page_bytes - from);
    });
  for (const address_range& r : ranges)
    if (heap_.contains(r.begin)) grow_heap(r, false);
  // Pages written earlier that nobody changed this time go back under the
  // kernel's watch, in runs.
  if (uffd_ >= 0 && !unchanged_.empty()) {
    std::sort(unchanged_.begin(), unchanged_.end());
    std::uintptr_t begin = unchanged_[0], end = begin + page_bytes;
    for (std::size_t i = 1; i <= unchanged_.size(); ++i) {
      if (i < unchanged_.size() && unchanged_[i] == end) {
        end += page_bytes;
        continue;
      }
      if (raw_equal(shadow_of(begin), reinterpret_cast<const void*>(begin), end - begin)) protect(begin, end);
      if (i < unchanged_.size()) begin = unchanged_[i], end = begin + page_bytes;
    }
  }
  unchanged_.clear();
  changed_.clear();
}

void page_tracker::roll_back_window() {
  for (std::uintptr_t page : changed_) {
    const std::size_t from = lowest(page);
    raw_copy(reinterpret_cast<std::byte*>(page) + from, shadow_of(page) + from, page_bytes - from);
  }
  changed_.clear();
}

void page_tracker::discard_window(const std::vector<address_range>& ranges) {
  for (const address_range& r : ranges)
    for_written(r, [&](std::uintptr_t page) {
      const std::size_t from = lowest(page);
      if (from >= page_bytes) return;
      auto* now = reinterpret_cast<std::byte*>(page);
      if (!raw_equal(now + from, shadow_of(page) + from, page_bytes - from))
        raw_copy(now + from, shadow_of(page) + from, page_bytes - from);
    });
  changed_.clear();
}

void page_tracker::roll_back_region() {
  for (const auto& [page, at] : undo_index_) {
    const std::size_t from = lowest(page);
    if (from >= page_bytes) continue;
    raw_copy(reinterpret_cast<std::byte*>(page) + from, undo_ + at + from, page_bytes - from);
    std::memcpy(shadow_of(page) + from, undo_ + at + from, page_bytes - from);
  }
  end_region();
}

void page_tracker::end_region() {
  undo_index_.clear();
  undo_used_ = 0;
}

}  // namespace selfsched::cluster
