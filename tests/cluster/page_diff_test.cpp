// Page diffs: exact runs, blobs that round-trip, conflicts found exactly
// when two ranks changed the same byte.
#include "page_diff.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <random>

using namespace selfsched::cluster;

namespace {

struct page {
  alignas(4096) std::array<std::byte, page_bytes> bytes{};
  std::byte* data() { return bytes.data(); }
};

std::vector<byte_run> runs_of(const page& before, const page& now, std::size_t from = 0) {
  std::vector<byte_run> runs;
  diff_page(before.bytes.data(), now.bytes.data(), from, runs);
  return runs;
}

// A blob of one rank's pages: (page, its copy before).
std::vector<std::byte> blob_of(std::uint32_t rank, std::vector<std::pair<page*, const page*>> pages,
                               std::uint32_t flags = 0) {
  std::vector<std::byte> area(1 << 20);
  diff_writer w(area.data(), area.size());
  diff_header h;
  h.rank = rank;
  h.flags = flags;
  w.begin(h);
  for (auto [now, before] : pages) {
    const auto runs = runs_of(*before, *now);
    EXPECT_TRUE(w.add_page(reinterpret_cast<std::uintptr_t>(now->data()), now->data(), runs));
  }
  area.resize(w.finish());
  return area;
}

}  // namespace

TEST(PageDiff, RunsAreExactBytes) {
  page before, now;
  for (std::size_t i = 0; i < page_bytes; ++i) before.bytes[i] = now.bytes[i] = std::byte(i * 7);
  now.bytes[3] ^= std::byte{1};                                   // one byte inside a word
  for (std::size_t i = 8; i < 24; ++i) now.bytes[i] ^= std::byte{0xff};  // two whole words
  now.bytes[24] ^= std::byte{2};                                  // joins the run before
  now.bytes[4095] ^= std::byte{4};                                // the last byte
  const auto runs = runs_of(before, now);
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].offset, 3);
  EXPECT_EQ(runs[0].length, 1);
  EXPECT_EQ(runs[1].offset, 8);
  EXPECT_EQ(runs[1].length, 17);
  EXPECT_EQ(runs[2].offset, 4095);
  EXPECT_EQ(runs[2].length, 1);
}

TEST(PageDiff, FromSkipsTheBytesBelow) {
  page before, now;
  now.bytes[5] = std::byte{1};
  now.bytes[100] = std::byte{1};
  const auto runs = runs_of(before, now, 37);  // an unaligned start too
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].offset, 100);
}

TEST(PageDiff, RandomPagesReconstructExactly) {
  std::mt19937 rng(7);
  for (int round = 0; round < 200; ++round) {
    page before, now, rebuilt;
    for (std::size_t i = 0; i < page_bytes; ++i) before.bytes[i] = now.bytes[i] = std::byte(rng());
    const int changes = static_cast<int>(rng() % 50);
    for (int c = 0; c < changes; ++c) {
      const std::size_t at = rng() % page_bytes, len = 1 + rng() % 64;
      for (std::size_t i = at; i < std::min(page_bytes, at + len); ++i) now.bytes[i] = std::byte(rng());
    }
    const auto runs = runs_of(before, now);
    std::size_t changed = 0;
    rebuilt = before;
    for (const auto& r : runs) {
      for (std::size_t i = r.offset; i < std::size_t{r.offset} + r.length; ++i) {
        EXPECT_NE(before.bytes[i], now.bytes[i]) << "a run holds an unchanged byte";
        rebuilt.bytes[i] = now.bytes[i];
      }
      changed += r.length;
    }
    EXPECT_EQ(std::memcmp(rebuilt.data(), now.data(), page_bytes), 0);
    std::size_t differ = 0;
    for (std::size_t i = 0; i < page_bytes; ++i) differ += before.bytes[i] != now.bytes[i];
    EXPECT_EQ(changed, differ);
  }
}

TEST(PageDiff, BlobRoundTripsAndApplies) {
  page before_a, a, before_b, b;
  a.bytes[10] = std::byte{9};
  b.bytes[4000] = std::byte{8};
  b.bytes[4001] = std::byte{7};
  const auto blob = blob_of(3, {{&a, &before_a}, {&b, &before_b}}, flag_critical);
  diff_reader r(blob.data(), blob.size());
  ASSERT_TRUE(r.valid());
  EXPECT_EQ(r.header().rank, 3u);
  EXPECT_EQ(r.header().flags, flag_critical);
  EXPECT_EQ(r.header().pages, 2u);
  // Apply onto copies of the pages: the reader gives addresses of a and b,
  // so write them back into fresh zero pages and compare.
  a.bytes.fill(std::byte{0});
  b.bytes.fill(std::byte{0});
  std::vector<std::uintptr_t> seen;
  apply_diff(r, [&](std::uintptr_t address) { seen.push_back(address); });
  EXPECT_EQ(seen.size(), 2u);
  EXPECT_EQ(a.bytes[10], std::byte{9});
  EXPECT_EQ(b.bytes[4001], std::byte{7});
}

TEST(PageDiff, TruncatedBlobIsInvalid) {
  page before, now;
  now.bytes[1] = std::byte{1};
  auto blob = blob_of(0, {{&now, &before}});
  diff_reader whole(blob.data(), blob.size());
  EXPECT_TRUE(whole.valid());
  diff_reader cut(blob.data(), blob.size() - 8);
  EXPECT_FALSE(cut.valid());
  blob[0] = std::byte{0};
  diff_reader bad(blob.data(), blob.size());
  EXPECT_FALSE(bad.valid());
}

TEST(PageDiff, InterleavedBytesOfOnePageDoNotConflict) {
  // Two ranks write alternate bytes of the same page (rows of a char image
  // cut at odd places): they merge.
  page original, rank0, rank1;
  for (std::size_t i = 0; i < page_bytes; ++i) {
    if (i % 2 == 0) rank0.bytes[i] = std::byte(1 + i % 200);
    else rank1.bytes[i] = std::byte(1 + i % 200);
  }
  // Both blobs name the same address: the page of rank0 stands for both.
  auto b0 = blob_of(0, {{&rank0, &original}});
  std::vector<std::byte> area(1 << 20);
  diff_writer w(area.data(), area.size());
  diff_header h;
  h.rank = 1;
  w.begin(h);
  const auto runs = runs_of(original, rank1);
  ASSERT_TRUE(w.add_page(reinterpret_cast<std::uintptr_t>(rank0.data()), rank1.data(), runs));
  area.resize(w.finish());
  std::vector<std::span<const std::byte>> blobs{b0, area};
  EXPECT_FALSE(find_conflict(blobs).found);
}

TEST(PageDiff, TheSameByteFromTwoRanksConflictsEvenWithTheSameValue) {
  page original, rank0, rank1;
  rank0.bytes[123] = std::byte{5};
  rank1.bytes[123] = std::byte{5};  // one value, written on two ranks: a race (or an atomic)
  auto b0 = blob_of(0, {{&rank0, &original}});
  std::vector<std::byte> area(1 << 20);
  diff_writer w(area.data(), area.size());
  diff_header h;
  h.rank = 2;
  w.begin(h);
  ASSERT_TRUE(w.add_page(reinterpret_cast<std::uintptr_t>(rank0.data()), rank1.data(), runs_of(original, rank1)));
  area.resize(w.finish());
  std::vector<std::span<const std::byte>> blobs{b0, area};
  const conflict c = find_conflict(blobs);
  ASSERT_TRUE(c.found);
  EXPECT_EQ(c.address, reinterpret_cast<std::uintptr_t>(rank0.data()) + 123);
  EXPECT_EQ(c.first_rank, 0);
  EXPECT_EQ(c.second_rank, 2);
}
