#include "private_view.hpp"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#include "program.hpp"

namespace selfsched::cluster {
namespace {

thread_local bool own_work __attribute__((tls_model("initial-exec"))) = false;

alignas(private_view) unsigned char view_storage[sizeof(private_view)];
std::atomic<private_view*> view{nullptr};

std::string working_directory() {
  char buffer[PATH_MAX];
  return getcwd(buffer, sizeof buffer) != nullptr ? std::string(buffer) : std::string();
}

std::string directory_of_descriptor(int dirfd) {
  char buffer[PATH_MAX];
  const std::string link = "/proc/self/fd/" + std::to_string(dirfd);
  const ssize_t n = readlink(link.c_str(), buffer, sizeof buffer);
  return n > 0 && n < static_cast<ssize_t>(sizeof buffer) ? std::string(buffer, static_cast<std::size_t>(n))
                                                           : std::string();
}

// "/a/./b//../c" -> "/a/c".
std::string lexically_normal(std::string_view path) {
  std::vector<std::string_view> parts;
  for (std::size_t at = 0; at < path.size();) {
    const std::size_t slash = std::min(path.find('/', at), path.size());
    const std::string_view part = path.substr(at, slash - at);
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
    at = slash + 1;
  }
  std::string out;
  for (std::string_view part : parts) (out += '/') += part;
  return out.empty() ? "/" : out;
}

std::string_view parent_of(std::string_view absolute) {
  const std::size_t slash = absolute.rfind('/');
  return slash == 0 || slash == std::string_view::npos ? std::string_view("/") : absolute.substr(0, slash);
}

bool make_directories(const std::string& path) {
  struct stat st{};
  if (stat(path.c_str(), &st) == 0) return S_ISDIR(st.st_mode) || (errno = ENOTDIR, false);
  if (!make_directories(std::string(parent_of(path)))) return false;
  return mkdir(path.c_str(), 0700) == 0 || errno == EEXIST;
}

bool copy_bytes(int from, int to) {
  std::vector<char> buffer(std::size_t{1} << 16);
  for (;;) {
    const ssize_t n = read(from, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n == 0;
    for (ssize_t done = 0; done < n;) {
      const ssize_t w = write(to, buffer.data() + done, static_cast<std::size_t>(n - done));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) return false;
      done += w;
    }
  }
}

// Goes on past what cannot be removed: the agent removes the whole directory at the end.
int remove_entry(const char* path, const struct stat*, int, FTW*) {
  remove(path);
  return 0;
}

std::string failure(const std::string& what, const std::string& path) {
  return what + " '" + path + "' (" + std::strerror(errno) + ")";
}

}  // namespace

own_work_scope::own_work_scope() : outer_(own_work) { own_work = true; }
own_work_scope::~own_work_scope() { own_work = outer_; }
bool doing_own_work() { return own_work; }

std::string absolute_path(int dirfd, const char* path, std::string_view private_root) {
  if (path[0] == '/') return lexically_normal(path);
  std::string base = dirfd == AT_FDCWD ? working_directory() : directory_of_descriptor(dirfd);
  if (base.empty() || base[0] != '/') return {};
  if (!private_root.empty() && base.starts_with(private_root) &&
      (base.size() == private_root.size() || base[private_root.size()] == '/'))
    base.erase(0, private_root.size());
  return lexically_normal(base + "/" + path);
}

bool is_system_path(std::string_view absolute) {
  for (std::string_view top : {"/dev", "/proc", "/sys"})
    if (absolute.starts_with(top) && (absolute.size() == top.size() || absolute[top.size()] == '/')) return true;
  return false;
}

std::optional<std::string> private_view::private_of(std::string_view absolute) const {
  if (empty()) return std::nullopt;
  own_work_scope scope;
  std::lock_guard<std::mutex> hold(lock_);
  // The path itself or a directory above it.
  for (std::string_view p = absolute; p != "/"; p = parent_of(p))
    if (changed_.find(p) != changed_.end()) return private_path(absolute);
  return std::nullopt;
}

std::string private_view::seen_at(std::string_view absolute) const {
  own_work_scope scope;
  return private_of(absolute).value_or(std::string(absolute));
}

void private_view::mark(const std::string& absolute, kind k) {
  own_work_scope scope;
  std::lock_guard<std::mutex> hold(lock_);
  changed_[absolute] = k;
  changed_anything_.store(true, std::memory_order_release);
}

void private_view::forget(const std::string& absolute) {
  own_work_scope scope;
  nftw(private_path(absolute).c_str(), remove_entry, 16, FTW_DEPTH | FTW_PHYS);
  std::lock_guard<std::mutex> hold(lock_);
  for (auto it = changed_.lower_bound(absolute); it != changed_.end() && it->first.starts_with(absolute);)
    it = it->first.size() == absolute.size() || it->first[absolute.size()] == '/' ? changed_.erase(it) : std::next(it);
}

std::string private_view::copy_in(const std::string& absolute, bool& copied) {
  own_work_scope scope;
  copied = false;
  if (private_of(absolute)) return {};
  const int from = open(absolute.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat st{};
  if (from < 0 || fstat(from, &st) != 0 || !S_ISREG(st.st_mode)) {
    if (from >= 0) close(from);
    return {};  // nothing to copy: the program's own open says what is wrong
  }
  const std::string to_path = private_path(absolute);
  std::string why;
  if (!make_directories(std::string(parent_of(to_path)))) why = failure("cannot make the directory of", to_path);
  const int to = why.empty() ? open(to_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, st.st_mode & 07777) : -1;
  if (why.empty() && to < 0) why = failure("cannot create", to_path);
  if (why.empty() && !copy_bytes(from, to)) why = failure("cannot copy '" + absolute + "' to", to_path);
  close(from);
  if (to >= 0) close(to);
  copied = to >= 0;
  return why;
}

void private_view::undo_copy(const std::string& absolute) {
  own_work_scope scope;
  unlink(private_path(absolute).c_str());
}

bool private_view::make_parents(const std::string& absolute) {
  own_work_scope scope;
  const std::string_view parent = parent_of(absolute);
  struct stat st{};
  if (stat(seen_at(parent).c_str(), &st) != 0) return false;
  if (!S_ISDIR(st.st_mode)) return (errno = ENOTDIR, false);
  return make_directories(private_path(parent));
}

private_view* the_private_view() { return view.load(std::memory_order_acquire); }

void start_private_view() {
  const cluster_process* p = cluster_process::get();
  const char* root = std::getenv("SELFSCHED_CLUSTER_PRIVATE");
  if (p == nullptr || p->rank() == 0 || root == nullptr || root[0] != '/') return;
  own_work_scope scope;
  view.store(new (view_storage) private_view(lexically_normal(root)), std::memory_order_release);
}

}  // namespace selfsched::cluster

namespace selfsched::cluster {

std::vector<private_view::open_copy> private_view::open_copies() const {
  std::vector<open_copy> copies;
  if (empty()) return copies;
  own_work_scope own;
  DIR* fds = opendir("/proc/self/fd");
  if (fds == nullptr) return copies;
  char target[4096];
  while (const dirent* e = readdir(fds)) {
    const int fd = std::atoi(e->d_name);
    if (fd <= 2 || fd == dirfd(fds)) continue;
    const std::string link = std::string("/proc/self/fd/") + e->d_name;
    const ssize_t n = readlink(link.c_str(), target, sizeof target);
    if (n <= 0 || std::string_view(target, static_cast<std::size_t>(n)).substr(0, root_.size()) != root_) continue;
    struct stat st{};
    if (fstat(fd, &st) == 0)
      copies.push_back({fd, static_cast<long long>(st.st_size),
                        static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec});
  }
  closedir(fds);
  return copies;
}

}  // namespace selfsched::cluster
