// simulation.check_invariants on small networks under heavy and varied traffic: credits never
// negative or above the VC buffer, credit conservation on every link and VC, buffers within
// bounds, packet conservation. Every case must report invariant_violations == 0 exactly and
// deliver packets. Runs are a few thousand cycles.
#include <gtest/gtest.h>

#include <cmath>
#include <ostream>
#include <string>
#include <vector>

#include "tests/support/run_helpers.hpp"

namespace saturn {
namespace {

using test::metric_values;
using test::run_toml;

struct InvariantCase {
  std::string name;
  std::vector<std::string> overrides;
};

// 2048-byte flits at 100 Gb/s: one cycle = 163.84 ns; 256-byte flits: 20.48 ns.
const std::vector<std::string> kCommon = {
    "simulation.trials=2", "simulation.check_invariants=true", "simulation.warmup_ns=50000",
    "simulation.duration_ns=1.6e6",  // ~10000 cycles of 163.84 ns
};

std::vector<InvariantCase> cases() {
  const std::string small = "topology.kind=kary_ntree";
  return {
      {"tree2x3_uniform_saturated", {small, "topology.k=2", "topology.n=3", "traffic.load=0.9"}},
      {"tree4x2_uniform_random", {small, "topology.k=4", "topology.n=2", "traffic.load=0.9", "routing.algorithm=random"}},
      {"zdornov_uniform", {"topology.kind=zdornov_fig1", "routing.algorithm=table", "traffic.load=0.9"}},
      {"santos_L2_R2_uniform_latency",
       {"topology.kind=santos_fig1", "topology.local_flows=2", "topology.remote_flows=2", "routing.algorithm=table",
        "traffic.load=0.9", "link.latency_ns=163.84", "switch.router_delay_ns=327.68", "switch.speedup=1"}},
      {"tree2x4_hotspot_background",
       {small, "topology.k=2", "topology.n=4", "traffic.pattern=hotspot", "traffic.load=1.0",
        "traffic.hotspot_sources=6", "traffic.hotspot_destinations=2", "traffic.background=uniform",
        "traffic.background_load=0.3"}},
      {"tree4x2_all_to_one", {small, "topology.k=4", "topology.n=2", "traffic.pattern=all_to_one", "traffic.load=1.0",
                              "traffic.root=5"}},
      {"tree2x3_permutation", {small, "topology.k=2", "topology.n=3", "traffic.pattern=permutation",
                               "traffic.permutations=2", "traffic.load=0.9"}},
      {"tree4x2_two_vcs_rr", {small, "topology.k=4", "topology.n=2", "switch.vcs=2", "switch.vc_arbitration=round_robin",
                              "traffic.load=0.9"}},
      {"tree4x2_speedup1", {small, "topology.k=4", "topology.n=2", "switch.speedup=1", "traffic.load=0.9"}},
      {"tree4x2_speedup2_round_robin", {small, "topology.k=4", "topology.n=2", "switch.speedup=2",
                                        "switch.arbitration=round_robin", "routing.algorithm=random", "traffic.load=0.9"}},
      {"tree2x3_multiflit",
       {small, "topology.k=2", "topology.n=3", "link.flit_bytes=256", "endpoint.mtu_bytes=2048",
        "traffic.message_bytes=[3000, 8192]", "traffic.load=0.9", "simulation.warmup_ns=10000",
        "simulation.duration_ns=200000"}},  // ~10000 cycles of 20.48 ns
      {"tree2x3_multiflit_latency_random_2vc",
       {small, "topology.k=2", "topology.n=3", "link.flit_bytes=256", "endpoint.mtu_bytes=2048",
        "traffic.message_bytes=[3000, 8192]", "traffic.load=0.9", "link.latency_ns=40.96",
        "switch.router_delay_ns=40.96", "routing.algorithm=random", "switch.vcs=2", "switch.buffer_bytes=32768",
        "switch.arbitration=round_robin", "switch.speedup=2", "simulation.warmup_ns=10000",
        "simulation.duration_ns=200000"}},
      {"zdornov_fig1_flows",
       {"topology.kind=zdornov_fig1", "routing.algorithm=table", "traffic.pattern=flows", "switch.arbitration=round_robin",
        "traffic.flows=[{src=0,dst=6,bytes=204800},{src=1,dst=6,bytes=204800},{src=2,dst=7,bytes=204800},"
        "{src=3,dst=7,bytes=204800},{src=4,dst=7,bytes=204800},{src=5,dst=7,bytes=204800}]"}},
      {"tree2x3_phase_permutation", {small, "topology.k=2", "topology.n=3", "traffic.pattern=permutation",
                                     "traffic.phase_bytes=102400", "simulation.warmup_ns=0"}},
  };
}

void PrintTo(const InvariantCase& c, std::ostream* os) { *os << c.name; }

class Invariants : public ::testing::TestWithParam<InvariantCase> {};

TEST_P(Invariants, NoViolations) {
  std::vector<std::string> overrides = kCommon;
  const auto& extra = GetParam().overrides;
  overrides.insert(overrides.end(), extra.begin(), extra.end());
  const StudyResult r = run_toml("", overrides);
  ASSERT_EQ(r.trials.size(), 2u);
  for (int t = 0; t < 2; ++t) {
    // Exact: the check counts every violated invariant in every cycle.
    EXPECT_EQ(metric_values(r, "invariant_violations")[t], 0.0) << "trial " << t;
    EXPECT_GT(metric_values(r, "packets_delivered")[t], 0.0) << "trial " << t;
    EXPECT_GE(metric_values(r, "packets_in_flight")[t], 0.0) << "trial " << t;
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, Invariants, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<InvariantCase>& info) { return info.param.name; });

// The check must be able to fire: without it the metric is absent; with it on a run it is present.
TEST(InvariantsMetric, PresentOnlyWhenChecking) {
  const StudyResult off = run_toml("", {"simulation.trials=1", "topology.k=2", "topology.n=2",
                                        "simulation.duration_ns=20000"});
  EXPECT_TRUE(test::metric_names(off, "invariant_violations").empty());
  const StudyResult on = run_toml("", {"simulation.trials=1", "topology.k=2", "topology.n=2",
                                       "simulation.duration_ns=20000", "simulation.check_invariants=true"});
  EXPECT_EQ(test::metric_names(on, "invariant_violations").size(), 1u);
}

}  // namespace
}  // namespace saturn
