// Unit tests for build_routes: hop-by-hop path walks, the D-mod-K one-destination-per-down-link property, minimal masks.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "host/config/config_error.hpp"
#include "host/topology/topology.hpp"
#include "kernels/routing/tree_route.hpp"

namespace saturn {
namespace {

size_t entry(const RoutingTables& rt, int s, int d) { return static_cast<size_t>(s) * rt.num_endpoints + d; }

uint64_t mask_of(const RoutingTables& rt, int s, int d) { return rt.choice_masks.at(rt.choice_id.at(entry(rt, s, d))); }

int popcount(uint64_t m) {
  int c = 0;
  for (; m; m &= m - 1) ++c;
  return c;
}

// Base-k digit i of node p in an n-digit number (digit 0 most significant).
int digit(int p, int i, int k, int n) {
  for (int j = n - 1; j > i; --j) p /= k;
  return p % k;
}

// Switch-to-switch hops of a minimal k-ary n-tree route: up to level m and back down, where m is
// the first differing digit among the first n-1 (n-1 when the nodes share a leaf).
int tree_hops(int src, int dst, int k, int n) {
  int m = n - 1;
  for (int i = 0; i < n - 1; ++i)
    if (digit(src, i, k, n) != digit(dst, i, k, n)) {
      m = i;
      break;
    }
  return 2 * (n - 1 - m);
}

// Follows det_port from src's switch; returns the switch hops, or -1 if the walk does not end at
// dst. Each (switch, port) visited is appended to `links`.
int walk(const Topology& t, const RoutingTables& rt, int src, int dst,
         std::vector<std::pair<int, int>>* links = nullptr) {
  int s = t.endpoint_switch[src];
  for (int hops = 0; hops < 4 * t.num_switches() + 4; ++hops) {
    const int p = rt.det_port.at(entry(rt, s, dst));
    if (p >= t.radix(s)) return -1;
    if (links) links->emplace_back(s, p);
    const PortPeer& peer = t.ports[s][p];
    if (peer.kind == PeerKind::kEndpoint) return peer.index == dst ? hops : -1;
    if (peer.kind != PeerKind::kSwitch) return -1;
    s = peer.index;
  }
  return -1;
}

void check_tables_consistent(const Topology& t, const RoutingTables& rt) {
  ASSERT_EQ(rt.num_switches, t.num_switches());
  ASSERT_EQ(rt.num_endpoints, t.num_endpoints);
  ASSERT_EQ(rt.det_port.size(), static_cast<size_t>(t.num_switches()) * t.num_endpoints);
  ASSERT_EQ(rt.choice_id.size(), rt.det_port.size());
  // Masks are deduplicated, and every det port is one of its entry's minimal ports.
  EXPECT_EQ(std::set<uint64_t>(rt.choice_masks.begin(), rt.choice_masks.end()).size(), rt.choice_masks.size());
  for (int s = 0; s < t.num_switches(); ++s)
    for (int d = 0; d < t.num_endpoints; ++d) {
      const uint64_t m = mask_of(rt, s, d);
      ASSERT_NE(m, 0u);
      ASSERT_TRUE(m >> rt.det_port[entry(rt, s, d)] & 1) << "switch " << s << " dest " << d;
    }
}

void check_all_paths_minimal(int k, int n, RoutingAlgorithm algo) {
  const Topology t = build_kary_ntree(k, n);
  const RoutingTables rt = build_routes(t, algo);
  check_tables_consistent(t, rt);
  for (int src = 0; src < t.num_endpoints; ++src)
    for (int dst = 0; dst < t.num_endpoints; ++dst)
      ASSERT_EQ(walk(t, rt, src, dst), tree_hops(src, dst, k, n)) << "src " << src << " dst " << dst;
}

TEST(Routing, TreePathsAreMinimal) {
  for (RoutingAlgorithm a : {RoutingAlgorithm::kDmodK, RoutingAlgorithm::kRandom, RoutingAlgorithm::kTable}) {
    check_all_paths_minimal(2, 3, a);
    check_all_paths_minimal(4, 3, a);
    check_all_paths_minimal(3, 2, a);
    check_all_paths_minimal(2, 4, a);
  }
}

TEST(Routing, HandComputedHopCounts) {
  // 4-ary 3-tree: 13 = (0,3,1), 12 = (0,3,0) share a leaf; 1 = (0,0,1) shares the level-1
  // subtree; 49 = (3,0,1) differs in digit 0.
  EXPECT_EQ(tree_hops(13, 12, 4, 3), 0);
  EXPECT_EQ(tree_hops(13, 1, 4, 3), 2);
  EXPECT_EQ(tree_hops(13, 49, 4, 3), 4);
}

TEST(Routing, DmodKLeafUpPortIsDestinationModK) {
  const Topology t = build_kary_ntree(4, 3);
  const RoutingTables rt = build_routes(t, RoutingAlgorithm::kDmodK);
  const int leaf = t.endpoint_switch[13];  // 35, leaf (0,3)
  for (int d = 0; d < 64; ++d) {
    if (d / 4 == 3) {
      EXPECT_EQ(rt.det_port[entry(rt, leaf, d)], d % 4);  // local: the endpoint port
    } else {
      EXPECT_EQ(rt.det_port[entry(rt, leaf, d)], 4 + d % 4);
    }
  }
  // Middle <(0,1),1> = 17, destination 49 = (3,0,1): not below (w_0 = 0 != 3), up port k + q_1 = 4.
  EXPECT_EQ(rt.det_port[entry(rt, 17, 49)], 4);
  // Destination 7 = (0,1,3) is below it: down port q_1 = 1.
  EXPECT_EQ(rt.det_port[entry(rt, 17, 7)], 1);
}

// D-mod-K: a switch <w,l> in the descent has w = (q_0..q_{l-1}, q_{l+1}..q_{n-1}) and leaves on
// port q_l, so (switch, down port) pins the destination: every down link carries exactly one.
void check_one_destination_per_down_link(int k, int n) {
  const Topology t = build_kary_ntree(k, n);
  const RoutingTables rt = build_routes(t, RoutingAlgorithm::kDmodK);
  std::vector<std::set<int>> dests(static_cast<size_t>(t.num_switches()) * 2 * k);
  for (int src = 0; src < t.num_endpoints; ++src)
    for (int dst = 0; dst < t.num_endpoints; ++dst) {
      std::vector<std::pair<int, int>> links;
      ASSERT_GE(walk(t, rt, src, dst, &links), 0);
      for (auto [s, p] : links) dests[static_cast<size_t>(s) * 2 * k + p].insert(dst);
    }
  const int per_level = t.num_switches() / n;
  for (int s = 0; s < (n - 1) * per_level; ++s)  // every non-leaf switch
    for (int p = 0; p < k; ++p) {
      const std::set<int>& ds = dests[static_cast<size_t>(s) * 2 * k + p];
      ASSERT_EQ(ds.size(), 1u) << "switch " << t.switch_names[s] << " down port " << p;
      // Roots: the one destination's last digit is the root's last w digit.
      if (s < per_level) {
        EXPECT_EQ(*ds.begin() % k, s % k);
      }
    }
}

TEST(Routing, DmodKOneDestinationPerDownLink) {
  check_one_destination_per_down_link(4, 3);
  check_one_destination_per_down_link(2, 3);
  check_one_destination_per_down_link(3, 3);
}

TEST(Routing, RandomMasksOnTree) {
  const Topology t = build_kary_ntree(4, 3);
  const RoutingTables rt = build_routes(t, RoutingAlgorithm::kRandom);
  const RoutingTables dk = build_routes(t, RoutingAlgorithm::kDmodK);
  EXPECT_EQ(rt.det_port, dk.det_port);  // deterministic fallback is D-mod-K
  const int leaf = t.endpoint_switch[13];
  EXPECT_EQ(mask_of(rt, leaf, 49), 0xF0u);  // remote: all k up ports k..2k-1
  EXPECT_EQ(popcount(mask_of(rt, leaf, 49)), 4);
  EXPECT_EQ(mask_of(rt, leaf, 12), 1u << 0);  // local: only the endpoint port
  EXPECT_EQ(mask_of(rt, 17, 49), 0xF0u);      // middle, not below: up
  EXPECT_EQ(mask_of(rt, 17, 7), 1u << 1);     // middle, below: the one down port
  for (int d = 0; d < 64; ++d) EXPECT_EQ(popcount(mask_of(rt, 0, d)), 1);  // roots only go down
  // Table routing finds the same minimal sets by BFS; its deterministic port is the (d mod n)-th
  // minimal port, which on the tree's up set is D-mod-K's k + d mod k.
  const RoutingTables tb = build_routes(t, RoutingAlgorithm::kTable);
  for (int s = 0; s < t.num_switches(); ++s)
    for (int d = 0; d < 64; ++d) ASSERT_EQ(mask_of(tb, s, d), mask_of(rt, s, d)) << s << " " << d;
  EXPECT_EQ(tb.det_port[entry(tb, leaf, 49)], 5);
}

// The kernels' closed form (kernels/routing/tree_route.hpp, used where k is a power of two) gives
// the tables' D-mod-K port and minimal set for every (switch, destination), horizontal links or not.
TEST(Routing, ClosedFormTreeRoutesEqualTheTables) {
  struct Case { int k, n, width; };
  for (const Case c : {Case{2, 1, 0}, Case{2, 3, 0}, Case{2, 6, 0}, Case{4, 1, 0}, Case{4, 3, 0}, Case{4, 3, 2},
                       Case{8, 2, 0}, Case{8, 3, 1}, Case{16, 3, 0}, Case{32, 2, 0}}) {
    const Topology t = build_kary_ntree(c.k, c.n, c.width);
    const RoutingTables rt = build_routes(t, RoutingAlgorithm::kRandom);
    const RoutingTables dk = build_routes(t, RoutingAlgorithm::kDmodK);
    int lg = 0;
    while ((1 << lg) < c.k) ++lg;
    for (int s = 0; s < t.num_switches(); ++s)
      for (int d = 0; d < t.num_endpoints; ++d) {
        const TreeRoute r = tree_route(s, static_cast<uint32_t>(d), lg, c.n);
        ASSERT_EQ(r.port, dk.det_port[entry(dk, s, d)]) << c.k << "-ary " << c.n << "-tree, switch " << s << ", to " << d;
        ASSERT_EQ(tree_route_mask(r, lg), mask_of(rt, s, d)) << c.k << "-ary " << c.n << "-tree, switch " << s << ", to " << d;
      }
  }
}

TEST(Routing, BigTreeMaskCount) {
  const Topology t = build_kary_ntree(16, 3);
  const RoutingTables rt = build_routes(t, RoutingAlgorithm::kRandom);
  EXPECT_EQ(rt.choice_masks.size(), 33u);  // 32 single ports + the up set
  EXPECT_EQ(walk(t, rt, 0, 4095), 4);
}

TEST(Routing, DmodKNeedsTree) {
  const Topology t = build_zdornov_fig1();
  try {
    build_routes(t, RoutingAlgorithm::kDmodK);
    ADD_FAILURE() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("dmodk"), std::string::npos);
  }
}

TEST(Routing, TableOnZdornov) {
  const Topology t = build_zdornov_fig1();
  for (RoutingAlgorithm a : {RoutingAlgorithm::kTable, RoutingAlgorithm::kRandom}) {
    const RoutingTables rt = build_routes(t, a);
    check_tables_consistent(t, rt);
    EXPECT_EQ(rt.det_port[entry(rt, 0, 6)], 4);  // sw1 -> d1 over the link
    EXPECT_EQ(rt.det_port[entry(rt, 0, 7)], 4);  // sw1 -> d2 over the link
    EXPECT_EQ(t.link_name(0, rt.det_port[entry(rt, 0, 7)]), "sw1->sw2");
    EXPECT_EQ(rt.det_port[entry(rt, 1, 6)], 2);
    EXPECT_EQ(rt.det_port[entry(rt, 1, 7)], 3);
    EXPECT_EQ(rt.det_port[entry(rt, 1, 0)], 4);  // sw2 -> s1 back over the link
    EXPECT_EQ(mask_of(rt, 0, 7), 1u << 4);
    for (int src = 0; src < 8; ++src)
      for (int dst = 0; dst < 8; ++dst)
        EXPECT_EQ(walk(t, rt, src, dst), t.endpoint_switch[src] == t.endpoint_switch[dst] ? 0 : 1);
  }
}

TEST(Routing, TableOnSantos) {
  const Topology t = build_santos_fig1(5, 5);
  const RoutingTables rt = build_routes(t, RoutingAlgorithm::kTable);
  check_tables_consistent(t, rt);
  const int b_c = 5 + 5 + 1;
  EXPECT_EQ(t.link_name(0, rt.det_port[entry(rt, 0, b_c)]), "A->B");
  EXPECT_EQ(t.link_name(1, rt.det_port[entry(rt, 1, b_c)]), "B->B_C");
}

// A 4-switch ring with a doubled link: opposite switches have two minimal directions, and
// parallel links are all minimal.
TEST(Routing, TableOnEdgeListRing) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / "saturn_routing_tests";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "ring.txt").string();
  std::ofstream(path) << "switch S0\nswitch S1\nswitch S2\nswitch S3\n"
                         "endpoint e0 S0\nendpoint e1 S1\nendpoint e2 S2\nendpoint e3 S3\n"
                         "link S0 S1 2\nlink S1 S2\nlink S2 S3\nlink S3 S0\n";
  // S0: e0 0, S1 on 1 and 2, S3 on 3.  S2: e2 0, S1 on 1, S3 on 2.
  const Topology t = load_edge_list(path);
  const RoutingTables rt = build_routes(t, RoutingAlgorithm::kTable);
  check_tables_consistent(t, rt);
  EXPECT_EQ(mask_of(rt, 0, 1), 0b110u);   // both parallel links to S1
  EXPECT_EQ(rt.det_port[entry(rt, 0, 1)], 2);  // destination 1: the 2nd (1 mod 2) minimal port
  EXPECT_EQ(mask_of(rt, 0, 2), 0b1110u);  // S2 is two hops either way
  EXPECT_EQ(rt.det_port[entry(rt, 0, 2)], 3);  // destination 2: the 3rd (2 mod 3)
  EXPECT_EQ(mask_of(rt, 2, 0), 0b110u);
  EXPECT_EQ(mask_of(rt, 0, 0), 0b1u);
  for (int src = 0; src < 4; ++src)
    for (int dst = 0; dst < 4; ++dst) {
      const int gap = (dst - src + 4) % 4;
      EXPECT_EQ(walk(t, rt, src, dst), gap == 3 ? 1 : gap);
    }
  EXPECT_THROW(build_routes(t, RoutingAlgorithm::kDmodK), ConfigError);
}

}  // namespace
}  // namespace saturn
