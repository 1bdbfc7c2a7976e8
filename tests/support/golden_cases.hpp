// The golden regression cases (tests/golden/cases.txt) and how each is run: shared by the golden
// test (CPU results against the committed files) and the parity tier (GPU results against them).
#pragma once
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/run_helpers.hpp"

namespace saturn {
namespace test {

struct GoldenCase {
  std::string name;  // tests/golden/NAME.trials.csv holds its committed trials.csv
  std::string args;  // the arguments of `saturn run`, relative to the repository root
};

// Every case of tests/golden/cases.txt, in file order; an empty list if the file is missing.
inline std::vector<GoldenCase> read_golden_cases() {
  std::vector<GoldenCase> cases;
  std::ifstream in(source_path("tests/golden/cases.txt"));
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    GoldenCase c;
    words >> c.name;
    std::getline(words, c.args);
    cases.push_back(c);
  }
  return cases;
}

inline std::string golden_path(const GoldenCase& c) { return source_path("tests/golden/" + c.name + ".trials.csv"); }

// The shell command that runs a case with this build's binary and writes OUT/NAME/trials.csv.
// Two threads so the CPU golden run also covers the multi-threaded path (a GPU build ignores it).
// `env` (e.g. "SATURN_GPU_STEP=graph") is set for the run alone.
inline std::string golden_command(const GoldenCase& c, const std::string& out, const std::string& env = "") {
  return "cd " + std::string(SATURN_SOURCE_DIR) + " && " + (env.empty() ? "" : env + " ") + SATURN_BINARY + " run" + c.args +
         " --threads 2 --quiet --out " + out + "/" + c.name + " > /dev/null 2>&1";
}

// Empty if `got` equals `want` byte for byte; otherwise where they first differ, for a message.
inline std::string first_difference(const std::string& got, const std::string& want) {
  if (got == want) return "";
  std::istringstream a(got), b(want);
  std::string la, lb;
  for (int line = 1;; ++line) {
    const bool ha = static_cast<bool>(std::getline(a, la)), hb = static_cast<bool>(std::getline(b, lb));
    if (!ha && !hb) return "files differ only in line endings or a final newline";
    if (ha != hb || la != lb)
      return "first difference at line " + std::to_string(line) + ":\n  got:    " + (ha ? la : "<end of file>") +
             "\n  golden: " + (hb ? lb : "<end of file>");
  }
}

// Every golden case run under `env` gives its committed trials.csv byte for byte (the CPU's runs
// of the GPU programs it can run: SATURN_GPU_STEP=shared and warp).
inline void expect_golden_cases_under(const std::string& env, const std::string& tag) {
  const std::vector<GoldenCase> cases = read_golden_cases();
  ASSERT_GE(cases.size(), 4u) << "missing or short tests/golden/cases.txt";
  const std::string out = make_temp_dir(tag);
  for (const GoldenCase& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string cmd = golden_command(c, out, env);
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    const std::string diff = first_difference(read_file(out + "/" + c.name + "/trials.csv"), read_file(golden_path(c)));
    EXPECT_TRUE(diff.empty()) << env << " differs from the golden file " << golden_path(c) << ": " << diff;
  }
}

}  // namespace test
}  // namespace saturn
