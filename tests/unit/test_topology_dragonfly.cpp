// Unit tests for the dragonfly builder, its minimal routing tables and the Valiant/UGAL path helpers (M4, M19).
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "host/config/config_error.hpp"
#include "host/topology/dragonfly.hpp"
#include "host/topology/topology.hpp"

namespace saturn {
namespace {

const DragonflyParams kPaper{4, 8, 4, 33};  // 001 §4: 15-port switches, 1056 nodes

int count_class(const Topology& t, LinkClass c) {
  int n = 0;
  for (int s = 0; s < t.num_switches(); ++s)
    for (int p = 0; p < t.radix(s); ++p)
      if (t.port_class[s][p] == c && t.ports[s][p].kind != PeerKind::kNone) ++n;
  return n;
}

TEST(Dragonfly, PaperInstanceCounts) {
  const Topology t = build_dragonfly(kPaper);
  EXPECT_NO_THROW(check_topology(t));
  EXPECT_EQ(t.num_switches(), 264);
  EXPECT_EQ(t.num_endpoints, 1056);
  EXPECT_EQ(t.max_radix(), 15);
  EXPECT_EQ(t.connected_ports(), t.total_ports());  // g = a*h+1: every port is used
  EXPECT_EQ(count_class(t, LinkClass::kGlobal) / 2, 528);
  EXPECT_EQ(count_class(t, LinkClass::kLocal) / 2, 28 * 33);
  EXPECT_EQ(count_class(t, LinkClass::kEndpoint), 1056);
  EXPECT_EQ(t.class_latency_ns[static_cast<int>(LinkClass::kLocal)], 50.0);
  EXPECT_EQ(t.class_latency_ns[static_cast<int>(LinkClass::kGlobal)], 1000.0);
  const TopologyCounts c = dragonfly_counts(kPaper);
  EXPECT_EQ(c.switches, 264);
  EXPECT_EQ(c.ports, t.total_ports());
  EXPECT_EQ(c.endpoints, 1056);
}

TEST(Dragonfly, CheckTopologyRefusesInconsistentLinkClasses) {
  Topology t = build_dragonfly({1, 4, 2, 5});
  t.port_class[0][df_global_port(t.dragonfly, 0)] = LinkClass::kLocal;  // one end of a global link
  EXPECT_THROW(check_topology(t), std::logic_error);
  t = build_dragonfly({1, 4, 2, 5});
  t.port_class[0][0] = LinkClass::kLocal;  // an endpoint port
  EXPECT_THROW(check_topology(t), std::logic_error);
  t = build_dragonfly({1, 4, 2, 5});
  t.port_class[3].pop_back();
  EXPECT_THROW(check_topology(t), std::logic_error);
  t.port_class.clear();  // no classes recorded: allowed
  EXPECT_NO_THROW(check_topology(t));
}

TEST(Dragonfly, M4ConsecutiveArrangementAndNumbering) {
  const Topology t = build_dragonfly(kPaper);
  std::set<std::pair<int, int>> group_pairs;
  for (int g = 0; g < 33; ++g)
    for (int c = 0; c < 32; ++c) {
      const int s = g * 8 + c / 4, port = 4 + 7 + c % 4;
      const PortPeer& peer = t.ports[s][port];
      ASSERT_EQ(peer.kind, PeerKind::kSwitch);
      const int want_group = (g + c + 1) % 33, landing = 31 - c;  // M4
      EXPECT_EQ(peer.index, want_group * 8 + landing / 4);
      EXPECT_EQ(peer.port, 11 + landing % 4);
      EXPECT_TRUE(group_pairs.insert({g, want_group}).second) << "two links from group " << g << " to " << want_group;
    }
  EXPECT_EQ(group_pairs.size(), 33u * 32u);
  // Node id = (g*8 + s)*4 + port: a group holds 32 consecutive nodes.
  EXPECT_EQ(t.endpoint_switch[37], 9);
  EXPECT_EQ(t.endpoint_port[37], 1);
  EXPECT_EQ(df_group_of_endpoint(kPaper, 31), 0);
  EXPECT_EQ(df_group_of_endpoint(kPaper, 32), 1);
  EXPECT_EQ(df_group_of_endpoint(kPaper, 1055), 32);
  // Local port of switch 3 to switch 5 of its group, and back.
  EXPECT_EQ(t.ports[3][df_local_port(kPaper, 3, 5)].index, 5);
  EXPECT_EQ(t.ports[3][df_local_port(kPaper, 3, 5)].port, df_local_port(kPaper, 5, 3));
}

TEST(Dragonfly, SmallerGroupCountsRepeatRoundsAndLeaveTheRestUnconnected) {
  // a*h = 8 channels per group, g - 1 = 6 other groups: one full round, 2 channels unconnected.
  const DragonflyParams d{1, 4, 2, 7};
  const Topology t = build_dragonfly(d);
  EXPECT_NO_THROW(check_topology(t));
  EXPECT_EQ(count_class(t, LinkClass::kGlobal), 7 * 6);
  // g - 1 = 4 divides a*h = 8: two links between every pair of groups.
  const DragonflyParams d2{1, 4, 2, 5};
  EXPECT_NO_THROW(check_topology(build_dragonfly(d2)));
  for (int a = 0; a < 5; ++a)
    for (int b = 0; b < 5; ++b) EXPECT_EQ(df_channels_between(d2, a, b).size(), a == b ? 0u : 2u);
  EXPECT_NO_THROW(check_topology(build_dragonfly({2, 3, 1, 1})));  // a single group, no global links
}

TEST(Dragonfly, RejectsBadParametersNamingTheKey) {
  auto message = [](const DragonflyParams& d) {
    try {
      build_dragonfly(d);
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message({4, 8, 4, 34}).find("topology.dragonfly_g"), std::string::npos);
  EXPECT_NE(message({4, 8, 4, 34}).find("a*h+1 = 33"), std::string::npos);
  EXPECT_NE(message({40, 20, 8, 2}).find("at most 64"), std::string::npos);
  EXPECT_NE(message({0, 8, 4, 33}).find("topology.dragonfly_p"), std::string::npos);
  EXPECT_NE(message({4, 8, 0, 2}).find("topology.dragonfly_h"), std::string::npos);
}

TEST(Dragonfly, HopHelpersByHand) {
  // G0.S0 reaches G1 on its own global port 0, landing on G1.S7 (channel 31).
  EXPECT_EQ(df_min_hops(kPaper, 0, 15), 1);
  EXPECT_EQ(df_min_hops(kPaper, 0, 8), 2);   // ... then one local hop to G1.S0
  EXPECT_EQ(df_min_hops(kPaper, 1, 15), 2);  // G0.S1: local to S0, then global
  EXPECT_EQ(df_min_hops(kPaper, 1, 8), 3);   // local, global, local
  EXPECT_EQ(df_min_hops(kPaper, 1, 2), 1);
  EXPECT_EQ(df_min_hops(kPaper, 5, 5), 0);
  EXPECT_EQ(df_min_port_mask(kPaper, 0, 15), 1ULL << df_global_port(kPaper, 0));
  EXPECT_EQ(df_min_port_mask(kPaper, 1, 8), 1ULL << df_local_port(kPaper, 1, 0));
  // Valiant G0.S0 -> G2 (its global port 1, landing on G2.S7 = switch 23) -> G1.S0; G2.S7 holds
  // the G2 -> G1 channel 31 (offset 32), landing on G1 channel 0 = G1.S0: 1 + 1 hops.
  EXPECT_EQ(df_valiant_hops(kPaper, 0, 2, 8), 2);
  EXPECT_EQ(df_valiant_hops(kPaper, 1, 2, 9), df_min_hops(kPaper, 1, 0) + 1 + df_min_hops(kPaper, 23, 9));
  EXPECT_THROW(df_valiant_hops(kPaper, 0, 0, 8), std::logic_error);
  EXPECT_TRUE(ugal_prefers_minimal(10, 3, 6, 5, 0));   // 30 <= 30
  EXPECT_FALSE(ugal_prefers_minimal(11, 3, 6, 5, 0));  // 33 > 30
  EXPECT_TRUE(ugal_prefers_minimal(11, 3, 6, 5, 3));   // bias towards minimal
}

TEST(Dragonfly, IntermediateGroupAvoidsSourceAndDestinationUniformly) {
  std::vector<int> hits(33, 0);
  const int draws = 31 * 1000;
  for (int i = 0; i < draws; ++i) {
    // Evenly spaced words, rounded up so that each of the 31 allowed groups gets exactly 1000.
    const uint32_t word = static_cast<uint32_t>(((static_cast<uint64_t>(i) << 32) + draws - 1) / draws);
    const int m = df_intermediate_group(word, 3, 17, 33);
    ASSERT_GE(m, 0);
    ASSERT_LT(m, 33);
    hits[m] += 1;
  }
  for (int g = 0; g < 33; ++g) EXPECT_EQ(hits[g], g == 3 || g == 17 ? 0 : 1000) << g;
  for (uint32_t w : {0u, 0x80000000u, 0xFFFFFFFFu}) EXPECT_NE(df_intermediate_group(w, 5, 5, 33), 5);
  EXPECT_THROW(df_intermediate_group(0, 0, 1, 2), std::logic_error);
}

// Follow the deterministic ports from switch s to endpoint d; returns switch-to-switch hops and
// counts global hops; fails the test on a loop.
int walk(const Topology& t, const RoutingTables& rt, int s, int d, int* globals) {
  *globals = 0;
  for (int hops = 0; hops < 8; ++hops) {
    const int p = rt.det_port[static_cast<size_t>(s) * rt.num_endpoints + d];
    EXPECT_TRUE(rt.choice_masks[rt.choice_id[static_cast<size_t>(s) * rt.num_endpoints + d]] >> p & 1);
    const PortPeer& peer = t.ports[s][p];
    if (peer.kind == PeerKind::kEndpoint) {
      EXPECT_EQ(peer.index, d);
      return hops;
    }
    if (t.port_class[s][p] == LinkClass::kGlobal) ++*globals;
    s = peer.index;
  }
  ADD_FAILURE() << "route to " << d << " does not end";
  return -1;
}

TEST(Dragonfly, MinimalTablesReachEveryDestinationLocalGlobalLocal) {
  for (const DragonflyParams& d : {kPaper, DragonflyParams{2, 4, 2, 5}, DragonflyParams{1, 4, 2, 7}}) {
    const Topology t = build_dragonfly(d);
    for (RoutingAlgorithm algo : {RoutingAlgorithm::kTable, RoutingAlgorithm::kRandom}) {
      const RoutingTables rt = build_routes(t, algo);
      for (int s = 0; s < t.num_switches(); ++s)
        for (int e = 0; e < t.num_endpoints; ++e) {
          int globals = 0;
          const int hops = walk(t, rt, s, e, &globals);
          EXPECT_EQ(hops, df_min_hops(d, s, t.endpoint_switch[e]));
          EXPECT_LE(hops, 3);
          EXPECT_EQ(globals, df_group_of_switch(d, s) == df_group_of_endpoint(d, e) ? 0 : 1);
        }
    }
  }
  EXPECT_THROW(build_routes(build_dragonfly(kPaper), RoutingAlgorithm::kDmodK), ConfigError);
}

}  // namespace
}  // namespace saturn
