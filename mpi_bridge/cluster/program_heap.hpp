// The program's heap in cluster mode: every block a program allocates lives
// in one region at a fixed address, the same on every rank whatever address
// randomization does, and everything the allocator knows lives inside that
// region too. Its pages are tracked and merged like any other memory, so a
// block, its contents and the allocator's lists are the same on every rank
// after a synchronization point; nothing of the runtime's (libomp,
// selfsched, the loader) is in it (allocation.cpp routes their calls to the
// C library's heap).
//
// Serial code allocates from the serial arena, the same blocks on every rank
// because every rank runs the same serial code. Inside a shared parallel
// region each thread of the cluster-wide team allocates from an arena of its
// own, so blocks that threads on different ranks allocate at once never
// overlap and merge like any other writes. A block freed by a thread that
// does not own its arena is kept on that thread's list until the next
// synchronization point, where every rank frees the listed blocks in the
// same order (settle_deferred), so no two ranks edit one arena's lists at
// once.
//
// Blocks of up to 64 MiB come in 88 size classes (16-byte steps to 256, then
// four per doubling), each with a free list; larger ones are whole pages,
// reused first-fit. A 16-byte header precedes every block.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace selfsched::cluster {

struct heap_geometry {
  std::uintptr_t base = 0x200000000000;   // 32 TiB: far from the loader's, libraries' and stacks' places
  std::size_t serial_bytes = std::size_t{2} << 40;
  std::size_t arena_bytes = std::size_t{4} << 30;
  int thread_arenas = 512;
  std::size_t total() const { return serial_bytes + arena_bytes * static_cast<std::size_t>(thread_arenas); }
};

// One arena's extent in use: [begin, end), page-aligned.
struct heap_extent {
  std::uintptr_t begin = 0, end = 0;
};

class program_heap {
 public:
  // Maps the region (reserved, no memory committed). base == 0 in the
  // geometry: anywhere (tests).
  explicit program_heap(const heap_geometry& geometry);
  ~program_heap();
  program_heap(const program_heap&) = delete;
  program_heap& operator=(const program_heap&) = delete;

  bool ready() const { return base_ != 0; }
  const heap_geometry& geometry() const { return geometry_; }
  bool contains(const void* p) const {
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    return a - base_ < geometry_.total();
  }
  int arena_of(const void* p) const;
  int arenas() const { return 1 + geometry_.thread_arenas; }

  // Arena 0 is the serial one; 1 .. thread_arenas belong to threads. A full
  // thread arena falls back to the serial one. nullptr: out of room.
  void* allocate(std::size_t size, std::size_t alignment, int arena, bool zeroed);
  // `arena` is the freeing thread's; with `defer_foreign` a block of another
  // arena waits on that arena's list for settle_deferred().
  void release(void* p, int arena, bool defer_foreign);
  void* reallocate(void* p, std::size_t size, int arena, bool defer_foreign);
  std::size_t usable_size(const void* p) const;
  // A program's own mapping (program_mappings.hpp): `bytes` (whole pages)
  // of zeroed memory at a page, a block whose header says it is a mapping
  // and of how many bytes. The header is merged memory, so every rank knows
  // a mapping that a thread of another rank made.
  void* allocate_mapping(std::size_t bytes, int arena);
  // The mapping's bytes when `p` is where one begins, else 0.
  std::size_t mapping_bytes(const void* p) const;
  // The mapping at `p` now has `bytes`: false when its block is too small.
  bool resize_mapping(void* p, std::size_t bytes);
  // Frees the blocks arenas 0 .. arena_bound deferred, arena by arena: the
  // same on every rank, since the lists merged like any memory.
  void settle_deferred(int arena_bound);

  // Arena i's pages in use (the header and every block handed out so far);
  // empty for an arena never used.
  heap_extent extent(int arena) const;
  // Size classes (exposed for tests).
  static constexpr int class_count = 88;
  static constexpr std::size_t largest_class = std::size_t{64} << 20;
  static int class_of(std::size_t size);
  static std::size_t class_size(int c);

  // The serial arena's bookkeeping: where its fresh bytes begin and the head
  // of each free list. Equal on every rank as long as every rank's serial
  // code allocated alike; kept whole so that a difference can be named.
  struct bookkeeping {
    std::uintptr_t bump = 0, large_free = 0;
    std::uintptr_t free_lists[class_count] = {};
  };
  bookkeeping serial_bookkeeping() const;
  // The same, hashed.
  std::uint64_t serial_fingerprint() const;

 private:
  struct arena_header;
  arena_header& header(int arena) const;
  void set_up(int arena);
  void* allocate_in(int arena, std::size_t size, bool zeroed);
  void release_in(int arena, std::uintptr_t block);

  heap_geometry geometry_;
  std::uintptr_t base_ = 0;
  bool owns_mapping_ = false;
};

}  // namespace selfsched::cluster
