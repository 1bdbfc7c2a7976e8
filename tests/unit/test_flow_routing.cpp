// Flow engine routing on small (modified) k-ary n-trees: the closed-form link ids against the
// topology builder, and routes, counts and contention worked out by hand.
#include <gtest/gtest.h>

#include <vector>

#include "host/flow/flow_engine.hpp"
#include "host/topology/topology.hpp"
#include "kernels/flow/flow_route.hpp"

namespace saturn {
namespace {

// One trial's scratch in host memory (tile = 1), for calling route_flow directly.
struct HostTrial {
  FlowTree tree;
  std::vector<uint16_t> count, prc;
  std::vector<uint32_t> pool;
  FlowView v{};
  FlowSlot s{0, 0, 1};
  int64_t pos = 0;
  int horizontal = 0;

  HostTrial(int k, int n, int width, FlowRouting routing, int route_cache = 0) {
    tree = make_flow_tree(k, n, width);
    count.assign(tree.num_links, 0);
    prc.assign(tree.num_links, 0);
    pool.assign(1024, 0);
    v.tree = tree;
    v.p.routing = routing;
    v.p.route_cache = route_cache;
    v.p.path_slots = static_cast<int64_t>(pool.size());
    v.count = count.data();
    v.prc = route_cache > 0 ? prc.data() : nullptr;
    v.pool = pool.data();
  }
  // Routes one flow; returns its links.
  std::vector<int64_t> route(uint32_t src, uint32_t dst, uint32_t f = 0) {
    const int len = route_flow<FlowCountQuality>(v, s, 1, f, src, dst, 1.0, pos, &horizontal);
    EXPECT_GT(len, 0);
    std::vector<int64_t> links(pool.begin() + pos, pool.begin() + pos + len);
    pos += len;
    return links;
  }
};

// The switch id and port a closed-form link leaves from, and the switch it reaches (-1 = endpoint).
struct LinkEnds {
  int from, port, to;
};
LinkEnds ends(const FlowTree& t, int64_t id) {
  const int k = t.k, S = t.per_level;
  if (id >= t.hz_base) {
    const int64_t r = id - t.hz_base;
    const int h = static_cast<int>(r % t.width);
    const int right = static_cast<int>((r / t.width) % 2);
    const int64_t sw = r / t.width / 2;  // l * S + w
    return {static_cast<int>(sw), 2 * k + (right ? t.width : 0) + h, static_cast<int>(sw + (right ? 1 : -1))};
  }
  if (id >= t.down_base) {
    const int64_t r = id - t.down_base;
    const int j = static_cast<int>(r % k);
    const int64_t sw = r / k;
    const int l = static_cast<int>(sw / S);
    const int64_t w = sw % S;
    const int64_t child = w + static_cast<int64_t>(j - t.digit(w, l)) * t.place[l];
    return {static_cast<int>(sw), j, static_cast<int>((l + 1) * S + child)};
  }
  const int64_t r = id - t.up_base;
  const int a = static_cast<int>(r % k);
  const int64_t sw = r / k + S;  // up links start at level 1
  const int lvl = static_cast<int>(sw / S);
  const int64_t w = sw % S;
  const int64_t parent = w + static_cast<int64_t>(a - t.digit(w, lvl - 1)) * t.place[lvl - 1];
  return {static_cast<int>(sw), k + a, static_cast<int>((lvl - 1) * S + parent)};
}

TEST(FlowTree, ClosedFormLinksAreTheTopologyBuildersLinks) {
  for (int k : {2, 3, 4}) {
    for (int n : {1, 2, 3}) {
      for (int width : {0, 1, 2}) {
        SCOPED_TRACE(std::to_string(k) + "-ary " + std::to_string(n) + "-tree, width " + std::to_string(width));
        const Topology topo = build_kary_ntree(k, n, width);
        check_topology(topo);
        const FlowTree t = make_flow_tree(k, n, width);
        ASSERT_EQ(t.nodes, topo.num_endpoints);
        int used_hz = 0;
        for (int64_t id = t.up_base; id < t.num_links; ++id) {
          const LinkEnds e = ends(t, id);
          ASSERT_LT(e.from, topo.num_switches());
          ASSERT_LT(e.port, topo.radix(e.from));
          const PortPeer& peer = topo.ports[e.from][e.port];
          if (id >= t.hz_base && peer.kind == PeerKind::kNone) continue;  // chain-end slot, never routed
          used_hz += id >= t.hz_base;
          ASSERT_EQ(peer.kind, PeerKind::kSwitch) << "link " << id;
          EXPECT_EQ(peer.index, e.to) << "link " << id;
        }
        // Chains of k^(n-1-l) switches on levels 0..n-2: (size - 1) adjacent pairs, width lanes, 2 directions.
        int pairs = 0;
        for (int l = 0, size = t.per_level; l + 1 < n; ++l, size /= k) pairs += (t.per_level / size) * (size - 1);
        EXPECT_EQ(used_hz, 2 * pairs * width);
        EXPECT_EQ(topo.connected_ports(), t.nodes * (2 * n - 1) + 2 * pairs * width);
      }
    }
  }
}

TEST(FlowTree, SixteenAryThreeTreeWidthTwoAddsNinePointSevenPercentPorts) {
  const Topology plain = build_kary_ntree(16, 3, 0), modified = build_kary_ntree(16, 3, 2);
  EXPECT_EQ(plain.num_switches(), 768);
  EXPECT_EQ(plain.connected_ports(), 20480);
  EXPECT_EQ(modified.connected_ports() - plain.connected_ports(), 1980);  // 495 pairs x 2 lanes x 2 ends
  EXPECT_NEAR(100.0 * 1980 / 20480, 9.67, 0.01);
  check_topology(modified);
}

// 2-ary 3-tree: nodes 0..7, digits (p0 p1 p2). D-mod-K: the leaf goes up on port q2, the middle
// switch on port q1. Flows 0->4 and 1->6 both have q2 = 0: they share leaf <00>'s up link 0.
TEST(FlowRouting, DmodKSharesTheLeafUpLinkAsWorkedOutByHand) {
  HostTrial h(2, 3, 0, FlowRouting::kDmodK);
  const FlowTree& t = h.tree;
  const auto a = h.route(0, 4);
  const auto b = h.route(1, 6);
  const auto c = h.route(2, 5);
  // 0 -> 4: inj 0, leaf <00> up 0 (to middle <00>), middle <00> up 0 (root <00>), root <00> down 1
  // (middle <10>), middle <10> down 0 (leaf <10>), ej 4.
  const std::vector<int64_t> want_a = {t.inj(0), t.up(2, 0, 0), t.up(1, 0, 0), t.down(0, 0, 1), t.down(1, 2, 0), t.ej(4)};
  EXPECT_EQ(a, want_a);
  EXPECT_EQ(b[1], a[1]);  // the shared leaf up link
  EXPECT_EQ(h.count[a[1]], 2);
  EXPECT_EQ(c.size(), 6u);
  // Contention: a and b see 2 (the shared link), c sees 1 everywhere.
  for (int64_t l : c) EXPECT_EQ(h.count[l], 1);
}

TEST(FlowRouting, AdaptiveAscentAvoidsTheLoadedUpPortAndTiesKeepTheDefault) {
  HostTrial h(2, 3, 0, FlowRouting::kAdaptive);
  const FlowTree& t = h.tree;
  const auto a = h.route(0, 4);  // all counts 0: ties keep the default (D-mod-K) ports
  EXPECT_EQ(a[1], t.up(2, 0, 0));
  EXPECT_EQ(a[2], t.up(1, 0, 0));
  const auto b = h.route(1, 6);  // default up port 0 of leaf <00> has 1 flow, port 1 none
  EXPECT_EQ(b[1], t.up(2, 0, 1));
  EXPECT_EQ(b[2], t.up(1, 1, 1));  // middle <01>: its default port q1 = 1 is free
  const auto c = h.route(2, 5);
  for (const auto* path : {&a, &b, &c})
    for (int64_t l : *path) EXPECT_EQ(h.count[l], 1);  // contention 1 for every flow
}

// 4-ary 2-tree with width 1: one chain of 4 roots. Two flows to node 4 (leaf 1) both default to root
// 0 (q1 = 0). The second finds root 0 -> leaf 1 loaded and root 0 -> root 1 free (root 0 is in the
// left half: it goes right), takes one horizontal hop, then goes down from root 1.
TEST(FlowRouting, DescentTakesHorizontalHopsInTheDirectionOfTheChainHalf) {
  HostTrial h(4, 2, 1, FlowRouting::kAdaptive);
  const FlowTree& t = h.tree;
  const auto a = h.route(0, 4);
  const std::vector<int64_t> want_a = {t.inj(0), t.up(1, 0, 0), t.down(0, 0, 1), t.ej(4)};
  EXPECT_EQ(a, want_a);
  const auto b = h.route(8, 4);
  const std::vector<int64_t> want_b = {t.inj(8), t.up(1, 2, 0), t.hz(0, 0, 1, 0), t.down(0, 1, 1), t.ej(4)};
  EXPECT_EQ(b, want_b);
  EXPECT_EQ(h.horizontal, 1);
  // Root 3 is in the right half: it goes left, to root 2.
  const auto c = h.route(3, 7);    // q1 = 3: root 3, down to leaf 1
  const auto d = h.route(11, 7);   // the same root; root 3 -> leaf 1 loaded, root 3 -> root 2 free
  const std::vector<int64_t> want_d = {t.inj(11), t.up(1, 2, 3), t.hz(0, 3, 0, 0), t.down(0, 2, 1), t.ej(7)};
  EXPECT_EQ(d, want_d);
  EXPECT_EQ(c.size(), 4u);
}

TEST(FlowRouting, StaticRoutingNeverUsesHorizontalLinks) {
  HostTrial h(4, 2, 2, FlowRouting::kDmodK);
  h.route(0, 4);
  const auto b = h.route(8, 4);
  EXPECT_EQ(b.size(), 4u);
  EXPECT_EQ(h.horizontal, 0);
  EXPECT_EQ(h.count[h.tree.down(0, 0, 1)], 2);
}

// Three flows from node 0 whose default up port is 0: with unlimited PRCs they spread over ports
// 0, 1, 2; with one PRC entry at node 0's injection port only the second may adapt, and the third
// finds the cache full and follows the default port.
TEST(FlowRouting, FullRouteCacheSendsTheFlowOnTheDefaultPort) {
  for (int cache : {0, 1}) {
    HostTrial h(4, 2, 0, FlowRouting::kAdaptive, cache);
    const auto a = h.route(0, 4, 0), b = h.route(0, 8, 1), c = h.route(0, 12, 2);
    EXPECT_EQ(a[1], h.tree.up(1, 0, 0));
    EXPECT_EQ(b[1], h.tree.up(1, 0, 1));
    EXPECT_EQ(c[1], h.tree.up(1, 0, cache == 0 ? 2 : 0)) << "route cache " << cache;
    if (cache > 0) EXPECT_EQ(h.prc[h.tree.inj(0)], 1);
  }
}

TEST(FlowRouting, RandomRoutingIsMinimalAndAFunctionOfSeedAndFlow) {
  HostTrial h1(4, 3, 0, FlowRouting::kRandom), h2(4, 3, 0, FlowRouting::kRandom);
  for (uint32_t f = 0; f < 64; ++f) {
    const auto a = h1.route(f, 63 - f, f), b = h2.route(f, 63 - f, f);
    EXPECT_EQ(a, b);
    EXPECT_LE(a.size(), 6u);
  }
}

}  // namespace
}  // namespace saturn
