// Parsing schedule names: prefixes (mechanisms), suffixes (alpha), chunks.
#include <gtest/gtest.h>

#include "selfsched/core.hpp"

namespace selfsched {
namespace {

TEST(Spec, PlainNameAndAlias) {
  auto r = parse_schedule("gss");
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.spec.base->name, "gss");
  EXPECT_FALSE(r.spec.weighted);
  EXPECT_EQ(parse_schedule("FAC2").spec.base, find_technique("fss"));
  EXPECT_EQ(parse_schedule(" Fss ").spec.name(), "fss");
}

TEST(Spec, PrefixesSuffixesAndChunk) {
  auto r = parse_schedule("sw-fss-80,4");
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_TRUE(r.spec.weighted);
  EXPECT_TRUE(r.spec.synchronized);
  EXPECT_EQ(r.spec.alpha_percent, 80);
  EXPECT_EQ(r.spec.min_chunk, 4);
  EXPECT_EQ(r.spec.name(), "sw-fss-80");
  EXPECT_TRUE(parse_schedule("tss-auto").spec.alpha_auto);
  EXPECT_EQ(parse_schedule("ss").spec.base->name, "ss");  // not "s-" + "s"
  EXPECT_EQ(parse_schedule("w-ss").spec.base->name, "ss");
}

TEST(Spec, EveryCatalogNameParsesWithEveryDecoration) {
  for (const auto& t : catalog()) {
    for (const std::string form : {"", "w-", "s-", "sw-"}) {
      for (const std::string suffix : {"", "-50", "-auto"}) {
        const std::string text = form + std::string(t.name) + suffix + ",3";
        auto r = parse_schedule(text);
        ASSERT_TRUE(r.ok()) << text << ": " << r.error;
        EXPECT_EQ(r.spec.base, &t) << text;
        EXPECT_EQ(r.spec.min_chunk, 3) << text;
      }
    }
  }
}

TEST(Spec, BadInputNamesTheValueAndTheChoices) {
  auto r = parse_schedule("bogus");
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.error.find("'bogus'"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("gss"), std::string::npos) << r.error;
  for (const char* bad : {"", ",", "gss,", "gss,0", "gss,-3", "gss,1x", "gss-101", "gss-0", "w-", "gss,99999999999999999999"}) {
    EXPECT_FALSE(parse_schedule(bad).ok()) << "'" << bad << "' accepted";
  }
  EXPECT_NE(parse_schedule("gss-101").error.find("101"), std::string::npos);
  EXPECT_NE(parse_schedule("gss,1x").error.find("'1x'"), std::string::npos);
  EXPECT_NE(parse_schedule("gss,0").error.find("not a positive integer"), std::string::npos);
  // A positive chunk past int64 is named as too large, not as something else.
  const std::string too_large = parse_schedule("gss,99999999999999999999").error;
  EXPECT_NE(too_large.find("'99999999999999999999'"), std::string::npos) << too_large;
  EXPECT_NE(too_large.find("too large (at most 9223372036854775807)"), std::string::npos) << too_large;
}

}  // namespace
}  // namespace selfsched
