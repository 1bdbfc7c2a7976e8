// Unit tests for the 3-stage real-life fat tree (M3, 003 Table 3) and its D-mod-K and random routes (M14, M15).
#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "host/config/config_error.hpp"
#include "host/topology/dragonfly.hpp"
#include "host/topology/topology.hpp"

namespace saturn {
namespace {

TEST(Rlft, Table3Counts) {
  for (const auto& [radix, nodes, switches] : std::vector<std::tuple<int, int, int>>{{12, 432, 180}, {24, 3456, 720}}) {
    const Topology t = build_rlft(radix);
    EXPECT_NO_THROW(check_topology(t));  // every link symmetric, every endpoint attached once
    EXPECT_EQ(t.num_endpoints, nodes);
    EXPECT_EQ(t.num_switches(), switches);
    EXPECT_EQ(t.max_radix(), radix);
    EXPECT_EQ(t.connected_ports(), t.total_ports());  // no port left free at any stage
    const TopologyCounts c = rlft_counts(radix);
    EXPECT_EQ(c.switches, switches);
    EXPECT_EQ(c.endpoints, nodes);
    EXPECT_EQ(c.ports, t.total_ports());
    // 003 §2.1: S = N (2n - 1) / (2K) with n = 3.
    EXPECT_EQ(switches, nodes * 5 / radix);
  }
}

TEST(Rlft, NodeNumberingPutsThePaperHotSpotsInTheM3Pods) {
  const Topology t = build_rlft(12);  // K = 6, a pod holds 36 nodes on leaves 6*pod .. 6*pod+5
  const std::map<int, int> pod_of{{4, 0}, {120, 3}, {244, 6}, {431, 11}};
  for (const auto& [node, pod] : pod_of) EXPECT_EQ(t.endpoint_switch[node] / 6, pod) << node;
  EXPECT_EQ(t.endpoint_switch[7], 1);
  EXPECT_EQ(t.endpoint_port[7], 1);
  const Topology big = build_rlft(24);
  for (const auto& [node, pod] : std::map<int, int>{{0, 0}, {889, 6}, {1772, 12}, {3454, 23}})
    EXPECT_EQ(big.endpoint_switch[node] / 12, pod) << node;
}

TEST(Rlft, RejectsRadixNamingTheKey) {
  for (int radix : {2, 13, 66}) {
    try {
      build_rlft(radix);
      ADD_FAILURE() << radix;
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find("topology.rlft_radix"), std::string::npos);
    }
  }
  EXPECT_NO_THROW(check_topology(build_rlft(4)));  // any even radix is a valid RLFT
}

// Switch-graph distances to switch `target` (BFS).
std::vector<int> distances(const Topology& t, int target) {
  std::vector<int> dist(t.num_switches(), -1);
  std::deque<int> q{target};
  dist[target] = 0;
  while (!q.empty()) {
    const int s = q.front();
    q.pop_front();
    for (const PortPeer& p : t.ports[s])
      if (p.kind == PeerKind::kSwitch && dist[p.index] < 0) dist[p.index] = dist[s] + 1, q.push_back(p.index);
  }
  return dist;
}

TEST(Rlft, EveryRouteIsShortestForDmodKAndRandom) {
  for (int radix : {4, 12}) {
    const Topology t = build_rlft(radix);
    for (RoutingAlgorithm algo : {RoutingAlgorithm::kDmodK, RoutingAlgorithm::kRandom, RoutingAlgorithm::kTable}) {
      const RoutingTables rt = build_routes(t, algo);
      std::map<int, std::vector<int>> dist_to;  // per destination leaf
      for (int d = 0; d < t.num_endpoints; ++d) {
        const int leaf = t.endpoint_switch[d];
        if (!dist_to.count(leaf)) dist_to[leaf] = distances(t, leaf);
        const std::vector<int>& dist = dist_to[leaf];
        for (int s = 0; s < t.num_switches(); ++s) {
          const size_t i = static_cast<size_t>(s) * t.num_endpoints + d;
          const uint64_t mask = rt.choice_masks[rt.choice_id[i]];
          ASSERT_TRUE(mask >> rt.det_port[i] & 1);
          // Every minimal choice moves one hop closer (or ejects at the destination's leaf).
          for (int p = 0; p < t.radix(s); ++p) {
            if (!(mask >> p & 1)) continue;
            const PortPeer& peer = t.ports[s][p];
            if (s == leaf) {
              EXPECT_EQ(peer.kind, PeerKind::kEndpoint);
              EXPECT_EQ(peer.index, d);
            } else {
              ASSERT_EQ(peer.kind, PeerKind::kSwitch);
              EXPECT_EQ(dist[peer.index], dist[s] - 1) << "switch " << s << " port " << p << " dest " << d;
            }
          }
        }
      }
    }
  }
}

TEST(Rlft, DmodKGivesEachTopSwitchOneDestinationPerPodAndEachDownLinkOne) {
  for (int radix : {12, 24}) {
    const Topology t = build_rlft(radix);
    const int k = radix / 2, leaves = 2 * k * k;
    const RoutingTables rt = build_routes(t, RoutingAlgorithm::kDmodK);
    std::map<int, std::set<int>> top_dests;                   // top switch -> destinations through it
    std::map<std::pair<int, int>, std::set<int>> down_dests;  // (switch, down port) -> destinations
    for (int d = 0; d < t.num_endpoints; ++d)
      for (int src_leaf = 0; src_leaf < leaves; ++src_leaf) {
        int s = src_leaf;
        bool up = true;
        for (int hops = 0; hops < 6; ++hops) {
          const int p = rt.det_port[static_cast<size_t>(s) * t.num_endpoints + d];
          const PortPeer& peer = t.ports[s][p];
          if (s >= 2 * leaves) top_dests[s].insert(d);
          if (s >= 2 * leaves || p < k) up = false;
          if (!up) down_dests[{s, p}].insert(d);
          if (peer.kind == PeerKind::kEndpoint) {
            ASSERT_EQ(peer.index, d);
            break;
          }
          s = peer.index;
        }
      }
    ASSERT_EQ(static_cast<int>(top_dests.size()), k * k);  // every root is used
    for (const auto& [top, dests] : top_dests) {
      EXPECT_EQ(static_cast<int>(dests.size()), 2 * k) << "top switch " << top;
      std::set<int> pods;
      for (int d : dests) pods.insert(d / (k * k));
      EXPECT_EQ(static_cast<int>(pods.size()), 2 * k) << "top switch " << top;
    }
    for (const auto& [link, dests] : down_dests) EXPECT_EQ(dests.size(), 1u) << link.first << ":" << link.second;
  }
}

}  // namespace
}  // namespace saturn
