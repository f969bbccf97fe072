// exact_floor, exact_ceil and exact_sqrt against the C library's, bit for
// bit: zeros of both signs, infinities, NaN, the edges at 2^52 and 2^63,
// subnormals, and a million random doubles of every exponent.
#include <gtest/gtest.h>

#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "selfsched/core/exact_rounding.hpp"

namespace selfsched {
namespace {

std::uint64_t bits(double x) { return std::bit_cast<std::uint64_t>(x); }

std::vector<double> edges() {
  constexpr double inf = std::numeric_limits<double>::infinity();
  std::vector<double> v{0.0, 1.0, 0.5, 0.49999999999999994, 1.5, 2.5, 1e-310, 5e-324, 0x1p52, 0x1p52 - 0.5,
                        0x1p52 + 1, 0x1p53, 0x1p63, 0x1p64, 1e300, inf, std::numeric_limits<double>::max(),
                        std::numeric_limits<double>::min(), 4503599627370495.5, 9007199254740993.0};
  const std::size_t n = v.size();
  for (std::size_t k = 0; k < n; ++k) {
    v.push_back(-v[k]);
    v.push_back(std::nextafter(v[k], inf));
    v.push_back(std::nextafter(v[k], -inf));
    v.push_back(std::nextafter(-v[k], inf));
  }
  return v;
}

void expect_same(double x) {
  EXPECT_EQ(bits(exact_floor(x)), bits(std::floor(x))) << "floor of " << x;
  EXPECT_EQ(bits(exact_ceil(x)), bits(std::ceil(x))) << "ceil of " << x;
  if (!std::signbit(x) || x == 0) EXPECT_EQ(bits(exact_sqrt(x)), bits(std::sqrt(x))) << "sqrt of " << x;
}

TEST(ExactRounding, EdgesAreTheCLibrarys) {
  for (const double x : edges()) expect_same(x);
}

TEST(ExactRounding, NanStaysNanAndNegativeRootsAreNan) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(std::isnan(exact_floor(nan)));
  EXPECT_TRUE(std::isnan(exact_ceil(-nan)));
  EXPECT_TRUE(std::isnan(exact_sqrt(-1.0)));
  EXPECT_TRUE(std::isnan(exact_sqrt(nan)));
}

TEST(ExactRounding, RandomDoublesOfEveryExponentAreTheCLibrarys) {
  std::mt19937_64 random(20261129);
  for (int i = 0; i < 1'000'000; ++i) {
    const double x = std::bit_cast<double>(random());
    if (std::isnan(x)) continue;
    expect_same(x);
    // Mostly values a chunk computation meets: a few thousand, with a fraction.
    expect_same(std::ldexp(static_cast<double>(random() >> 11), -40) * (i % 2 == 0 ? 1 : -1));
  }
}

TEST(ExactRounding, SqrtRoundsAsTheCLibraryInEveryMode) {
  const int saved = std::fegetround();
  for (const int mode : {FE_TONEAREST, FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO}) {
    std::fesetround(mode);
    std::mt19937_64 random(mode);
    for (int i = 0; i < 10'000; ++i) {
      const double x = std::fabs(std::bit_cast<double>(random()));
      if (!std::isnan(x)) {
        volatile double y = x;  // computed at run time, in this mode
        EXPECT_EQ(bits(exact_sqrt(y)), bits(std::sqrt(y))) << "sqrt of " << x << " in mode " << mode;
        EXPECT_EQ(bits(exact_floor(y)), bits(std::floor(y))) << "floor of " << x << " in mode " << mode;
        EXPECT_EQ(bits(exact_ceil(y)), bits(std::ceil(y))) << "ceil of " << x << " in mode " << mode;
      }
    }
  }
  std::fesetround(saved);
}

}  // namespace
}  // namespace selfsched
