#include "page_diff.hpp"

#include "raw_memory.hpp"

#include <emmintrin.h>  // SSE2: every x86-64 CPU has it

#include <algorithm>
#include <array>
#include <cstring>

namespace selfsched::cluster {
namespace {

constexpr std::size_t round8(std::size_t n) { return (n + 7) & ~std::size_t{7}; }

}  // namespace

SELFSCHED_READS_PROGRAM_MEMORY std::size_t find_changes(const std::byte* before, const std::byte* now,
                                                      std::size_t from, page_changes& out) {
  out = page_changes{};
  out.from = from;
  std::size_t at = from;
  for (; at < page_bytes && at % 16 != 0; ++at)
    if (before[at] != now[at]) out.mask[at / 64] |= std::uint64_t{1} << (at % 64);
  // 16 bytes a step: the bytes that differ as 16 bits in order (byte k: bit
  // k), from one compare and one movemask (a dense page's diff was a third
  // of a merge's time, byte masks built 8 bytes at a time).
  for (; at < page_bytes; at += 16) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(before + at));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(now + at));
    const auto differ = static_cast<std::uint64_t>(~_mm_movemask_epi8(_mm_cmpeq_epi8(a, b)) & 0xffff);
    out.mask[at / 64] |= differ << (at % 64);
  }
  std::uint64_t carry = 0;  // the bit of the byte before the word
  for (const std::uint64_t m : out.mask) {
    out.changed += static_cast<std::size_t>(__builtin_popcountll(m));
    out.runs += static_cast<std::size_t>(__builtin_popcountll(m & ~((m << 1) | carry)));  // first bytes of runs
    carry = m >> 63;
  }
  return out.changed;
}

void diff_writer::begin(const diff_header& header) {
  used_ = sizeof(diff_header);
  pages_ = 0;
  std::memcpy(area_, &header, sizeof header);
}

bool diff_writer::add_page(std::uintptr_t address, const std::byte* now, std::span<const byte_run> runs) {
  std::size_t data = 0;
  for (const byte_run& r : runs) data += r.length;
  const std::size_t need = 16 + round8(runs.size() * sizeof(byte_run)) + round8(data);
  if (used_ + need > capacity_) return false;
  const std::uint64_t address64 = address, count = runs.size();
  std::memcpy(area_ + used_, &address64, 8);
  std::memcpy(area_ + used_ + 8, &count, 8);
  std::byte* at = area_ + used_ + 16;
  std::memcpy(at, runs.data(), runs.size() * sizeof(byte_run));
  at += round8(runs.size() * sizeof(byte_run));
  for (const byte_run& r : runs) {
    raw_copy(at, now + r.offset, r.length);
    at += r.length;
  }
  used_ += need;
  ++pages_;
  return true;
}

bool diff_writer::add_page(std::uintptr_t address, const std::byte* now, const page_changes& changes) {
  if (!changes.dense()) {
    runs_.clear();
    const page_diff as_mask{address, {}, changes.mask, now};
    for_each_run(as_mask, [&](std::size_t offset, std::size_t length, const std::byte*) {
      runs_.push_back({static_cast<std::uint16_t>(offset), static_cast<std::uint16_t>(length)});
    });
    return add_page(address, now, runs_);
  }
  constexpr std::size_t need = 16 + sizeof changes.mask + page_bytes;
  if (used_ + need > capacity_) return false;
  const std::uint64_t address64 = address;
  std::memcpy(area_ + used_, &address64, 8);
  std::memcpy(area_ + used_ + 8, &whole_page_with_mask, 8);
  std::memcpy(area_ + used_ + 16, changes.mask, sizeof changes.mask);
  raw_copy(area_ + used_ + 16 + sizeof changes.mask, now, page_bytes);
  used_ += need;
  ++pages_;
  return true;
}

std::size_t diff_writer::finish() {
  diff_header header;
  std::memcpy(&header, area_, sizeof header);
  header.pages = pages_;
  header.bytes = used_;
  std::memcpy(area_, &header, sizeof header);
  return used_;
}

diff_reader::diff_reader(const std::byte* blob, std::size_t size) : blob_(blob), size_(size) {
  if (size < sizeof(diff_header)) return;
  std::memcpy(&header_, blob, sizeof header_);
  valid_ = header_.magic == diff_header{}.magic && header_.bytes <= size && header_.bytes >= sizeof(diff_header);
  size_ = valid_ ? header_.bytes : 0;
  at_ = sizeof(diff_header);
}

bool diff_reader::next(page_diff& page) {
  if (!valid_ || at_ + 16 > size_) return false;
  std::uint64_t address, count;
  std::memcpy(&address, blob_ + at_, 8);
  std::memcpy(&count, blob_ + at_ + 8, 8);
  if (count == whole_page_with_mask) {
    constexpr std::size_t mask_bytes = mask_words * 8;
    if (at_ + 16 + mask_bytes + page_bytes > size_) { valid_ = false; return false; }
    page.address = address;
    page.runs = {};
    page.mask = reinterpret_cast<const std::uint64_t*>(blob_ + at_ + 16);
    page.data = blob_ + at_ + 16 + mask_bytes;
    at_ += 16 + mask_bytes + page_bytes;
    return true;
  }
  const std::size_t run_bytes = round8(count * sizeof(byte_run));
  if (count > page_bytes || at_ + 16 + run_bytes > size_) { valid_ = false; return false; }
  const auto* runs = reinterpret_cast<const byte_run*>(blob_ + at_ + 16);
  std::size_t data = 0;
  for (std::size_t i = 0; i < count; ++i) {
    if (runs[i].offset + std::size_t{runs[i].length} > page_bytes) { valid_ = false; return false; }
    data += runs[i].length;
  }
  if (at_ + 16 + run_bytes + round8(data) > size_) { valid_ = false; return false; }
  page.address = address;
  page.runs = {runs, count};
  page.mask = nullptr;
  page.data = blob_ + at_ + 16 + run_bytes;
  at_ += 16 + run_bytes + round8(data);
  return true;
}

// Each byte of a word whose bit is set: 0xff, from a bitmap's byte.
constexpr std::array<std::uint64_t, 256> byte_masks = [] {
  std::array<std::uint64_t, 256> t{};
  for (std::size_t bits = 0; bits < 256; ++bits)
    for (std::size_t k = 0; k < 8; ++k)
      if (bits >> k & 1) t[bits] |= std::uint64_t{0xff} << (8 * k);
  return t;
}();

SELFSCHED_READS_PROGRAM_MEMORY void apply_masked(std::byte* target, const std::uint64_t* mask, const std::byte* data) {
  for (std::size_t at = 0; at < page_bytes; at += 8) {
    const auto bits = static_cast<std::size_t>(mask[at / 64] >> (at % 64) & 0xff);
    if (bits == 0) continue;
    std::uint64_t theirs, ours;
    std::memcpy(&theirs, data + at, 8);
    if (bits != 0xff) {
      std::memcpy(&ours, target + at, 8);
      theirs = (ours & ~byte_masks[bits]) | (theirs & byte_masks[bits]);
    }
    std::memcpy(target + at, &theirs, 8);
  }
}

conflict find_conflict(std::span<const std::span<const std::byte>> blobs) {
  struct entry {
    std::uintptr_t address;
    int blob;
    page_diff page;
  };
  std::vector<entry> pages;
  for (std::size_t b = 0; b < blobs.size(); ++b) {
    diff_reader reader(blobs[b].data(), blobs[b].size());
    page_diff page;
    while (reader.next(page)) pages.push_back({page.address, static_cast<int>(b), page});
  }
  std::sort(pages.begin(), pages.end(), [](const entry& a, const entry& b) {
    return a.address != b.address ? a.address < b.address : a.blob < b.blob;
  });
  const auto rank_of = [&](int blob) {
    diff_header h{};
    std::memcpy(&h, blobs[static_cast<std::size_t>(blob)].data(), sizeof h);
    return static_cast<int>(h.rank);
  };
  // A page several ranks wrote: the bytes each changed as bitmaps; a byte
  // set in two is the conflict (the lowest such byte of the lowest page).
  std::vector<std::array<std::uint64_t, mask_words>> masks;
  for (std::size_t i = 0; i < pages.size();) {
    std::size_t j = i + 1;
    while (j < pages.size() && pages[j].address == pages[i].address) ++j;
    if (j - i > 1) {
      masks.assign(j - i, {});
      for (std::size_t k = i; k < j; ++k) {
        auto& m = masks[k - i];
        if (pages[k].page.mask != nullptr) std::memcpy(m.data(), pages[k].page.mask, sizeof m);
        else
          for (const byte_run& run : pages[k].page.runs)
            for (std::size_t at = run.offset; at < std::size_t{run.offset} + run.length; ++at)
              m[at / 64] |= std::uint64_t{1} << (at % 64);
      }
      for (std::size_t w = 0; w < mask_words; ++w) {
        std::uint64_t seen = 0, twice = 0;
        for (const auto& m : masks) twice |= seen & m[w], seen |= m[w];
        if (twice == 0) continue;
        const std::size_t offset = 64 * w + static_cast<std::size_t>(__builtin_ctzll(twice));
        const std::uint64_t bit = std::uint64_t{1} << (offset % 64);
        int first = -1, second = -1;
        for (std::size_t k = 0; k < masks.size() && second < 0; ++k)
          if (masks[k][w] & bit) (first < 0 ? first : second) = pages[i + k].blob;
        return {true, pages[i].address + offset, rank_of(first), rank_of(second)};
      }
    }
    i = j;
  }
  return {};
}

}  // namespace selfsched::cluster
