// A rank's own view of the files its program changes, on ranks other than
// 0 (private_files.cpp): what the rank wrote lives under its private
// directory (SELFSCHED_CLUSTER_PRIVATE, made and removed by its agent) at
// the same absolute path, what it removed is gone from its view, and every
// other path is the real file, which only rank 0 changes.
//
// Its methods call the C library's functions, not the interposed ones, and
// take the runtime's memory (own_work_scope), whoever calls them.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "allocation.hpp"

namespace selfsched::cluster {

// While one lives on a thread, the file functions interposed by
// private_files.cpp are the C library's, and allocations are the runtime's.
// They nest.
class own_work_scope {
 public:
  own_work_scope();
  ~own_work_scope();
  own_work_scope(const own_work_scope&) = delete;
  own_work_scope& operator=(const own_work_scope&) = delete;

 private:
  runtime_scope runtime_;
  bool outer_;
};
// Is the calling thread inside an own_work_scope?
bool doing_own_work();

// The absolute, lexically normal form ("." and ".." resolved, no double
// slashes) of `path` relative to `dirfd` (AT_FDCWD: the working directory);
// "" when the directory cannot be had. A directory descriptor inside
// `private_root` stands for the real directory it mirrors.
std::string absolute_path(int dirfd, const char* path, std::string_view private_root);

// /dev, /proc, /sys: never private.
bool is_system_path(std::string_view absolute);

class private_view {
 public:
  // What this rank's open private copies look like now (descriptor, size,
  // modification time): a write inside a shared parallel region would go to
  // one of them instead of the real file (rank 0's), so the region cannot
  // be shared (program.cpp compares two of these).
  struct open_copy {
    int fd;
    long long size, modified_ns;
    bool operator==(const open_copy&) const = default;
  };
  std::vector<open_copy> open_copies() const;

  explicit private_view(std::string root) : root_(std::move(root)) {}
  const std::string& root() const { return root_; }
  bool empty() const { return !changed_anything_.load(std::memory_order_acquire); }

  // The private copy of `absolute` when this rank changed it or a directory
  // above it (then the private path is its view, existing or not).
  std::optional<std::string> private_of(std::string_view absolute) const;
  std::string private_path(std::string_view absolute) const { return root_ + std::string(absolute); }
  // The path this rank sees `absolute` at.
  std::string seen_at(std::string_view absolute) const;

  enum class kind { file, directory, gone };
  void mark(const std::string& absolute, kind k);
  // `absolute` and what is under it are the real files again (after rank 0
  // renamed that directory): their private copies go.
  void forget(const std::string& absolute);

  // Before an update: the real file's contents copied to the private copy
  // (its permissions kept). "" when copied or nothing to copy, else why not.
  // `copied` tells whether a copy was made (undo_copy removes it).
  std::string copy_in(const std::string& absolute, bool& copied);
  void undo_copy(const std::string& absolute);
  // The private copy's parent directories, when the parent exists in this
  // rank's view (else errno ENOENT or ENOTDIR, false).
  bool make_parents(const std::string& absolute);

 private:
  std::string root_;
  std::map<std::string, kind, std::less<>> changed_;
  std::atomic<bool> changed_anything_{false};
  mutable std::mutex lock_;
};

// The process's view: nullptr on rank 0 and outside cluster mode.
private_view* the_private_view();
// At start-up, on a rank other than 0 (SELFSCHED_CLUSTER_PRIVATE).
void start_private_view();

}  // namespace selfsched::cluster
