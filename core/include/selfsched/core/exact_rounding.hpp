// ceil, floor and sqrt as the C library computes them, bit for bit, in a
// few instructions and without it: libselfsched would otherwise open libm
// for them in every process whose technique sizes a chunk (most do), which
// costs a short program 0.1-0.15 ms (docs/results/overhead.md, "Start-up").
// x86-64's baseline has no rounding instruction (SSE4.1's roundsd), so
// the compiler calls libm for std::ceil and std::floor.
#pragma once

#include <cmath>
#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace selfsched {

namespace detail {

// |x| >= 2^52 is an integer already (or infinite); NaN stays NaN (quieted,
// as the C library does).
inline bool has_no_fraction(double x, double& result) {
  if (std::isnan(x)) return result = x + x, true;
  if (!(std::fabs(x) < 0x1p52)) return result = x, true;
  return false;
}

}  // namespace detail

// Below 2^52 the conversion to int64 truncates exactly, and one step of 1 is
// exact; copysign keeps the sign of zero the C library gives (-0.5 -> -0.0).
inline double exact_floor(double x) {
  double result;
  if (detail::has_no_fraction(x, result)) return result;
  double t = static_cast<double>(static_cast<std::int64_t>(x));
  if (t > x) t -= 1;
  return std::copysign(t, x);
}

inline double exact_ceil(double x) {
  double result;
  if (detail::has_no_fraction(x, result)) return result;
  double t = static_cast<double>(static_cast<std::int64_t>(x));
  if (t < x) t += 1;
  return std::copysign(t, x);
}

// IEEE 754's square root, correctly rounded: the instruction the C library
// uses itself on x86-64. Elsewhere, the C library's. (errno is not set for
// x < 0: nothing here reads it.)
inline double exact_sqrt(double x) {
#if defined(__SSE2__)
  const __m128d v = _mm_set_sd(x);
  return _mm_cvtsd_f64(_mm_sqrt_sd(v, v));
#else
  return std::sqrt(x);
#endif
}

}  // namespace selfsched
