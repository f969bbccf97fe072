#include "selfsched/machine/files.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

namespace selfsched::omp {

namespace {

std::string error_text(const std::string& what, const std::string& path) {
  return what + " " + path + ": " + std::strerror(errno);
}

// mkdir -p, each new level 0700; existing levels are left as they are.
bool make_parents(const std::string& path, std::string& why) {
  for (std::size_t slash = path.find('/', 1); slash != std::string::npos; slash = path.find('/', slash + 1)) {
    const std::string dir = path.substr(0, slash);
    if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
      return why = error_text("cannot create " + dir + " for", path), false;
  }
  return true;
}

// Puts the new file `temporary` at `path`, atomically for readers: they see
// the old file or the new one, never neither. An existing file is
// exchanged with the new one (renameat2's RENAME_EXCHANGE), and the
// temporary name, now the old file, removed: a plain rename over an
// existing file makes ext4 (auto_da_alloc, on by default) start writing
// the new file's data out before the rename, 0.3 ms of every exit that
// rewrites auto's cache on this VM's ext4 against 0.05 ms
// (docs/results/overhead.md, "Start-up"). Where the file system cannot
// exchange (EINVAL: NFS and others), or nothing is at `path`, a rename.
bool replace_with(const char* temporary, const std::string& path) {
  if (renameat2(AT_FDCWD, temporary, AT_FDCWD, path.c_str(), RENAME_EXCHANGE) == 0) {
    unlink(temporary);
    return true;
  }
  return rename(temporary, path.c_str()) == 0;
}

bool all_digits(std::string_view s) { return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos; }

// The kernel's names for a descriptor: /dev/fd/N, /proc/self/fd/N,
// /proc/thread-self/fd/N (this process's: N), /proc/PID/fd/N (this
// process's when PID is ours). -1 for another name; -2 for another
// process's descriptor.
int descriptor_of_name(std::string_view p) {
  const auto number = [](std::string_view digits) {
    int n = 0;
    for (const char c : digits) {
      if (n > 100'000'000) return -2;  // no such descriptor; opened by name, it fails with why
      n = n * 10 + (c - '0');
    }
    return n;
  };
  if (p.starts_with("/dev/fd/")) return all_digits(p.substr(8)) ? number(p.substr(8)) : -1;
  if (!p.starts_with("/proc/")) return -1;
  p.remove_prefix(6);
  const std::size_t slash = p.find('/');
  if (slash == std::string_view::npos) return -1;
  const std::string_view who = p.substr(0, slash);
  p.remove_prefix(slash + 1);
  if (!p.starts_with("fd/") || !all_digits(p.substr(3))) return -1;
  if (who == "self" || who == "thread-self" || (all_digits(who) && who == std::to_string(getpid())))
    return number(p.substr(3));
  return all_digits(who) ? -2 : -1;
}

// Does `path` name, itself or through symlinks, a descriptor (/dev/stdout,
// /dev/stderr, /dev/fd/N, /proc/self/fd/N)? Such a path stands for a
// stream: written where it leads, never replaced (renamed over, /dev/stdout
// itself would become a regular file). The descriptor's number when it is
// this process's, -2 for another process's, -1 for any other path.
int descriptor_named(std::string path) {
  for (int hop = 0; hop < 16; ++hop) {  // a loop of links ends here
    if (const int fd = descriptor_of_name(path); fd != -1) return fd;
    char target[PATH_MAX];
    const ssize_t n = readlink(path.c_str(), target, sizeof target);
    if (n <= 0 || static_cast<std::size_t>(n) == sizeof target) return -1;  // not a link
    std::string next(target, static_cast<std::size_t>(n));
    if (next.front() != '/') {
      const std::size_t slash = path.find_last_of('/');
      next.insert(0, slash == std::string::npos ? std::string() : path.substr(0, slash + 1));
    }
    path = std::move(next);
  }
  return -1;
}

// What is at `path` that is not a file to replace: "a directory", "a FIFO",
// ...; nullptr for a regular file, a symlink (replaced, never followed) or
// nothing.
const char* kind_of(mode_t mode) {
  if (S_ISREG(mode) || S_ISLNK(mode)) return nullptr;
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "a special file";
}

// SIGPIPE held back from the program while a stream is written: a reader
// that went away makes the write fail (EPIPE), never ends the program. A
// SIGPIPE that was pending before stays pending; ours is taken back.
class pipe_signal_held {
 public:
  pipe_signal_held() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_, &before_);
    sigset_t pending;
    was_pending_ = sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE) == 1;
  }
  ~pipe_signal_held() {
    const int saved = errno;
    sigset_t pending;
    if (!was_pending_ && sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE) == 1) {
      const timespec now{};
      sigtimedwait(&pipe_, nullptr, &now);
    }
    pthread_sigmask(SIG_SETMASK, &before_, nullptr);
    errno = saved;
  }
  pipe_signal_held(const pipe_signal_held&) = delete;
  pipe_signal_held& operator=(const pipe_signal_held&) = delete;

 private:
  sigset_t pipe_{}, before_{};
  bool was_pending_ = false;
};

// A FIFO, a device, a terminal or a descriptor, written where it is, as a
// stream. Opened without blocking: a FIFO that no process reads refuses at
// once (ENXIO) instead of waiting for a reader for ever. A descriptor of
// this process (/dev/stdout) is written through itself, so that what the
// program wrote there and the content follow each other (`prog > file`
// shares one offset; a second open would write over the program's output);
// its blocking mode is the program's and stays so. Either way each write
// waits (poll) until the reader has room, for at most `patience`, and a pipe
// is given at most PIPE_BUF bytes at a time, which room for means it never
// blocks.
bool write_in_place(const std::string& path, int own, const std::string& content,
                    std::chrono::milliseconds patience, std::string& why) {
  int fd;
  if (own >= 0) {
    // What the program buffered for its standard output goes first.
    if (own == STDOUT_FILENO) std::fflush(stdout);
    if (own == STDERR_FILENO) std::fflush(stderr);
    fd = fcntl(own, F_DUPFD_CLOEXEC, 0);
    if (fd < 0) return why = error_text("cannot write", path), false;
  } else {
    fd = open(path.c_str(), O_WRONLY | O_APPEND | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
      const int error = errno;
      struct stat st {};
      if (error == ENXIO && stat(path.c_str(), &st) == 0 && S_ISFIFO(st.st_mode))
        return why = path + " is a FIFO that no process has open for reading: nothing written", false;
      if (error == ENXIO && stat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode))
        return why = path + " is a socket, which cannot be opened as a file: nothing written", false;
      errno = error;
      return why = error_text("cannot open", path), false;
    }
  }
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    why = error_text("cannot write", path);
    close(fd);
    return false;
  }
  if (S_ISBLK(st.st_mode) || S_ISDIR(st.st_mode)) {  // a disk is never written over
    close(fd);
    return why = path + " is " + kind_of(st.st_mode) + ": nothing written", false;
  }
  const std::size_t step = S_ISREG(st.st_mode) ? content.size() : PIPE_BUF;
  const int wait_ms = static_cast<int>(std::min<long long>(patience.count(), INT_MAX));
  bool ok = true;
  {
    const pipe_signal_held held;
    for (std::size_t done = 0; ok && done < content.size();) {
      pollfd ready{fd, POLLOUT, 0};
      const int waited = poll(&ready, 1, wait_ms);
      if (waited < 0 && errno == EINTR) continue;
      if (waited == 0) {
        why = path + ": its reader took nothing for " + std::to_string(patience.count()) + " ms; " +
              std::to_string(done) + " of " + std::to_string(content.size()) + " bytes written";
        ok = false;
        break;
      }
      // Room, or the reader left (the write says EPIPE), or an error the write names.
      const ssize_t n = write(fd, content.data() + done, std::min(step, content.size() - done));
      if (n > 0) {
        done += static_cast<std::size_t>(n);
        continue;
      }
      if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
      if (n == 0) errno = EIO;
      why = error_text("cannot write", path);  // EPIPE: the reader went away; ENOSPC: /dev/full
      ok = false;
    }
  }
  if (close(fd) != 0 && ok && errno != EINTR) ok = false, why = error_text("cannot write", path);
  return ok;
}

}  // namespace

std::optional<nlohmann::json> read_json_file(const std::string& path, std::string& why) noexcept {
  try {
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return why = error_text("cannot open", path), std::nullopt;
    struct stat st {};
    std::string text;
    bool regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    const bool small = regular && static_cast<std::size_t>(st.st_size) <= largest_read_bytes;
    if (small) {
      text.resize(static_cast<std::size_t>(st.st_size));
      std::size_t got = 0;
      for (ssize_t n; got < text.size() && (n = read(fd, text.data() + got, text.size() - got)) > 0;)
        got += static_cast<std::size_t>(n);
      text.resize(got);
    }
    close(fd);
    if (!regular) return why = path + " is not a regular file", std::nullopt;
    if (!small) return why = path + " is larger than " + std::to_string(largest_read_bytes >> 20) + " MiB", std::nullopt;
    return parse_json_text(text, path, why);
  } catch (const std::exception& e) {  // allocation failure
    return why = path + ": " + e.what(), std::nullopt;
  }
}

std::optional<nlohmann::json> parse_json_text(std::string_view text, const std::string& name,
                                              std::string& why) noexcept {
  try {
    if (text.size() > largest_read_bytes)
      return why = name + " is larger than " + std::to_string(largest_read_bytes >> 20) + " MiB", std::nullopt;
    bool too_deep = false;
    nlohmann::json parsed = nlohmann::json::parse(
        text,
        [&](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
          if (depth > deepest_json) too_deep = true;
          return !too_deep;
        },
        /*allow_exceptions=*/false);
    if (too_deep) return why = name + " nests deeper than " + std::to_string(deepest_json) + " levels", std::nullopt;
    if (parsed.is_discarded()) return why = name + " is not valid JSON", std::nullopt;
    return parsed;
  } catch (const std::exception& e) {  // allocation failure
    return why = name + ": " + e.what(), std::nullopt;
  }
}

bool can_write_file(const std::string& path, std::string& why) noexcept {
  try {
    if (descriptor_named(path) != -1) return true;  // a stream: whether it can be written is known when it is
    if (struct stat at {}; lstat(path.c_str(), &at) == 0) {
      if (S_ISDIR(at.st_mode) || S_ISBLK(at.st_mode)) return why = path + " is " + kind_of(at.st_mode), false;
      if (kind_of(at.st_mode) != nullptr) return true;  // written in place: its directory does not matter
    }
    const auto parent_of = [](const std::string& p) -> std::string {
      const std::size_t slash = p.find_last_of('/');
      return slash == std::string::npos ? "." : slash == 0 ? "/" : p.substr(0, slash);
    };
    std::string dir = parent_of(path);
    struct stat st {};
    while (stat(dir.c_str(), &st) != 0) {  // write_file_atomically makes the missing ones
      if (errno != ENOENT) return why = error_text("cannot reach", dir), false;
      dir = parent_of(dir);
    }
    if (!S_ISDIR(st.st_mode)) return why = dir + " is not a directory", false;
    if (access(dir.c_str(), W_OK | X_OK) != 0) return why = error_text("cannot write in", dir), false;
    return true;
  } catch (const std::exception& e) {  // allocation failure
    return why = e.what(), false;
  }
}

bool write_file_atomically(const std::string& path, const std::string& content, mode_t mode, std::string& why,
                           std::chrono::milliseconds patience) noexcept {
  try {
    if (const int own = descriptor_named(path); own != -1) return write_in_place(path, own, content, patience, why);
    if (struct stat at {}; lstat(path.c_str(), &at) == 0) {
      if (S_ISDIR(at.st_mode) || S_ISBLK(at.st_mode))
        return why = path + " is " + kind_of(at.st_mode), false;
      if (kind_of(at.st_mode) != nullptr) return write_in_place(path, -1, content, patience, why);
    }
    // Nothing there, a regular file or a symlink (replaced, never followed).
    if (!make_parents(path, why)) return false;
    std::vector<char> temporary(path.begin(), path.end());
    for (const char c : std::string(".XXXXXX")) temporary.push_back(c);
    temporary.push_back('\0');
    const int fd = mkostemp(temporary.data(), O_CLOEXEC);
    if (fd < 0) return why = error_text("cannot create a temporary file beside", path), false;
    bool ok = fchmod(fd, mode) == 0;
    if (!ok) why = error_text("cannot set the mode of a temporary file beside", path);
    for (std::size_t done = 0; ok && done < content.size();) {
      const ssize_t n = write(fd, content.data() + done, content.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n == 0) errno = EIO;
      ok = n > 0;
      if (ok) done += static_cast<std::size_t>(n);
      else why = error_text("cannot write", path);  // ENOSPC: a full disk
    }
    if (close(fd) != 0 && ok) ok = false, why = error_text("cannot write", path);
    if (ok && !replace_with(temporary.data(), path)) ok = false, why = error_text("cannot replace", path);
    if (!ok) unlink(temporary.data());
    return ok;
  } catch (const std::exception& e) {
    return why = path + ": " + e.what(), false;
  }
}

std::string not_a_file_to_replace(const std::string& path) {
  if (descriptor_named(path) != -1) return "a descriptor";
  struct stat at {};
  if (lstat(path.c_str(), &at) != 0) return {};
  const char* kind = kind_of(at.st_mode);
  return kind != nullptr ? kind : "";
}

std::string cache_file_path(const std::string& setting, const char* name) {
  if (setting == "off") return {};
  // A home that does not exist (system users' HOME=/nonexistent) is not made:
  // the writer would create it, as root at the top of the file system.
  const char* home = std::getenv("HOME");
  struct stat home_status {};
  if (home != nullptr && (stat(home, &home_status) != 0 || !S_ISDIR(home_status.st_mode))) home = nullptr;
  if (!setting.empty()) {
    if (setting.rfind("~/", 0) == 0) return home != nullptr ? home + setting.substr(1) : std::string();
    return setting;
  }
  if (const char* cache = std::getenv("XDG_CACHE_HOME"); cache != nullptr && *cache == '/')
    return std::string(cache) + "/selfsched/" + name;
  if (home != nullptr && *home != '\0') return std::string(home) + "/.cache/selfsched/" + name;
  return {};
}

}  // namespace selfsched::omp
