// Copies and compares of the program's own memory, a page (or a run of one)
// at a time. Under AddressSanitizer a page of the program's global data
// also holds the redzones ASan puts between its globals: copying or
// comparing the page reads them on purpose (bytes like any other, the same
// on every rank), and ASan's checked memcpy and memcmp would report a
// global-buffer-overflow at the first one. So in an ASan build these are
// loops that ASan does not check (raw_memory.cpp); in every other build they
// are libc's memcpy and memcmp, inlined as before.
#pragma once

#include <cstddef>
#include <cstring>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SELFSCHED_RAW_MEMORY_UNCHECKED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(SELFSCHED_RAW_MEMORY_UNCHECKED)
#define SELFSCHED_RAW_MEMORY_UNCHECKED 1
#endif

// On a function that reads the program's memory word by word itself (a
// diff, a hash): ASan does not check its loads.
#ifdef SELFSCHED_RAW_MEMORY_UNCHECKED
#define SELFSCHED_READS_PROGRAM_MEMORY __attribute__((no_sanitize("address")))
#else
#define SELFSCHED_READS_PROGRAM_MEMORY
#endif

namespace selfsched::cluster {

#ifdef SELFSCHED_RAW_MEMORY_UNCHECKED
void raw_copy(void* to, const void* from, std::size_t bytes);
bool raw_equal(const void* a, const void* b, std::size_t bytes);
#else
inline void raw_copy(void* to, const void* from, std::size_t bytes) { std::memcpy(to, from, bytes); }
inline bool raw_equal(const void* a, const void* b, std::size_t bytes) { return std::memcmp(a, b, bytes) == 0; }
#endif

}  // namespace selfsched::cluster
