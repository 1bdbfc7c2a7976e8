// Every config under configs/ (of the generated Fig. 6 grid a covering sample: run_tested_configs)
// runs at small size (examples are tests): 2 trials, a short window,
// invariants checked every cycle, and the run must deliver packets without violations. Flow-mode
// configs (1000-permutation studies) run with 2 trials per point and must route every flow.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "tests/support/run_helpers.hpp"

namespace saturn {
namespace {
using namespace saturn::test;

class AllConfigs : public ::testing::TestWithParam<int> {};

TEST_P(AllConfigs, EachRunsAtSmallSizeWithoutInvariantViolations) {
  ASSERT_GE(run_tested_configs().size(), static_cast<size_t>(kConfigShards));
  const auto paths = run_tested_configs_shard(GetParam());
  ASSERT_FALSE(paths.empty());
  for (const auto& path : paths) {
    SCOPED_TRACE(path);
    // A 20 us window from t = 0 (finite-flow configs run to completion regardless). The flow
    // engine has no time or invariants: those keys do not apply to it (and are refused there).
    const bool flow = load_config_file(path).get_string("simulation.mode") == "flow";
    std::vector<std::string> small{"simulation.trials=2"};
    if (!flow)
      small.insert(small.end(), {"simulation.warmup_ns=0", "simulation.duration_ns=20000", "simulation.check_invariants=true"});
    for (const std::string& o : small_size_overrides(path)) small.push_back(o);
    const StudyResult r = run_file(path, small);
    ASSERT_FALSE(r.trials.empty());
    if (flow) {
      for (const auto& t : r.trials) {
        EXPECT_GE(metric_of(t, "contention_max"), 1.0);
        EXPECT_GE(metric_of(t, "hops_mean"), 2.0);
        EXPECT_LE(metric_of(t, "saa_link_util_max"), 1.0 + 1e-12);
      }
      continue;
    }
    for (const auto& t : r.trials) {
      EXPECT_EQ(metric_of(t, "invariant_violations"), 0.0);
      EXPECT_GT(metric_of(t, "packets_delivered") + metric_of(t, "packets_in_flight"), 0.0);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Shard, AllConfigs, ::testing::Range(0, kConfigShards));

}  // namespace
}  // namespace saturn
