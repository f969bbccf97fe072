// The program's files in cluster mode: written once, read alike everywhere.
//
// Every rank runs the program's serial code, so every rank's program opens
// the same output files. If all wrote them, ranks on one (shared) file
// system would clobber each other's bytes and an appended line would be
// there once per rank. So rank 0 alone writes the real files, and the other
// ranks' opens for writing (and removals, renames, truncations, new
// directories) go to private copies (private_view.hpp) that their programs
// then read back, stat and change exactly as rank 0's program does the real
// files: their serial code takes the same path. file_change.hpp says how
// the ranks agree on each change.
//
// The entry points are the C library's that programs and their runtimes
// call through the PLT (libgfortran, libstdc++'s fstream and filesystem,
// flang's runtime, fortified C: nm -D). Special files (/dev, /proc, /sys,
// pipes, sockets, devices) and descriptors are left alone. Outside cluster
// mode, on rank 0 for reads, and for this library's own work every entry
// point goes straight to the C library's.
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <optional>
#include <string>

#include "file_change.hpp"
#include "interposed.hpp"
#include "modules.hpp"
#include "private_view.hpp"
#include "stream_buffers.hpp"

// _FORTIFY_SOURCE's checked opens, declared by glibc only for fortified code.
extern "C" {
int __open_2(const char* path, int flags);
int __open64_2(const char* path, int flags);
int __openat_2(int dirfd, const char* path, int flags);
int __openat64_2(int dirfd, const char* path, int flags);
}

namespace selfsched::cluster {
namespace {

std::string private_root() {
  const private_view* v = the_private_view();
  return v != nullptr ? v->root() : std::string();
}

std::string seen_at(const std::string& absolute) {
  const private_view* v = the_private_view();
  return v != nullptr ? v->seen_at(absolute) : absolute;
}

// The absolute path when a change of `path` goes through carry_out; none
// when it goes straight to the C library: outside cluster mode, on one
// rank, for our own work, for a system path or an existing special file
// (and on a rank other than 0 without a private directory, which its
// agent always gives it).
std::optional<std::string> changeable(int dirfd, const char* path) {
  const cluster_process* p = cluster_process::get();
  if (p == nullptr || p->ranks() == 1 || doing_own_work() || path == nullptr || path[0] == '\0') return std::nullopt;
  if (p->rank() != 0 && the_private_view() == nullptr) return std::nullopt;
  own_work_scope scope;
  std::string absolute = absolute_path(dirfd, path, private_root());
  if (absolute.empty() || is_system_path(absolute)) return std::nullopt;
  struct stat st{};
  if (stat(seen_at(absolute).c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) return std::nullopt;
  return absolute;
}

// Where a read of `path` goes on this rank: its private copy when it
// changed that path, else `path` itself (and its directory descriptor).
class read_path {
 public:
  read_path(int dirfd, const char* path) : path_(path), dirfd_(dirfd) {
    const private_view* v = the_private_view();
    if (v == nullptr || v->empty() || doing_own_work() || path == nullptr || path[0] == '\0') return;
    own_work_scope scope;
    const std::string absolute = absolute_path(dirfd, path, v->root());
    if (absolute.empty() || is_system_path(absolute)) return;
    if (std::optional<std::string> mine = v->private_of(absolute)) {
      private_ = std::move(*mine);
      path_ = private_.c_str();
      dirfd_ = AT_FDCWD;
    }
  }
  const char* path() const { return path_; }
  int dirfd() const { return dirfd_; }

 private:
  std::string private_;
  const char* path_;
  int dirfd_;
};

std::string quoted(const std::string& path) { return "'" + path + "'"; }

outcome from_result(std::int64_t value) { return {value, value < 0 ? errno : 0}; }

// A change of one path on this rank's view.
class path_change : public file_change {
 protected:
  explicit path_change(std::string absolute) : absolute_(std::move(absolute)) {}
  private_view& view() const { return *the_private_view(); }
  // The private copy's path, its parents made (false: errno says why).
  bool private_ready() {
    own_work_scope scope;
    private_ = view().private_path(absolute_);
    return view().make_parents(absolute_);
  }
  void mark(private_view::kind k) { view().mark(absolute_, k); }
  std::string absolute_, private_;
};

// open, openat, creat, fopen, freopen for writing. Without truncation the
// real file is copied first: the program updates or appends to it.
class write_open : public path_change {
 public:
  std::string what() const override { return "opens " + quoted(absolute_) + " for writing"; }
  std::string prepare() override { return truncates_ ? std::string() : view().copy_in(absolute_, copied_); }
  void undo() override {
    if (copied_) view().undo_copy(absolute_);
  }
  outcome on_private() override {
    if (!private_ready()) return from_result(-1);
    const outcome o = open_at(private_.c_str());
    if (o.value >= 0) mark(private_view::kind::file);
    return o;
  }
  outcome on_real() override {
    {
      own_work_scope scope;  // the real file, not this rank's view of it
      struct stat st{};
      existed_ = fstatat(dirfd_, real_path_, &st, 0) == 0;
    }
    return open_at(real_path_);
  }
  std::string fresh_path() const override { return truncates_ || !existed_ ? absolute_ : std::string(); }

 protected:
  write_open(std::string absolute, bool truncates, int dirfd, const char* path)
      : path_change(std::move(absolute)), truncates_(truncates), dirfd_(dirfd), real_path_(path) {}
  // Opens `path` (relative to dirfd_ when not the private copy's).
  virtual outcome open_at(const char* path) = 0;
  bool truncates_, copied_ = false, existed_ = true;
  int dirfd_;
  const char* real_path_;
};

class descriptor_open final : public write_open {
 public:
  descriptor_open(std::string absolute, int dirfd, const char* path, int flags, mode_t mode)
      : write_open(std::move(absolute), (flags & O_TRUNC) != 0, dirfd, path), flags_(flags), mode_(mode) {}
  bool gives_descriptor() const override { return true; }

 private:
  outcome open_at(const char* path) override {
    SELFSCHED_NEXT(openat);
    return from_result(real(path == real_path_ ? dirfd_ : AT_FDCWD, path, flags_, mode_));
  }
  int flags_;
  mode_t mode_;
};

class stream_open final : public write_open {
 public:
  stream_open(std::string absolute, const char* path, const char* mode, FILE* reopened)
      : write_open(std::move(absolute), mode[0] == 'w', AT_FDCWD, path), mode_(mode), reopened_(reopened) {}
  FILE* stream() const { return stream_; }

 private:
  outcome open_at(const char* path) override {
    static const auto real_fopen = next_definition<decltype(&fopen)>("fopen");
    static const auto real_freopen = next_definition<decltype(&freopen)>("freopen");
    stream_ = reopened_ != nullptr ? real_freopen(path, mode_, reopened_) : real_fopen(path, mode_);
    return from_result(stream_ != nullptr ? fileno(stream_) : -1);
  }
  const char* mode_;
  FILE* reopened_;
  FILE* stream_ = nullptr;
};

// unlink, unlinkat, remove, rmdir.
class removal final : public path_change {
 public:
  enum class of { file, directory, either };
  removal(std::string absolute, int dirfd, const char* path, of what)
      : path_change(std::move(absolute)), dirfd_(dirfd), path_(path), of_(what) {}
  std::string what() const override { return "removes " + quoted(absolute_); }
  outcome on_real() override { return remove_at(dirfd_, path_); }
  outcome on_private() override {
    {
      own_work_scope scope;
      private_ = view().private_path(absolute_);
    }
    remove_at(AT_FDCWD, private_.c_str());  // rank 0 removed the real one: nothing to remove is fine
    mark(private_view::kind::gone);
    return {};
  }

 private:
  outcome remove_at(int dirfd, const char* path) const {
    SELFSCHED_NEXT(unlinkat);
    static const auto real_remove = next_definition<decltype(&remove)>("remove");
    if (of_ == of::either) return from_result(dirfd == AT_FDCWD ? real_remove(path) : -1);
    return from_result(real(dirfd, path, of_ == of::directory ? AT_REMOVEDIR : 0));
  }
  int dirfd_;
  const char* path_;
  of of_;
};

// rename, renameat, renameat2: a file's private copy moves; a directory
// rank 0 renamed is the real one again on every rank (what this rank wrote
// under it, rank 0 wrote too), unless it moves into a directory this rank
// made: then its private copy moves.
class rename_change final : public path_change {
 public:
  rename_change(std::string from, std::string to, int from_dir, const char* from_path, int to_dir, const char* to_path,
                unsigned flags, bool directory)
      : path_change(std::move(to)), from_(std::move(from)), from_dir_(from_dir), to_dir_(to_dir),
        from_path_(from_path), to_path_(to_path), flags_(flags), directory_(directory) {}
  std::string what() const override { return "renames " + quoted(from_) + " to " + quoted(absolute_); }
  std::string prepare() override { return directory_ ? std::string() : view().copy_in(from_, copied_); }
  void undo() override {
    if (copied_) view().undo_copy(from_);
  }
  outcome on_real() override { return rename_at(from_dir_, from_path_, to_dir_, to_path_); }
  outcome on_private() override {
    if (directory_ && !moves_into_private_directory()) return forget_both();
    if (!private_ready()) return from_result(-1);
    std::string from_private;
    {
      own_work_scope scope;
      from_private = view().private_path(from_);
    }
    const outcome o = rename_at(AT_FDCWD, from_private.c_str(), AT_FDCWD, private_.c_str());
    if (o.value < 0) return o;
    mark(directory_ ? private_view::kind::directory : private_view::kind::file);
    view().mark(from_, private_view::kind::gone);
    return o;
  }

 private:
  outcome rename_at(int from_dir, const char* from, int to_dir, const char* to) const {
    SELFSCHED_NEXT(renameat2);
    return from_result(real(from_dir, from, to_dir, to, flags_));
  }
  bool moves_into_private_directory() const {
    own_work_scope scope;
    return view().private_of(absolute_.substr(0, absolute_.rfind('/'))).has_value();
  }
  outcome forget_both() {
    view().forget(from_);
    view().forget(absolute_);
    return {};
  }
  std::string from_;
  int from_dir_, to_dir_;
  const char* from_path_;
  const char* to_path_;
  unsigned flags_;
  bool directory_, copied_ = false;
};

class truncation final : public path_change {
 public:
  truncation(std::string absolute, const char* path, off_t length)
      : path_change(std::move(absolute)), path_(path), length_(length) {}
  std::string what() const override { return "truncates " + quoted(absolute_); }
  std::string prepare() override { return view().copy_in(absolute_, copied_); }
  void undo() override {
    if (copied_) view().undo_copy(absolute_);
  }
  outcome on_real() override { return truncate_at(path_); }
  outcome on_private() override {
    if (!private_ready()) return from_result(-1);
    const outcome o = truncate_at(private_.c_str());
    if (o.value >= 0) mark(private_view::kind::file);
    return o;
  }

 private:
  outcome truncate_at(const char* path) const {
    SELFSCHED_NEXT(truncate);
    return from_result(real(path, length_));
  }
  const char* path_;
  off_t length_;
  bool copied_ = false;
};

class new_directory final : public path_change {
 public:
  new_directory(std::string absolute, int dirfd, const char* path, mode_t mode)
      : path_change(std::move(absolute)), dirfd_(dirfd), path_(path), mode_(mode) {}
  std::string what() const override { return "makes the directory " + quoted(absolute_); }
  outcome on_real() override { return make_at(dirfd_, path_); }
  outcome on_private() override {
    if (!private_ready()) return from_result(-1);
    const outcome o = make_at(AT_FDCWD, private_.c_str());
    if (o.value >= 0) mark(private_view::kind::directory);
    return o;
  }

 private:
  outcome make_at(int dirfd, const char* path) const {
    SELFSCHED_NEXT(mkdirat);
    return from_result(real(dirfd, path, mode_));
  }
  int dirfd_;
  const char* path_;
  mode_t mode_;
};

bool opens_for_writing(int flags) {
  if ((flags & O_TMPFILE) == O_TMPFILE) return false;  // a file without a name: each rank's own
  return (flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC)) != 0;
}

bool writes_stream(const char* mode) { return mode[0] == 'w' || mode[0] == 'a' || std::strchr(mode, '+') != nullptr; }

template <typename Forward>
int open_file(int dirfd, const char* path, int flags, mode_t mode, Forward forward) {
  if (cluster_process::get() == nullptr) return forward(dirfd, path);
  if (!opens_for_writing(flags)) {
    const read_path seen(dirfd, path);
    return forward(seen.dirfd(), seen.path());
  }
  std::optional<std::string> absolute = changeable(dirfd, path);
  if (!absolute) return forward(dirfd, path);
  descriptor_open change(std::move(*absolute), dirfd, path, flags, mode);
  return static_cast<int>(carry_out(change).value);
}

template <typename Forward>
FILE* opened_stream(const char* path, const char* mode, FILE* reopened, Forward forward) {
  if (!writes_stream(mode)) {
    const read_path seen(AT_FDCWD, path);
    return forward(seen.path());
  }
  std::optional<std::string> absolute = changeable(AT_FDCWD, path);
  if (!absolute) return forward(path);
  stream_open change(std::move(*absolute), path, mode, reopened);
  return carry_out(change).value < 0 ? nullptr : change.stream();
}

// fopen, freopen: as above, then the stream's buffer as rank 0's
// (stream_buffers.hpp).
template <typename Forward>
FILE* open_stream(const char* path, const char* mode, FILE* reopened, Forward forward) {
  if (cluster_process::get() == nullptr || mode == nullptr || doing_own_work()) return forward(path);
  FILE* stream = opened_stream(path, mode, reopened, forward);
  if (reopened != nullptr) drop_stream_buffer(reopened);  // closed by now, flushed from it first
  if (path != nullptr) give_stream_buffer(stream, path);
  return stream;
}

template <typename Forward>
int remove_path(int dirfd, const char* path, removal::of what, Forward forward) {
  std::optional<std::string> absolute = changeable(dirfd, path);
  if (!absolute) return forward();
  removal change(std::move(*absolute), dirfd, path, what);
  return static_cast<int>(carry_out(change).value);
}

bool is_directory(const std::string& absolute) {
  own_work_scope scope;
  struct stat st{};
  return stat(seen_at(absolute).c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

template <typename Forward>
int rename_path(int from_dir, const char* from, int to_dir, const char* to, unsigned flags, Forward forward) {
  std::optional<std::string> from_absolute = changeable(from_dir, from);
  std::optional<std::string> to_absolute = from_absolute ? changeable(to_dir, to) : std::nullopt;
  if (!to_absolute) return forward();
  const bool directory = is_directory(*from_absolute);
  rename_change change(std::move(*from_absolute), std::move(*to_absolute), from_dir, from, to_dir, to, flags, directory);
  return static_cast<int>(carry_out(change).value);
}

template <typename Forward>
int truncate_path(const char* path, off_t length, Forward forward) {
  std::optional<std::string> absolute = changeable(AT_FDCWD, path);
  if (!absolute) return forward();
  truncation change(std::move(*absolute), path, length);
  return static_cast<int>(carry_out(change).value);
}

template <typename Forward>
int make_directory(int dirfd, const char* path, mode_t mode, Forward forward) {
  std::optional<std::string> absolute = changeable(dirfd, path);
  if (!absolute) return forward();
  new_directory change(std::move(*absolute), dirfd, path, mode);
  return static_cast<int>(carry_out(change).value);
}

// stat, access and their kin: `forward` with the path this rank sees.
template <typename Forward>
int look_up(int dirfd, const char* path, Forward forward) {
  if (the_private_view() == nullptr) return forward(dirfd, path);
  const read_path seen(dirfd, path);
  return forward(seen.dirfd(), seen.path());
}

bool takes_mode(int flags) { return (flags & O_CREAT) != 0 || (flags & O_TMPFILE) == O_TMPFILE; }

}  // namespace
}  // namespace selfsched::cluster

using namespace selfsched::cluster;

// open's mode argument, there only when the flags create a file.
#define SELFSCHED_MODE_ARGUMENT(flags)  \
  mode_t mode = 0;                      \
  if (takes_mode(flags)) {              \
    va_list rest;                       \
    va_start(rest, flags);              \
    mode = va_arg(rest, mode_t);        \
    va_end(rest);                       \
  }
#define SELFSCHED_EXPORT extern "C" __attribute__((visibility("default")))

namespace {
// A call from the runtime (libselfsched writing auto's cache or a profile)
// is its own business on each rank: straight to the C library, no meeting.
class runtime_caller {
 public:
  explicit runtime_caller(void* address) {
    if (cluster_process::get() != nullptr && caller_is_runtime(reinterpret_cast<std::uintptr_t>(address))) own_.emplace();
  }

 private:
  std::optional<own_work_scope> own_;
};
}  // namespace
#define SELFSCHED_FROM_RUNTIME_AS_IS runtime_caller from_runtime(__builtin_return_address(0))

SELFSCHED_EXPORT int open(const char* path, int flags, ...) {
  SELFSCHED_FROM_RUNTIME_AS_IS;
  SELFSCHED_MODE_ARGUMENT(flags);
  SELFSCHED_NEXT(open);
  return open_file(AT_FDCWD, path, flags, mode, [&](int, const char* p) { return real(p, flags, mode); });
}
SELFSCHED_EXPORT int open64(const char* path, int flags, ...) {
  SELFSCHED_FROM_RUNTIME_AS_IS;
  SELFSCHED_MODE_ARGUMENT(flags);
  SELFSCHED_NEXT(open64);
  return open_file(AT_FDCWD, path, flags, mode, [&](int, const char* p) { return real(p, flags, mode); });
}
SELFSCHED_EXPORT int openat(int dirfd, const char* path, int flags, ...) {
  SELFSCHED_FROM_RUNTIME_AS_IS;
  SELFSCHED_MODE_ARGUMENT(flags);
  SELFSCHED_NEXT(openat);
  return open_file(dirfd, path, flags, mode, [&](int d, const char* p) { return real(d, p, flags, mode); });
}
SELFSCHED_EXPORT int openat64(int dirfd, const char* path, int flags, ...) {
  SELFSCHED_FROM_RUNTIME_AS_IS;
  SELFSCHED_MODE_ARGUMENT(flags);
  SELFSCHED_NEXT(openat64);
  return open_file(dirfd, path, flags, mode, [&](int d, const char* p) { return real(d, p, flags, mode); });
}
// _FORTIFY_SOURCE's checked forms (no mode: they refuse O_CREAT without one).
SELFSCHED_EXPORT int __open_2(const char* path, int flags) {
  SELFSCHED_FROM_RUNTIME_AS_IS;
  SELFSCHED_NEXT(__open_2);
  return open_file(AT_FDCWD, path, flags, 0, [&](int, const char* p) { return real(p, flags); });
}
SELFSCHED_EXPORT int __open64_2(const char* path, int flags) {
  SELFSCHED_FROM_RUNTIME_AS_IS;
  SELFSCHED_NEXT(__open64_2);
  return open_file(AT_FDCWD, path, flags, 0, [&](int, const char* p) { return real(p, flags); });
}
SELFSCHED_EXPORT int __openat_2(int dirfd, const char* path, int flags) {
  SELFSCHED_FROM_RUNTIME_AS_IS;
  SELFSCHED_NEXT(__openat_2);
  return open_file(dirfd, path, flags, 0, [&](int d, const char* p) { return real(d, p, flags); });
}
SELFSCHED_EXPORT int __openat64_2(int dirfd, const char* path, int flags) {
  SELFSCHED_FROM_RUNTIME_AS_IS;
  SELFSCHED_NEXT(__openat64_2);
  return open_file(dirfd, path, flags, 0, [&](int d, const char* p) { return real(d, p, flags); });
}
SELFSCHED_EXPORT int creat(const char* path, mode_t mode) {
  SELFSCHED_FROM_RUNTIME_AS_IS;
  SELFSCHED_NEXT(creat);
  return open_file(AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, mode, [&](int, const char* p) { return real(p, mode); });
}
SELFSCHED_EXPORT int creat64(const char* path, mode_t mode) {
  SELFSCHED_FROM_RUNTIME_AS_IS;
  SELFSCHED_NEXT(creat64);
  return open_file(AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, mode, [&](int, const char* p) { return real(p, mode); });
}

SELFSCHED_EXPORT FILE* fopen(const char* path, const char* mode) {
  SELFSCHED_FROM_RUNTIME_AS_IS;
  SELFSCHED_NEXT(fopen);
  return open_stream(path, mode, nullptr, [&](const char* p) { return real(p, mode); });
}
SELFSCHED_EXPORT FILE* fopen64(const char* path, const char* mode) {
  SELFSCHED_FROM_RUNTIME_AS_IS;
  SELFSCHED_NEXT(fopen64);
  return open_stream(path, mode, nullptr, [&](const char* p) { return real(p, mode); });
}
SELFSCHED_EXPORT FILE* freopen(const char* path, const char* mode, FILE* stream) {
  SELFSCHED_FROM_RUNTIME_AS_IS;
  SELFSCHED_NEXT(freopen);
  return open_stream(path, mode, stream, [&](const char* p) { return real(p, mode, stream); });
}
SELFSCHED_EXPORT FILE* freopen64(const char* path, const char* mode, FILE* stream) {
  SELFSCHED_FROM_RUNTIME_AS_IS;
  SELFSCHED_NEXT(freopen64);
  return open_stream(path, mode, stream, [&](const char* p) { return real(p, mode, stream); });
}

SELFSCHED_EXPORT int unlink(const char* path) noexcept {
  SELFSCHED_FROM_RUNTIME_AS_IS;
  SELFSCHED_NEXT(unlink);
  return remove_path(AT_FDCWD, path, removal::of::file, [&] { return real(path); });
}
SELFSCHED_EXPORT int unlinkat(int dirfd, const char* path, int flags) noexcept {
  SELFSCHED_FROM_RUNTIME_AS_IS;
  SELFSCHED_NEXT(unlinkat);
  const auto what = (flags & AT_REMOVEDIR) != 0 ? removal::of::directory : removal::of::file;
  return remove_path(dirfd, path, what, [&] { return real(dirfd, path, flags); });
}
SELFSCHED_EXPORT int rmdir(const char* path) noexcept {
  SELFSCHED_FROM_RUNTIME_AS_IS;
  SELFSCHED_NEXT(rmdir);
  return remove_path(AT_FDCWD, path, removal::of::directory, [&] { return real(path); });
}
SELFSCHED_EXPORT int remove(const char* path) noexcept {
  SELFSCHED_FROM_RUNTIME_AS_IS;
  SELFSCHED_NEXT(remove);
  return remove_path(AT_FDCWD, path, removal::of::either, [&] { return real(path); });
}

SELFSCHED_EXPORT int rename(const char* from, const char* to) noexcept {
  SELFSCHED_FROM_RUNTIME_AS_IS;
  SELFSCHED_NEXT(rename);
  return rename_path(AT_FDCWD, from, AT_FDCWD, to, 0, [&] { return real(from, to); });
}
SELFSCHED_EXPORT int renameat(int from_dir, const char* from, int to_dir, const char* to) noexcept {
  SELFSCHED_FROM_RUNTIME_AS_IS;
  SELFSCHED_NEXT(renameat);
  return rename_path(from_dir, from, to_dir, to, 0, [&] { return real(from_dir, from, to_dir, to); });
}
SELFSCHED_EXPORT int renameat2(int from_dir, const char* from, int to_dir, const char* to, unsigned flags) noexcept {
  SELFSCHED_FROM_RUNTIME_AS_IS;
  SELFSCHED_NEXT(renameat2);
  return rename_path(from_dir, from, to_dir, to, flags, [&] { return real(from_dir, from, to_dir, to, flags); });
}

SELFSCHED_EXPORT int truncate(const char* path, off_t length) noexcept {
  SELFSCHED_FROM_RUNTIME_AS_IS;
  SELFSCHED_NEXT(truncate);
  return truncate_path(path, length, [&] { return real(path, length); });
}
SELFSCHED_EXPORT int truncate64(const char* path, off64_t length) noexcept {
  SELFSCHED_FROM_RUNTIME_AS_IS;
  SELFSCHED_NEXT(truncate64);
  return truncate_path(path, length, [&] { return real(path, length); });
}

SELFSCHED_EXPORT int mkdir(const char* path, mode_t mode) noexcept {
  SELFSCHED_FROM_RUNTIME_AS_IS;
  SELFSCHED_NEXT(mkdir);
  return make_directory(AT_FDCWD, path, mode, [&] { return real(path, mode); });
}
SELFSCHED_EXPORT int mkdirat(int dirfd, const char* path, mode_t mode) noexcept {
  SELFSCHED_FROM_RUNTIME_AS_IS;
  SELFSCHED_NEXT(mkdirat);
  return make_directory(dirfd, path, mode, [&] { return real(dirfd, path, mode); });
}

SELFSCHED_EXPORT int stat(const char* path, struct stat* out) noexcept {
  SELFSCHED_FROM_RUNTIME_AS_IS;
  SELFSCHED_NEXT(stat);
  return look_up(AT_FDCWD, path, [&](int, const char* p) { return real(p, out); });
}
SELFSCHED_EXPORT int stat64(const char* path, struct stat64* out) noexcept {
  SELFSCHED_FROM_RUNTIME_AS_IS;
  SELFSCHED_NEXT(stat64);
  return look_up(AT_FDCWD, path, [&](int, const char* p) { return real(p, out); });
}
SELFSCHED_EXPORT int lstat(const char* path, struct stat* out) noexcept {
  SELFSCHED_FROM_RUNTIME_AS_IS;
  SELFSCHED_NEXT(lstat);
  return look_up(AT_FDCWD, path, [&](int, const char* p) { return real(p, out); });
}
SELFSCHED_EXPORT int lstat64(const char* path, struct stat64* out) noexcept {
  SELFSCHED_FROM_RUNTIME_AS_IS;
  SELFSCHED_NEXT(lstat64);
  return look_up(AT_FDCWD, path, [&](int, const char* p) { return real(p, out); });
}
SELFSCHED_EXPORT int fstatat(int dirfd, const char* path, struct stat* out, int flags) noexcept {
  SELFSCHED_FROM_RUNTIME_AS_IS;
  SELFSCHED_NEXT(fstatat);
  return look_up(dirfd, path, [&](int d, const char* p) { return real(d, p, out, flags); });
}
SELFSCHED_EXPORT int fstatat64(int dirfd, const char* path, struct stat64* out, int flags) noexcept {
  SELFSCHED_FROM_RUNTIME_AS_IS;
  SELFSCHED_NEXT(fstatat64);
  return look_up(dirfd, path, [&](int d, const char* p) { return real(d, p, out, flags); });
}
SELFSCHED_EXPORT int statx(int dirfd, const char* path, int flags, unsigned mask, struct statx* out) noexcept {
  SELFSCHED_FROM_RUNTIME_AS_IS;
  SELFSCHED_NEXT(statx);
  return look_up(dirfd, path, [&](int d, const char* p) { return real(d, p, flags, mask, out); });
}
SELFSCHED_EXPORT int access(const char* path, int how) noexcept {
  SELFSCHED_FROM_RUNTIME_AS_IS;
  SELFSCHED_NEXT(access);
  return look_up(AT_FDCWD, path, [&](int, const char* p) { return real(p, how); });
}
SELFSCHED_EXPORT int faccessat(int dirfd, const char* path, int how, int flags) noexcept {
  SELFSCHED_FROM_RUNTIME_AS_IS;
  SELFSCHED_NEXT(faccessat);
  return look_up(dirfd, path, [&](int d, const char* p) { return real(d, p, how, flags); });
}
