#include "page_diff.hpp"

#include "raw_memory.hpp"

#include <algorithm>
#include <array>
#include <cstring>

namespace selfsched::cluster {
namespace {

constexpr std::size_t round8(std::size_t n) { return (n + 7) & ~std::size_t{7}; }

// Extends or starts the run that ends at `at`.
void note_changed(std::vector<byte_run>& runs, std::size_t at, std::size_t length, bool& open) {
  if (open && runs.back().offset + runs.back().length == at)
    runs.back().length = static_cast<std::uint16_t>(runs.back().length + length);
  else
    runs.push_back({static_cast<std::uint16_t>(at), static_cast<std::uint16_t>(length)});
  open = true;
}

}  // namespace

SELFSCHED_READS_PROGRAM_MEMORY std::size_t diff_page(const std::byte* before, const std::byte* now, std::size_t from,
                                                   std::vector<byte_run>& runs) {
  std::size_t changed = 0;
  bool open = false;  // the last run ends at the byte before the current one
  std::size_t at = from;
  for (; at < page_bytes && at % 8 != 0; ++at) {
    if (before[at] != now[at]) { note_changed(runs, at, 1, open); ++changed; }
    else open = false;
  }
  for (; at < page_bytes; at += 8) {
    std::uint64_t a, b;
    std::memcpy(&a, before + at, 8);
    std::memcpy(&b, now + at, 8);
    if (a == b) { open = false; continue; }
    const std::uint64_t x = a ^ b;
    // No zero byte in x: the whole word changed (the usual case: a value
    // written over another).
    if (((x - 0x0101010101010101ULL) & ~x & 0x8080808080808080ULL) == 0) {
      note_changed(runs, at, 8, open);
      changed += 8;
      continue;
    }
    // Byte by byte inside a partly changed word: runs are exact.
    for (std::size_t k = 0; k < 8; ++k) {
      if ((x >> (8 * k)) & 0xff) { note_changed(runs, at + k, 1, open); ++changed; }
      else open = false;
    }
  }
  return changed;
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
  page.data = blob_ + at_ + 16 + run_bytes;
  at_ += 16 + run_bytes + round8(data);
  return true;
}

conflict find_conflict(std::span<const std::span<const std::byte>> blobs) {
  struct entry {
    std::uintptr_t address;
    int blob;
    std::span<const byte_run> runs;
  };
  std::vector<entry> pages;
  for (std::size_t b = 0; b < blobs.size(); ++b) {
    diff_reader reader(blobs[b].data(), blobs[b].size());
    page_diff page;
    while (reader.next(page)) pages.push_back({page.address, static_cast<int>(b), page.runs});
  }
  std::sort(pages.begin(), pages.end(), [](const entry& a, const entry& b) {
    return a.address != b.address ? a.address < b.address : a.blob < b.blob;
  });
  // A page several ranks wrote: its runs sorted by offset. One rank's runs
  // never overlap each other, so a run that starts before the furthest end
  // seen so far overlaps the run of another rank that reached it.
  struct span {
    std::uint32_t offset, end;
    int blob;
  };
  std::vector<span> spans;
  const auto rank_of = [&](int blob) {
    diff_header h{};
    std::memcpy(&h, blobs[static_cast<std::size_t>(blob)].data(), sizeof h);
    return static_cast<int>(h.rank);
  };
  for (std::size_t i = 0; i < pages.size();) {
    std::size_t j = i + 1;
    while (j < pages.size() && pages[j].address == pages[i].address) ++j;
    if (j - i > 1) {
      spans.clear();
      for (std::size_t k = i; k < j; ++k)
        for (const byte_run& run : pages[k].runs)
          if (run.length > 0) spans.push_back({run.offset, std::uint32_t{run.offset} + run.length, pages[k].blob});
      std::sort(spans.begin(), spans.end(), [](const span& a, const span& b) { return a.offset < b.offset; });
      std::uint32_t furthest = 0;
      int furthest_blob = -1;
      for (const span& s : spans) {
        if (s.offset < furthest && furthest_blob != s.blob)
          return {true, pages[i].address + s.offset, rank_of(furthest_blob), rank_of(s.blob)};
        if (s.end > furthest) furthest = s.end, furthest_blob = s.blob;
      }
    }
    i = j;
  }
  return {};
}

}  // namespace selfsched::cluster
