// Golden regression results (tests/golden/cases.txt): each case's trials.csv must match the
// committed file exactly. Any change of the model's numbers shows up here; an intended one is
// accepted with SATURN_UPDATE_GOLDEN=1, which rewrites the files for review. The parity tier
// (tests/parity) compares a CUDA build's results with the same files.
#include <gtest/gtest.h>

#include <cstdlib>

#include "tests/support/golden_cases.hpp"

namespace saturn {
namespace {

using namespace saturn::test;

TEST(Golden, TrialsMatchTheCommittedResults) {
#if defined(SATURN_BACKEND_CUDA)
  GTEST_SKIP() << "cuda build: the GPU's results are compared with the golden files by the parity tier";
#endif
  const std::vector<GoldenCase> cases = read_golden_cases();
  ASSERT_GE(cases.size(), 4u) << "missing or short tests/golden/cases.txt";
  const bool update = std::getenv("SATURN_UPDATE_GOLDEN") != nullptr;
  const std::string out = make_temp_dir("saturn_golden");
  for (const GoldenCase& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string cmd = golden_command(c, out);
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    const std::string got = read_file(out + "/" + c.name + "/trials.csv");
    if (update) {
      write_file(golden_path(c), got);
    } else {
      EXPECT_EQ(got, read_file(golden_path(c))) << "results changed: if intended, regenerate with SATURN_UPDATE_GOLDEN=1";
    }
  }
}

}  // namespace
}  // namespace saturn
