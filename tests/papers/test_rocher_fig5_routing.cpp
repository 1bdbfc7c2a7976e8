// Rocher-Gonzalez et al. 2021 Fig. 5 (PAPERS-SPEC item 47): where the hot-spot flows go, routing
// only. The paper's 432-node RLFT config (configs/papers/rocher2021/, 12-port switches) with its
// H10 hot spot (endnode 4, 43 sources drawn per trial: M41) and nothing else: the uniform background
// is off, so every packet is a hot-spot packet and a top switch's port that was ever busy carried one.
// Checks as the spec states them:
//   - D-mod-K: every hot-spot flow crosses the single top switch D-mod-K assigns to the hot spot;
//   - Oblivious (a random minimal up port per packet): the hot-spot packets use >= 80% of the top
//     switches within the first 1000 hot packets that reach the top stage.
// Adaptive-Th spreads by buffer state, which item 48 checks. Cost: 4 runs of at most 1,200 cycles (about a second).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "host/engine/isolation_setup.hpp"
#include "tests/support/engine_helpers.hpp"
#include "tests/support/run_helpers.hpp"

namespace saturn {
namespace {

struct TopStage {
  int switches = 0;                // top switches (stage 3) in the network
  std::set<int> used;              // those whose ports carried a hot-spot packet
  uint64_t packets = 0;            // packets that left a top switch (1-flit packets: busy cycles)
};

// Runs trial `trial` of the paper's H10 config under `technique` until `min_packets` hot packets
// have left the top stage (read every 5 cycles; or `max_cycles`), and reads which top switches they crossed.
TopStage run_hot_spot_only(const std::string& technique, int trial, uint64_t min_packets, uint32_t max_cycles) {
  const Config cfg = load_config_file(test::source_path("configs/papers/rocher2021/fig6_h10_1q_" + technique + ".toml"),
                                      {"traffic.hotspot_start_ns=0", "simulation.trials=1"});
  const ModelSetup setup = build_model(cfg, ".");
  // load 0: the 389 background nodes stay idle; the 43 hot sources send at hotspot_rate = 1.0.
  const std::vector<TrialSpec> specs = {TrialSpec{0, trial, trial_seed(2021, 0, trial), 0.0, 0.0}};
  Engine engine(build_engine_spec(setup, specs));
  LaunchOptions opt;
  opt.threads = 1;
  opt.check_invariants = true;
  const Topology& topo = setup.topology;
  const std::vector<uint8_t> stage = isolation_switch_stages(topo);
  TopStage top;
  for (int s = 0; s < topo.num_switches(); ++s) top.switches += stage[s] == 3;
  Counters c;
  for (uint32_t done = 0; done < max_cycles; done += 5) {
    engine.advance(5, opt);
    c = engine.read_counters();
    EXPECT_EQ(c.violations[0], 0u) << technique << ": the per-cycle invariants";
    top.used.clear();
    top.packets = 0;
    for (int s = 0, gp = 0; s < topo.num_switches(); gp += topo.radix(s), ++s) {
      if (stage[s] != 3) continue;
      for (int p = 0; p < topo.radix(s); ++p) {
        const uint64_t busy = c.busy_cycles[gp + p];  // one trial: at(gp, 0, 1) = gp
        top.packets += busy;
        if (busy > 0) top.used.insert(s);
      }
    }
    if (top.packets >= min_packets) break;
  }
  EXPECT_GE(top.packets, min_packets) << technique << ": too few hot packets reached the top stage";
  return top;
}

TEST(RocherFig5Routing, DmodkSendsEveryHotFlowThroughOneTopSwitch) {
  for (int trial = 0; trial < 2; ++trial) {
    // (all of them leave by the one root's port into the hot spot's pod, their share of the hot
    // leaf's round robin: about 0.3 a cycle, so 300 packets rather than 1000)
    const TopStage top = run_hot_spot_only("dmodk", trial, 300, 1200);
    EXPECT_EQ(top.switches, 36) << "the 432-node RLFT has 36 top switches";
    std::printf("D-mod-K, trial %d: %zu top switch(es) used by %llu packets\n", trial, top.used.size(),
                static_cast<unsigned long long>(top.packets));
    EXPECT_EQ(top.used.size(), 1u) << "trial " << trial << ": D-mod-K must route every hot flow through the one top "
                                   << "switch it assigns to the hot spot (" << top.packets << " packets at the top)";
  }
}

TEST(RocherFig5Routing, ObliviousSpreadsHotPacketsOverTheTopSwitches) {
  for (int trial = 0; trial < 2; ++trial) {
    const TopStage top = run_hot_spot_only("oblivious", trial, 1000, 1200);
    const double share = static_cast<double>(top.used.size()) / top.switches;
    std::printf("Oblivious, trial %d: %zu of %d top switches used by the first %llu packets\n", trial, top.used.size(),
                top.switches, static_cast<unsigned long long>(top.packets));
    EXPECT_GE(share, 0.8) << "trial " << trial << ": item 47 wants >= 80% of the top switches within 1000 hot "
                          << "packets; used " << top.used.size() << " of " << top.switches << " by " << top.packets;
  }
}

}  // namespace
}  // namespace saturn
