#include "regions/undeclared_writes.hpp"

#include <link.h>
#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "modules.hpp"
#include "page_diff.hpp"
#include "raw_memory.hpp"

namespace selfsched::mpi::detail {
namespace {

using cluster::address_range;
using cluster::page_bytes;
using cluster::page_ceil;
using cluster::page_floor;

// The ranges rounded out to whole pages, overlapping ones merged: the
// tracker keeps one copy per page.
std::vector<address_range> whole_pages(const std::vector<watched_range>& ranges) {
  std::vector<address_range> pages;
  for (const watched_range& r : ranges) pages.push_back({page_floor(r.begin), page_ceil(r.end)});
  std::sort(pages.begin(), pages.end(), [](const auto& a, const auto& b) { return a.begin < b.begin; });
  std::vector<address_range> merged;
  for (const address_range& p : pages) {
    if (!merged.empty() && p.begin <= merged.back().end) merged.back().end = std::max(merged.back().end, p.end);
    else merged.push_back(p);
  }
  return merged;
}

// The worst case of a blob: every other byte of every page changed (a run
// of 4 bytes' description per changed byte), with the page's header.
std::size_t blob_bound(const std::vector<address_range>& pages) {
  std::size_t bytes = 4096;
  for (const address_range& p : pages) bytes += (p.end - p.begin) / page_bytes * (16 + 2 * page_bytes + page_bytes);
  return bytes;
}

// Appends [begin, end) of `range` minus the covered intervals (sorted).
void add_uncovered(changed_bytes& out, std::uint32_t index, const watched_range& range, std::uintptr_t begin,
                   std::uintptr_t end, std::span<const address_range> covered) {
  for (const address_range& c : covered) {
    if (c.end <= begin || c.begin >= end) continue;
    if (c.begin > begin) add_uncovered(out, index, range, begin, c.begin, {});
    begin = std::max(begin, c.end);
    if (begin >= end) return;
  }
  if (begin >= end) return;
  const std::size_t at = out.data.size();
  out.data.resize(at + (end - begin));
  cluster::raw_copy(out.data.data() + at, reinterpret_cast<const void*>(begin), end - begin);  // the program's memory
  out.runs.push_back({index, static_cast<std::uint32_t>(end - begin), begin - range.begin, at});
}

// The executable's lazy-binding GOT (.got.plt): the loader writes a
// function's address there at its first call, an address that differs by
// rank; not the program's data.
int find_plt_got(dl_phdr_info* info, std::size_t, void* data) {
  auto& got = *static_cast<address_range*>(data);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    if (info->dlpi_phdr[i].p_type != PT_DYNAMIC) continue;
    std::uintptr_t begin = 0, relocation_bytes = 0;
    for (const auto* d = reinterpret_cast<const ElfW(Dyn)*>(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
         d->d_tag != DT_NULL; ++d) {
      if (d->d_tag == DT_PLTGOT) begin = d->d_un.d_ptr;  // already relocated by the loader
      if (d->d_tag == DT_PLTRELSZ) relocation_bytes = d->d_un.d_val;
    }
    if (begin != 0) got = {begin, begin + (3 + relocation_bytes / sizeof(ElfW(Rela))) * sizeof(void*)};
  }
  return 1;  // the first object is the executable
}

}  // namespace

std::vector<watched_range> program_ranges(std::span<const std::pair<void*, std::size_t>> user_ranges) {
  std::vector<watched_range> ranges;
  // The executable's data and bss only: its shared libraries cannot be told
  // from MPI's and the system's by name (libmpi, libucx, libfabric ...,
  // whose state their own threads write during a loop); a library's
  // globals are named with track_writes.
  address_range got{};
  dl_iterate_phdr(find_plt_got, &got);
  for (const cluster::module_info& m : cluster::loaded_modules()) {
    if (!m.path.empty()) continue;
    // Each data range less the GOT (none: the second piece is the range).
    for (const address_range& d : m.data) {
      const address_range pieces[2] = {{d.begin, std::clamp(got.begin, d.begin, d.end)},
                                       {std::clamp(got.end, d.begin, d.end), d.end}};
      for (const address_range& p : pieces)
        if (p.end > p.begin) ranges.push_back({p.begin, p.end, "the program's global data"});
    }
    break;
  }
  for (std::size_t k = 0; k < user_ranges.size(); ++k) {
    const auto begin = reinterpret_cast<std::uintptr_t>(user_ranges[k].first);
    ranges.push_back({begin, begin + user_ranges[k].second, "track_writes range " + std::to_string(k)});
  }
  return ranges;
}

bool write_window::start(std::vector<watched_range> ranges, std::string& why) {
  ranges_ = std::move(ranges);
  pages_ = whole_pages(ranges_);
  if (!tracker_.start({}, why)) return false;
  for (const address_range& p : pages_)
    if (!tracker_.add_range(p)) {
      why = "more than the tracker's room for copies of pages";
      return false;
    }
  blob_capacity_ = blob_bound(pages_);
  void* area = mmap(nullptr, blob_capacity_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (area == MAP_FAILED) {
    why = std::string("cannot reserve room for diffs (") + std::strerror(errno) + ")";
    return false;
  }
  blob_ = static_cast<std::byte*>(area);
  return true;
}

void write_window::open() {
  if (open_) return;
  tracker_.begin_window(pages_, false, written_);
  open_ = true;
}

changed_bytes write_window::collect(std::span<const address_range> covered_unsorted) {
  std::vector<address_range> covered(covered_unsorted.begin(), covered_unsorted.end());
  std::sort(covered.begin(), covered.end(), [](const auto& a, const auto& b) { return a.begin < b.begin; });
  changed_bytes out;
  cluster::diff_writer writer(blob_, blob_capacity_);
  writer.begin({});
  tracker_.write_diffs(pages_, writer);  // fits: blob_bound is the worst case
  const std::size_t size = writer.finish();
  cluster::diff_reader reader(blob_, size);
  cluster::page_diff page;
  while (reader.next(page)) {
    ++out.pages_written;
    cluster::for_each_run(page, [&](std::size_t offset, std::size_t length, const std::byte*) {
      const std::uintptr_t begin = page.address + offset, end = begin + length;
      // Clipped to each range (a page may hold bytes of no tracked range).
      for (std::uint32_t k = 0; k < ranges_.size(); ++k) {
        const watched_range& r = ranges_[k];
        const std::uintptr_t b = std::max(begin, r.begin), e = std::min(end, r.end);
        if (b < e) add_uncovered(out, k, r, b, e, covered);
      }
    });
  }
  return out;
}

void write_window::close() {
  tracker_.finish_merge(pages_, false);
  open_ = false;
}

}  // namespace selfsched::mpi::detail
