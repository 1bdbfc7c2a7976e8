// Golden regression results (tests/golden/cases.txt): each case's trials.csv must match the
// committed file exactly. Any change of the model's numbers shows up here; an intended one is
// accepted with SATURN_UPDATE_GOLDEN=1, which rewrites the files for review. On a CUDA build the
// same files are the CPU/GPU parity check.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "tests/support/run_helpers.hpp"

namespace saturn {
namespace {

using namespace saturn::test;

TEST(Golden, TrialsMatchTheCommittedResults) {
  std::ifstream cases(source_path("tests/golden/cases.txt"));
  ASSERT_TRUE(cases) << "missing tests/golden/cases.txt";
  const bool update = std::getenv("SATURN_UPDATE_GOLDEN") != nullptr;
  const std::string out = make_temp_dir("saturn_golden");
  std::string line;
  int n = 0;
  while (std::getline(cases, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    std::string name, args;
    words >> name;
    std::getline(words, args);
    SCOPED_TRACE(name);
    const std::string cmd = "cd " + std::string(SATURN_SOURCE_DIR) + " && " + SATURN_BINARY + " run" + args +
                            " --threads 2 --quiet --out " + out + "/" + name + " > /dev/null 2>&1";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    const std::string got = read_file(out + "/" + name + "/trials.csv");
    const std::string golden_path = source_path("tests/golden/" + name + ".trials.csv");
    if (update) {
      write_file(golden_path, got);
    } else {
      EXPECT_EQ(got, read_file(golden_path)) << "results changed: if intended, regenerate with SATURN_UPDATE_GOLDEN=1";
    }
    ++n;
  }
  EXPECT_GE(n, 4);
}

}  // namespace
}  // namespace saturn
