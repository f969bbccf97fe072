// The one reader and the one writer of selfsched's files
// (selfsched/machine/files.hpp): bounded reads that never block or throw, and
// writes that never follow a symlink and never leave half a file or a
// temporary behind.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

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
