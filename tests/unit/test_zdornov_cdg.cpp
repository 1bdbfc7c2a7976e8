// Deadlock freedom of Zdornov & Birk's adaptive routing on the modified k-ary n-tree (PAPERS-SPEC
// M17, M18, item 4): the channel dependency graph of the M18 hop rule (route_cache.hpp's
// tree_hop_candidates, built on flow_route.hpp's helpers) is acyclic for several k, n and widths;
// the flow engine's routes only take hops that rule allows; and rules that break M18 (direction
// re-chosen at every hop, both directions, up after down) give a cycle, so the check can fail.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "host/flow/flow_engine.hpp"
#include "host/topology/channel_dependency.hpp"
#include "host/topology/topology.hpp"
#include "kernels/flow/flow_route.hpp"
#include "kernels/routing/route_cache.hpp"

namespace saturn {
namespace {

uint64_t lanes_mask(const FlowTree& tr, int right) {
  const uint64_t lanes = (1ull << tr.width) - 1;
  return lanes << (2 * tr.k + (right ? tr.width : 0));
}

// M18 as implemented: the DP plus every alternate the port selector may pick.
HopRule m18_rule(const FlowTree& tr) {
  return [tr](int sw, int in, int dst) {
    const ErtEntry e = tree_hop_candidates(tr, sw, in, dst);
    return (1ull << e.dp) | e.alternates;
  };
}
HopRule dmodk_rule(const FlowTree& tr) {
  return [tr](int sw, int, int dst) { return 1ull << tree_ert_entry(tr, sw, dst).dp; };
}
// Broken: the direction chosen again by position at every hop (not once per level).
HopRule direction_per_hop_rule(const FlowTree& tr) {
  return [tr](int sw, int, int dst) {
    ErtEntry e = tree_ert_entry(tr, sw, dst);
    if (e.dp < tr.k && e.alternates != 0) e.alternates &= lanes_mask(tr, descent_goes_right(tr, sw / tr.per_level, sw % tr.per_level));
    return (1ull << e.dp) | e.alternates;
  };
}
// Broken: horizontal hops in both directions (no direction rule).
HopRule both_directions_rule(const FlowTree& tr) {
  return [tr](int sw, int, int dst) {
    const ErtEntry e = tree_ert_entry(tr, sw, dst);
    return (1ull << e.dp) | e.alternates;
  };
}
// Broken: a descending packet may go up again (a "valley" route).
HopRule up_after_down_rule(const FlowTree& tr) {
  return [tr](int sw, int in, int dst) {
    const ErtEntry e = tree_hop_candidates(tr, sw, in, dst);
    uint64_t m = (1ull << e.dp) | e.alternates;
    if (tree_arrival(tr, in) == Arrival::kFromAbove && sw >= tr.per_level) m |= ((1ull << tr.k) - 1) << tr.k;
    return m;
  };
}

bool horizontal_channel(const Topology& topo, const ChannelDependencyGraph& g, const FlowTree& tr, int32_t c) {
  for (int s = 0; s < topo.num_switches(); ++s)
    if (c >= g.port_base[s] && c < g.port_base[s] + topo.radix(s)) return c - g.port_base[s] >= 2 * tr.k;
  return false;
}

std::string describe(const Topology& topo, const ChannelDependencyGraph& g, const std::vector<int32_t>& cycle) {
  std::string s;
  for (int32_t c : cycle) s += channel_name(topo, g, c) + "  ";
  return s;
}

TEST(ZdornovCdg, AdaptiveRoutingWithTheDirectionRuleIsDeadlockFree) {
  struct Case {
    int k, n;
  };
  for (const Case c : {Case{2, 1}, Case{2, 2}, Case{2, 3}, Case{2, 4}, Case{3, 2}, Case{3, 3}, Case{4, 2}, Case{4, 3},
                       Case{5, 2}, Case{8, 2}}) {
    for (int width : {0, 1, 2, 3}) {
      SCOPED_TRACE(std::to_string(c.k) + "-ary " + std::to_string(c.n) + "-tree, width " + std::to_string(width));
      const Topology topo = build_kary_ntree(c.k, c.n, width);
      const FlowTree tr = make_flow_tree(c.k, c.n, width);
      const ChannelDependencyGraph g = build_channel_dependencies(topo, m18_rule(tr));
      const std::vector<int32_t> cycle = find_dependency_cycle(g);
      EXPECT_TRUE(cycle.empty()) << describe(topo, g, cycle);
      // The rule is exercised: horizontal channels have dependencies in and out, and a chain of
      // three or more switches chains horizontal hops.
      int64_t into_hz = 0, hz_to_hz = 0;
      for (int32_t from = 0; from < g.num_channels; ++from)
        for (int32_t to : g.next[from]) {
          if (!horizontal_channel(topo, g, tr, to)) continue;
          ++into_hz;
          hz_to_hz += horizontal_channel(topo, g, tr, from);
        }
      const bool chains = c.n > 1 && c.k > 1 && width > 0;
      EXPECT_EQ(into_hz > 0, chains);
      if (chains && tr.per_level >= 3) EXPECT_GT(hz_to_hz, 0);
      // Static D-mod-K on the same topology: acyclic too, and a subgraph of the adaptive one.
      const ChannelDependencyGraph d = build_channel_dependencies(topo, dmodk_rule(tr));
      EXPECT_TRUE(find_dependency_cycle(d).empty());
      EXPECT_LE(d.edges(), g.edges());
    }
  }
}

TEST(ZdornovCdg, RulesThatBreakM18HaveACycle) {
  const Topology topo = build_kary_ntree(4, 2, 1);
  const FlowTree tr = make_flow_tree(4, 2, 1);
  // Root chain 0-1-2-3: re-choosing by position sends root 1 -> 2 (left half) and 2 -> 1 (right half).
  for (const HopRule& rule : {direction_per_hop_rule(tr), both_directions_rule(tr)}) {
    const ChannelDependencyGraph g = build_channel_dependencies(topo, rule);
    const std::vector<int32_t> cycle = find_dependency_cycle(g);
    ASSERT_FALSE(cycle.empty());
    for (int32_t c : cycle) EXPECT_TRUE(horizontal_channel(topo, g, tr, c)) << describe(topo, g, cycle);
  }
  // Up after down: a cycle even without horizontal links.
  for (int width : {0, 2}) {
    const Topology t2 = build_kary_ntree(3, 3, width);
    const FlowTree f2 = make_flow_tree(3, 3, width);
    const ChannelDependencyGraph g = build_channel_dependencies(t2, up_after_down_rule(f2));
    EXPECT_FALSE(find_dependency_cycle(g).empty()) << "width " << width;
  }
  // Larger trees: the per-hop direction bug is caught at every level that has a chain.
  const Topology big = build_kary_ntree(3, 3, 2);
  const ChannelDependencyGraph g = build_channel_dependencies(big, direction_per_hop_rule(make_flow_tree(3, 3, 2)));
  EXPECT_FALSE(find_dependency_cycle(g).empty());
}

// The check finds a hand-made two-channel cycle and names it; a DAG has none.
TEST(ZdornovCdg, CycleSearchOnHandMadeGraphs) {
  ChannelDependencyGraph g;
  g.num_channels = 5;
  g.next = {{1}, {2, 3}, {}, {4}, {3}};
  const std::vector<int32_t> cycle = find_dependency_cycle(g);
  ASSERT_EQ(cycle.size(), 2u);
  EXPECT_EQ(std::min(cycle[0], cycle[1]), 3);
  EXPECT_EQ(std::max(cycle[0], cycle[1]), 4);
  g.next[4].clear();
  EXPECT_TRUE(find_dependency_cycle(g).empty());
}

// Every hop of the flow engine's adaptive routes (route_flow, counts accumulating over P random
// permutations, unlimited and bounded PRCs) is one the M18 rule allows: the acyclic graph above
// covers what the flow engine does.
TEST(ZdornovCdg, FlowEngineRoutesOnlyTakeHopsTheRuleAllows) {
  struct Case {
    int k, n, width, cache;
  };
  int64_t horizontal_total = 0;
  for (const Case c : {Case{4, 2, 1, 0}, Case{4, 3, 2, 0}, Case{3, 3, 1, 2}, Case{2, 4, 2, 0}, Case{5, 2, 3, 1}}) {
    SCOPED_TRACE(std::to_string(c.k) + "-ary " + std::to_string(c.n) + "-tree, width " + std::to_string(c.width));
    const Topology topo = build_kary_ntree(c.k, c.n, c.width);
    const FlowTree tr = make_flow_tree(c.k, c.n, c.width);
    std::vector<uint16_t> count(tr.num_links, 0), prc(tr.num_links, 0);
    std::vector<uint32_t> pool(1 << 16, 0);
    FlowView v{};
    v.tree = tr;
    v.p.routing = FlowRouting::kAdaptive;
    v.p.route_cache = c.cache;
    v.p.path_slots = static_cast<int64_t>(pool.size());
    v.count = count.data();
    v.prc = c.cache > 0 ? prc.data() : nullptr;
    v.pool = pool.data();
    const FlowSlot s{0, 0, 1};
    std::mt19937 rng(17u + static_cast<unsigned>(c.k * 100 + c.n * 10 + c.width));
    std::vector<uint32_t> perm(tr.nodes);
    int64_t pos = 0;
    int horizontal = 0;
    for (int p = 0; p < 3; ++p) {
      std::iota(perm.begin(), perm.end(), 0u);
      std::shuffle(perm.begin(), perm.end(), rng);
      for (uint32_t src = 0; src < static_cast<uint32_t>(tr.nodes); ++src) {
        const uint32_t dst = perm[src];
        const int len = route_flow<FlowCountQuality>(v, s, 1, src, src, dst, 1.0, pos, &horizontal);
        ASSERT_GT(len, 1);
        int in_port = static_cast<int>(src % tr.k);  // the leaf port node src is attached to
        for (int i = 1; i < len; ++i) {
          const SwitchPort hop = tree_link_port(tr, pool[pos + i]);
          ASSERT_GE(hop.sw, 0);
          const ErtEntry e = tree_hop_candidates(tr, hop.sw, in_port, dst);
          ASSERT_TRUE((((1ull << e.dp) | e.alternates) >> hop.port) & 1u)
              << "flow " << src << "->" << dst << " hop " << i << " leaves " << topo.link_name(hop.sw, hop.port);
          in_port = topo.ports[hop.sw][hop.port].port;
        }
        EXPECT_EQ(topo.ports[tree_link_port(tr, pool[pos + len - 1]).sw][tree_link_port(tr, pool[pos + len - 1]).port].index,
                  static_cast<int>(dst));
        pos += len;
      }
    }
    horizontal_total += horizontal;
  }
  EXPECT_GT(horizontal_total, 0);  // horizontal hops were taken and checked
}

}  // namespace
}  // namespace saturn
