// What a rank wrote between two synchronization points, as the bytes that
// changed in each page: the multiple-writer protocol of TreadMarks (Keleher
// et al., 1994). Each rank compares the pages it wrote with their copies from
// the last synchronization point and sends the runs of changed bytes; every
// rank applies the others' runs. Two ranks that changed the same byte (with
// the same value or not) have raced, or updated one variable each in their
// own copy (an atomic, a critical section): a conflict, never merged.
//
// Pure: buffers in, buffers out. The memory it reads and writes belongs to
// the caller (tracking.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "raw_memory.hpp"

namespace selfsched::cluster {

inline constexpr std::size_t page_bytes = 4096;
// The page holding address `a`, and the first page boundary at or above it.
constexpr std::uintptr_t page_floor(std::uintptr_t a) { return a & ~std::uintptr_t{page_bytes - 1}; }
constexpr std::uintptr_t page_ceil(std::uintptr_t a) { return page_floor(a + page_bytes - 1); }

// Bytes [offset, offset + length) of a page changed.
struct byte_run {
  std::uint16_t offset = 0;
  std::uint16_t length = 0;
};

// The changed bytes of a page as a bitmap (bit b of word w: byte 64w + b),
// found a word at a time; with how many bytes changed and in how many runs.
// A page whose changes are many short runs (small integers written over
// others: escape counts, flags, the low bytes of counters) travels whole with
// its bitmap: 4,608 bytes where its runs' descriptions alone take up to
// 8 KB, and applying it is a masked blend of words, not a copy per run.
inline constexpr std::size_t mask_words = page_bytes / 64;
struct page_changes {
  std::uint64_t mask[mask_words] = {};
  std::size_t from = 0;  // bytes below it are not the program's (a stack page): never changed
  std::size_t changed = 0, runs = 0;
  // Sent whole with the bitmap: many runs, and the whole page is the program's.
  bool dense() const { return from == 0 && runs > 64; }
};
// Compares bytes [from, page_bytes) of `now` with `before`; returns how many
// changed.
std::size_t find_changes(const std::byte* before, const std::byte* now, std::size_t from, page_changes& out);

// Events a rank saw between two synchronization points that make its writes
// unmergeable whatever the bytes say (a critical section updates what others
// update in their own copies).
enum diff_flags : std::uint32_t {
  flag_critical = 1u << 0,      // __kmpc_critical, an OpenMP lock
  flag_unshareable = 1u << 1,   // a construct that cannot be shared (flush, ordered, doacross, ...)
  flag_wrote_output = 1u << 2,  // the region wrote to a file or a pipe (on a rank other than 0: not its stdout or stderr)
  flag_wrote_private = 1u << 3, // a rank other than 0 wrote a file only rank 0 writes (its private copy)
  flag_reduction_pointers = 1u << 4,  // a reduction's private copy holds a pointer: it cannot move between ranks
  flag_relayed_output = 1u << 5,      // a rank other than 0 caught standard output or error for rank 0 (cluster/output_relay.hpp)
};

// One rank's diffs, as sent: a header, then for each page its address, run
// count, runs and their bytes, 8-byte aligned; or its address, this count,
// its bitmap and its whole content (page_changes::dense()).
inline constexpr std::uint64_t whole_page_with_mask = ~std::uint64_t{0};
struct diff_header {
  std::uint32_t magic = 0x53534446;  // "SSDF"
  std::uint32_t rank = 0;
  std::uint32_t flags = 0;           // diff_flags
  std::uint32_t reserved = 0;
  std::uint64_t layout = 0;          // a hash of the address space's layout: equal on every rank
  std::uint64_t computed_ns = 0;     // the region's time on this rank so far, outside synchronization points
  std::uint64_t synchronized_ns = 0; // ... and inside them
  std::uint64_t pages = 0;
  std::uint64_t bytes = 0;           // the whole blob, header included
};

// Writes a blob into memory the caller provides (the channel to the agent).
class diff_writer {
 public:
  diff_writer(std::byte* area, std::size_t capacity) : area_(area), capacity_(capacity) {}
  void begin(const diff_header& header);
  // false when the blob would not fit.
  bool add_page(std::uintptr_t address, const std::byte* now, std::span<const byte_run> runs);
  // The page as its changes say: runs, or whole with the bitmap (dense()).
  bool add_page(std::uintptr_t address, const std::byte* now, const page_changes& changes);
  // The blob's size; the header's pages and bytes are filled in.
  std::size_t finish();

 private:
  std::byte* area_;
  std::size_t capacity_;
  std::size_t used_ = 0;
  std::uint64_t pages_ = 0;
  std::vector<byte_run> runs_;  // a sparse page's runs, from its bitmap
};

// One page of a blob: runs, or (mask set, runs empty) the whole page with
// the bitmap of its changed bytes.
struct page_diff {
  std::uintptr_t address = 0;
  std::span<const byte_run> runs;
  const std::uint64_t* mask = nullptr;  // mask_words words
  const std::byte* data = nullptr;      // the runs' bytes one after the other, or the whole page
};

// The first byte at or after `at` whose bit in `mask` is `value`;
// page_bytes when there is none.
inline std::size_t next_bit(const std::uint64_t* mask, std::size_t at, bool value) {
  while (at < page_bytes) {
    const std::uint64_t word = (value ? mask[at / 64] : ~mask[at / 64]) >> (at % 64);
    if (word != 0) return at + static_cast<std::size_t>(__builtin_ctzll(word));
    at = (at / 64 + 1) * 64;
  }
  return page_bytes;
}

// Calls f(offset, length, bytes) for each run of changed bytes of the page,
// in increasing offset, whichever way it travelled.
template <typename F>
void for_each_run(const page_diff& page, F&& f) {
  if (page.mask == nullptr) {
    const std::byte* data = page.data;
    for (const byte_run& run : page.runs) {
      f(std::size_t{run.offset}, std::size_t{run.length}, data);
      data += run.length;
    }
    return;
  }
  for (std::size_t at = next_bit(page.mask, 0, true); at < page_bytes;) {
    const std::size_t end = next_bit(page.mask, at, false);
    f(at, end - at, page.data + at);
    at = next_bit(page.mask, end, true);
  }
}

// Writes the bytes a bitmap marks from `data` into `target` (one page each).
void apply_masked(std::byte* target, const std::uint64_t* mask, const std::byte* data);

// Reads a blob; false from valid() when it is cut short or not a blob.
class diff_reader {
 public:
  diff_reader(const std::byte* blob, std::size_t size);
  bool valid() const { return valid_; }
  const diff_header& header() const { return header_; }
  // Each page in turn; false at the end.
  bool next(page_diff& page);

 private:
  const std::byte* blob_;
  std::size_t size_ = 0, at_ = 0;
  diff_header header_{};
  bool valid_ = false;
};

// The first byte two ranks both changed, if any: every rank computes the
// same answer from the same blobs.
struct conflict {
  bool found = false;
  std::uintptr_t address = 0;  // of the byte
  int first_rank = 0, second_rank = 0;
};
conflict find_conflict(std::span<const std::span<const std::byte>> blobs);

// Writes the blob's runs into memory; `before_page(address)` is called once
// per page first (the caller keeps what it must undo and makes it writable).
template <typename BeforePage>
void apply_diff(diff_reader& reader, BeforePage&& before_page) {
  page_diff page;
  while (reader.next(page)) {
    before_page(page.address);
    auto* target = reinterpret_cast<std::byte*>(page.address);
    if (page.mask != nullptr) {
      apply_masked(target, page.mask, page.data);
      continue;
    }
    const std::byte* data = page.data;
    for (const byte_run& run : page.runs) {
      raw_copy(target + run.offset, data, run.length);
      data += run.length;
    }
  }
}

}  // namespace selfsched::cluster
