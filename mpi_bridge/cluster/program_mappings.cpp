#include "program_mappings.hpp"

#include <errno.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>

#include "allocation.hpp"

namespace selfsched::cluster {
namespace {

constexpr std::size_t page = 4096;
std::size_t whole_pages(std::size_t bytes) { return (bytes + page - 1) & ~(page - 1); }

// The kernel's calls, not the C library's wrappers: those are ours here.
void* system_mmap(void* addr, std::size_t length, int prot, int flags, int fd, off_t offset) {
  return reinterpret_cast<void*>(syscall(SYS_mmap, addr, length, prot, flags, fd, offset));
}

// Mappings the program made that are not merged, by start: their length
// and what they are. Runtime memory (a runtime_scope around every change).
struct unmerged_mapping {
  std::size_t length;
  const char* kind;  // "a file", "shared memory"...
  int prot;
};
std::mutex unmerged_lock;
std::map<std::uintptr_t, unmerged_mapping>& unmerged() {
  static auto* mappings = new std::map<std::uintptr_t, unmerged_mapping>;
  return *mappings;
}

// Written to, or may be once the program opens it up with mprotect.
bool may_be_written(int prot) { return (prot & PROT_WRITE) != 0 || prot == PROT_NONE; }

const char* kind_of(int flags) {
  if ((flags & MAP_ANONYMOUS) == 0) return "a file";
  return (flags & MAP_TYPE) == MAP_SHARED ? "shared anonymous memory" : "anonymous memory";
}

void remember_unmerged(void* at, std::size_t length, int prot, const char* kind) {
  if (at == MAP_FAILED || !may_be_written(prot)) return;
  runtime_scope scope;
  std::lock_guard hold(unmerged_lock);
  unmerged()[reinterpret_cast<std::uintptr_t>(at)] = {length, kind, prot};
}

// Unmapped [begin, begin + length): mappings wholly inside are gone; one
// unmapped in part is still there (and still not merged).
void forget_unmerged(std::uintptr_t begin, std::size_t length) {
  runtime_scope scope;
  std::lock_guard hold(unmerged_lock);
  auto& all = unmerged();
  for (auto it = all.lower_bound(begin); it != all.end() && it->first < begin + length;)
    it = it->first + it->second.length <= begin + length ? all.erase(it) : std::next(it);
}

// Memory like the heap's: private, anonymous, readable and writable, at no
// address asked for. Reserving swap or populating at once change nothing.
bool heap_like(void* addr, std::size_t length, int prot, int flags) {
  constexpr int plain = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_POPULATE;
  return addr == nullptr && length > 0 && prot == (PROT_READ | PROT_WRITE) &&
         (flags & (MAP_PRIVATE | MAP_ANONYMOUS)) == (MAP_PRIVATE | MAP_ANONYMOUS) && (flags & ~plain) == 0;
}

// A file mapped private and writable: a copy of the file the program
// changes, so it can be the heap's too, read in at once.
bool private_file_copy(void* addr, std::size_t length, int prot, int flags, int fd, off_t offset) {
  constexpr int plain = MAP_PRIVATE | MAP_NORESERVE | MAP_POPULATE;
  return addr == nullptr && length > 0 && prot == (PROT_READ | PROT_WRITE) && fd >= 0 && offset >= 0 &&
         offset % static_cast<off_t>(page) == 0 && (flags & MAP_PRIVATE) != 0 && (flags & ~plain) == 0;
}

// The file's bytes from `offset` into the mapping (past its end the pages
// stay zero, where the kernel would fault); false when it cannot be read
// (a descriptor opened for writing only: the real mmap says why).
bool read_in(int fd, std::byte* to, std::size_t length, off_t offset) {
  for (std::size_t done = 0; done < length;) {
    const long got = syscall(SYS_pread64, fd, to + done, length - done, offset + static_cast<off_t>(done));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return false;
    if (got == 0) break;
    done += static_cast<std::size_t>(got);
  }
  return true;
}

void* map_for(void* caller, void* addr, std::size_t length, int prot, int flags, int fd, off_t offset) {
  if (!allocating_for_program(caller)) return system_mmap(addr, length, prot, flags, fd, offset);
  if (heap_like(addr, length, prot, flags))
    if (void* p = program_mapping(whole_pages(length)); p != nullptr) return p;
  if (private_file_copy(addr, length, prot, flags, fd, offset))
    if (void* p = program_mapping(whole_pages(length)); p != nullptr) {
      const int saved = errno;
      if (read_in(fd, static_cast<std::byte*>(p), length, offset)) return p;
      std::free(p);
      errno = saved;
    }
  void* p = system_mmap(addr, length, prot, flags, fd, offset);
  remember_unmerged(p, length, prot, kind_of(flags));
  return p;
}

}  // namespace

std::string unmerged_program_mapping() {
  runtime_scope scope;
  std::lock_guard hold(unmerged_lock);
  if (unmerged().empty()) return {};
  const auto& [at, m] = *unmerged().begin();
  char text[160];
  std::snprintf(text, sizeof text, "%s mapped: %zu bytes at %#" PRIxPTR ", %s", m.kind, m.length, at,
                m.prot == PROT_NONE ? "inaccessible for now" : "writable");
  return text;
}

}  // namespace selfsched::cluster

using namespace selfsched::cluster;

extern "C" {

__attribute__((visibility("default"))) void* mmap(void* addr, std::size_t length, int prot, int flags, int fd,
                                                   off_t offset) {
  return map_for(__builtin_return_address(0), addr, length, prot, flags, fd, offset);
}

__attribute__((visibility("default"))) void* mmap64(void* addr, std::size_t length, int prot, int flags, int fd,
                                                     off_t offset) {
  return map_for(__builtin_return_address(0), addr, length, prot, flags, fd, offset);
}

// A block of the program's heap is never unmapped for real (that would cut
// a hole in the heap): unmapped whole, it is freed; in part, it stays.
__attribute__((visibility("default"))) int munmap(void* addr, std::size_t length) {
  program_heap* heap = the_program_heap();
  if (heap != nullptr && heap->contains(addr)) {
    if (const std::size_t mapped = heap->mapping_bytes(addr); mapped != 0 && whole_pages(length) >= mapped)
      std::free(addr);
    return 0;
  }
  const int done = static_cast<int>(syscall(SYS_munmap, addr, length));
  if (done == 0) forget_unmerged(reinterpret_cast<std::uintptr_t>(addr), whole_pages(length));
  return done;
}

__attribute__((visibility("default"))) void* mremap(void* old, std::size_t old_length, std::size_t length,
                                                     int flags, ...) {
  void* wanted = nullptr;
  if (flags & MREMAP_FIXED) {
    va_list rest;
    va_start(rest, flags);
    wanted = va_arg(rest, void*);
    va_end(rest);
  }
  program_heap* heap = the_program_heap();
  if (heap == nullptr || !heap->contains(old)) {
    void* p = reinterpret_cast<void*>(syscall(SYS_mremap, old, old_length, length, flags, wanted));
    if (p != MAP_FAILED) {  // an unmerged mapping stays one where it went
      runtime_scope scope;
      std::lock_guard hold(unmerged_lock);
      if (const auto it = unmerged().find(reinterpret_cast<std::uintptr_t>(old)); it != unmerged().end()) {
        const unmerged_mapping moved{length, it->second.kind, it->second.prot};
        unmerged().erase(it);
        unmerged()[reinterpret_cast<std::uintptr_t>(p)] = moved;
      }
    }
    return p;
  }
  // A mapping of the heap: grown or shrunk within its block, else moved.
  const std::size_t mapped = heap->mapping_bytes(old);
  if (mapped == 0 || length == 0 || (flags & MREMAP_FIXED)) {
    errno = EINVAL;
    return MAP_FAILED;
  }
  if (heap->resize_mapping(old, whole_pages(length))) {
    if (whole_pages(length) > mapped)  // pages that come back are zero, as the kernel's would be
      std::memset(static_cast<char*>(old) + mapped, 0, whole_pages(length) - mapped);
    return old;
  }
  if (!(flags & MREMAP_MAYMOVE)) {
    errno = ENOMEM;
    return MAP_FAILED;
  }
  void* p = program_mapping(whole_pages(length));
  if (p == nullptr) return MAP_FAILED;
  std::memcpy(p, old, mapped);
  std::free(old);
  return p;
}

// System V shared memory the program attaches: never merged (another
// process may write it too), so regions run replicated while it is attached.
__attribute__((visibility("default"))) void* shmat(int id, const void* addr, int flags) {
  void* p = reinterpret_cast<void*>(syscall(SYS_shmat, id, addr, flags));
  shmid_ds about{};
  if (p != reinterpret_cast<void*>(-1) && allocating_for_program(__builtin_return_address(0)) &&
      syscall(SYS_shmctl, id, IPC_STAT, &about) == 0)
    remember_unmerged(p, about.shm_segsz, (flags & SHM_RDONLY) ? PROT_READ : PROT_READ | PROT_WRITE,
                      "System V shared memory");
  return p;
}

__attribute__((visibility("default"))) int shmdt(const void* addr) {
  const int done = static_cast<int>(syscall(SYS_shmdt, addr));
  if (done == 0) {
    runtime_scope scope;
    std::lock_guard hold(unmerged_lock);
    unmerged().erase(reinterpret_cast<std::uintptr_t>(addr));
  }
  return done;
}

}  // extern "C"
