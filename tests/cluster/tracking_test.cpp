// Write tracking: the pages a window changed and only those, runs that
// rebuild them elsewhere, undo of a window and of a region, the stack's
// floor, with the kernel's tracking and without it.
#include "tracking.hpp"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include <cstring>

using namespace selfsched::cluster;

namespace {

constexpr std::size_t pages = 64;

class Tracking : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    void* p = mmap(nullptr, pages * page_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(p, MAP_FAILED);
    memory = static_cast<unsigned char*>(p);
    begin = reinterpret_cast<std::uintptr_t>(memory);
    std::string why;
    ASSERT_TRUE(tracker.start({begin, begin + pages * page_bytes}, why, GetParam())) << why;
    for (std::size_t i = 0; i < pages * page_bytes; ++i) memory[i] = static_cast<unsigned char>(i * 13);
    ranges = {{begin, begin + pages * page_bytes}};
    std::vector<std::uintptr_t> written;
    tracker.begin_window(ranges, true, written);
    EXPECT_EQ(written.size(), pages);
  }
  void TearDown() override { munmap(memory, pages * page_bytes); }

  // This window's diffs.
  std::vector<std::byte> diffs() {
    std::vector<std::byte> blob(1 << 20);
    diff_writer w(blob.data(), blob.size());
    w.begin({});
    EXPECT_TRUE(tracker.write_diffs(ranges, w));
    blob.resize(w.finish());
    return blob;
  }

  unsigned char* memory = nullptr;
  std::uintptr_t begin = 0;
  page_tracker tracker;
  std::vector<address_range> ranges;
};

}  // namespace

TEST_P(Tracking, DiffsHoldTheChangedBytesOfTheChangedPagesOnly) {
  memory[3 * page_bytes + 10] ^= 0xff;
  memory[40 * page_bytes + 4095] ^= 1;
  const auto blob = diffs();
  diff_reader r(blob.data(), blob.size());
  page_diff page;
  std::vector<std::uintptr_t> seen;
  while (r.next(page)) {
    seen.push_back(page.address);
    ASSERT_EQ(page.runs.size(), 1u);
    EXPECT_EQ(page.runs[0].length, 1);
  }
  EXPECT_EQ(seen, (std::vector<std::uintptr_t>{begin + 3 * page_bytes, begin + 40 * page_bytes}));
  tracker.finish_merge(ranges);
  // The next window sees nothing, then only what it changes.
  const auto quiet = diffs();
  EXPECT_EQ(diff_reader(quiet.data(), quiet.size()).header().pages, 0u);
  tracker.finish_merge(ranges);
  memory[5 * page_bytes] ^= 1;
  const auto next = diffs();
  EXPECT_EQ(diff_reader(next.data(), next.size()).header().pages, 1u);
}

TEST_P(Tracking, AWindowAndARegionRollBack) {
  std::vector<unsigned char> start(memory, memory + pages * page_bytes);
  memory[page_bytes] = 1;  // window 1
  diffs();
  tracker.finish_merge(ranges);
  memory[2 * page_bytes] = 2;  // window 2, rolled back alone
  diffs();
  tracker.roll_back_window();
  EXPECT_EQ(memory[2 * page_bytes], start[2 * page_bytes]);
  EXPECT_EQ(memory[page_bytes], 1);
  memory[7 * page_bytes] = 7;  // written, not diffed yet: back to the region's start
  tracker.discard_window(ranges);
  tracker.roll_back_region();
  EXPECT_EQ(std::memcmp(memory, start.data(), start.size()), 0);
}

// Another rank's runs of the open window (early_writes.cpp): in memory, not
// counted as this rank's changes, a byte this rank changed left to the
// merge's conflict check, and gone again after a roll-back to the region's start.
TEST_P(Tracking, EarlyWritesAreNotOwnChangesAndRollBack) {
  std::vector<unsigned char> start(memory, memory + pages * page_bytes);
  unsigned char* five = memory + 5 * page_bytes;
  five[100] = static_cast<unsigned char>(start[5 * page_bytes + 100] + 1);  // this rank's own write
  std::vector<std::byte> theirs(page_bytes);
  std::memcpy(theirs.data(), five, page_bytes);
  theirs[100] = std::byte{0x5a};  // both ranks changed it
  theirs[101] = static_cast<std::byte>(start[5 * page_bytes + 101] ^ 0xff);
  theirs[200] = static_cast<std::byte>(start[5 * page_bytes + 200] ^ 0x0f);
  for (std::size_t i = 512; i < 528; ++i) theirs[i] ^= std::byte{0x33};   // whole words
  for (std::size_t i = 1024; i < 1032; ++i) theirs[i] ^= std::byte{0x44};  // a word with one byte of ours
  five[1027] = static_cast<unsigned char>(start[5 * page_bytes + 1027] ^ 0x80);
  const byte_run runs[] = {{100, 2}, {200, 1}, {512, 16}, {1024, 8}};
  std::vector<std::byte> blob(1 << 16);
  diff_writer w(blob.data(), blob.size());
  w.begin({});
  ASSERT_TRUE(w.add_page(begin + 5 * page_bytes, theirs.data(), runs));
  blob.resize(w.finish());
  diff_reader reader(blob.data(), blob.size());
  const page_tracker::early_result got = tracker.apply_early(reader, ranges);
  EXPECT_EQ(got.pages, 1u);
  EXPECT_TRUE(got.clashed);
  EXPECT_EQ(five[100], static_cast<unsigned char>(start[5 * page_bytes + 100] + 1));  // ours stays
  EXPECT_EQ(five[101], static_cast<unsigned char>(theirs[101]));
  EXPECT_EQ(five[200], static_cast<unsigned char>(theirs[200]));
  for (std::size_t i = 512; i < 528; ++i) EXPECT_EQ(five[i], static_cast<unsigned char>(theirs[i])) << i;
  for (std::size_t i = 1024; i < 1032; ++i)
    EXPECT_EQ(five[i], i == 1027 ? static_cast<unsigned char>(start[5 * page_bytes + 1027] ^ 0x80)
                                 : static_cast<unsigned char>(theirs[i]))
        << i;
  // This rank's diff holds its own bytes only.
  const auto mine = diffs();
  diff_reader r(mine.data(), mine.size());
  page_diff page;
  ASSERT_TRUE(r.next(page));
  ASSERT_EQ(page.mask, nullptr);
  ASSERT_EQ(page.runs.size(), 2u);
  EXPECT_EQ(page.runs[0].offset, 100);
  EXPECT_EQ(page.runs[0].length, 1);
  EXPECT_EQ(page.runs[1].offset, 1027);
  EXPECT_EQ(page.runs[1].length, 1);
  EXPECT_FALSE(r.next(page));
  tracker.roll_back_window();
  tracker.roll_back_region();
  EXPECT_EQ(std::memcmp(memory, start.data(), start.size()), 0);
}

TEST_P(Tracking, TheStackBelowItsFloorIsNeverTouched) {
  const std::uintptr_t floor = begin + 10 * page_bytes + 100;
  tracker.set_stack(ranges[0], floor);
  memory[10 * page_bytes + 50] = 0xaa;   // below the floor: the merging thread's frames
  memory[10 * page_bytes + 200] = 0xbb;  // above: shared
  memory[2 * page_bytes] = 0xcc;         // far below
  const auto blob = diffs();
  diff_reader r(blob.data(), blob.size());
  page_diff page;
  ASSERT_TRUE(r.next(page));
  EXPECT_EQ(page.address, begin + 10 * page_bytes);
  ASSERT_EQ(page.runs.size(), 1u);
  EXPECT_EQ(page.runs[0].offset, 200);
  EXPECT_FALSE(r.next(page));
  tracker.discard_window(ranges);
  EXPECT_EQ(memory[10 * page_bytes + 50], 0xaa);  // left alone
  EXPECT_EQ(memory[2 * page_bytes], 0xcc);
}

TEST_P(Tracking, InstalledPagesAreMemoryAndShadow) {
  std::vector<std::byte> other(page_bytes, std::byte{9});
  const std::uint64_t before = tracker.hash_page(begin + 4 * page_bytes);
  tracker.install_page(begin + 4 * page_bytes, other.data());
  EXPECT_NE(tracker.hash_page(begin + 4 * page_bytes), before);
  EXPECT_EQ(memory[4 * page_bytes + 77], 9);
  const auto blob = diffs();
  EXPECT_EQ(diff_reader(blob.data(), blob.size()).header().pages, 0u);  // not a change of this window
}

// Pages never touched before the window are left unprotected (their first
// write is one fault, not two): a write to one is still found, compared
// with zeros, and a page only read is not a change.
TEST_P(Tracking, PagesNeverTouchedBeforeTheWindowAreStillTracked) {
  void* p = mmap(nullptr, pages * page_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(p, MAP_FAILED);
  auto* fresh = static_cast<unsigned char*>(p);
  const auto at = reinterpret_cast<std::uintptr_t>(fresh);
  page_tracker t;
  std::string why;
  ASSERT_TRUE(t.start({at, at + pages * page_bytes}, why, GetParam())) << why;
  std::memset(fresh, 5, 8 * page_bytes);  // serial code touched pages 0-7 only
  const std::vector<address_range> r{{at, at + pages * page_bytes}};
  std::vector<std::uintptr_t> written;
  t.begin_window(r, true, written);
  EXPECT_EQ(written.size(), t.write_protected() ? 8u : pages);  // without the kernel: every page
  fresh[3 * page_bytes + 1] = 6;
  fresh[20 * page_bytes + 300] = 7;
  EXPECT_EQ(static_cast<volatile unsigned char*>(fresh)[30 * page_bytes], 0);  // read only
  // One fault per first write, as without tracking (a protected empty page
  // would take two).
  rusage before{}, after{};
  getrusage(RUSAGE_THREAD, &before);
  for (std::size_t i = 40; i < 56; ++i) static_cast<volatile unsigned char*>(fresh)[i * page_bytes] = 0;
  getrusage(RUSAGE_THREAD, &after);
  EXPECT_LT(after.ru_minflt - before.ru_minflt, 24);
  std::vector<std::byte> blob(1 << 20);
  diff_writer w(blob.data(), blob.size());
  w.begin({});
  ASSERT_TRUE(t.write_diffs(r, w));
  blob.resize(w.finish());
  diff_reader reader(blob.data(), blob.size());
  page_diff page;
  std::vector<std::pair<std::uintptr_t, std::uint16_t>> seen;
  while (reader.next(page)) {
    ASSERT_EQ(page.runs.size(), 1u);
    EXPECT_EQ(page.runs[0].length, 1);
    seen.push_back({page.address, page.runs[0].offset});
  }
  EXPECT_EQ(seen, (std::vector<std::pair<std::uintptr_t, std::uint16_t>>{{at + 3 * page_bytes, 1},
                                                                         {at + 20 * page_bytes, 300}}));
  munmap(p, pages * page_bytes);
}

INSTANTIATE_TEST_SUITE_P(KernelAndNot, Tracking, ::testing::Values(true, false),
                         [](const auto& info) { return info.param ? "kernel" : "compare_all"; });
