// The README's parameter reference is the parameter table itself (regenerate it with
// scripts/update_readme_params.py), so the documentation cannot drift from the code.
#include <gtest/gtest.h>

#include "host/config/params.hpp"
#include "tests/support/run_helpers.hpp"

namespace saturn {
namespace {

TEST(Docs, ReadmeParameterReferenceMatchesTheTable) {
  const std::string readme = test::read_file(test::source_path("README.md"));
  std::string table = params_markdown();
  while (!table.empty() && table.back() == '\n') table.pop_back();
  EXPECT_NE(readme.find(table), std::string::npos)
      << "README.md's parameter reference is stale: run /usr/bin/python3 scripts/update_readme_params.py";
}

TEST(Docs, ReadmeOpensWithTheTwoCommands) {
  const std::string readme = test::read_file(test::source_path("README.md"));
  const auto first = readme.find("bash scripts/setup.sh && ./build/saturn run configs/default.toml");
  const auto second = readme.find("bash scripts/setup.sh && bash scripts/test.sh");
  ASSERT_NE(first, std::string::npos);
  ASSERT_NE(second, std::string::npos);
  EXPECT_LT(first, 800u);
  EXPECT_LT(second, 800u);
  EXPECT_NE(test::read_file(test::source_path(".ci/run")).find("bash scripts/setup.sh && bash scripts/test.sh"),
            std::string::npos);
}

}  // namespace
}  // namespace saturn
