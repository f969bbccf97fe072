// The one reader and the one writer of selfsched's files
// (selfsched/machine/files.hpp): bounded reads that never block or throw, and
// writes that never follow a symlink and never leave half a file or a
// temporary behind.
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "selfsched/machine/files.hpp"

namespace fs = std::filesystem;
using selfsched::omp::read_json_file;
using selfsched::omp::write_file_atomically;

namespace {

class Files : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("selfsched_files_test." + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::add);
    fs::remove_all(dir_);
  }
  std::string path(const char* name) const { return (dir_ / name).string(); }
  static std::string contents(const std::string& file) {
    std::ifstream in(file);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  fs::path dir_;
};

TEST_F(Files, ReadsJson) {
  std::ofstream(path("ok.json")) << R"({"a": [1, 2]})";
  std::string why;
  const auto read = read_json_file(path("ok.json"), why);
  ASSERT_TRUE(read.has_value()) << why;
  EXPECT_EQ((*read)["a"][1], 2);
}

TEST_F(Files, RefusesWhatIsNotARegularSmallShallowJsonFile) {
  std::string why;
  EXPECT_FALSE(read_json_file(dir_.string(), why));
  EXPECT_NE(why.find("is not a regular file"), std::string::npos) << why;

  ASSERT_EQ(mkfifo(path("fifo").c_str(), 0600), 0);  // must not block
  EXPECT_FALSE(read_json_file(path("fifo"), why));
  EXPECT_NE(why.find("is not a regular file"), std::string::npos) << why;

  EXPECT_FALSE(read_json_file("/proc/self/mem", why));

  std::ofstream(path("deep.json")) << std::string(100000, '[');
  EXPECT_FALSE(read_json_file(path("deep.json"), why));
  EXPECT_NE(why.find("nests deeper than 32 levels"), std::string::npos) << why;

  std::ofstream(path("broken.json")) << R"({"a": )";
  EXPECT_FALSE(read_json_file(path("broken.json"), why));
  EXPECT_NE(why.find("broken.json is not valid JSON"), std::string::npos) << why;

  fs::resize_file(path("broken.json"), (16u << 20) + 1);
  EXPECT_FALSE(read_json_file(path("broken.json"), why));
  EXPECT_NE(why.find("is larger than 16 MiB"), std::string::npos) << why;

  EXPECT_FALSE(read_json_file(path("missing.json"), why));
  EXPECT_NE(why.find("No such file or directory"), std::string::npos) << why;
}

TEST_F(Files, WritesWithTheModeAskedWhateverTheUmask) {
  const mode_t old = umask(0);
  std::string why;
  EXPECT_TRUE(write_file_atomically(path("sub/dir/cache.json"), "{}\n", 0600, why)) << why;
  EXPECT_TRUE(write_file_atomically(path("profile.json"), "{}\n", 0644, why)) << why;
  umask(old);
  EXPECT_EQ(fs::status(path("sub/dir/cache.json")).permissions() & fs::perms::all, fs::perms(0600));
  EXPECT_EQ(fs::status(path("profile.json")).permissions() & fs::perms::all, fs::perms(0644));
  EXPECT_EQ(fs::status(path("sub")).permissions() & fs::perms::all, fs::perms(0700));
  EXPECT_EQ(contents(path("sub/dir/cache.json")), "{}\n");
}

TEST_F(Files, NeverFollowsASymlinkAtTheTarget) {
  std::ofstream(path("victim")) << "untouched";
  fs::create_symlink(path("victim"), path("profile.json"));
  std::string why;
  ASSERT_TRUE(write_file_atomically(path("profile.json"), "new", 0644, why)) << why;
  EXPECT_EQ(contents(path("victim")), "untouched");
  EXPECT_FALSE(fs::is_symlink(path("profile.json")));
  EXPECT_EQ(contents(path("profile.json")), "new");
}

TEST_F(Files, LeavesNoTemporaryBehind) {
  std::string why;
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(write_file_atomically(path("f.json"), std::to_string(i), 0644, why)) << why;
  int entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir_)) ++entries;
  EXPECT_EQ(entries, 1);
  EXPECT_EQ(contents(path("f.json")), "19");
}

// Replacing an existing file (exchanged with the new one where the file
// system can, files.cpp) leaves readers the old file or the new one, whole,
// never no file.
TEST_F(Files, ReadersSeeTheOldFileOrTheNewNeverNone) {
  std::string why;
  const std::string old_text(300, 'o'), new_text(300, 'n');
  ASSERT_TRUE(write_file_atomically(path("cache.json"), old_text, 0600, why)) << why;
  std::atomic<bool> writing{true};
  std::thread writer([&] {
    for (int i = 0; i < 300; ++i)
      if (!write_file_atomically(path("cache.json"), i % 2 == 0 ? new_text : old_text, 0600, why)) break;
    writing = false;
  });
  int reads = 0, missing = 0, torn = 0;
  while (writing || reads == 0) {
    std::ifstream in(path("cache.json"));
    if (!in) {
      ++missing;
      continue;
    }
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (text != old_text && text != new_text) ++torn;
    ++reads;
  }
  writer.join();
  EXPECT_TRUE(why.empty()) << why;
  EXPECT_EQ(missing, 0) << "of " << reads << " reads";
  EXPECT_EQ(torn, 0) << "of " << reads << " reads";
  int entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir_)) ++entries;
  EXPECT_EQ(entries, 1);
}

TEST_F(Files, SaysWhyAWriteFailed) {
  if (geteuid() == 0) GTEST_SKIP() << "root writes into a read-only directory";
  fs::permissions(dir_, fs::perms::owner_read | fs::perms::owner_exec);
  std::string why;
  EXPECT_FALSE(write_file_atomically(path("f.json"), "x", 0644, why));
  EXPECT_NE(why.find("Permission denied"), std::string::npos) << why;
}

TEST_F(Files, SaysWhyAWriteFailedEvenAsRoot) {
  std::ofstream(path("plain")) << "a file, not a directory";
  std::string why;
  EXPECT_FALSE(write_file_atomically(path("plain/f.json"), "x", 0644, why));
  EXPECT_NE(why.find("plain"), std::string::npos) << why;
  EXPECT_EQ(contents(path("plain")), "a file, not a directory");
}

TEST_F(Files, TellsAtStartWhetherAFileCouldBeWritten) {
  std::string why;
  EXPECT_TRUE(selfsched::omp::can_write_file(path("not/yet/made/profile.json"), why)) << why;
  std::ofstream(path("plain")) << "x";
  EXPECT_FALSE(selfsched::omp::can_write_file(path("plain/profile.json"), why));
  EXPECT_NE(why.find("plain is not a directory"), std::string::npos) << why;
  EXPECT_FALSE(fs::exists(path("not")));  // a check writes nothing
}

// ---------------------------------------------------------------- streams
// Paths that are not files to replace: a FIFO, a device, a directory, a
// path in /proc, the process's own descriptors. The writer always returns,
// says why when it wrote nothing, and never replaces what is there.

using namespace std::chrono_literals;

// write_file_atomically(path, content) on another thread; false if it did not
// return within `limit` (then `release` is called to let it end).
template <typename Release>
bool returns_within(std::chrono::seconds limit, const std::string& path, const std::string& content, bool& wrote,
                    std::string& why, Release release, std::chrono::milliseconds patience = 10s) {
  auto writing = std::async(std::launch::async, [&] { return write_file_atomically(path, content, 0644, why, patience); });
  const bool returned = writing.wait_for(limit) == std::future_status::ready;
  if (!returned) release();
  wrote = writing.get();
  return returned;
}

// Everything a reader of `fd` gets until the writer closes (or 20 s pass),
// read in small steps so that the writer finds the pipe full.
std::string read_all(int fd) {
  std::string got;
  char buffer[4096];
  for (const auto end = std::chrono::steady_clock::now() + 20s; std::chrono::steady_clock::now() < end;) {
    pollfd ready{fd, POLLIN, 0};
    if (poll(&ready, 1, 100) <= 0) continue;
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n > 0) got.append(buffer, static_cast<std::size_t>(n));
    else if (n == 0 || errno != EAGAIN) break;  // the writer closed
    std::this_thread::sleep_for(50us);
  }
  return got;
}

bool is_fifo(const std::string& file) {
  struct stat st {};
  return lstat(file.c_str(), &st) == 0 && S_ISFIFO(st.st_mode);
}

TEST_F(Files, AFifoWithoutAReaderIsNamedAtOnceAndKept) {
  ASSERT_EQ(mkfifo(path("fifo").c_str(), 0600), 0);
  std::string why;
  bool wrote = true;
  const bool returned = returns_within(10s, path("fifo"), "{}\n", wrote, why, [&] {
    // It waits for a reader: be one, so that it ends.
    const int fd = open(path("fifo").c_str(), O_RDONLY | O_NONBLOCK);
    std::this_thread::sleep_for(1s);
    if (fd >= 0) close(fd);
  });
  EXPECT_TRUE(returned) << "the writer waited for a reader of the FIFO";
  EXPECT_FALSE(wrote);
  EXPECT_NE(why.find(path("fifo") + " is a FIFO that no process has open for reading"), std::string::npos) << why;
  EXPECT_TRUE(is_fifo(path("fifo"))) << "the FIFO was replaced";
  int entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir_)) ++entries;
  EXPECT_EQ(entries, 1) << "a temporary was left beside the FIFO";
}

TEST_F(Files, AFifoWithAReaderGetsAllOfItInPlace) {
  ASSERT_EQ(mkfifo(path("fifo").c_str(), 0600), 0);
  const int reader = open(path("fifo").c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  std::string content;
  for (int i = 0; content.size() < (1u << 20); ++i) content += std::to_string(i) + "\n";  // 16 pipes full
  auto got = std::async(std::launch::async, [&] { return read_all(reader); });
  std::string why;
  bool wrote = false;
  EXPECT_TRUE(returns_within(30s, path("fifo"), content, wrote, why, [] {}));
  EXPECT_TRUE(wrote) << why;
  EXPECT_TRUE(got.get() == content) << "the reader did not get what was written";
  close(reader);
  EXPECT_TRUE(is_fifo(path("fifo")));
}

TEST_F(Files, AReaderThatTakesNothingIsGivenUpOn) {
  ASSERT_EQ(mkfifo(path("fifo").c_str(), 0600), 0);
  const int reader = open(path("fifo").c_str(), O_RDONLY | O_NONBLOCK);  // opened, never read
  ASSERT_GE(reader, 0);
  std::string why;
  bool wrote = true;
  const auto start = std::chrono::steady_clock::now();
  const bool returned = returns_within(
      30s, path("fifo"), std::string(1u << 20, 'x'), wrote, why, [&] { read_all(reader); }, 200ms);
  EXPECT_TRUE(returned);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);
  EXPECT_FALSE(wrote);
  EXPECT_NE(why.find(path("fifo") + ": its reader took nothing for 200 ms"), std::string::npos) << why;
  close(reader);
}

TEST_F(Files, AReaderThatLeavesFailsTheWriteWithoutSigpipe) {
  int ends[2];
  ASSERT_EQ(pipe(ends), 0);
  const std::string name = "/proc/self/fd/" + std::to_string(ends[1]);
  auto reader = std::async(std::launch::async, [&] {  // takes a little, then goes
    pollfd ready{ends[0], POLLIN, 0};
    char some[16];
    if (poll(&ready, 1, 10'000) > 0) [[maybe_unused]] const ssize_t n = read(ends[0], some, sizeof some);
    close(ends[0]);
  });
  std::string why;
  // SIGPIPE's default would end this test program here.
  EXPECT_FALSE(write_file_atomically(name, std::string(1u << 20, 'x'), 0644, why));
  reader.get();
  EXPECT_NE(why.find("cannot write " + name + ": Broken pipe"), std::string::npos) << why;
  close(ends[1]);
  sigset_t pending;
  ASSERT_EQ(sigpending(&pending), 0);
  EXPECT_EQ(sigismember(&pending, SIGPIPE), 0) << "a SIGPIPE was left pending";
}

// /dev/stdout, /dev/fd/N, /proc/self/fd/N, or a symlink to one: the stream
// the process has open, as `SELFSCHED_PROFILE=/dev/stdout prog | cat` means.
TEST_F(Files, TheProcessDescriptorsAreWrittenInPlace) {
  int ends[2];
  ASSERT_EQ(pipe(ends), 0);
  const std::string fd = std::to_string(ends[1]);
  fs::create_symlink("/proc/self/fd/" + fd, path("stdout"));  // as /dev/stdout is
  auto got = std::async(std::launch::async, [&] { return read_all(ends[0]); });
  std::string why;
  EXPECT_TRUE(write_file_atomically("/proc/self/fd/" + fd, "a\n", 0644, why)) << why;
  EXPECT_TRUE(write_file_atomically("/dev/fd/" + fd, "b\n", 0644, why)) << why;
  EXPECT_TRUE(write_file_atomically(path("stdout"), "c\n", 0644, why)) << why;
  close(ends[1]);
  EXPECT_EQ(got.get(), "a\nb\nc\n");
  close(ends[0]);
  EXPECT_TRUE(fs::is_symlink(path("stdout"))) << "the symlink to the stream was replaced";

  // `prog > out.txt`: the program's output file, appended to, not replaced.
  const int out = open(path("out.txt").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(out, 0);
  ASSERT_EQ(write(out, "program\n", 8), 8);
  EXPECT_TRUE(write_file_atomically("/proc/self/fd/" + std::to_string(out), "profile\n", 0644, why)) << why;
  close(out);
  EXPECT_EQ(contents(path("out.txt")), "program\nprofile\n");
}

TEST_F(Files, ADirectoryIsNamedAndKept) {
  fs::create_directories(path("profile.json"));
  std::string why;
  EXPECT_FALSE(write_file_atomically(path("profile.json"), "{}\n", 0644, why));
  EXPECT_EQ(why, path("profile.json") + " is a directory");
  EXPECT_TRUE(fs::is_directory(path("profile.json")));
  EXPECT_FALSE(selfsched::omp::can_write_file(path("profile.json"), why));
  EXPECT_EQ(why, path("profile.json") + " is a directory");
  int entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir_)) ++entries;
  EXPECT_EQ(entries, 1) << "a temporary was left beside the directory";
}

TEST_F(Files, PathsInProcAreNamedWithWhy) {
  for (const std::string proc : {"/proc/self/status", "/proc/selfsched-none/profile.json", "/proc/self"}) {
    std::string why;
    bool wrote = true;
    EXPECT_TRUE(returns_within(10s, proc, "{}\n", wrote, why, [] {})) << proc;
    EXPECT_FALSE(wrote) << proc;
    EXPECT_NE(why.find(proc), std::string::npos) << proc << ": " << why;
  }
}

// /dev/full: every write fails with ENOSPC, as on a full disk. A node of our
// own (mknod) where allowed: /dev/full itself is at stake only if the writer
// ever replaced a device again, which root could.
TEST_F(Files, AFullDeviceSaysNoSpace) {
  std::string full = path("full");
  if (mknod(full.c_str(), S_IFCHR | 0600, makedev(1, 7)) != 0) {
    if (geteuid() == 0) GTEST_SKIP() << "no mknod here, and as root /dev/full itself is not risked";
    full = "/dev/full";
  }
  std::string why;
  bool wrote = true;
  EXPECT_TRUE(returns_within(10s, full, "{}\n", wrote, why, [] {}));
  EXPECT_FALSE(wrote);
  EXPECT_NE(why.find("cannot write " + full + ": No space left on device"), std::string::npos) << why;
  struct stat st {};
  ASSERT_EQ(lstat(full.c_str(), &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode)) << full << " was replaced";
}

TEST(NotAFileToReplace, SaysWhatIsThere) {
  using selfsched::omp::not_a_file_to_replace;
  EXPECT_EQ(not_a_file_to_replace("/proc"), "a directory");
  EXPECT_EQ(not_a_file_to_replace("/dev/null"), "a character device");
  EXPECT_EQ(not_a_file_to_replace("/dev/stdout"), "a descriptor");
  EXPECT_EQ(not_a_file_to_replace("/proc/self/status"), "");
  EXPECT_EQ(not_a_file_to_replace("/nonexistent/selfsched"), "");
}

// Sets an environment variable for one test, as it was after.
class scoped_env {
 public:
  scoped_env(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) had_ = true, old_ = old;
    if (value != nullptr) setenv(name, value, 1);
    else unsetenv(name);
  }
  ~scoped_env() {
    if (had_) setenv(name_, old_.c_str(), 1);
    else unsetenv(name_);
  }

 private:
  const char* name_;
  bool had_ = false;
  std::string old_;
};

TEST_F(Files, CachesGoUnderAnExistingHomeOnly) {
  using selfsched::omp::cache_file_path;
  scoped_env no_xdg("XDG_CACHE_HOME", nullptr);
  {
    scoped_env home("HOME", dir_.c_str());
    EXPECT_EQ(cache_file_path("", "auto.json"), path(".cache/selfsched/auto.json"));
    EXPECT_EQ(cache_file_path("~/mine.json", "auto.json"), path("mine.json"));
    EXPECT_EQ(cache_file_path("/elsewhere/a.json", "auto.json"), "/elsewhere/a.json");
    EXPECT_EQ(cache_file_path("off", "auto.json"), "");
  }
  {
    // A system user's HOME=/nonexistent: the writer would otherwise create it.
    scoped_env home("HOME", path("nonexistent").c_str());
    EXPECT_EQ(cache_file_path("", "auto.json"), "");
    EXPECT_EQ(cache_file_path("~/mine.json", "auto.json"), "");
    scoped_env xdg("XDG_CACHE_HOME", path("xdg").c_str());
    EXPECT_EQ(cache_file_path("", "sia.json"), path("xdg/selfsched/sia.json"));
  }
  {
    scoped_env home("HOME", nullptr);
    EXPECT_EQ(cache_file_path("~/mine.json", "auto.json"), "");  // not a directory named ~ here
  }
}

}  // namespace
