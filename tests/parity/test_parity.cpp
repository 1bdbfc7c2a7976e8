// CPU/GPU parity: on a CUDA build with a usable GPU, each golden case's trials.csv must equal the
// committed CPU-produced file (tests/golden) byte for byte. Anywhere else every case is skipped
// with the reason, so the tier can sit in every build. Run it with `ctest -L parity`.
// SATURN_PARITY_FORCE=1 runs the comparison anyway: on a cpu build that is a dry run of the
// tier's own machinery (the CPU against its own golden files), which must pass.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <tuple>
#include <vector>

#include "tests/support/golden_cases.hpp"

#if defined(SATURN_BACKEND_CUDA)
#include <cuda_runtime_api.h>
#endif

namespace saturn {
namespace {

using namespace saturn::test;

// Why the tier cannot run here, or empty when it can. Asked of the CUDA runtime itself, the same
// library the saturn binary uses, so "no driver" and "no device" are told apart.
std::string why_no_gpu() {
#if defined(SATURN_BACKEND_CUDA)
  int devices = 0;
  const cudaError_t err = cudaGetDeviceCount(&devices);
  if (err != cudaSuccess) return std::string("no usable GPU: ") + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")";
  if (devices == 0) return "no usable GPU: the CUDA runtime reports 0 devices";
  return "";
#else
  return "cpu build: parity compares a cuda build's results on a GPU with the CPU golden files";
#endif
}

const std::string& gpu_skip_reason() {
  static const std::string reason = std::getenv("SATURN_PARITY_FORCE") != nullptr ? "" : why_no_gpu();
  return reason;
}

// Each case under every GPU program (kernels/launch/engine_variant_program.hpp), forced with
// SATURN_GPU_STEP: the persistent block program, the phase kernels replayed from a CUDA graph
// (auto takes the block program only where the whole batch fits one block), and the shared
// program (a block per trial, its state in shared memory; the block program where it does not fit).
class Parity : public ::testing::TestWithParam<std::tuple<GoldenCase, std::string>> {};

TEST_P(Parity, GpuTrialsEqualTheCpuGoldenFile) {
  if (!gpu_skip_reason().empty()) GTEST_SKIP() << gpu_skip_reason();
  const GoldenCase& c = std::get<0>(GetParam());
  const std::string out = make_temp_dir("saturn_parity");
  const std::string cmd = golden_command(c, out, "SATURN_GPU_STEP=" + std::get<1>(GetParam()));
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  const std::string got = read_file(out + "/" + c.name + "/trials.csv");
  const std::string diff = first_difference(got, read_file(golden_path(c)));
  EXPECT_TRUE(diff.empty()) << "GPU results differ from the CPU golden file " << golden_path(c) << ": " << diff
                            << "\n(output kept in " << out << ")";
}

// The case list itself is checked on every build, so a broken cases.txt is not hidden by skips.
TEST(ParityCases, GoldenCasesAreListedAndHaveFiles) {
  const std::vector<GoldenCase> cases = read_golden_cases();
  ASSERT_GE(cases.size(), 4u) << "missing or short tests/golden/cases.txt";
  for (const GoldenCase& c : cases) EXPECT_NO_THROW(read_file(golden_path(c))) << c.name;
}

// The mismatch message must point at the first differing row, not print two whole files.
TEST(ParityCases, FirstDifferenceNamesTheLine) {
  EXPECT_EQ(first_difference("a\nb\n", "a\nb\n"), "");
  EXPECT_EQ(first_difference("a\nb\nc\n", "a\nx\nc\n"), "first difference at line 2:\n  got:    b\n  golden: x");
  EXPECT_EQ(first_difference("a\n", "a\nb\n"), "first difference at line 2:\n  got:    <end of file>\n  golden: b");
  EXPECT_EQ(first_difference("a\nb", "a\nb\n"), "files differ only in line endings or a final newline");
}

INSTANTIATE_TEST_SUITE_P(Golden, Parity,
                         ::testing::Combine(::testing::ValuesIn(read_golden_cases()), ::testing::Values("block", "graph", "shared", "warp")),
                         [](const ::testing::TestParamInfo<std::tuple<GoldenCase, std::string>>& info) {
                           return std::get<0>(info.param).name + "_" + std::get<1>(info.param);
                         });

}  // namespace
}  // namespace saturn
