// VC traffic classes end to end: two greedy flows share one output on different VCs. Strict VC
// priority (control above data) gives the higher VC the whole link; round-robin splits it.
#include <gtest/gtest.h>

#include <string>

#include "tests/support/run_helpers.hpp"

namespace saturn {
namespace {

using test::metric_mean;
using test::run_toml;

// s5 and s6 (ids 4, 5) both send to d2 (id 7) through sw2's output to d2.
const char* kTwoClasses = R"(
[simulation]
trials = 2
warmup_ns = 16384
duration_ns = 1638400
[topology]
kind = "zdornov_fig1"
[link]
bandwidth_gbps = 10
flit_bytes = 2048
[switch]
vcs = 2
buffer_bytes = 16384
[routing]
algorithm = "table"
[traffic]
pattern = "flows"
[[traffic.flows]]
src = 4
dst = 7
vc = 1
[[traffic.flows]]
src = 5
dst = 7
vc = 0
)";

TEST(VcClasses, StrictPriorityGivesTheHigherVcTheLink) {
  const StudyResult r = run_toml(kTwoClasses, {"switch.vc_arbitration=\"priority\""});
  // Tolerance 0.01: over 1000 packet times the high class is never blocked.
  EXPECT_NEAR(metric_mean(r, "flow_rate[s5->d2]"), 1.0, 0.01);
  EXPECT_NEAR(metric_mean(r, "flow_rate[s6->d2]"), 0.0, 0.01);
}

TEST(VcClasses, RoundRobinSplitsTheLink) {
  const StudyResult r = run_toml(kTwoClasses, {"switch.vc_arbitration=\"round_robin\""});
  EXPECT_NEAR(metric_mean(r, "flow_rate[s5->d2]"), 0.5, 0.01);
  EXPECT_NEAR(metric_mean(r, "flow_rate[s6->d2]"), 0.5, 0.01);
}

TEST(VcClasses, AFlowOnAMissingVcIsAConfigError) {
  EXPECT_THROW(run_toml(kTwoClasses, {"switch.vcs=1"}), ConfigError);
  EXPECT_THROW(run_toml("", {"traffic.vc=2", "switch.vcs=2"}), ConfigError);
}

}  // namespace
}  // namespace saturn
