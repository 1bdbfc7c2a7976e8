// The flow engine through the study layer: hand-computed contention on explicit flows, determinism
// across thread counts, shards, the packet engine on a modified tree, and one-line config errors.
#include <gtest/gtest.h>

#include <cstring>

#include "host/study/study.hpp"
#include "tests/support/run_helpers.hpp"

namespace saturn {
namespace {
using namespace saturn::test;

// 2-ary 3-tree, flows 0->4, 1->6, 2->5 (worked out in tests/unit/test_flow_routing.cpp): D-mod-K
// puts 0->4 and 1->6 on one leaf up link, so their contention is 2 and 2->5's is 1. Adaptive
// routing separates 0->4 and 1->6 in either order (the second one takes the other leaf up port and
// its path is then disjoint); with 2->5 added the result depends on the flow order (if 2->5 and 1->6
// come before 0->4, 0->4 adapts twice and meets 2->5 on the forced descent), so the adaptive point
// runs the first two flows only.
const char* kThreeFlows = R"(
[simulation]
mode = "flow"
trials = 8
[topology]
k = 2
n = 3
[traffic]
pattern = "flows"
[[traffic.flows]]
src = 0
dst = 4
[[traffic.flows]]
src = 1
dst = 6
[[traffic.flows]]
src = 2
dst = 5
)";

TEST(FlowMode, ExplicitFlowsGiveTheHandComputedContention) {
  const StudyResult d = run_toml(kThreeFlows);
  ASSERT_EQ(d.trials.size(), 8u);
  for (const auto& t : d.trials) {
    EXPECT_EQ(metric_of(t, "contention_max"), 2.0);
    EXPECT_DOUBLE_EQ(metric_of(t, "contention_mean"), 5.0 / 3);
    EXPECT_EQ(metric_of(t, "hops_mean"), 6.0);
    EXPECT_EQ(metric_of(t, "completion_lower_bound"), 2.0);
    EXPECT_EQ(metric_of(t, "saa_completion"), 2.0);
    EXPECT_EQ(metric_of(t, "saa_rate_min"), 0.5);
    EXPECT_EQ(metric_of(t, "maxmin_completion"), 2.0);
    EXPECT_EQ(metric_of(t, "maxmin_rate_min"), 0.5);
    EXPECT_EQ(metric_of(t, "switch_ports"), 8 * 5);
    EXPECT_EQ(metric_of(t, "switch_ports_added_pct"), 0.0);
  }
  std::string two = kThreeFlows;
  two = two.substr(0, two.rfind("[[traffic.flows]]"));
  const StudyResult a = run_toml(two, {"routing.algorithm=adaptive"});
  const StudyResult s = run_toml(two);
  for (const auto& t : s.trials) EXPECT_EQ(metric_of(t, "contention_mean"), 2.0);
  for (const auto& t : a.trials) {
    EXPECT_EQ(metric_of(t, "contention_max"), 1.0);
    EXPECT_EQ(metric_of(t, "contention_mean"), 1.0);
    EXPECT_EQ(metric_of(t, "saa_completion"), 1.0);
  }
  // All three adaptively: the order decides, so only the range and that both outcomes occur.
  const StudyResult a3 = run_toml(kThreeFlows, {"routing.algorithm=adaptive", "simulation.trials=32"});
  int ones = 0, twos = 0;
  for (const auto& t : a3.trials) {
    const double c = metric_of(t, "contention_max");
    ones += c == 1.0;
    twos += c == 2.0;
  }
  EXPECT_EQ(ones + twos, 32);
  EXPECT_GT(ones, 0);
  EXPECT_GT(twos, 0);
}

const char* kPermutations = R"(
[simulation]
mode = "flow"
trials = 40
[topology]
k = 4
n = 3
horizontal_width = 2
[traffic]
pattern = "permutation"
permutations = 2
[flow]
sizes = "uniform"
[sweep]
routing.algorithm = ["dmodk", "random", "adaptive"]
routing.heuristic = ["flow_count", "flow_weight"]
)";

void expect_same_bits(const StudyResult& a, const StudyResult& b) {
  ASSERT_EQ(a.trials.size(), b.trials.size());
  for (size_t i = 0; i < a.trials.size(); ++i) {
    ASSERT_EQ(a.trials[i].seed, b.trials[i].seed);
    ASSERT_EQ(a.trials[i].metrics.size(), b.trials[i].metrics.size());
    for (size_t m = 0; m < a.trials[i].metrics.size(); ++m) {
      const double x = a.trials[i].metrics[m].value, y = b.trials[i].metrics[m].value;
      EXPECT_EQ(std::memcmp(&x, &y, sizeof x), 0) << a.trials[i].metrics[m].name << " trial " << i;
    }
  }
}

TEST(FlowMode, SameSeedSameBitsOnOneAndTwoThreads) {
  const StudyResult one = run_toml(kPermutations, {}, 1);
  const StudyResult two = run_toml(kPermutations, {}, 2);
  const StudyResult again = run_toml(kPermutations, {}, 2);
  expect_same_bits(one, two);
  expect_same_bits(two, again);
  const StudyResult other = run_toml(kPermutations, {"simulation.seed=2"}, 2);
  EXPECT_NE(metric_mean(one, "contention_mean", 0), metric_mean(other, "contention_mean", 0));
  // Unequal sizes: SAA still finishes at exactly the lower bound W, and stays feasible.
  for (const auto& t : one.trials) {
    EXPECT_NEAR(metric_of(t, "saa_completion"), metric_of(t, "completion_lower_bound"),
                1e-12 * metric_of(t, "completion_lower_bound"));
    EXPECT_LE(metric_of(t, "saa_link_util_max"), 1 + 1e-12);
    EXPECT_GE(metric_of(t, "maxmin_completion"), metric_of(t, "completion_lower_bound") * (1 - 1e-12));
  }
}

TEST(FlowMode, ShardsTogetherAreTheUnshardedRun) {
  const Config cfg = load_config_string(kPermutations, "test");
  const StudyResult whole = run_config(cfg, 2);
  std::vector<TrialResult> joined;
  for (int i = 0; i < 3; ++i) {
    StudyOptions o;
    o.threads = 2;
    o.shard = i;
    o.shards = 3;
    const StudyResult part = run_study(cfg, o);
    joined.insert(joined.end(), part.trials.begin(), part.trials.end());
  }
  StudyResult j = whole;
  j.trials = joined;
  expect_same_bits(whole, j);
}

TEST(FlowMode, PacketEngineRunsOnAModifiedTree) {
  // Tree routing ignores the horizontal links; the packet engine must run clean on such a network.
  const StudyResult r = run_toml(R"(
[simulation]
trials = 2
warmup_ns = 0
duration_ns = 20000
check_invariants = true
[topology]
k = 4
n = 3
horizontal_width = 2
[sweep]
routing.algorithm = ["dmodk", "random", "table"]
)");
  for (const auto& t : r.trials) {
    EXPECT_EQ(metric_of(t, "invariant_violations"), 0.0);
    EXPECT_GT(metric_of(t, "packets_delivered"), 0.0);
  }
}

// Reproduction item 7 (Algorithm 1): the committed config through run_study. Every trial: one probe
// after the last AnnounceStart gives each flow the central SAA W_f exactly, no later probe changes a
// rate before the flow ends, AnnounceEnd leaves every W_l at exactly 0; AnnounceStart alone is
// wrong for some flows (staggered starts). Same bits on 1 and 2 threads; metrics only when enabled.
TEST(FlowMode, SaaProtocolConfigConvergesAfterOneProbe) {
  const std::string path = source_path("configs/papers/zdornov2009/saa_protocol.toml");
  const StudyResult r = run_file(path, {"simulation.trials=4"}, 2);
  ASSERT_EQ(r.trials.size(), 16u);  // 2 routings x 2 size laws x 4 trials
  for (const auto& t : r.trials) {
    EXPECT_EQ(metric_of(t, "saa_protocol_mismatches"), 0.0);
    EXPECT_EQ(metric_of(t, "saa_protocol_late_changes"), 0.0);
    EXPECT_EQ(metric_of(t, "saa_protocol_residual"), 0.0);
    EXPECT_GT(metric_of(t, "saa_protocol_announce_mismatches"), 0.0);
    EXPECT_GE(metric_of(t, "saa_protocol_probes_to_final"), 1.0);
    EXPECT_GE(metric_of(t, "saa_protocol_converged_steps"), 1.0);
    EXPECT_LE(metric_of(t, "saa_protocol_converged_steps"), 6.0 * 16);  // 3 round trips of <= 16 links
    EXPECT_LE(metric_of(t, "saa_protocol_acks"), metric_of(t, "flows") * (1 + metric_of(t, "saa_protocol_probes_to_final")));
  }
  expect_same_bits(r, run_file(path, {"simulation.trials=4"}, 1));
  // Flows that end before they have converged: the check reports them.
  const StudyResult short_flows = run_file(path, {"simulation.trials=2", "flow.saa_flow_time_steps=1"});
  for (const auto& t : short_flows.trials) {
    EXPECT_GT(metric_of(t, "saa_protocol_mismatches"), 0.0);
    EXPECT_EQ(metric_of(t, "saa_protocol_residual"), 0.0);
  }
  const StudyResult off = run_file(path, {"simulation.trials=1", "flow.saa_protocol=false"});
  for (const auto& t : off.trials) EXPECT_FALSE(has_metric(t, "saa_protocol_mismatches"));
}

std::string config_error(const std::string& toml, const std::vector<std::string>& sets = {}) {
  try {
    const Config c = load_config_string(toml, "test", sets);
    StudyOptions o;
    validate_study(c, o);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(FlowMode, BadValuesGiveOneLineConfigErrors) {
  const std::string base = "[simulation]\nmode = \"flow\"\n[traffic]\npattern = \"permutation\"\n";
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"topology.kind=zdornov_fig1"}, "topology.kind"},
      {{"traffic.pattern=uniform"}, "traffic.pattern"},
      {{"routing.algorithm=table"}, "routing.algorithm"},
      {{"topology.k=16", "topology.n=3", "traffic.permutations=16"}, "traffic.permutations"},
      {{"topology.k=16", "topology.horizontal_width=17"}, "topology.horizontal_width"},
      {{"topology.k=30", "topology.n=2", "topology.horizontal_width=3"}, "topology.horizontal_width"},
      {{"routing.route_cache_entries=-1"}, "routing.route_cache_entries"},
      {{"flow.sizes=lognormal"}, "flow.sizes"},
      {{"simulation.mode=fluid"}, "simulation.mode"},
      {{"sweep.simulation.mode=[\"packet\", \"flow\"]"}, "simulation.mode"},
  };
  for (const auto& [sets, key] : cases) {
    const std::string msg = config_error(base, sets);
    EXPECT_NE(msg.find(key), std::string::npos) << sets.front() << " -> [" << msg << "]";
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
  // Adaptive routing routes flows: the packet engine refuses it by name without them.
  const std::string msg = config_error("[routing]\nalgorithm = \"adaptive\"\n");
  EXPECT_NE(msg.find("routing.algorithm"), std::string::npos) << msg;
  EXPECT_NE(msg.find("simulation.mode"), std::string::npos) << msg;
  // Horizontal links exist only on k-ary n-trees.
  EXPECT_NE(config_error("[topology]\nkind = \"zdornov_fig1\"\nhorizontal_width = 1\n").find("topology.horizontal_width"),
            std::string::npos);
}

}  // namespace
}  // namespace saturn
