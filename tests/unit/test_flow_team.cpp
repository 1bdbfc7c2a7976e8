// The GPU's flow program (one warp per trial, kernels/flow/flow_trial_team.hpp) run on the CPU with
// its lanes emulated in a scrambled order must give the sequential engine's bits for every routing,
// size model, rate model and the pool-overflow retry: this is the check CI can run for the CUDA path.
// (On a CUDA build every run is the warp program; the golden files then compare it with the CPU.)
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "host/config/config.hpp"
#include "host/flow/flow_engine.hpp"

namespace saturn {
namespace {

std::string flow_toml(const std::string& routing, const std::string& sizes, const std::string& extra) {
  return "[simulation]\nmode = \"flow\"\n[topology]\nk = 4\nn = 3\nhorizontal_width = 2\n[routing]\nalgorithm = \"" + routing +
         "\"\n" + extra + "[traffic]\npattern = \"permutation\"\npermutations = 2\n[flow]\nsizes = \"" + sizes +
         "\"\nmaxmin = true\nsaa_protocol = true\n";
}

std::vector<uint64_t> seeds(int n) {
  std::vector<uint64_t> s;
  for (int i = 0; i < n; ++i) s.push_back(0x9e3779b97f4a7c15ull * static_cast<uint64_t>(i + 1));
  return s;
}

void expect_team_matches(FlowSetup setup, const std::string& what) {
  const std::vector<uint64_t> sd = seeds(9);
  const std::vector<double> ref = run_flow_batch(setup, sd, 2);
  for (int width : {1, 5, 32}) {
    setup.cpu_team_width = width;
    const std::vector<double> got = run_flow_batch(setup, sd, 2);
    ASSERT_EQ(got.size(), ref.size());
    EXPECT_EQ(std::memcmp(got.data(), ref.data(), ref.size() * sizeof(double)), 0) << what << ", team of " << width;
    for (size_t i = 0; i < ref.size(); ++i) ASSERT_EQ(got[i], ref[i]) << what << ", team of " << width << ", value " << i;
  }
}

TEST(FlowTeam, WarpProgramGivesTheSequentialBits) {
  for (const char* routing : {"dmodk", "random", "adaptive"})
    for (const char* sizes : {"equal", "uniform"}) {
      const std::string toml = flow_toml(routing, sizes, "");
      expect_team_matches(build_flow_setup(load_config_string(toml, "team"), ""), std::string(routing) + "/" + sizes);
    }
  const std::string weight = flow_toml("adaptive", "uniform", "heuristic = \"flow_weight\"\nroute_cache_entries = 2\n");
  expect_team_matches(build_flow_setup(load_config_string(weight, "team"), ""), "adaptive/flow_weight/prc");
}

TEST(FlowTeam, PoolOverflowRetryAndExplicitFlows) {
  // One link per flow of slack: adaptive paths with horizontal hops overflow, the host retries.
  FlowSetup small = build_flow_setup(load_config_string(flow_toml("adaptive", "equal", ""), "team"), "");
  small.path_slack = 1;
  expect_team_matches(small, "overflow retry");
  const std::string flows =
      "[simulation]\nmode = \"flow\"\n[topology]\nk = 2\nn = 3\n[traffic]\npattern = \"flows\"\n"
      "[[traffic.flows]]\nsrc = 0\ndst = 4\n[[traffic.flows]]\nsrc = 1\ndst = 6\n[[traffic.flows]]\nsrc = 2\ndst = 5\n"
      "[[traffic.flows]]\nsrc = 3\ndst = 7\n";
  expect_team_matches(build_flow_setup(load_config_string(flows, "team"), ""), "explicit flows");
}

TEST(FlowTeam, UnsupportedEmulatedWidthIsAnError) {
#if defined(SATURN_BACKEND_CUDA)
  GTEST_SKIP() << "CUDA builds always run one warp per trial; the emulated width is a CPU-only test knob";
#endif
  FlowSetup setup = build_flow_setup(load_config_string(flow_toml("dmodk", "equal", ""), "team"), "");
  setup.cpu_team_width = 7;
  EXPECT_THROW(run_flow_batch(setup, seeds(2), 1), std::invalid_argument);
}

}  // namespace
}  // namespace saturn
