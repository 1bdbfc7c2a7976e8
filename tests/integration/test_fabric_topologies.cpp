// The dragonfly (M4) and RLFT (M3) end to end on today's engine: the examples run with packets
// conserved, single packets take exactly the zero-load time of their hop count, and the host-built
// patterns (worst_case, hotspot_window) give the per-trial inputs M41 describes.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "host/engine/model_setup.hpp"
#include "host/topology/dragonfly.hpp"
#include "kernels/common/index.hpp"
#include "kernels/common/packet.hpp"
#include "kernels/traffic/destination.hpp"
#include "tests/support/run_helpers.hpp"

namespace saturn {
namespace {
using namespace saturn::test;

const std::string kDragonfly = source_path("configs/examples/dragonfly_minimal.toml");
const std::string kRlft = source_path("configs/examples/rlft_432_dmodk.toml");

// Low load: everything offered is accepted, nothing is lost, no invariant is violated.
void expect_sane_low_load(const StudyResult& r, double load) {
  for (const auto& t : r.trials) {
    EXPECT_EQ(metric_of(t, "invariant_violations"), 0.0);
    EXPECT_EQ(metric_of(t, "deadlocked"), 0.0);
    // 2-3% tolerance: a 40 us window of Bernoulli messages over hundreds of nodes.
    EXPECT_NEAR(metric_of(t, "throughput_per_node"), load, 0.03 * load);
    EXPECT_NEAR(metric_of(t, "injected_per_node"), load, 0.03 * load);
    EXPECT_EQ(metric_of(t, "messages_refused"), 0.0);
  }
}

TEST(FabricTopologies, ExamplesRunConservePacketsAndAcceptTheLoad) {
  for (const std::string& path : {kDragonfly, kRlft}) {
    SCOPED_TRACE(path);
    const StudyResult r = run_file(path, {"simulation.check_invariants=true", "simulation.warmup_ns=10000",
                                          "simulation.duration_ns=40000"});
    ASSERT_EQ(r.trials.size(), 2u);
    expect_sane_low_load(r, 0.2);
  }
  // Random (oblivious) up ports on the RLFT too.
  expect_sane_low_load(run_file(kRlft, {"routing.algorithm=random", "simulation.check_invariants=true",
                                        "simulation.warmup_ns=10000", "simulation.duration_ns=40000"}),
                       0.2);
}

// One 8-flit packet over h switches: tail received (h+1) L + h R + (S-1) cycles after the head
// leaves the NIC (the formula of test_zero_load_latency.cpp), here L = 1 + 2, R = 2, S = 8.
constexpr double kCycleNs = 20.48;
double zero_load_ns(int switches) { return ((switches + 1) * 3 + switches * 2 + 7) * kCycleNs; }

void expect_single_packet(const std::string& path, int src, int dst, int switches) {
  const std::string flows =
      "traffic.flows=[{src=" + std::to_string(src) + ",dst=" + std::to_string(dst) + ",bytes=2048}]";
  const StudyResult r = run_file(path, {"traffic.pattern=flows", flows, "simulation.warmup_ns=0",
                                        "link.latency_ns=40.96", "switch.router_delay_ns=40.96"});
  const double want = zero_load_ns(switches);
  EXPECT_NEAR(metric_mean(r, "net_latency_mean_ns"), want, 1e-9 * want) << src << "->" << dst;
  EXPECT_EQ(metric_mean(r, "packets_delivered"), 1.0);
}

TEST(FabricTopologies, ZeroLoadLatencyIsTheHopCountFormula) {
  const DragonflyParams d{4, 8, 4, 33};
  // Switches crossed = minimal switch-to-switch hops + 1.
  for (const auto& [src, dst] : std::vector<std::pair<int, int>>{{0, 1}, {0, 4}, {0, 60}, {0, 32}, {4, 32}, {1055, 3}}) {
    const int switches = df_min_hops(d, src / 4, dst / 4) + 1;
    expect_single_packet(kDragonfly, src, dst, switches);
  }
  EXPECT_EQ(df_min_hops(d, 1, 8), 3);  // {4, 32} above is the longest minimal route, l-g-l
  // RLFT: same leaf 1 switch, same pod 3, other pod 5 (up to the top and down).
  expect_single_packet(kRlft, 0, 1, 1);
  expect_single_packet(kRlft, 0, 6, 3);
  expect_single_packet(kRlft, 0, 431, 5);
  expect_single_packet(kRlft, 200, 37, 5);
}

ModelSetup setup_of(const std::string& path, const std::vector<std::string>& overrides) {
  return build_model(load_config_file(path, overrides), "");
}

std::string error_of(const std::string& path, const std::vector<std::string>& overrides);

std::vector<TrialSpec> two_trials() { return {TrialSpec{0, 0, 11, 0.2, 0}, TrialSpec{0, 1, 12, 0.2, 0}}; }

TEST(FabricTopologies, WorstCaseRowsListTheShiftedGroup) {
  const ModelSetup s = setup_of(kDragonfly, {"traffic.pattern=worst_case", "traffic.wc_offset=5"});
  EXPECT_EQ(s.model.pattern, TrafficPattern::kPermutation);
  EXPECT_EQ(s.dest_width(), 32);
  const EngineSpec spec = build_engine_spec(s, two_trials());
  for (int t = 0; t < 2; ++t)
    for (int e = 0; e < 1056; ++e) {
      std::set<uint32_t> row;
      for (int j = 0; j < 32; ++j) row.insert(spec.dest_table[at(static_cast<int64_t>(e) * 32 + j, t, 2)]);
      ASSERT_EQ(row.size(), 32u);  // every node of the target group once: uniform over it
      for (uint32_t d : row) EXPECT_EQ(static_cast<int>(d / 32), (e / 32 + 5) % 33) << e;
    }
  // WC-Hot 2: every source of a group shares the same 2 nodes of the next group.
  const ModelSetup hot = setup_of(kDragonfly, {"traffic.pattern=worst_case", "traffic.wc_hot_nodes=2"});
  const EngineSpec hs = build_engine_spec(hot, two_trials());
  EXPECT_EQ(hot.dest_width(), 2);
  for (int e = 0; e < 1056; ++e) {
    const int first = e / 32 * 32;
    for (int j = 0; j < 2; ++j) {
      const uint32_t d = hs.dest_table[at(static_cast<int64_t>(e) * 2 + j, 0, 2)];
      EXPECT_EQ(static_cast<int>(d / 32), (e / 32 + 1) % 33);
      EXPECT_EQ(d, hs.dest_table[at(static_cast<int64_t>(first) * 2 + j, 0, 2)]);
    }
    EXPECT_NE(hs.dest_table[at(static_cast<int64_t>(e) * 2, 0, 2)], hs.dest_table[at(static_cast<int64_t>(e) * 2 + 1, 0, 2)]);
  }
  // It runs: WC1 at low load is accepted (one global channel carries a group's 32 nodes x 0.02).
  expect_sane_low_load(run_file(kDragonfly, {"traffic.pattern=worst_case", "traffic.load=0.02",
                                             "simulation.check_invariants=true", "simulation.duration_ns=40000"}),
                       0.02);
}

TEST(FabricTopologies, HotspotWindowMakesPacedFlowsFromARandomTenth) {
  const std::vector<std::string> h10 = {"traffic.pattern=hotspot_window", "traffic.hotspot_nodes=[4, 120, 244, 431]",
                                        "traffic.hotspot_fraction=0.1", "traffic.hotspot_start_ns=3e6",
                                        "traffic.hotspot_stop_ns=93e6", "traffic.hotspot_rate=1.0"};
  const ModelSetup s = setup_of(kRlft, h10);
  EXPECT_EQ(s.host_pattern.hot_sources, 43);  // round(0.1 * 432)
  EXPECT_EQ(s.num_flows(), 432 * 4);
  const EngineSpec spec = build_engine_spec(s, two_trials());
  EXPECT_EQ(spec.flows.flows_per_source, 4);
  const uint32_t hot_nodes[4] = {4, 120, 244, 431};
  for (int t = 0; t < 2; ++t) {
    int idle = 0;
    for (int e = 0; e < 432; ++e) {
      const bool source = spec.role[at(e, t, 2)] == kRoleIdle;
      idle += source;
      for (int j = 0; j < 4; ++j) {
        const int f = e * 4 + j;
        EXPECT_EQ(spec.flows.dst[at(f, t, 2)], source ? hot_nodes[j] : kUnlimited);
      }
      if (e == 4 || e == 120 || e == 244 || e == 431) EXPECT_FALSE(source);
    }
    EXPECT_EQ(idle, 43);
  }
  EXPECT_EQ(spec.flows.start[0], static_cast<uint32_t>(std::llround(3e6 / kCycleNs)));
  EXPECT_EQ(spec.flows.stop[0], static_cast<uint32_t>(std::llround(93e6 / kCycleNs)));
  EXPECT_EQ(spec.flows.gap_q16[0], 4u << 16);  // rate 1 split over 4 hot spots

  // In the engine, with no background (load 0): the 43 hot sources inject exactly their paced
  // rate while the window is open, and nothing outside it. 43 x 0.02 = 0.86 of node 4's link, so
  // nothing backs up; the window is open for half of the measured 400 us.
  auto injected = [&](const std::string& start, const std::string& stop) {
    const std::vector<std::string> o = {"traffic.pattern=hotspot_window", "traffic.hotspot_nodes=[4]",
                                        "traffic.load=0", "traffic.hotspot_rate=0.02",
                                        "traffic.hotspot_start_ns=" + start, "traffic.hotspot_stop_ns=" + stop,
                                        "simulation.check_invariants=true", "simulation.warmup_ns=100000",
                                        "simulation.duration_ns=400000"};
    const StudyResult r = run_file(kRlft, o);
    for (const auto& t : r.trials) EXPECT_EQ(metric_of(t, "invariant_violations"), 0.0);
    return metric_mean(r, "injected_per_node");
  };
  EXPECT_EQ(injected("600000", "0"), 0.0);  // opens after the run ends
  // Tolerance 10%: each source sends about 24 packets in the window, give or take one.
  const double want = 0.5 * 43 * 0.02 / 432;
  EXPECT_NEAR(injected("200000", "400000"), want, 0.1 * want);
}

// 001 Fig. 6 (item 17): 992 victims send uniform traffic among themselves from t = 0; at 20 us
// 60 of the other 64 nodes start a 60:4 hot spot on the last 4 (idle otherwise).
TEST(FabricTopologies, HotspotWindowVictimsKeepTheBackgroundAmongThemselves) {
  const std::vector<std::string> trans = {"traffic.pattern=hotspot_window", "traffic.hotspot_nodes=[10, 300, 600, 900]",
                                          "traffic.hotspot_fraction=0.0569", "traffic.hotspot_background=victims",
                                          "traffic.hotspot_rate=0.5", "traffic.hotspot_start_ns=20000", "traffic.load=0.4"};
  const ModelSetup s = setup_of(kDragonfly, trans);
  EXPECT_EQ(s.host_pattern.hot_sources, 60);
  EXPECT_EQ(s.dest_width(), 991);
  const EngineSpec spec = build_engine_spec(s, two_trials());
  for (int t = 0; t < 2; ++t) {
    std::set<uint32_t> victims;
    for (int e = 0; e < 1056; ++e)
      if (spec.role[at(e, t, 2)] == kRoleMain) victims.insert(static_cast<uint32_t>(e));
    ASSERT_EQ(victims.size(), 992u);
    for (uint32_t h : {10u, 300u, 600u, 900u}) EXPECT_EQ(victims.count(h), 0u);
    for (uint32_t e : victims) {
      std::set<uint32_t> row;
      for (int j = 0; j < 991; ++j) row.insert(spec.dest_table[at(static_cast<int64_t>(e) * 991 + j, t, 2)]);
      EXPECT_EQ(row.size(), 991u);
      EXPECT_EQ(row.count(e), 0u);
      for (uint32_t d : row) EXPECT_EQ(victims.count(d), 1u);
    }
  }
  // Before the hot spot opens only the victims inject, at 0.4 each.
  std::vector<std::string> run = trans;
  for (const char* o : {"traffic.hotspot_start_ns=1e6", "simulation.check_invariants=true", "simulation.duration_ns=40000"})
    run.push_back(o);
  const StudyResult r = run_file(kDragonfly, run);
  for (const auto& t : r.trials) {
    EXPECT_EQ(metric_of(t, "invariant_violations"), 0.0);
    EXPECT_NEAR(metric_of(t, "injected_per_node"), 0.4 * 992 / 1056, 0.03 * 0.4);
  }
  EXPECT_NE(error_of(kDragonfly, {"traffic.pattern=hotspot_window", "traffic.hotspot_nodes=[1]",
                                  "traffic.hotspot_fraction=1", "traffic.hotspot_background=victims"})
                .find("traffic.hotspot_fraction"),
            std::string::npos);
}

// 001's 60:4 and 60:1 hot spots are the existing N:M pattern: 60 random sources, M random
// destinations, everyone else idle. Below saturation (60 x 0.05 / 4 = 0.75 per destination) all of
// it is accepted.
TEST(FabricTopologies, DragonflyHotspot60To4IsTheNMPattern) {
  for (const char* m : {"4", "1"}) {
    const double load = std::string(m) == "4" ? 0.05 : 0.012;  // 60 x 0.012 = 0.72 on the one destination
    const StudyResult r = run_file(kDragonfly, {"traffic.pattern=hotspot", "traffic.hotspot_sources=60",
                                                std::string("traffic.hotspot_destinations=") + m,
                                                "traffic.load=" + std::to_string(load), "simulation.check_invariants=true",
                                                "simulation.duration_ns=200000"});
    const double want = 60 * load / 1056;
    for (const auto& t : r.trials) {
      EXPECT_EQ(metric_of(t, "invariant_violations"), 0.0);
      // 10%: 60 Bernoulli sources over about 10k cycles.
      EXPECT_NEAR(metric_of(t, "throughput_per_node"), want, 0.1 * want) << m;
    }
  }
}

std::string error_of(const std::string& path, const std::vector<std::string>& overrides) {
  try {
    setup_of(path, overrides);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

TEST(FabricTopologies, BadKeysGiveOneLineNamingTheKey) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"topology.dragonfly_g=34"}, "topology.dragonfly_g"},
      {{"routing.algorithm=dmodk"}, "routing.algorithm"},
      {{"traffic.pattern=worst_case", "traffic.wc_offset=33"}, "traffic.wc_offset"},
      {{"traffic.pattern=worst_case", "traffic.wc_hot_nodes=33"}, "traffic.wc_hot_nodes"},
      {{"traffic.pattern=worst_case", "traffic.phase_bytes=2048"}, "traffic.phase_bytes"},
      {{"traffic.pattern=hotspot_window"}, "traffic.hotspot_nodes"},
      {{"traffic.pattern=hotspot_window", "traffic.hotspot_nodes=[5000]"}, "traffic.hotspot_nodes"},
      {{"traffic.pattern=hotspot_window", "traffic.hotspot_nodes=[1,2,3,4,5]"}, "traffic.hotspot_nodes"},
      {{"traffic.pattern=hotspot_window", "traffic.hotspot_nodes=[1]", "traffic.hotspot_start_ns=5000",
        "traffic.hotspot_stop_ns=4000"},
       "traffic.hotspot_stop_ns"},
  };
  for (const auto& [overrides, key] : cases) {
    const std::string msg = error_of(kDragonfly, overrides);
    EXPECT_NE(msg.find("'" + key + "'"), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
  EXPECT_NE(error_of(kRlft, {"topology.rlft_radix=13"}).find("topology.rlft_radix"), std::string::npos);
  EXPECT_NE(error_of(kRlft, {"traffic.pattern=worst_case"}).find("dragonfly"), std::string::npos);
}

}  // namespace
}  // namespace saturn
