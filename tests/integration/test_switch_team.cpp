// The switch team (GpuStep::kWarpSwitch, kernels/phases/switch_team_step.hpp; issue 62 item 1): the
// GPU runs each switch's phases over a warp, a lane per port, and the CPU runs the same source over
// 32 emulated lanes, which these tests check on every build:
//   - every golden case under SATURN_GPU_STEP=warp gives its committed trials.csv byte for byte;
//   - the whole engine state after a run (every column, saved) is the phases' under every switch
//     feature the team's grant covers: FCFS and round-robin arbitration, VC priority and VC
//     round-robin, speedup 1, 2 and unlimited, packets of two sizes that pass a head short of
//     credits, pools of more than 32 entries (their free lists keep the order of releases), FIFO
//     inputs, output queues, per-hop VC allocation; with the arrivals split over ports (oblivious
//     and D-mod-K routes, the dragonfly's minimal and Valiant routes, with and without ACKs) and
//     kept on one lane (flow-level adaptive routes, PAR, LHRP, ECN's marks); and where the team
//     hands the switch to the one-thread phases (the separable allocator);
//   - every shipped config at small size, its first and last sweep points, leaves the same state.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "host/config/config.hpp"
#include "host/engine/engine.hpp"
#include "host/engine/model_setup.hpp"
#include "kernels/launch/engine_launch.hpp"
#include "kernels/phases/switch_team_step.hpp"
#include "tests/support/engine_helpers.hpp"
#include "tests/support/golden_cases.hpp"
#include "tests/support/run_helpers.hpp"

namespace saturn {
namespace {

using namespace saturn::test;

TEST(SwitchTeam, EveryGoldenCaseGivesItsCommittedResults) {
#if defined(SATURN_BACKEND_CUDA)
  GTEST_SKIP() << "cuda build: the parity tier runs the golden cases under SATURN_GPU_STEP=warp on a GPU";
#endif
  expect_golden_cases_under("SATURN_GPU_STEP=warp", "saturn_team");
}

// A 16-node 4-ary 2-tree (radix 8) with 4 KiB messages of 2 KiB packets.
constexpr const char* kTree = "[topology]\nk = 4\nn = 2\n[traffic]\nmessage_bytes = [4096]\n";

ModelSetup tree_setup(const std::vector<std::string>& overrides) {
  return build_model(load_config_string(kTree, "test", overrides), "");
}

// The state after 1,500 cycles in one call and in 30 calls equals the phases'.
void expect_team_state(const ModelSetup& setup, const std::string& what) {
  const std::string phases = engine_state_after(setup, GpuStep::kAuto, 1, 1500);
  EXPECT_EQ(state_difference(engine_state_after(setup, GpuStep::kWarpSwitch, 1, 1500), phases), "") << what << ", one call";
  EXPECT_EQ(state_difference(engine_state_after(setup, GpuStep::kWarpSwitch, 30, 50), phases), "") << what << ", 30 calls";
}

TEST(SwitchTeam, TheWholeStateIsThePhasesUnderEachGrantFeature) {
  const std::vector<std::vector<std::string>> cases = {
      {"routing.algorithm=\"random\""},
      {"routing.algorithm=\"random\"", "switch.arbitration=\"round_robin\"", "switch.speedup=\"1\""},
      {"switch.vcs=2", "switch.vc_arbitration=\"round_robin\"", "switch.speedup=\"2\""},
      {"link.flit_bytes=256", "traffic.message_bytes=[4096, 64]", "switch.buffer_bytes=4096", "routing.algorithm=\"random\""},
      {"link.flit_bytes=256", "traffic.message_bytes=[4096, 64]", "switch.input_queue=\"fifo\"", "switch.speedup=\"1\""},
      // a tree saturated by one hot spot, each source's input queues deep for its leaf's up links
      // (oblivious routes): inputs with more than 32 packets, whose entries come off free lists
      {"link.flit_bytes=64", "traffic.message_bytes=[64]", "switch.buffer_bytes=65536",
       "switch.router_delay_ns=300", "routing.algorithm=\"random\""},
      {"switch.output_queue_packets=3", "routing.algorithm=\"random\"", "switch.speedup=\"2\""},
      {"switch.vcs=2", "switch.vc_allocation=\"per_hop\""},
      {"switch.allocator=\"separable_input_first\"", "routing.algorithm=\"random\""},
  };
  for (const std::vector<std::string>& overrides : cases) {
    std::string what;
    for (const std::string& o : overrides) what += o + " ";
    SCOPED_TRACE(what);
    const ModelSetup setup = tree_setup(overrides);
    expect_team_state(setup, what);
  }
}

// Which paths those cases take: the team covers the grant of all but the separable allocator, and
// splits the arrivals where the route reads no switch state.
TEST(SwitchTeam, TheCasesTakeTheTeamPathsTheyAreMeantTo) {
  EXPECT_TRUE(team_arrivals_split(tree_setup({"routing.algorithm=\"random\""}).model));
  EXPECT_TRUE(team_arrivals_split(tree_setup({}).model));
  EXPECT_FALSE(team_grant_covers(tree_setup({"switch.allocator=\"separable_input_first\""}).model));
  EXPECT_TRUE(tree_setup({"link.flit_bytes=256", "traffic.message_bytes=[4096, 64]"}).model.mixed_sizes);
}

// The dragonfly of Jiang et al. at 72 nodes: minimal routing without ACKs (no congestion control)
// and with them (congestion control's variant), Valiant routes (all three: arrivals split over
// ports); PAR (its route reads credits), LHRP (speculative packets, stored FCFS ties) and ECN
// (marks) take their arrivals on one lane.
TEST(SwitchTeam, TheWholeStateIsThePhasesOnTheDragonfly) {
  const std::vector<std::string> small = {"topology.dragonfly_p=2", "topology.dragonfly_a=4", "topology.dragonfly_h=2",
                                          "topology.dragonfly_g=9"};
  struct Case {
    std::string config;
    std::vector<std::string> overrides;
    bool cc, split;
  };
  const std::vector<Case> cases = {
      {"uniform_minimal.toml", {"cc.acks=false", "switch.vcs=2", "cc.ack_vc=-1"}, false, true},
      {"uniform_minimal.toml", {}, true, true},
      {"uniform_minimal.toml", {"routing.algorithm=\"valiant\"", "switch.vcs=6", "cc.ack_vc=3"}, true, true},
      {"baseline_uniform.toml", {}, true, false},  // PAR reads credits
      {"lhrp_hotspot_60_4.toml", {"cc.lhrp_threshold_flits=200"}, true, false},
      {"ecn_hotspot_60_4.toml", {}, true, false},
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(k.config);
    std::vector<std::string> overrides = small;
    overrides.insert(overrides.end(), k.overrides.begin(), k.overrides.end());
    const ModelSetup setup =
        build_model(load_config_file(source_path("configs/papers/jiang2015/" + k.config), overrides),
                    source_path("configs/papers/jiang2015"));
    ASSERT_TRUE(setup.model.df.on);
    EXPECT_EQ(model_uses_cc(setup.model), k.cc);
    EXPECT_TRUE(team_grant_covers(setup.model));
    EXPECT_EQ(team_arrivals_split(setup.model), k.split);
    expect_team_state(setup, k.config);
  }
}

// Flow-level adaptive routes (Zdornov Fig. 6, the golden case's 64-node size): the route reads the
// trial's PRC entries, so the arrivals stay on one lane, and the team grants.
TEST(SwitchTeam, TheWholeStateIsThePhasesUnderAdaptiveRoutes) {
  const Config cfg = load_config_file(source_path("configs/papers/zdornov2009/fig6_packet_adaptive.toml"),
                                      {"topology.k=4", "injection.scheduler=\"round_robin\""});
  const ModelSetup setup = build_model(cfg, source_path("configs/papers/zdornov2009"));
  ASSERT_FALSE(model_uses_cc(setup.model));
  EXPECT_FALSE(team_arrivals_split(setup.model));
  EXPECT_TRUE(team_grant_covers(setup.model));
  expect_team_state(setup, "Zdornov Fig. 6, adaptive");
}

// Every shipped config (run_tested_configs, at the all-configs tests' small sizes), its first and
// last sweep points: 400 cycles of two trials under the team leave the state the phases leave.
// (A first run over three points of each, 600 cycles: 210 models, 157 taking the team's grant and
// 39 its split arrivals, all equal.)
class SwitchTeamConfigs : public ::testing::TestWithParam<int> {};

std::string state_after_400(const ModelSetup& setup, GpuStep step) {
  std::vector<TrialSpec> specs;
  for (int t = 0; t < 2; ++t) specs.push_back(TrialSpec{0, t, trial_seed(5, 0, t), 0.7 + 0.2 * t, 0.0});
  Engine engine(build_engine_spec(setup, specs));
  LaunchOptions opt;
  opt.cpu_step = CpuStep::kPhases;
  opt.gpu_step = step;
  engine.advance(400, opt);
  return saved_engine_state(engine);
}

TEST_P(SwitchTeamConfigs, EveryShippedConfigLeavesThePhasesState) {
  for (const std::string& path : run_tested_configs_shard(GetParam())) {
    const Config cfg = load_config_file(path, small_size_overrides(path));
    if (cfg.get_string("simulation.mode") == "flow") continue;
    const std::vector<SweepPoint> points = expand_sweep(cfg);
    for (const size_t k : {size_t{0}, points.size() - 1}) {
      SCOPED_TRACE(path + ", sweep point " + std::to_string(k));
      const ModelSetup setup = build_model(points[k].config, path.substr(0, path.rfind('/')));
      EXPECT_EQ(state_difference(state_after_400(setup, GpuStep::kWarpSwitch), state_after_400(setup, GpuStep::kAuto)), "");
      if (points.size() == 1) break;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Shard, SwitchTeamConfigs, ::testing::Range(0, kConfigShards));

}  // namespace
}  // namespace saturn
