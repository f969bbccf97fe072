// Happens-before edges that ThreadSanitizer cannot see: libomp is not built
// with TSan, so its fork, join and barriers order nothing for TSan. Where our
// data crosses threads on those edges alone (a team announced in
// parallel_begin, read by each implicit task), we say so. No-ops otherwise.
#pragma once

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SELFSCHED_TSAN 1
#endif
#endif

#ifdef SELFSCHED_TSAN
extern "C" void __tsan_acquire(void* address);
extern "C" void __tsan_release(void* address);
#endif

namespace selfsched::omp {

inline void tsan_release([[maybe_unused]] void* address) {
#ifdef SELFSCHED_TSAN
  __tsan_release(address);
#endif
}

inline void tsan_acquire([[maybe_unused]] void* address) {
#ifdef SELFSCHED_TSAN
  __tsan_acquire(address);
#endif
}

}  // namespace selfsched::omp
