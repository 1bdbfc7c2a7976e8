// Packet-level route caches of Zdornov & Birk (PAPERS-SPEC M17, item 3; route_cache.hpp): the ERT
// worked out by hand, hop-by-hop setup giving exactly the flow engine's routes, bounded PRCs that
// fall back to the default port, data following the setup path, teardown leaving nothing stale,
// and the no-eviction policy.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "host/flow/flow_engine.hpp"
#include "host/topology/topology.hpp"
#include "kernels/flow/flow_route.hpp"
#include "kernels/routing/route_cache.hpp"

namespace saturn {
namespace {

// One trial's route caches over a packet topology (trials = 1).
struct Caches {
  Topology topo;
  FlowTree tr;
  std::vector<int64_t> base;  // [switch] global port of its port 0
  std::vector<uint32_t> gcid;
  std::vector<uint8_t> port;
  std::vector<uint16_t> flows;
  RouteCacheView c;

  Caches(int k, int n, int width, int slots) : topo(build_kary_ntree(k, n, width)), tr(make_flow_tree(k, n, width)) {
    int64_t total = 0;
    for (int s = 0; s < topo.num_switches(); ++s) {
      base.push_back(total);
      total += topo.radix(s);
    }
    gcid.assign(total * slots, kNoGcid);
    port.assign(total * slots, 0);
    flows.assign(total, 0);
    c.prc_gcid = gcid.data();
    c.prc_port = port.data();
    c.port_flows = flows.data();
    c.slots = slots;
    c.trials = 1;
  }
  // Walks one packet from src to dst with `hop` (setup_hop, data_hop or teardown_hop); returns the
  // (switch, output port) of every hop.
  template <class Hop>
  std::vector<std::pair<int, int>> walk(uint32_t src, uint32_t dst, uint32_t id, const Hop& hop) {
    std::vector<std::pair<int, int>> path;
    int sw = topo.endpoint_switch[src], in = topo.endpoint_port[src];
    for (int guard = 0; guard < 64; ++guard) {
      const int out = hop(tr, c, sw, base[sw], in, static_cast<int64_t>(dst), id, 0);
      path.emplace_back(sw, out);
      const PortPeer& peer = topo.ports[sw][out];
      if (peer.kind == PeerKind::kEndpoint) {
        EXPECT_EQ(peer.index, static_cast<int>(dst));
        return path;
      }
      EXPECT_EQ(peer.kind, PeerKind::kSwitch);
      sw = peer.index;
      in = peer.port;
    }
    ADD_FAILURE() << "no delivery in 64 hops";
    return path;
  }
  std::vector<std::pair<int, int>> setup(uint32_t s, uint32_t d, uint32_t id) { return walk(s, d, id, SetupHop{}); }
  std::vector<std::pair<int, int>> data(uint32_t s, uint32_t d, uint32_t id) { return walk(s, d, id, DataHop{}); }
  std::vector<std::pair<int, int>> teardown(uint32_t s, uint32_t d, uint32_t id) { return walk(s, d, id, TeardownHop{}); }
  struct SetupHop {
    int operator()(const FlowTree& t, const RouteCacheView& v, int sw, int64_t b, int in, int64_t d, uint32_t g, int tr) const {
      return setup_hop(t, v, sw, b, in, d, g, tr);
    }
  };
  struct DataHop {
    int operator()(const FlowTree& t, const RouteCacheView& v, int sw, int64_t b, int in, int64_t d, uint32_t g, int tr) const {
      return data_hop(t, v, sw, b, in, d, g, tr);
    }
  };
  struct TeardownHop {
    int operator()(const FlowTree& t, const RouteCacheView& v, int sw, int64_t b, int in, int64_t d, uint32_t g, int tr) const {
      return teardown_hop(t, v, sw, b, in, d, g, tr);
    }
  };
  int max_used() const {
    int m = 0;
    for (int64_t gp = 0; gp < static_cast<int64_t>(flows.size()); ++gp) m = std::max(m, prc_used(c, gp, 0));
    return m;
  }
  int64_t entries() const { return std::count_if(gcid.begin(), gcid.end(), [](uint32_t g) { return g != kNoGcid; }); }
};

// 4-ary 2-tree, width 1: roots 0..3 (one chain), leaves 4..7; ports 0-3 down, 4-7 up, 8 left, 9 right.
TEST(RouteCache, ErtEntriesWorkedOutByHand) {
  const FlowTree tr = make_flow_tree(4, 2, 1);
  ErtEntry e = tree_ert_entry(tr, 4, 2);  // leaf 0 holds node 2: its down port 2
  EXPECT_EQ(e.dp, 2);
  EXPECT_EQ(e.alternates, 0u);
  e = tree_ert_entry(tr, 4, 5);  // node 5 is on leaf 1: D-mod-K up port 4 + (5 mod 4) = 5, the other up ports
  EXPECT_EQ(e.dp, 5);
  EXPECT_EQ(e.alternates, (1u << 4) | (1u << 6) | (1u << 7));
  e = tree_ert_entry(tr, 0, 5);  // root 0: down port 1 (leaf 1); chain start: right lane only
  EXPECT_EQ(e.dp, 1);
  EXPECT_EQ(e.alternates, 1u << 9);
  e = tree_ert_entry(tr, 2, 5);  // root 2: both lanes in the ERT ...
  EXPECT_EQ(e.alternates, (1u << 8) | (1u << 9));
  EXPECT_EQ(tree_hop_candidates(tr, 2, 5, 5).alternates, 1u << 8);  // ... from below, right half: left
  EXPECT_EQ(tree_hop_candidates(tr, 2, 8, 5).alternates, 1u << 9);  // arrived from the left: keeps right
  EXPECT_EQ(tree_hop_candidates(tr, 1, 4, 5).alternates, 1u << 9);  // root 1, left half: right
  EXPECT_EQ(tree_hop_candidates(tr, 4, 0, 5).alternates, (1u << 4) | (1u << 6) | (1u << 7));  // ascent: unfiltered
}

// Setting flows up hop by hop (P permutations in a random order, counts accumulating) gives, link
// for link, the path route_flow gives: one heuristic for both engines. Bounded PRCs included.
TEST(RouteCache, HopByHopSetupIsTheFlowEnginesRoute) {
  struct Case {
    int k, n, width, cache;
  };
  for (const Case cs : {Case{4, 2, 1, 0}, Case{4, 3, 2, 0}, Case{3, 3, 1, 1}, Case{2, 4, 2, 2}, Case{4, 3, 0, 0}}) {
    SCOPED_TRACE(std::to_string(cs.k) + "-ary " + std::to_string(cs.n) + "-tree, width " + std::to_string(cs.width) +
                 ", cache " + std::to_string(cs.cache));
    Caches pk(cs.k, cs.n, cs.width, cs.cache == 0 ? 64 : cs.cache);
    const FlowTree& tr = pk.tr;
    std::vector<uint16_t> count(tr.num_links, 0), prc(tr.num_links, 0);
    std::vector<uint32_t> pool(64, 0);
    FlowView v{};
    v.tree = tr;
    v.p.routing = FlowRouting::kAdaptive;
    v.p.route_cache = cs.cache;
    v.p.path_slots = static_cast<int64_t>(pool.size());
    v.count = count.data();
    v.prc = cs.cache > 0 ? prc.data() : nullptr;
    v.pool = pool.data();
    std::mt19937 rng(5u + static_cast<unsigned>(cs.k * 100 + cs.n * 10 + cs.width));
    std::vector<uint32_t> perm(tr.nodes);
    uint32_t id = 0;
    int horizontal = 0;
    for (int p = 0; p < 3; ++p) {
      std::iota(perm.begin(), perm.end(), 0u);
      std::shuffle(perm.begin(), perm.end(), rng);
      for (uint32_t src = 0; src < static_cast<uint32_t>(tr.nodes); ++src, ++id) {
        const int len = route_flow<FlowCountQuality>(v, FlowSlot{0, 0, 1}, 1, id, src, perm[src], 1.0, 0, &horizontal);
        ASSERT_GT(len, 1);
        std::vector<std::pair<int, int>> want;
        for (int i = 1; i < len; ++i) want.emplace_back(tree_link_port(tr, pool[i]).sw, tree_link_port(tr, pool[i]).port);
        ASSERT_EQ(pk.setup(src, perm[src], id), want) << "flow " << src << "->" << perm[src];
      }
    }
    if (cs.width > 0) EXPECT_GT(horizontal, 0);
    // The flow counts agree link by link.
    for (int64_t l = 2 * int64_t{tr.nodes}; l < tr.num_links; ++l) {
      const SwitchPort sp = tree_link_port(tr, l);
      if (sp.port >= pk.topo.radix(sp.sw) || pk.topo.ports[sp.sw][sp.port].kind == PeerKind::kNone) continue;
      ASSERT_EQ(pk.flows[pk.base[sp.sw] + sp.port], count[l]) << "link " << l;
    }
  }
}

// One PRC entry per port: node 0's flows to nodes on other leaves all default to up port 4 + 0 (D-mod-K
// of destinations 4, 8, 12 on a 4-ary 2-tree). The first takes the DP, the second adapts and fills the
// cache; every later one finds it full and follows the DP with no entry, whatever the counts.
TEST(RouteCache, BoundedCachesNeverOverflowAndFallBackToTheDefaultPort) {
  Caches pk(4, 2, 0, 1);
  const int leaf = pk.topo.endpoint_switch[0];
  const std::vector<uint32_t> dsts = {4, 8, 12, 4, 8, 12};
  for (uint32_t f = 0; f < dsts.size(); ++f) {
    const auto path = pk.setup(0, dsts[f], f);
    ASSERT_LE(pk.max_used(), 1);
    const int want = f == 1 ? 5 : 4;  // the DP (up port 4) except the one flow the cache could hold
    EXPECT_EQ(path[0].second, want) << "flow " << f;
    EXPECT_EQ(prc_lookup(pk.c, pk.base[leaf] + 0, 0, f), f == 1 ? 5 : kNoPrcPort);
  }
  EXPECT_EQ(pk.flows[pk.base[leaf] + 4], 5);
  // Many flows on larger trees with 1 and 2 entries: never more than the size anywhere.
  for (int slots : {1, 2}) {
    Caches big(4, 3, 2, slots);
    std::mt19937 rng(9u);
    for (uint32_t f = 0; f < 400; ++f) {
      big.setup(rng() % 64, rng() % 64, f);
      ASSERT_LE(big.max_used(), slots);
    }
    EXPECT_EQ(big.max_used(), slots);  // and the caches did fill
  }
}

// Data packets follow the setup path (PRC entry, else DP) and so stay in order; teardown retraces
// it, erases exactly its own entries, and after all teardowns no entry and no flow count is left.
TEST(RouteCache, DataFollowsTheSetupPathAndTeardownLeavesNothingStale) {
  for (int slots : {1, 3, 64}) {
    Caches pk(4, 3, 2, slots);
    std::mt19937 rng(21u + static_cast<unsigned>(slots));
    struct Flow {
      uint32_t src, dst;
      std::vector<std::pair<int, int>> path;
    };
    std::vector<Flow> flows;
    for (uint32_t f = 0; f < 192; ++f) {
      const uint32_t s = rng() % 64, d = rng() % 64;
      flows.push_back({s, d, pk.setup(s, d, f)});
    }
    EXPECT_GT(pk.entries(), 0);
    for (uint32_t f = 0; f < flows.size(); ++f) ASSERT_EQ(pk.data(flows[f].src, flows[f].dst, f), flows[f].path) << f;
    std::vector<uint32_t> order(flows.size());
    std::iota(order.begin(), order.end(), 0u);
    std::shuffle(order.begin(), order.end(), rng);
    for (size_t i = 0; i < order.size(); ++i) {
      const uint32_t f = order[i];
      const int64_t before = pk.entries();
      EXPECT_EQ(pk.teardown(flows[f].src, flows[f].dst, f), flows[f].path);
      EXPECT_EQ(std::count(pk.gcid.begin(), pk.gcid.end(), f), 0);  // none of its entries left
      EXPECT_LE(pk.entries(), before);
      // Flows not torn down yet still route as set up.
      if (i + 1 < order.size()) {
        const uint32_t g = order[i + 1];
        ASSERT_EQ(pk.data(flows[g].src, flows[g].dst, g), flows[g].path);
      }
    }
    EXPECT_EQ(pk.entries(), 0);
    for (uint16_t n : pk.flows) ASSERT_EQ(n, 0);
  }
}

// No eviction: a full PRC refuses, keeps its entries, and takes a new one only after a teardown.
TEST(RouteCache, FullCacheRefusesInsteadOfEvicting) {
  std::vector<uint32_t> gcid(2, kNoGcid);
  std::vector<uint8_t> port(2, 0);
  std::vector<uint16_t> flows(1, 0);
  RouteCacheView c{gcid.data(), port.data(), flows.data(), 2, 1};
  EXPECT_TRUE(prc_insert(c, 0, 0, 10, 3));
  EXPECT_TRUE(prc_insert(c, 0, 0, 11, 4));
  EXPECT_FALSE(prc_insert(c, 0, 0, 12, 5));
  EXPECT_EQ(prc_lookup(c, 0, 0, 10), 3);
  EXPECT_EQ(prc_lookup(c, 0, 0, 11), 4);
  EXPECT_EQ(prc_lookup(c, 0, 0, 12), kNoPrcPort);
  EXPECT_TRUE(prc_erase(c, 0, 0, 10));
  EXPECT_FALSE(prc_erase(c, 0, 0, 10));
  EXPECT_TRUE(prc_insert(c, 0, 0, 12, 5));
  EXPECT_EQ(prc_lookup(c, 0, 0, 12), 5);
  EXPECT_EQ(prc_used(c, 0, 0), 2);
}

}  // namespace
}  // namespace saturn
