// malloc and its family, operator new and delete, and OpenMP's omp_alloc,
// for the whole process. A call from the program (the executable, its
// libraries, the C and C++ libraries working for them) takes a block of the
// program's heap; a call from the runtime (libomp, selfsched, the loader,
// hwloc) a block of the C library's heap, which is never merged. free()
// knows which by the address.
#include "allocation.hpp"

#include <dlfcn.h>
#include <errno.h>
#include <omp.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <new>

#include "modules.hpp"

extern "C" {
void* __libc_malloc(std::size_t);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);
void* __libc_memalign(std::size_t, std::size_t);
void __libc_free(void*);
}

namespace selfsched::cluster {
namespace {

alignas(program_heap) unsigned char heap_storage[sizeof(program_heap)];
std::atomic<program_heap*> heap{nullptr};
std::atomic<bool> routing{false};
std::size_t (*libc_usable_size)(void*) = nullptr;

// Per thread: its arena (-1: the thread runs no program code now, so what it
// allocates is the runtime's: a worker of libomp between regions, a thread
// of the runtime's own), whether it is in a shared window, and whether it is
// inside this file already (the module lookup allocates: those blocks are
// the runtime's).
thread_local int arena __attribute__((tls_model("initial-exec"))) = -1;
thread_local bool defer_foreign __attribute__((tls_model("initial-exec"))) = false;
thread_local bool inside __attribute__((tls_model("initial-exec"))) = false;
thread_local int runtime_depth __attribute__((tls_model("initial-exec"))) = 0;

bool for_program(void* caller) {
  if (!routing.load(std::memory_order_relaxed) || inside || arena < 0 || runtime_depth > 0) return false;
  inside = true;
  const bool runtime = caller_is_runtime(reinterpret_cast<std::uintptr_t>(caller));
  inside = false;
  return !runtime;
}

void* program_allocate(std::size_t size, std::size_t alignment, bool zeroed) {
  void* p = heap.load(std::memory_order_relaxed)->allocate(size, alignment, arena, zeroed);
  if (p == nullptr) errno = ENOMEM;
  return p;
}

bool in_program_heap(const void* p) {
  const program_heap* h = heap.load(std::memory_order_relaxed);
  return h != nullptr && h->contains(p);
}

void release(void* p) {
  if (p == nullptr) return;
  if (in_program_heap(p)) heap.load(std::memory_order_relaxed)->release(p, arena < 0 ? 0 : arena, defer_foreign);
  else __libc_free(p);
}

bool power_of_two(std::size_t a) { return a != 0 && (a & (a - 1)) == 0; }

void* new_program(std::size_t size, std::size_t alignment, void* caller, bool nothrow) {
  for (;;) {
    void* p = for_program(caller) ? program_allocate(size, alignment, false)
              : alignment <= 16  ? __libc_malloc(size)
                                 : __libc_memalign(alignment, size);
    if (p != nullptr || size == 0) return p != nullptr ? p : new_program(1, alignment, caller, nothrow);
    std::new_handler handler = std::get_new_handler();
    if (handler == nullptr) {
      if (nothrow) return nullptr;
      throw std::bad_alloc();
    }
    handler();
  }
}

}  // namespace

program_heap* the_program_heap() { return routing.load(std::memory_order_acquire) ? heap.load() : nullptr; }

bool route_program_allocations() {
  libc_usable_size = reinterpret_cast<std::size_t (*)(void*)>(dlsym(RTLD_NEXT, "malloc_usable_size"));
  if (heap.load() == nullptr) {
    auto* h = new (heap_storage) program_heap(heap_geometry{});
    if (!h->ready()) return false;
    heap.store(h, std::memory_order_release);
  }
  routing.store(true, std::memory_order_release);
  return true;
}

bool allocating_for_program(void* caller) { return for_program(caller); }

void* program_mapping(std::size_t bytes) {
  void* p = heap.load(std::memory_order_relaxed)->allocate_mapping(bytes, arena);  // a full thread arena: the serial one
  if (p == nullptr) errno = ENOMEM;
  return p;
}

runtime_scope::runtime_scope() { ++runtime_depth; }
runtime_scope::~runtime_scope() { --runtime_depth; }

void set_thread_arena(int a, bool shared_window) {
  arena = a;
  defer_foreign = shared_window;
}

}  // namespace selfsched::cluster

using namespace selfsched::cluster;

extern "C" {

__attribute__((visibility("default"))) void* malloc(std::size_t size) {
  if (!for_program(__builtin_return_address(0))) return __libc_malloc(size);
  return program_allocate(size, 16, false);
}

__attribute__((visibility("default"))) void free(void* p) { release(p); }

__attribute__((visibility("default"))) void* calloc(std::size_t count, std::size_t size) {
  if (!for_program(__builtin_return_address(0))) return __libc_calloc(count, size);
  std::size_t bytes;
  if (__builtin_mul_overflow(count, size, &bytes)) {
    errno = ENOMEM;
    return nullptr;
  }
  return program_allocate(bytes, 16, true);
}

__attribute__((visibility("default"))) void* realloc(void* p, std::size_t size) {
  if (p == nullptr) {
    if (!for_program(__builtin_return_address(0))) return __libc_malloc(size);
    return program_allocate(size, 16, false);
  }
  if (!in_program_heap(p)) return __libc_realloc(p, size);
  if (size == 0) {
    release(p);
    return nullptr;
  }
  void* q = heap.load(std::memory_order_relaxed)->reallocate(p, size, arena < 0 ? 0 : arena, defer_foreign);
  if (q == nullptr) errno = ENOMEM;
  return q;
}

__attribute__((visibility("default"))) void* reallocarray(void* p, std::size_t count, std::size_t size) {
  std::size_t bytes;
  if (__builtin_mul_overflow(count, size, &bytes)) {
    errno = ENOMEM;
    return nullptr;
  }
  if (p == nullptr && !for_program(__builtin_return_address(0))) return __libc_malloc(bytes);
  if (p == nullptr) return program_allocate(bytes, 16, false);
  if (!in_program_heap(p)) return __libc_realloc(p, bytes);
  return realloc(p, bytes);
}

__attribute__((visibility("default"))) int posix_memalign(void** out, std::size_t alignment, std::size_t size) {
  if (!power_of_two(alignment) || alignment % sizeof(void*) != 0) return EINVAL;
  void* p = for_program(__builtin_return_address(0)) ? program_allocate(size, alignment, false)
                                                     : __libc_memalign(alignment, size);
  if (p == nullptr) return ENOMEM;
  *out = p;
  return 0;
}

__attribute__((visibility("default"))) void* aligned_alloc(std::size_t alignment, std::size_t size) {
  if (!power_of_two(alignment)) {
    errno = EINVAL;
    return nullptr;
  }
  if (!for_program(__builtin_return_address(0))) return __libc_memalign(alignment, size);
  return program_allocate(size, alignment, false);
}

__attribute__((visibility("default"))) void* memalign(std::size_t alignment, std::size_t size) {
  if (!power_of_two(alignment)) {
    errno = EINVAL;
    return nullptr;
  }
  if (!for_program(__builtin_return_address(0))) return __libc_memalign(alignment, size);
  return program_allocate(size, alignment, false);
}

__attribute__((visibility("default"))) void* valloc(std::size_t size) {
  if (!for_program(__builtin_return_address(0))) return __libc_memalign(4096, size);
  return program_allocate(size, 4096, false);
}

__attribute__((visibility("default"))) void* pvalloc(std::size_t size) {
  const std::size_t rounded = (size + 4095) & ~std::size_t{4095};
  if (!for_program(__builtin_return_address(0))) return __libc_memalign(4096, rounded);
  return program_allocate(rounded, 4096, false);
}

__attribute__((visibility("default"))) std::size_t malloc_usable_size(void* p) {
  if (p == nullptr) return 0;
  if (in_program_heap(p)) return heap.load(std::memory_order_relaxed)->usable_size(p);
  return libc_usable_size != nullptr ? libc_usable_size(p) : 0;
}

// OpenMP's memory allocators: a program's omp_alloc is the program's memory
// (libomp would take it from the C library's heap, which is never merged).
// Every allocator gets the default memory space here.
__attribute__((visibility("default"))) void* omp_alloc(std::size_t size, omp_allocator_handle_t) {
  return program_allocate(size, 16, false);
}
__attribute__((visibility("default"))) void* omp_aligned_alloc(std::size_t alignment, std::size_t size,
                                                                omp_allocator_handle_t) {
  return program_allocate(size, power_of_two(alignment) ? alignment : 16, false);
}
__attribute__((visibility("default"))) void* omp_calloc(std::size_t count, std::size_t size, omp_allocator_handle_t) {
  std::size_t bytes;
  if (__builtin_mul_overflow(count, size, &bytes)) return nullptr;
  return program_allocate(bytes, 16, true);
}
__attribute__((visibility("default"))) void* omp_aligned_calloc(std::size_t alignment, std::size_t count,
                                                                 std::size_t size, omp_allocator_handle_t) {
  std::size_t bytes;
  if (__builtin_mul_overflow(count, size, &bytes)) return nullptr;
  return program_allocate(bytes, power_of_two(alignment) ? alignment : 16, true);
}
__attribute__((visibility("default"))) void* omp_realloc(void* p, std::size_t size, omp_allocator_handle_t,
                                                          omp_allocator_handle_t) {
  if (p == nullptr) return program_allocate(size, 16, false);
  return realloc(p, size);
}
__attribute__((visibility("default"))) void omp_free(void* p, omp_allocator_handle_t) { release(p); }
// clang's allocate clauses and directives.
__attribute__((visibility("default"))) void* __kmpc_alloc(int, std::size_t size, omp_allocator_handle_t) {
  return program_allocate(size, 16, false);
}
__attribute__((visibility("default"))) void* __kmpc_aligned_alloc(int, std::size_t alignment, std::size_t size,
                                                                   omp_allocator_handle_t) {
  return program_allocate(size, power_of_two(alignment) ? alignment : 16, false);
}
__attribute__((visibility("default"))) void* __kmpc_calloc(int, std::size_t count, std::size_t size,
                                                            omp_allocator_handle_t) {
  std::size_t bytes;
  if (__builtin_mul_overflow(count, size, &bytes)) return nullptr;
  return program_allocate(bytes, 16, true);
}
__attribute__((visibility("default"))) void* __kmpc_realloc(int, void* p, std::size_t size, omp_allocator_handle_t,
                                                             omp_allocator_handle_t) {
  if (p == nullptr) return program_allocate(size, 16, false);
  return realloc(p, size);
}
__attribute__((visibility("default"))) void __kmpc_free(int, void* p, omp_allocator_handle_t) { release(p); }

}  // extern "C"

// The replaceable global allocation functions: the caller is the one that
// wrote `new`, so a library of the runtime (selfsched's own containers)
// gets the runtime's memory and the program its heap.
void* operator new(std::size_t size) { return new_program(size, 16, __builtin_return_address(0), false); }
void* operator new[](std::size_t size) { return new_program(size, 16, __builtin_return_address(0), false); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  try {
    return new_program(size, 16, __builtin_return_address(0), true);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  try {
    return new_program(size, 16, __builtin_return_address(0), true);
  } catch (...) {
    return nullptr;
  }
}
void* operator new(std::size_t size, std::align_val_t a) {
  return new_program(size, static_cast<std::size_t>(a), __builtin_return_address(0), false);
}
void* operator new[](std::size_t size, std::align_val_t a) {
  return new_program(size, static_cast<std::size_t>(a), __builtin_return_address(0), false);
}
void* operator new(std::size_t size, std::align_val_t a, const std::nothrow_t&) noexcept {
  try {
    return new_program(size, static_cast<std::size_t>(a), __builtin_return_address(0), true);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t size, std::align_val_t a, const std::nothrow_t&) noexcept {
  try {
    return new_program(size, static_cast<std::size_t>(a), __builtin_return_address(0), true);
  } catch (...) {
    return nullptr;
  }
}
void operator delete(void* p) noexcept { release(p); }
void operator delete[](void* p) noexcept { release(p); }
void operator delete(void* p, std::size_t) noexcept { release(p); }
void operator delete[](void* p, std::size_t) noexcept { release(p); }
void operator delete(void* p, std::align_val_t) noexcept { release(p); }
void operator delete[](void* p, std::align_val_t) noexcept { release(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { release(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { release(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { release(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { release(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { release(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { release(p); }
