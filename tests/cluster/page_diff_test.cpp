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
  const std::byte* data() const { return bytes.data(); }
};

// The runs of changed bytes, as a receiver sees them (from the bitmap).
std::vector<byte_run> runs_of(const page& before, const page& now, std::size_t from = 0) {
  page_changes changes;
  find_changes(before.bytes.data(), now.bytes.data(), from, changes);
  std::vector<byte_run> runs;
  for_each_run(page_diff{0, {}, changes.mask, now.bytes.data()}, [&](std::size_t offset, std::size_t length, const std::byte*) {
    runs.push_back({static_cast<std::uint16_t>(offset), static_cast<std::uint16_t>(length)});
  });
  return runs;
}

page_changes changes_of(const page& before, const page& now, std::size_t from = 0) {
  page_changes changes;
  find_changes(before.bytes.data(), now.bytes.data(), from, changes);
  return changes;
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
  for (auto [now, before] : pages)
    EXPECT_TRUE(w.add_page(reinterpret_cast<std::uintptr_t>(now->data()), now->data(), changes_of(*before, *now)));
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

// The bitmap, 16 bytes a step, against byte by byte: from any start (a
// stack page's first program byte), changes sparse and dense.
TEST(PageDiff, TheBitmapIsEveryChangedByteFromAnyStart) {
  std::mt19937 rng(11);
  for (int round = 0; round < 400; ++round) {
    page before, now;
    const unsigned density = rng() % 4;  // 1 in 2^(2 density + 1) bytes changed, or every byte
    for (std::size_t i = 0; i < page_bytes; ++i) {
      before.bytes[i] = now.bytes[i] = std::byte(rng());
      if (density == 3 || rng() % (2u << (2 * density)) == 0) now.bytes[i] = before.bytes[i] ^ std::byte(1 + rng() % 255);
    }
    const std::size_t from = round < 20 ? page_bytes - static_cast<std::size_t>(round) : rng() % page_bytes;
    page_changes changes;
    const std::size_t changed = find_changes(before.data(), now.data(), from, changes);
    std::size_t expected = 0;
    for (std::size_t i = 0; i < page_bytes; ++i) {
      const bool differs = i >= from && before.bytes[i] != now.bytes[i];
      expected += differs;
      ASSERT_EQ((changes.mask[i / 64] >> (i % 64) & 1) != 0, differs) << "byte " << i << " from " << from;
    }
    EXPECT_EQ(changed, expected) << "from " << from;
  }
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
  ASSERT_TRUE(w.add_page(reinterpret_cast<std::uintptr_t>(rank0.data()), rank1.data(), changes_of(original, rank1)));
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
  ASSERT_TRUE(w.add_page(reinterpret_cast<std::uintptr_t>(rank0.data()), rank1.data(), changes_of(original, rank1)));
  area.resize(w.finish());
  std::vector<std::span<const std::byte>> blobs{b0, area};
  const conflict c = find_conflict(blobs);
  ASSERT_TRUE(c.found);
  EXPECT_EQ(c.address, reinterpret_cast<std::uintptr_t>(rank0.data()) + 123);
  EXPECT_EQ(c.first_rank, 0);
  EXPECT_EQ(c.second_rank, 2);
}

// Small integers written over others (an image of escape counts): every
// 32-bit value's low bytes change, a run of one or two bytes every four.
page counts_over(const page& before, unsigned seed) {
  page now = before;
  for (std::size_t at = 0; at < page_bytes; at += 4) {
    std::uint32_t value;
    std::memcpy(&value, now.data() + at, 4);
    value = (value & 0xffff0000u) | ((value + 1 + (at * seed) % 1999) & 0xffffu);
    std::memcpy(now.data() + at, &value, 4);
  }
  return now;
}

TEST(PageDiff, ManyShortRunsTravelAsTheWholePageAndItsBitmap) {
  page before;
  for (std::size_t i = 0; i < page_bytes; ++i) before.bytes[i] = std::byte(i * 13);
  page now = counts_over(before, 7);
  const page_changes changes = changes_of(before, now);
  ASSERT_TRUE(changes.dense()) << changes.runs << " runs";
  page sparse_now = before;
  sparse_now.bytes[9] ^= std::byte{1};
  std::vector<std::byte> area(1 << 20);
  diff_writer w(area.data(), area.size());
  w.begin({});
  ASSERT_TRUE(w.add_page(reinterpret_cast<std::uintptr_t>(now.data()), now.data(), changes));
  ASSERT_TRUE(w.add_page(reinterpret_cast<std::uintptr_t>(sparse_now.data()), sparse_now.data(),
                         changes_of(before, sparse_now)));
  area.resize(w.finish());
  EXPECT_LT(area.size(), sizeof(diff_header) + 2 * 16 + 8 + 512 + page_bytes + 8 + 1);
  // Applied over the old contents, each page is the new one, byte for byte.
  const page expected = now, expected_sparse = sparse_now;
  now = before;
  sparse_now = before;
  diff_reader r(area.data(), area.size());
  ASSERT_TRUE(r.valid());
  page_diff first;
  ASSERT_TRUE(r.next(first));
  EXPECT_NE(first.mask, nullptr);
  EXPECT_TRUE(first.runs.empty());
  diff_reader again(area.data(), area.size());
  apply_diff(again, [](std::uintptr_t) {});
  EXPECT_EQ(std::memcmp(now.data(), expected.data(), page_bytes), 0);
  EXPECT_EQ(std::memcmp(sparse_now.data(), expected_sparse.data(), page_bytes), 0);
  // A byte another rank changed, one the counts left alone, is not touched.
  EXPECT_EQ(now.bytes[2], before.bytes[2]);
}

TEST(PageDiff, RandomDenseAndSparsePagesApplyExactly) {
  std::mt19937 rng(11);
  for (int round = 0; round < 300; ++round) {
    page before, now;
    for (std::size_t i = 0; i < page_bytes; ++i) before.bytes[i] = now.bytes[i] = std::byte(rng());
    const int changes = static_cast<int>(rng() % 400);
    for (int c = 0; c < changes; ++c) {
      const std::size_t at = rng() % page_bytes, len = 1 + rng() % (round % 2 ? 3 : 64);
      for (std::size_t i = at; i < std::min(page_bytes, at + len); ++i) now.bytes[i] ^= std::byte(1 + rng() % 255);
    }
    const std::size_t from = round % 5 == 0 ? rng() % 300 : 0;
    const page_changes found = changes_of(before, now, from);
    std::size_t differ = 0, runs = 0;
    for (std::size_t i = from; i < page_bytes; ++i) {
      differ += before.bytes[i] != now.bytes[i];
      runs += before.bytes[i] != now.bytes[i] && (i == from || before.bytes[i - 1] == now.bytes[i - 1]);
    }
    EXPECT_EQ(found.changed, differ);
    EXPECT_EQ(found.runs, runs);
    if (from > 0) EXPECT_FALSE(found.dense()) << "a page partly the program's travels as runs";
    std::vector<std::byte> area(1 << 16);
    diff_writer w(area.data(), area.size());
    w.begin({});
    const page expected = now;
    ASSERT_TRUE(w.add_page(reinterpret_cast<std::uintptr_t>(now.data()), now.data(), found));
    area.resize(w.finish());
    now = before;
    diff_reader r(area.data(), area.size());
    apply_diff(r, [](std::uintptr_t) {});
    for (std::size_t i = 0; i < from; ++i) ASSERT_EQ(now.bytes[i], before.bytes[i]) << "below from, at " << i;
    EXPECT_EQ(std::memcmp(now.data() + from, expected.data() + from, page_bytes - from), 0) << "round " << round;
  }
}

TEST(PageDiff, DensePagesConflictExactlyWhereTwoRanksChangedOneByte) {
  page original, rank0, rank1;
  for (std::size_t i = 0; i < page_bytes; ++i) original.bytes[i] = rank0.bytes[i] = rank1.bytes[i] = std::byte(1);
  // Alternate bytes, each rank its own: dense on both sides, no conflict.
  for (std::size_t i = 0; i < page_bytes; ++i) (i % 2 == 0 ? rank0 : rank1).bytes[i] = std::byte(2 + i % 100);
  const auto address = reinterpret_cast<std::uintptr_t>(rank0.data());
  const auto blob = [&](std::uint32_t rank, const page& now) {
    std::vector<std::byte> area(1 << 16);
    diff_writer w(area.data(), area.size());
    diff_header h;
    h.rank = rank;
    w.begin(h);
    const page_changes c = changes_of(original, now);
    EXPECT_TRUE(c.dense());
    EXPECT_TRUE(w.add_page(address, now.data(), c));
    area.resize(w.finish());
    return area;
  };
  auto b0 = blob(0, rank0), b1 = blob(1, rank1);
  EXPECT_FALSE(find_conflict(std::vector<std::span<const std::byte>>{b0, b1}).found);
  // Rank 1 also changes byte 2010 (rank 0's): the conflict names it.
  rank1.bytes[2010] = std::byte(77);
  b1 = blob(1, rank1);
  conflict c = find_conflict(std::vector<std::span<const std::byte>>{b0, b1});
  ASSERT_TRUE(c.found);
  EXPECT_EQ(c.address, address + 2010);
  EXPECT_EQ(c.first_rank, 0);
  EXPECT_EQ(c.second_rank, 1);
  // A sparse page (runs) against a dense one: found the same way.
  page rank2 = original;
  rank2.bytes[3000] = std::byte(9);
  std::vector<std::byte> area(1 << 16);
  diff_writer w(area.data(), area.size());
  diff_header h;
  h.rank = 2;
  w.begin(h);
  ASSERT_FALSE(changes_of(original, rank2).dense());
  ASSERT_TRUE(w.add_page(address, rank2.data(), changes_of(original, rank2)));
  area.resize(w.finish());
  c = find_conflict(std::vector<std::span<const std::byte>>{area, b0});
  ASSERT_TRUE(c.found);
  EXPECT_EQ(c.address, address + 3000);
  EXPECT_EQ(c.first_rank, 2);
  EXPECT_EQ(c.second_rank, 0);
}
