// docs/techniques.md documents the whole catalog: every technique has a row
// in the catalog table and a "### name" section (aliases may share them).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "selfsched/core.hpp"

namespace selfsched {
namespace {

std::string techniques_page() {
  std::ifstream in(SELFSCHED_DOCS_DIR "/techniques.md");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(Docs, EveryCatalogTechniqueHasARowAndASection) {
  const std::string page = techniques_page();
  ASSERT_FALSE(page.empty()) << SELFSCHED_DOCS_DIR "/techniques.md is missing or empty";
  for (const auto& t : catalog()) {
    const std::string name(t.name);
    // A table row: a line starting with "|" that names `name`.
    bool row = false;
    std::istringstream lines(page);
    for (std::string line; std::getline(lines, line);)
      if (line.starts_with("| ") && line.find("`" + name + "`") != std::string::npos) row = true;
    EXPECT_TRUE(row) << "docs/techniques.md: no catalog table row names `" << name << "`";
    EXPECT_NE(page.find("\n### " + name + "\n"), std::string::npos) << "docs/techniques.md: no section ### " << name;
  }
}

}  // namespace
}  // namespace selfsched
