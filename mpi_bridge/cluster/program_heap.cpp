#include "program_heap.hpp"

#include <sched.h>
#include <sys/mman.h>

#include <bit>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace selfsched::cluster {
namespace {

constexpr std::size_t header_bytes = 16;
constexpr std::size_t large_page = 4096;
constexpr std::size_t large_split = std::size_t{64} << 10;  // a larger rest of a reused block is split off
// Blocks of this size and more start at a page (header first, payload 16
// bytes in), as the C library's mmapped blocks do: arrays then sit at one
// offset within their pages. Laid end to end they would drift by a header
// each, and a loop storing to one array while loading another 16 bytes
// further on modulo 4 KiB stalls on every access (4K aliasing: a matrix
// product's rows ran about 15% slower in cluster mode).
constexpr std::size_t page_placed = std::size_t{64} << 10;
constexpr std::uint64_t arena_magic = 0x5353484541503031ULL;  // "SSHEAP01"

// A block's first word: its payload's size (a multiple of 16) and flags.
enum : std::uint64_t { in_use = 1, large = 2, aligned = 4, deferred = 8, flag_bits = 15 };

struct block_header {
  std::uint64_t size_word;  // payload bytes | flags
  std::uint64_t link;       // free and deferred blocks: the next one; aligned: distance to the real block's payload
};

block_header& block_at(std::uintptr_t block) { return *reinterpret_cast<block_header*>(block); }
std::uintptr_t block_of(const void* p) { return reinterpret_cast<std::uintptr_t>(p) - header_bytes; }
std::uintptr_t round_up(std::uintptr_t x, std::uintptr_t to) { return (x + to - 1) & ~(to - 1); }

[[noreturn]] void corrupt(const char* what, const void* p) {
  std::fprintf(stderr, "selfsched cluster heap: %s (%p): the program freed a pointer it does not own or freed it twice\n",
               what, p);
  std::abort();
}

}  // namespace

struct program_heap::arena_header {
  std::uint64_t magic;
  std::atomic<std::uint32_t> lock;
  std::uint32_t index;
  std::uintptr_t bump;   // next fresh byte
  std::uintptr_t limit;
  std::uintptr_t free_lists[class_count];
  std::uintptr_t large_free;
  std::uintptr_t deferred;
};

int program_heap::class_of(std::size_t size) {
  if (size <= 256) return size == 0 ? 0 : static_cast<int>((size + 15) / 16 - 1);
  const int k = std::bit_width(size - 1) - 1;  // 2^k < size <= 2^(k+1)
  const std::size_t step = std::size_t{1} << (k - 2);
  const std::size_t j = (size - (std::size_t{1} << k) + step - 1) / step;  // 1 .. 4
  return 16 + (k - 8) * 4 + static_cast<int>(j) - 1;
}

std::size_t program_heap::class_size(int c) {
  if (c < 16) return 16 * static_cast<std::size_t>(c + 1);
  const int k = 8 + (c - 16) / 4;
  const std::size_t j = static_cast<std::size_t>((c - 16) % 4 + 1);
  return (std::size_t{1} << k) + j * (std::size_t{1} << (k - 2));
}

program_heap::program_heap(const heap_geometry& geometry) : geometry_(geometry) {
  if (geometry_.thread_arenas > 4096) geometry_.thread_arenas = 4096;
  const int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | (geometry_.base ? MAP_FIXED_NOREPLACE : 0);
  void* p = mmap(reinterpret_cast<void*>(geometry_.base), geometry_.total(), PROT_READ | PROT_WRITE, flags, -1, 0);
  if (p == MAP_FAILED || (geometry_.base && reinterpret_cast<std::uintptr_t>(p) != geometry_.base)) {
    if (p != MAP_FAILED) munmap(p, geometry_.total());
    return;
  }
  base_ = reinterpret_cast<std::uintptr_t>(p);
  geometry_.base = base_;
  owns_mapping_ = true;
}

program_heap::~program_heap() {
  if (owns_mapping_) munmap(reinterpret_cast<void*>(base_), geometry_.total());
}

program_heap::arena_header& program_heap::header(int arena) const {
  const std::uintptr_t at = arena == 0 ? base_
                                       : base_ + geometry_.serial_bytes +
                                             geometry_.arena_bytes * static_cast<std::size_t>(arena - 1);
  return *reinterpret_cast<arena_header*>(at);
}

int program_heap::arena_of(const void* p) const {
  const auto offset = reinterpret_cast<std::uintptr_t>(p) - base_;
  if (offset < geometry_.serial_bytes) return 0;
  return 1 + static_cast<int>((offset - geometry_.serial_bytes) / geometry_.arena_bytes);
}

namespace {

// A short spin lock: arenas are used by one thread at a time but for rare
// moments (serial code and replicated regions share the serial arena).
void lock(std::atomic<std::uint32_t>& word) {
  for (int spins = 0; word.exchange(1, std::memory_order_acquire) != 0; ++spins)
    if (spins > 64) sched_yield();
}
void unlock(std::atomic<std::uint32_t>& word) { word.store(0, std::memory_order_release); }

}  // namespace

// First use of an arena (under its lock): its memory is still zero.
void program_heap::set_up(int arena) {
  arena_header& h = header(arena);
  if (h.magic == arena_magic) return;
  h.magic = arena_magic;
  h.index = static_cast<std::uint32_t>(arena);
  const std::uintptr_t start = reinterpret_cast<std::uintptr_t>(&h);
  h.bump = round_up(start + sizeof(arena_header), 64);
  h.limit = start + (arena == 0 ? geometry_.serial_bytes : geometry_.arena_bytes);
}

void* program_heap::allocate_in(int arena, std::size_t size, bool zeroed) {
  arena_header& h = header(arena);
  const bool is_large = size > largest_class;
  const int c = is_large ? -1 : class_of(size);
  const std::size_t payload = is_large ? round_up(size, large_page) : class_size(c);
  if (is_large && payload < size) return nullptr;  // overflow
  lock(h.lock);
  set_up(arena);
  std::uintptr_t block = 0;
  std::size_t block_payload = payload;
  bool fresh = false;
  if (!is_large && h.free_lists[c] != 0) {
    block = h.free_lists[c];
    h.free_lists[c] = block_at(block).link;
  } else if (is_large) {
    for (std::uintptr_t* at = &h.large_free; *at != 0; at = &block_at(*at).link) {
      const std::size_t have = block_at(*at).size_word & ~flag_bits;
      if (have < payload) continue;
      block = *at;
      *at = block_at(block).link;
      const std::uintptr_t rest = round_up(block + header_bytes + payload, large_page);  // starts a page too
      const std::uintptr_t end = block + header_bytes + have;
      if (end >= rest + header_bytes + large_split) {  // the rest stays free
        block_at(rest) = {(end - rest - header_bytes) | large, h.large_free};
        h.large_free = rest;
        block_payload = rest - block - header_bytes;
      } else {
        block_payload = have;  // the whole block
      }
      break;
    }
  }
  if (block == 0) {
    const std::uintptr_t at = payload >= page_placed ? round_up(h.bump, large_page) : h.bump;
    if (at + header_bytes + payload > h.limit || at + header_bytes + payload < at) {
      unlock(h.lock);
      return nullptr;
    }
    block = at;
    h.bump = block + header_bytes + payload;
    fresh = true;
  }
  block_at(block) = {block_payload | in_use | (is_large ? large : 0), 0};
  unlock(h.lock);
  void* user = reinterpret_cast<void*>(block + header_bytes);
  if (zeroed && !fresh) std::memset(user, 0, block_payload);
  return user;
}

void* program_heap::allocate(std::size_t size, std::size_t alignment, int arena, bool zeroed) {
  if (base_ == 0) return nullptr;
  if (arena < 0 || arena > geometry_.thread_arenas) arena = 0;
  if (alignment <= header_bytes) {
    void* p = allocate_in(arena, size, zeroed);
    return p != nullptr || arena == 0 ? p : allocate_in(0, size, zeroed);
  }
  // Room to move the payload up to the alignment, with a header in front
  // saying how far it moved.
  const std::size_t padded = size + alignment + header_bytes;
  if (padded < size) return nullptr;
  void* p = allocate(padded, header_bytes, arena, zeroed);
  if (p == nullptr) return nullptr;
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t user = round_up(at + header_bytes, alignment);
  if (user - at >= header_bytes) block_at(user - header_bytes) = {aligned | in_use, user - at};
  return reinterpret_cast<void*>(user);
}

void program_heap::release_in(int arena, std::uintptr_t block) {
  arena_header& h = header(arena);
  block_header& b = block_at(block);
  lock(h.lock);
  const std::uint64_t size = b.size_word & ~flag_bits;
  if (b.size_word & large) {
    b = {size | large, h.large_free};
    h.large_free = block;
  } else {
    const int c = class_of(size);
    b = {size, h.free_lists[c]};
    h.free_lists[c] = block;
  }
  unlock(h.lock);
}

void program_heap::release(void* p, int arena, bool defer_foreign) {
  if (p == nullptr) return;
  std::uintptr_t block = block_of(p);
  if (block_at(block).size_word & aligned) block = block_of(reinterpret_cast<void*>(reinterpret_cast<std::uintptr_t>(p) - block_at(block).link));
  if ((block_at(block).size_word & (in_use | deferred)) != in_use) corrupt("free", p);
  const int owner = arena_of(reinterpret_cast<void*>(block));
  if (arena < 0 || arena > geometry_.thread_arenas) arena = 0;
  if (defer_foreign && owner != arena) {
    arena_header& h = header(arena);
    lock(h.lock);
    set_up(arena);
    block_at(block).size_word |= deferred;
    block_at(block).link = h.deferred;
    h.deferred = block;
    unlock(h.lock);
    return;
  }
  release_in(owner, block);
}

std::size_t program_heap::usable_size(const void* p) const {
  if (p == nullptr) return 0;
  std::uintptr_t block = block_of(p);
  std::size_t moved = 0;
  if (block_at(block).size_word & aligned) {
    moved = block_at(block).link;
    block -= moved;
  }
  return (block_at(block).size_word & ~flag_bits) - moved;
}

// allocate() puts an `aligned` header before every payload it moves up, its
// size bits zero; a mapping's holds its bytes there.
void* program_heap::allocate_mapping(std::size_t bytes, int arena) {
  if (bytes == 0 || bytes % large_page != 0) return nullptr;
  void* p = allocate(bytes, large_page, arena, true);
  if (p != nullptr) block_at(block_of(p)).size_word = bytes | aligned | in_use;
  return p;
}

std::size_t program_heap::mapping_bytes(const void* p) const {
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  if (!contains(p) || at % large_page != 0 || at - base_ < large_page) return 0;
  const std::uint64_t word = block_at(block_of(p)).size_word;
  return (word & (aligned | in_use)) == (aligned | in_use) ? word & ~flag_bits : 0;
}

bool program_heap::resize_mapping(void* p, std::size_t bytes) {
  if (mapping_bytes(p) == 0 || bytes == 0 || bytes % large_page != 0 || bytes > usable_size(p)) return false;
  block_at(block_of(p)).size_word = bytes | aligned | in_use;
  return true;
}

void* program_heap::reallocate(void* p, std::size_t size, int arena, bool defer_foreign) {
  if (p == nullptr) return allocate(size, header_bytes, arena, false);
  const std::size_t have = usable_size(p);
  if (size <= have && (size > have / 2 || have <= 256)) return p;
  void* q = allocate(size, header_bytes, arena, false);
  if (q == nullptr) return nullptr;
  std::memcpy(q, p, size < have ? size : have);
  release(p, arena, defer_foreign);
  return q;
}

void program_heap::settle_deferred(int arena_bound) {
  if (base_ == 0) return;
  for (int arena = 0; arena <= arena_bound && arena <= geometry_.thread_arenas; ++arena) {
    arena_header& h = header(arena);
    if (h.magic != arena_magic) continue;
    std::uintptr_t block = h.deferred;
    h.deferred = 0;
    while (block != 0) {
      const std::uintptr_t next = block_at(block).link;
      block_at(block).size_word &= ~std::uint64_t{deferred};
      release_in(arena_of(reinterpret_cast<void*>(block)), block);
      block = next;
    }
  }
}

heap_extent program_heap::extent(int arena) const {
  if (base_ == 0 || arena < 0 || arena > geometry_.thread_arenas) return {};
  const arena_header& h = header(arena);
  if (h.magic != arena_magic) return {};
  return {reinterpret_cast<std::uintptr_t>(&h), round_up(h.bump, large_page)};
}

program_heap::bookkeeping program_heap::serial_bookkeeping() const {
  bookkeeping b;
  if (base_ == 0) return b;
  const arena_header& h = header(0);
  b.bump = h.bump;
  b.large_free = h.large_free;
  std::memcpy(b.free_lists, h.free_lists, sizeof b.free_lists);
  return b;
}

std::uint64_t program_heap::serial_fingerprint() const {
  if (base_ == 0) return 0;
  const bookkeeping b = serial_bookkeeping();
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  auto mix = [&](std::uint64_t v) {
    for (int i = 0; i < 8; ++i) hash = (hash ^ ((v >> (8 * i)) & 0xff)) * 0x100000001b3ULL;
  };
  mix(b.bump);
  for (std::uintptr_t head : b.free_lists) mix(head);
  mix(b.large_free);
  return hash;
}

}  // namespace selfsched::cluster
