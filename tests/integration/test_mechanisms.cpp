// Scenario checks of single mechanisms on small networks: oblivious random routing spreads load
// over the up links, a single hot destination or all-to-one caps the network at one flit per
// cycle into that node, and a phase of finite permutation flows completes in a bounded time.
// (Speedup on the Santos scenario: tests/papers/test_santos_fig2a.cpp; VC priority: the unit
// tests of output_key in tests/unit/test_kernels_arbitration.cpp.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "tests/support/run_helpers.hpp"

namespace saturn {
namespace {

using test::metric_mean;
using test::metric_names;
using test::run_toml;

constexpr double kCycleNs = 163.84;  // 2048-byte flits at 100 Gb/s (the defaults)

// Utilizations of the up links of leaf switch L1.S0 of a 4-ary 2-tree (to L0.S0 .. L0.S3).
std::vector<double> leaf_up_utils(const StudyResult& r) {
  std::vector<double> u;
  for (const auto& name : metric_names(r, "link_util[L1.S0->L0.")) u.push_back(metric_mean(r, name));
  return u;
}

TEST(Mechanisms, RandomRoutingSpreadsUniformTraffic) {
  const StudyResult r = run_toml("", {"topology.k=4", "topology.n=2", "routing.algorithm=random", "traffic.load=0.6",
                                      "stats.per_link=true", "simulation.trials=2", "simulation.warmup_ns=20000",
                                      "simulation.duration_ns=800000"});
  const std::vector<double> u = leaf_up_utils(r);
  ASSERT_EQ(u.size(), 4u);
  const double mean = std::accumulate(u.begin(), u.end(), 0.0) / u.size();
  const auto [lo, hi] = std::minmax_element(u.begin(), u.end());
  // Uniform traffic leaves a leaf for 12 of 15 destinations: 4 nodes x 0.6 x 12/15 flits per
  // cycle spread over 4 up links = 0.48 each (tolerance 10% relative on the mean).
  EXPECT_NEAR(mean, 0.6 * 12.0 / 15.0, 0.1 * 0.6 * 12.0 / 15.0);
  // Tolerance: all up links within 20% of their mean.
  EXPECT_LE((*hi - *lo) / mean, 0.2) << "min " << *lo << " max " << *hi;
}

// Three greedy flows from leaf 0 to destinations that D-mod-K sends up the same port (d mod 4 = 0):
// D-mod-K puts them all on one up link; random routing spreads them over all four.
TEST(Mechanisms, RandomRoutingSpreadsWhatDmodKConcentrates) {
  const std::vector<std::string> base = {
      "topology.k=4", "topology.n=2", "traffic.pattern=flows", "stats.per_link=true", "simulation.trials=2",
      "simulation.warmup_ns=20000", "simulation.duration_ns=400000",
      "traffic.flows=[{src=0,dst=4},{src=1,dst=8},{src=2,dst=12}]"};
  std::vector<std::string> dmodk = base, random = base;
  dmodk.push_back("routing.algorithm=dmodk");
  random.push_back("routing.algorithm=random");
  const std::vector<double> d = leaf_up_utils(run_toml("", dmodk));
  const std::vector<double> rnd = leaf_up_utils(run_toml("", random));
  ASSERT_EQ(d.size(), 4u);
  ASSERT_EQ(rnd.size(), 4u);
  std::vector<double> ds = d;
  std::sort(ds.begin(), ds.end());
  // D-mod-K: one link saturated (>= 0.95), the other three idle (exactly 0).
  EXPECT_GE(ds[3], 0.95);
  EXPECT_EQ(ds[0] + ds[1] + ds[2], 0.0);
  // Random: every link used (> 0.3); three line-rate flows over four links.
  for (double x : rnd) EXPECT_GT(x, 0.3);
  EXPECT_NEAR(std::accumulate(rnd.begin(), rnd.end(), 0.0), 3.0, 0.15);
}

// One hot destination fed by 8 sources at full load: it ejects at line rate, so 16 nodes deliver
// one flit per cycle in total -> throughput_per_node = 1/16 (tolerance 5% relative).
TEST(Mechanisms, HotspotEjectsAtLineRate) {
  const StudyResult r = run_toml("", {"topology.k=2", "topology.n=4", "traffic.pattern=hotspot",
                                      "traffic.hotspot_sources=8", "traffic.hotspot_destinations=1",
                                      "traffic.background=idle", "traffic.load=1.0", "simulation.trials=2",
                                      "simulation.warmup_ns=50000", "simulation.duration_ns=500000"});
  EXPECT_NEAR(metric_mean(r, "throughput_per_node"), 1.0 / 16.0, 0.05 / 16.0);
  // The offered 8 flits per cycle cannot all get in: the source queues overflow.
  EXPECT_GT(metric_mean(r, "messages_refused"), 0.0);
}

// All-to-one at full load: 15 sources, one root -> again one flit per cycle in total (5%).
TEST(Mechanisms, AllToOneEjectsAtLineRate) {
  const StudyResult r = run_toml("", {"topology.k=2", "topology.n=4", "traffic.pattern=all_to_one", "traffic.root=3",
                                      "traffic.load=1.0", "simulation.trials=2", "simulation.warmup_ns=50000",
                                      "simulation.duration_ns=500000", "stats.per_link=true"});
  EXPECT_NEAR(metric_mean(r, "throughput_per_node"), 1.0 / 16.0, 0.05 / 16.0);
  // The root's ejection link (leaf L3.S1 port 1 -> n3) is the saturated one (1%).
  EXPECT_NEAR(metric_mean(r, "link_util[L3.S1->n3]"), 1.0, 0.01);
}

// A phase: every node sends 50 packets to its permutation partner at t = 0; the phase cannot end
// before 50 packet times (plus the zero-load latency) and must end (finite, not NaN).
TEST(Mechanisms, PhaseCompletionIsBoundedAndFinite) {
  const int packets = 50;
  const StudyResult r = run_toml("", {"topology.k=2", "topology.n=3", "traffic.pattern=permutation",
                                      "traffic.phase_bytes=" + std::to_string(packets * 2048), "simulation.trials=4",
                                      "simulation.warmup_ns=0", "simulation.duration_ns=1e6"});
  for (const double c : test::metric_values(r, "completion_time_ns")) {
    ASSERT_TRUE(std::isfinite(c)) << c;
    // Lower bound: 50 packet times + the shortest path (1 switch, L = 1, R = 0: 2 cycles).
    EXPECT_GE(c, (packets + 1) * kCycleNs);
    // Upper bound: even 8 flows through one link would take 8 * 50 packet times.
    EXPECT_LE(c, (8 * packets + 20) * kCycleNs);
  }
  EXPECT_EQ(metric_mean(r, "packets_in_flight"), 0.0);
}

}  // namespace
}  // namespace saturn
