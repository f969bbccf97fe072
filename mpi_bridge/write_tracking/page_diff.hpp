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

// Appends the runs where `now` differs from `before` (one page each), looking
// at bytes [from, page_bytes) only; returns how many bytes changed. Runs are
// exact: a byte inside a run changed, a byte outside did not.
std::size_t diff_page(const std::byte* before, const std::byte* now, std::size_t from, std::vector<byte_run>& runs);

// Events a rank saw between two synchronization points that make its writes
// unmergeable whatever the bytes say (a critical section updates what others
// update in their own copies).
enum diff_flags : std::uint32_t {
  flag_critical = 1u << 0,      // __kmpc_critical, an OpenMP lock
  flag_unshareable = 1u << 1,   // a construct that cannot be shared (flush, ordered, doacross, ...)
  flag_wrote_output = 1u << 2,  // the region wrote to a file or a pipe: it cannot run again unseen
  flag_wrote_private = 1u << 3, // a rank other than 0 wrote a file only rank 0 writes (its private copy)
};

// One rank's diffs, as sent: a header, then for each page its address, run
// count, runs and their bytes, 8-byte aligned.
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
  // The blob's size; the header's pages and bytes are filled in.
  std::size_t finish();

 private:
  std::byte* area_;
  std::size_t capacity_;
  std::size_t used_ = 0;
  std::uint64_t pages_ = 0;
};

// One page of a blob.
struct page_diff {
  std::uintptr_t address = 0;
  std::span<const byte_run> runs;
  const std::byte* data = nullptr;  // the runs' bytes, one after the other
};

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
    const std::byte* data = page.data;
    auto* target = reinterpret_cast<std::byte*>(page.address);
    for (const byte_run& run : page.runs) {
      raw_copy(target + run.offset, data, run.length);
      data += run.length;
    }
  }
}

}  // namespace selfsched::cluster
