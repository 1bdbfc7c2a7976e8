// Flow-level adaptive routing in the packet engine (routing.algorithm = "adaptive"; Zdornov & Birk,
// PAPERS-SPEC M17, M18, item 3; host/engine/adaptive_routes.cpp, kernels/routing/route.hpp): the
// default ports are D-mod-K's, every data packet follows its flow's setup path link for link, the
// routes are the flow engine's for the same seed, bounded caches hold at most their size, and bad
// combinations are refused with the key named.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "host/config/config.hpp"
#include "host/config/config_error.hpp"
#include "host/engine/adaptive_routes.hpp"
#include "host/engine/engine.hpp"
#include "host/engine/model_setup.hpp"
#include "host/flow/flow_engine.hpp"
#include "kernels/common/index.hpp"
#include "kernels/routing/route_cache.hpp"
#include "tests/support/config_errors.hpp"
#include "tests/support/run_helpers.hpp"

namespace saturn {
namespace {

using test::metric_of;
using test::run_toml;

// P superposed permutations of 20-packet flows on a modified 4-ary 3-tree (width 2), 8-packet
// buffers, 1 KB packets of 4 flits.
std::string modified_tree(int permutations, int cache_entries = 0) {
  return "[simulation]\ntrials = 3\nwarmup_ns = 0\nduration_ns = 100\ntime_limit_ns = 1e8\n"
         "[topology]\nk = 4\nn = 3\nhorizontal_width = 2\n[routing]\nalgorithm = \"adaptive\"\nroute_cache_entries = " +
         std::to_string(cache_entries) +
         "\n[switch]\nbuffer_bytes = 8192\n[link]\nflit_bytes = 256\n[endpoint]\nmtu_bytes = 1024\nactive_queues = 8\n"
         "[traffic]\npattern = \"permutation\"\npermutations = " + std::to_string(permutations) +
         "\nphase_bytes = 20480\n";
}

std::vector<TrialSpec> three_trials() {
  std::vector<TrialSpec> specs;
  for (int t = 0; t < 3; ++t) specs.push_back(TrialSpec{0, t, trial_seed(11, 0, t), 0.0, 0.0});
  return specs;
}

// The ERT's default port (tree_ert_entry) is the D-mod-K table's port at every switch for every
// destination, so a flow that never adapts takes the static route NC takes.
TEST(AdaptiveRouting, DefaultPortsAreTheDmodKTables) {
  for (const int width : {0, 2}) {
    const Topology topo = build_kary_ntree(4, 3, width);
    const RoutingTables routes = build_routes(topo, RoutingAlgorithm::kDmodK);
    const FlowTree tr = make_flow_tree(4, 3, width);
    const int N = topo.num_endpoints;
    for (int sw = 0; sw < topo.num_switches(); ++sw)
      for (int dst = 0; dst < N; ++dst)
        ASSERT_EQ(tree_ert_entry(tr, sw, dst).dp, routes.det_port[static_cast<int64_t>(sw) * N + dst])
            << "switch " << sw << ", destination " << dst << ", width " << width;
  }
}

// Every output port sends exactly the flits of the flows whose setup path leaves by it: the data
// packets follow their PRC entries hop by hop (and the default port where there is none). The
// horizontal lanes carry traffic, so the check covers adapted hops.
TEST(AdaptiveRouting, PacketsFollowTheirFlowsSetupPaths) {
  for (const int cache : {0, 1}) {
    SCOPED_TRACE("route_cache_entries = " + std::to_string(cache));
    const ModelSetup setup = build_model(load_config_string(modified_tree(3, cache), "adaptive"), ".");
    const EngineSpec spec = build_engine_spec(setup, three_trials());
    EngineSpec again = spec;  // the same setup once more, for its paths
    const int T = 3, F = spec.flows.num_flows();
    const int64_t ports = setup.topology.total_ports();
    std::vector<uint64_t> want(static_cast<size_t>(ports) * T, 0);
    set_up_adaptive_routes(setup, again, [&](int t, const std::vector<std::vector<int64_t>>& paths) {
      for (int f = 0; f < F; ++f)
        for (const int64_t link : paths[f])
          if (link < ports) want[at(link, t, T)] += spec.flows.flits[f];
    });
    EXPECT_EQ(again.prc_gcid, spec.prc_gcid);
    Engine engine(spec);
    LaunchOptions opt;
    opt.check_invariants = true;
    engine.advance(6000, opt);  // every flow finishes well before (checked below)
    const Counters c = engine.read_counters();
    uint64_t delivered = 0, horizontal = 0;
    for (int t = 0; t < T; ++t) delivered += c.del_flits[t];
    EXPECT_EQ(delivered, static_cast<uint64_t>(F) * spec.flows.flits[0] * T) << "every flow finished";
    for (uint64_t v : c.violations) EXPECT_EQ(v, 0u);
    ASSERT_EQ(c.busy_cycles.size(), want.size());
    int64_t gp = 0;
    for (int s = 0; s < setup.topology.num_switches(); ++s)
      for (int p = 0; p < setup.topology.radix(s); ++p, ++gp)
        for (int t = 0; t < T; ++t) {
          ASSERT_EQ(c.busy_cycles[at(gp, t, T)], want[at(gp, t, T)]) << "switch " << s << " port " << p << " trial " << t;
          if (p >= 2 * 4) horizontal += c.busy_cycles[at(gp, t, T)];
        }
    EXPECT_GT(horizontal, 0u) << "no flow adapted onto a horizontal lane";
  }
}

// M17's point: every packet of a flow follows one path, so a flow arrives in order; so it does on
// D-mod-K routes. Per-packet oblivious routing reorders (the check can fail).
TEST(AdaptiveRouting, FlowsArriveInOrderUnlikePerPacketObliviousRouting) {
  const auto reordered = [](const std::string& algorithm) {
    const StudyResult r = run_toml(modified_tree(3), {"routing.algorithm=\"" + algorithm + "\""});
    double sum = 0;
    for (const auto& t : r.trials) {
      EXPECT_FALSE(std::isnan(metric_of(t, "completion_time_ns"))) << algorithm << ": every flow finished";
      sum += metric_of(t, "packets_out_of_order");
    }
    return sum;
  };
  EXPECT_EQ(reordered("adaptive"), 0.0);
  EXPECT_EQ(reordered("dmodk"), 0.0);
  EXPECT_GT(reordered("random"), 0.0) << "per-packet oblivious routing reorders packets of a flow";
}

// One seed routes a phase the same way in both engines: the flows (f = source * P + j), the setup
// order (the flow engine's random order) and the hop rule are the same, so the fluid SAA completion
// W of the packet engine's adaptive routes is the flow engine's, trial by trial. P = 1 and 2. (The
// engines differ only where a source sends twice to one destination: one connection per pair, so
// one route, in the packet engine; one route per flow in the flow engine. A permutation has no such
// pair; at P = 2 the check holds for these seeds.)
TEST(AdaptiveRouting, RoutesAreTheFlowEnginesForTheSameSeed) {
  for (const int P : {1, 2}) {
    const std::string flow = "[simulation]\nmode = \"flow\"\ntrials = 6\n[topology]\nk = 4\nn = 3\nhorizontal_width = 2\n"
                             "[routing]\nalgorithm = \"adaptive\"\n[traffic]\npattern = \"permutation\"\npermutations = " +
                             std::to_string(P) + "\n";
    const std::string packet = modified_tree(P) + "[injection]\nrates = \"saa\"\n";
    const StudyResult f = run_toml(flow);
    const StudyResult p = run_toml(packet, {"simulation.trials=6"});
    ASSERT_EQ(f.trials.size(), p.trials.size());
    const double flow_time_ns = 20 * 4 * 256 * 8 / 100.0;  // 20 packets of 4 flits of 256 bytes at 100 Gb/s
    for (size_t i = 0; i < f.trials.size(); ++i) {
      ASSERT_EQ(f.trials[i].seed, p.trials[i].seed);
      EXPECT_NEAR(metric_of(p.trials[i], "saa_completion_bound_ns") / flow_time_ns, metric_of(f.trials[i], "saa_completion"),
                  1e-9)
          << "P = " << P << ", trial " << i;
    }
  }
}

// Bounded caches never hold more than their size; unlimited ones grow to what the setup needs.
TEST(AdaptiveRouting, BoundedCachesHoldAtMostTheirSize) {
  const auto most_entries = [](int cache) {
    const ModelSetup setup = build_model(load_config_string(modified_tree(4, cache), "adaptive"), ".");
    EngineSpec spec = build_engine_spec(setup, three_trials());
    const int most = set_up_adaptive_routes(setup, spec, [](int, const std::vector<std::vector<int64_t>>&) {});
    EXPECT_EQ(spec.model.prc_slots, std::max(1, most));
    return most;
  };
  EXPECT_EQ(most_entries(1), 1);
  EXPECT_LE(most_entries(2), 2);
  EXPECT_GT(most_entries(0), 2) << "four permutations on a 4-ary tree fill more than two entries somewhere";
}

using test::expect_config_error;

TEST(AdaptiveRouting, BadCombinationsAreRefused) {
  const std::string adaptive = "[routing]\nalgorithm = \"adaptive\"\n";
  expect_config_error(adaptive + "[traffic]\nload = 0.5\n", "routing.algorithm");  // open-loop messages, no flows
  expect_config_error(adaptive + "[topology]\nkind = \"dragonfly\"\n[traffic]\nphase_bytes = 4096\n", "routing.algorithm");
  expect_config_error(adaptive + "heuristic = \"flow_weight\"\n[traffic]\nphase_bytes = 4096\n", "routing.heuristic");
  expect_config_error(adaptive + "[traffic]\npattern = \"flows\"\n[[traffic.flows]]\nsrc = 0\ndst = 5\nbytes = 4096\n"
                                 "start_ns = 10\n",
                      "traffic.flows");
}

}  // namespace
}  // namespace saturn
