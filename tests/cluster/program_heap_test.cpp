// The program's heap: classes that cover every size, blocks that never
// overlap, alignment, reuse, arenas apart, deferred frees settled alike.
#include "program_heap.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <random>
#include <vector>

using namespace selfsched::cluster;

namespace {

heap_geometry small() {
  heap_geometry g;
  g.base = 0;  // anywhere
  g.serial_bytes = std::size_t{1} << 30;
  g.arena_bytes = std::size_t{64} << 20;
  g.thread_arenas = 4;
  return g;
}

}  // namespace

TEST(ProgramHeap, ClassesCoverEverySize) {
  EXPECT_EQ(program_heap::class_of(1), 0);
  EXPECT_EQ(program_heap::class_of(16), 0);
  EXPECT_EQ(program_heap::class_of(17), 1);
  EXPECT_EQ(program_heap::class_of(256), 15);
  EXPECT_EQ(program_heap::class_size(program_heap::class_count - 1), program_heap::largest_class);
  for (std::size_t size = 1; size <= program_heap::largest_class; size += 1 + size / 7) {
    const int c = program_heap::class_of(size);
    ASSERT_GE(c, 0);
    ASSERT_LT(c, program_heap::class_count);
    EXPECT_GE(program_heap::class_size(c), size);
    if (c > 0) EXPECT_LT(program_heap::class_size(c - 1), size) << size;
    EXPECT_LE(program_heap::class_size(c), size + size / 4 + 16) << "more than a quarter wasted at " << size;
  }
}

TEST(ProgramHeap, BlocksNeverOverlapAndKeepTheirBytes) {
  program_heap heap(small());
  ASSERT_TRUE(heap.ready());
  std::mt19937 rng(11);
  std::map<char*, std::pair<std::size_t, unsigned char>> live;
  for (int step = 0; step < 20000; ++step) {
    if (!live.empty() && rng() % 3 == 0) {
      auto it = std::next(live.begin(), static_cast<long>(rng() % live.size()));
      for (std::size_t i = 0; i < it->second.first; ++i)
        ASSERT_EQ(static_cast<unsigned char>(it->first[i]), it->second.second) << "block overwritten";
      heap.release(it->first, 0, false);
      live.erase(it);
      continue;
    }
    const std::size_t size = rng() % 4 == 0 ? rng() % 100000 : rng() % 300;
    const std::size_t align = rng() % 10 == 0 ? std::size_t{1} << (4 + rng() % 9) : 16;
    auto* p = static_cast<char*>(heap.allocate(size, align, 0, rng() % 2 == 0));
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % align, 0u);
    EXPECT_GE(heap.usable_size(p), size);
    EXPECT_TRUE(heap.contains(p));
    const auto fill = static_cast<unsigned char>(step);
    std::memset(p, fill, size);
    live[p] = {size, fill};
  }
  // No two live blocks overlap.
  char* end = nullptr;
  for (auto& [p, info] : live) {
    EXPECT_GE(p, end);
    end = p + info.first;
  }
}

TEST(ProgramHeap, CallocIsZeroEvenForReusedBlocks) {
  program_heap heap(small());
  auto* p = static_cast<unsigned char*>(heap.allocate(1000, 16, 0, false));
  std::memset(p, 0xab, 1000);
  heap.release(p, 0, false);
  auto* q = static_cast<unsigned char*>(heap.allocate(1000, 16, 0, true));
  EXPECT_EQ(q, p);  // reused
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(q[i], 0);
}

TEST(ProgramHeap, LargeBlocksAreReusedAndSplit) {
  program_heap heap(small());
  const std::size_t big = program_heap::largest_class + 1;
  void* a = heap.allocate(4 * big, 16, 0, false);
  ASSERT_NE(a, nullptr);
  heap.release(a, 0, false);
  void* b = heap.allocate(big, 16, 0, false);
  EXPECT_EQ(b, a);  // first fit, split
  void* c = heap.allocate(big, 16, 0, false);
  EXPECT_GT(c, b);
  EXPECT_LT(static_cast<char*>(c), static_cast<char*>(a) + 4 * big + 4096);  // from the rest of the freed block
}

// Arrays of 64 KiB and more sit 16 bytes into a page, whatever was
// allocated between them, as the C library's are: a loop over two of them
// sees the same offsets modulo 4 KiB as in one process (no 4K aliasing).
TEST(ProgramHeap, LargeArraysStartAtTheSameOffsetInAPage) {
  program_heap heap(small());
  const auto offset = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 4096; };
  std::vector<void*> arrays;
  for (const std::size_t bytes : {std::size_t{64} << 10, std::size_t{1000000}, std::size_t{32000000}}) {
    ASSERT_NE(heap.allocate(40, 16, 0, false), nullptr);  // small blocks between
    arrays.push_back(heap.allocate(bytes, 16, 0, false));
    ASSERT_NE(arrays.back(), nullptr);
    EXPECT_EQ(offset(arrays.back()), 16u) << bytes << " bytes";
  }
  const std::size_t big = program_heap::largest_class + 1;
  void* whole = heap.allocate(3 * big, 16, 0, false);
  ASSERT_NE(whole, nullptr);
  EXPECT_EQ(offset(whole), 16u);
  heap.release(whole, 0, false);
  void* first = heap.allocate(big, 16, 0, false);
  void* rest = heap.allocate(big, 16, 0, false);  // from the split block's rest
  EXPECT_EQ(first, whole);
  EXPECT_EQ(offset(rest), 16u);
  EXPECT_LT(static_cast<char*>(rest), static_cast<char*>(whole) + 3 * big);
  // Small blocks stay packed: header and class size apart.
  char* p = static_cast<char*>(heap.allocate(1000, 16, 0, false));
  char* q = static_cast<char*>(heap.allocate(1000, 16, 0, false));
  EXPECT_EQ(q - p, static_cast<std::ptrdiff_t>(program_heap::class_size(program_heap::class_of(1000)) + 16));
}

// A program's own mapping: page aligned, zeroed, its length in its header;
// a block from posix_memalign is not one.
TEST(ProgramHeap, MappingsKnowTheirLength) {
  program_heap heap(small());
  void* m = heap.allocate_mapping(3 * 4096, 1);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(m) % 4096, 0u);
  EXPECT_EQ(heap.mapping_bytes(m), 3u * 4096);
  EXPECT_EQ(heap.mapping_bytes(static_cast<char*>(m) + 4096), 0u);
  std::memset(m, 7, 3 * 4096);
  EXPECT_TRUE(heap.resize_mapping(m, 4096));
  EXPECT_EQ(heap.mapping_bytes(m), 4096u);
  EXPECT_FALSE(heap.resize_mapping(m, 64 * 4096));  // more than its block
  EXPECT_EQ(heap.allocate_mapping(100, 1), nullptr);  // not whole pages
  void* aligned = heap.allocate(4096, 4096, 1, false);
  ASSERT_NE(aligned, nullptr);
  EXPECT_EQ(heap.mapping_bytes(aligned), 0u);
  heap.release(m, 1, false);
  void* again = heap.allocate_mapping(3 * 4096, 1);  // reused: zeroed again
  ASSERT_NE(again, nullptr);
  const auto* bytes = static_cast<const unsigned char*>(again);
  EXPECT_TRUE(std::all_of(bytes, bytes + 3 * 4096, [](unsigned char b) { return b == 0; }));
}

TEST(ProgramHeap, ThreadArenasAreApartAndFallBack) {
  program_heap heap(small());
  void* s = heap.allocate(100, 16, 0, false);
  void* t1 = heap.allocate(100, 16, 1, false);
  void* t2 = heap.allocate(100, 16, 2, false);
  EXPECT_EQ(heap.arena_of(s), 0);
  EXPECT_EQ(heap.arena_of(t1), 1);
  EXPECT_EQ(heap.arena_of(t2), 2);
  EXPECT_GT(heap.extent(1).end, heap.extent(1).begin);
  EXPECT_EQ(heap.extent(3).begin, heap.extent(3).end);  // never used
  // An arena too small for the request: the serial one serves it.
  void* huge = heap.allocate(std::size_t{100} << 20, 16, 3, false);
  ASSERT_NE(huge, nullptr);
  EXPECT_EQ(heap.arena_of(huge), 0);
}

TEST(ProgramHeap, ForeignFreesWaitForSettle) {
  program_heap heap(small());
  void* s = heap.allocate(64, 16, 0, false);
  const std::uint64_t before = heap.serial_fingerprint();
  heap.release(s, 2, true);  // thread of arena 2 frees a serial block inside a window
  EXPECT_EQ(heap.serial_fingerprint(), before) << "the serial arena must not change before the settle";
  heap.settle_deferred(4);
  EXPECT_NE(heap.serial_fingerprint(), before);
  EXPECT_EQ(heap.allocate(64, 16, 0, false), s);  // freed into its own arena
}

TEST(ProgramHeap, ReallocKeepsTheBytes) {
  program_heap heap(small());
  auto* p = static_cast<char*>(heap.allocate(10, 16, 0, false));
  std::memcpy(p, "abcdefghi", 10);
  auto* q = static_cast<char*>(heap.reallocate(p, 100000, 0, false));
  EXPECT_STREQ(q, "abcdefghi");
  auto* r = static_cast<char*>(heap.reallocate(q, 90000, 0, false));
  EXPECT_EQ(r, q);  // shrinking a little keeps the block
  EXPECT_STREQ(r, "abcdefghi");
}
