// Dragonfly routing (kernels/routing/dragonfly_route.hpp): its geometry agrees with the host builder
// and path helpers, routes reach their destination in the stated hop counts, UGAL and PAR decide as
// M19 reads, and every routing with its VC assignment has an acyclic channel dependency graph over
// (channel, VC) on small dragonflies, while deliberately wrong assignments give a cycle.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "host/topology/channel_dependency.hpp"
#include "host/topology/dragonfly.hpp"
#include "host/topology/topology.hpp"
#include "kernels/routing/dragonfly_route.hpp"

namespace saturn {
namespace {

DfGeom geom(const DragonflyParams& d) { return DfGeom{d.p, d.a, d.h, d.g}; }

const DragonflyParams kSmall[] = {
    {1, 2, 1, 3},  // g = a*h + 1
    {1, 3, 2, 7},
    {2, 4, 2, 9},
    {1, 4, 2, 5},  // two global channels between each pair of groups
    {2, 2, 2, 3},  // two rounds as well
};

std::string name(const DragonflyParams& d) {
  return "p" + std::to_string(d.p) + "a" + std::to_string(d.a) + "h" + std::to_string(d.h) + "g" + std::to_string(d.g);
}

TEST(DragonflyRouting, GeometryMatchesTheBuilder) {
  for (const DragonflyParams& d : kSmall) {
    SCOPED_TRACE(name(d));
    const Topology topo = build_dragonfly(d);
    const DfGeom k = geom(d);
    for (int s = 0; s < topo.num_switches(); ++s)
      for (int port = 0; port < topo.radix(s); ++port) {
        const PortPeer& peer = topo.ports[s][port];
        const int expect = peer.kind == PeerKind::kSwitch ? peer.index : -1;
        ASSERT_EQ(dfk_neighbor(k, s, port), expect) << "switch " << s << " port " << port;
        ASSERT_EQ(dfk_is_global_port(k, port), topo.port_class[s][port] == LinkClass::kGlobal);
        ASSERT_EQ(dfk_is_local_port(k, port), topo.port_class[s][port] == LinkClass::kLocal);
      }
    for (int s = 0; s < topo.num_switches(); ++s)
      for (int t = 0; t < topo.num_switches(); ++t) {
        ASSERT_EQ(dfk_min_hops(k, s, t), df_min_hops(d, s, t));
        if (s != t) {  // the minimal first port is one of the host's minimal ports
          const int port = df_route_port(k, s, t * d.p, df_minimal_route());
          ASSERT_TRUE((df_min_port_mask(d, s, t) >> port) & 1ull) << s << "->" << t;
        }
        for (int mid = 0; mid < d.g; ++mid)
          if (mid != s / d.a) ASSERT_EQ(dfk_valiant_hops(k, s, mid, t), df_valiant_hops(d, s, mid, t));
      }
    for (uint32_t w = 0; w < 2000; w += 7)
      for (int gs = 0; gs < d.g; ++gs)
        ASSERT_EQ(dfk_intermediate_group(w * 2654435761u, gs, (gs + 1) % d.g, d.g),
                  df_intermediate_group(w * 2654435761u, gs, (gs + 1) % d.g, d.g));
  }
}

// The closed forms (dfk_min_hops, dfk_best_channel's early stop) against the plain scan over every
// global channel between two groups that they replace, on dragonflies with 1 to 8 channels between
// each pair of groups (a = 8, h = 4, g = 5 is the tests' reduced 001 network) and partial rounds.
TEST(DragonflyRouting, ClosedFormsMatchTheScanOverChannels) {
  const DragonflyParams shapes[] = {{4, 8, 4, 5}, {4, 8, 4, 33}, {4, 8, 4, 9}, {2, 4, 2, 9}, {1, 4, 2, 5},
                                    {2, 2, 2, 3}, {1, 3, 2, 7},  {2, 6, 3, 8}, {1, 5, 3, 4}, {1, 7, 2, 6}};
  for (const DragonflyParams& dp : shapes) {
    SCOPED_TRACE(name(dp));
    const DfGeom d = geom(dp);
    auto scan_min = [&](int s, int t) {
      if (s == t) return 0;
      if (s / d.a == t / d.a) return 1;
      int best = 1 << 30;
      for (int r = 0; r < dfk_rounds(d); ++r) {
        const int c = dfk_channel(d, s / d.a, t / d.a, r);
        best = std::min(best, (c / d.h != s % d.a) + 1 + (dfk_landing(d, c) / d.h != t % d.a));
      }
      return best;
    };
    for (int s = 0; s < d.a * d.g; ++s)
      for (int t = 0; t < d.a * d.g; ++t) {
        ASSERT_EQ(dfk_min_hops(d, s, t), scan_min(s, t)) << s << "->" << t;
        for (int to = 0; to < d.g; ++to) {
          if (to == s / d.a) continue;
          int best = 1 << 30, best_c = -1;
          for (int r = 0; r < dfk_rounds(d); ++r) {
            const int c = dfk_channel(d, s / d.a, to, r);
            const int len = (c / d.h != s % d.a) + 1 + scan_min(to * d.a + dfk_landing(d, c) / d.h, t);
            if (len < best) best = len, best_c = c;
          }
          int len = 0;
          ASSERT_EQ(dfk_best_channel(d, s, to, t, &len), best_c) << s << " via group " << to << " to " << t;
          ASSERT_EQ(len, best);
        }
      }
  }
}

TEST(DragonflyRouting, UgalMatchesHostRule) {
  for (int qm = 0; qm < 40; qm += 3)
    for (int qn = 0; qn < 40; qn += 5)
      for (int hm = 1; hm <= 3; ++hm)
        for (int hn = 2; hn <= 5; ++hn)
          for (int th : {0, 7, 30})
            ASSERT_EQ(df_ugal_minimal(qm, hm, qn, hn, th), ugal_prefers_minimal(qm, hm, qn, hn, th));
}

// Follows a route hop by hop; returns the hops taken (or -1 if it loops).
int walk(const DfGeom& k, int src_switch, int dst, DfRoute r, std::vector<int>* switches = nullptr) {
  int sw = src_switch;
  for (int step = 0; step < 16; ++step) {
    if (switches) switches->push_back(sw);
    const int port = df_route_port(k, sw, dst, r);
    if (port < k.p) {
      EXPECT_EQ(sw * k.p + port, dst);
      return r.hops;
    }
    df_route_advance(k, r, sw, port);
    sw = dfk_neighbor(k, sw, port);
    if (sw < 0) return -1;
  }
  return -1;
}

TEST(DragonflyRouting, RoutesArriveInTheirHopCounts) {
  for (const DragonflyParams& d : kSmall) {
    SCOPED_TRACE(name(d));
    const DfGeom k = geom(d);
    const int N = d.p * d.a * d.g;
    for (int s = 0; s < d.a * d.g; ++s)
      for (int e = 0; e < N; ++e) {
        const int t = e / d.p;
        ASSERT_EQ(walk(k, s, e, df_minimal_route()), dfk_min_hops(k, s, t));
        for (int mid = 0; mid < d.g; ++mid) {
          if (mid == s / d.a || mid == t / d.a) continue;
          std::vector<int> path;
          ASSERT_EQ(walk(k, s, e, df_valiant_route(mid), &path), dfk_valiant_hops(k, s, mid, t));
          ASSERT_TRUE(std::any_of(path.begin(), path.end(), [&](int x) { return x / d.a == mid; }));
        }
      }
  }
}

TEST(DragonflyRouting, UgalAndParDecisions) {
  const DragonflyParams d{4, 8, 4, 33};  // the 1056-node network of 001
  const DfGeom k = geom(d);
  const int s = 0, dst = 40 * 4;         // switch 0 of group 0 to switch 40 (group 5)
  const int mid = 17;
  const int hm = dfk_min_hops(k, s, 40), hn = dfk_valiant_hops(k, s, mid, 40);
  ASSERT_LT(hm, hn);
  // an idle network goes minimal; a congested minimal port sends it through mid
  EXPECT_LT(df_ugal_route(k, s, dst, mid, 0, 0, 0).mid_group, 0);
  EXPECT_EQ(df_ugal_route(k, s, dst, mid, 100, 10, 0).mid_group, mid);
  EXPECT_LT(df_ugal_route(k, s, dst, mid, 100, 10, 10000).mid_group, 0);  // threshold
  // PAR: minimal at the source, first hop local, re-evaluated once at the next switch
  DfRoute r = df_minimal_route();
  EXPECT_FALSE(df_par_may_reevaluate(k, r, s, dst));  // the source decides with UGAL instead
  const int port = df_route_port(k, s, dst, r);
  ASSERT_TRUE(dfk_is_local_port(k, port));  // group 0's channel to group 5 is on switch 1
  {
    df_route_advance(k, r, s, port);
    const int x = dfk_neighbor(k, s, port);
    EXPECT_TRUE(df_par_may_reevaluate(k, r, x, dst));
    DfRoute stay = r;
    df_par_reevaluate(k, stay, x, dst, mid, 0, 0, 0);
    EXPECT_LT(stay.mid_group, 0);
    df_par_reevaluate(k, r, x, dst, mid, 500, 0, 0);
    EXPECT_EQ(r.mid_group, mid);
    EXPECT_FALSE(df_par_may_reevaluate(k, r, x, dst));  // once only
    EXPECT_GE(walk(k, x, dst, r), 0);
  }
  // in the destination group there is nothing to re-evaluate
  DfRoute late = df_minimal_route();
  late.hops = 1;
  EXPECT_FALSE(df_par_may_reevaluate(k, late, 41, dst));
}

// ---- Channel dependency graphs over (channel, VC) ----

struct VcCdg {
  const Topology& topo;
  std::vector<int> port_base;
  int vcs;
  std::vector<std::vector<int32_t>> next;
  int max_local_vc = -1, max_global_vc = -1;
  VcCdg(const Topology& t, int v) : topo(t), vcs(v) {
    int total = 0;
    for (int s = 0; s < t.num_switches(); ++s) port_base.push_back(total), total += t.radix(s);
    next.resize(static_cast<size_t>(total) * vcs);
  }
  int node(int sw, int port, int vc) const { return (port_base[sw] + port) * vcs + vc; }
};

enum class VcRule { kScheme, kAllZero, kLocalHopCount, kHopCount, kOneSourceVc };

// Every path the routing can take from switch sw (state r, previous channel node prev), with PAR's
// re-evaluation branching into "stay minimal" and every intermediate group.
void explore(VcCdg& g, const DfGeom& k, DfRouting routing, DfVcScheme scheme, VcRule rule, int sw, int dst, DfRoute r,
             int prev) {
  if (routing == DfRouting::kPar && df_par_may_reevaluate(k, r, sw, dst)) {
    for (int mid = 0; mid < k.g; ++mid) {
      if (mid == sw / k.a || mid == (dst / k.p) / k.a) continue;
      DfRoute v = r;
      v.mid_group = static_cast<int16_t>(mid);
      explore(g, k, routing, scheme, rule, sw, dst, v, prev);  // mid set: no further branching
    }
  }
  const int port = df_route_port(k, sw, dst, r);
  if (port < k.p) return;  // ejection: a sink
  int vc = df_route_vc(k, r, port, scheme, rule == VcRule::kOneSourceVc ? 1 : df_src_group_vcs(routing));
  if (rule == VcRule::kAllZero) vc = 0;
  if (rule == VcRule::kLocalHopCount && dfk_is_local_port(k, port)) vc = r.hops - r.globals;  // local hops taken
  if (rule == VcRule::kHopCount && dfk_is_local_port(k, port)) vc = r.hops;
  (dfk_is_global_port(k, port) ? g.max_global_vc : g.max_local_vc) =
      std::max(dfk_is_global_port(k, port) ? g.max_global_vc : g.max_local_vc, vc);
  ASSERT_LT(vc, g.vcs);
  const int here = g.node(sw, port, vc);
  if (prev >= 0) g.next[prev].push_back(here);
  DfRoute after = r;
  df_route_advance(k, after, sw, port);
  explore(g, k, routing, scheme, rule, dfk_neighbor(k, sw, port), dst, after, here);
}

// The CDG of a routing: sources start minimal (minimal, PAR), Valiant through every group, or both
// (UGAL may pick either at the source).
std::vector<int32_t> cycle_of(const DragonflyParams& d, DfRouting routing, DfVcScheme scheme, VcRule rule,
                              int* max_local = nullptr, int* max_global = nullptr) {
  const Topology topo = build_dragonfly(d);
  const DfGeom k = geom(d);
  VcCdg g(topo, 8);
  const int N = d.p * d.a * d.g;
  for (int s = 0; s < d.a * d.g; ++s)
    for (int e = 0; e < N; ++e) {
      if (routing != DfRouting::kValiant) explore(g, k, routing, scheme, rule, s, e, df_minimal_route(), -1);
      if (routing == DfRouting::kValiant || routing == DfRouting::kUgal)
        for (int mid = 0; mid < d.g; ++mid)
          if (mid != s / d.a && mid != (e / d.p) / d.a)
            explore(g, k, routing, scheme, rule, s, e, df_valiant_route(mid), -1);
    }
  ChannelDependencyGraph cdg;
  cdg.num_channels = static_cast<int>(g.next.size());
  cdg.port_base = g.port_base;
  for (auto& n : g.next) {
    std::sort(n.begin(), n.end());
    n.erase(std::unique(n.begin(), n.end()), n.end());
  }
  cdg.next = std::move(g.next);
  if (max_local) *max_local = g.max_local_vc;
  if (max_global) *max_global = g.max_global_vc;
  return find_dependency_cycle(cdg);
}

TEST(DragonflyRouting, EveryRoutingIsAcyclicWithItsVcs) {
  for (const DragonflyParams& d : kSmall) {
    for (DfRouting routing : {DfRouting::kMinimal, DfRouting::kValiant, DfRouting::kUgal, DfRouting::kPar})
      for (DfVcScheme scheme : {DfVcScheme::kCompact, DfVcScheme::kPerGroup}) {
        SCOPED_TRACE(name(d) + " routing " + std::to_string(static_cast<int>(routing)) + " scheme " +
                     std::to_string(static_cast<int>(scheme)));
        int ml = -1, mg = -1;
        const auto cyc = cycle_of(d, routing, scheme, VcRule::kScheme, &ml, &mg);
        EXPECT_TRUE(cyc.empty());
        if (!cyc.empty()) {
          const Topology topo = build_dragonfly(d);
          std::vector<int> base;
          int total = 0;
          for (int s = 0; s < topo.num_switches(); ++s) base.push_back(total), total += topo.radix(s);
          std::string msg;
          for (int32_t n : cyc) {
            const int ch = n / 8, vc = n % 8;
            const int s = static_cast<int>(std::upper_bound(base.begin(), base.end(), ch) - base.begin()) - 1;
            msg += topo.switch_names[s] + ":" + std::to_string(ch - base[s]) + "/vc" + std::to_string(vc) + " ";
          }
          ADD_FAILURE() << "cycle: " << msg;
        }
        EXPECT_LE(ml + 1, df_local_vcs(routing, scheme));
        EXPECT_LE(mg + 1, df_global_vcs(routing));
      }
  }
  // The counts are reached on a small network (PAR per group: indices 0..4 of the 6/2 budget).
  const DragonflyParams d{2, 4, 2, 9};
  int ml = -1, mg = -1;
  cycle_of(d, DfRouting::kPar, DfVcScheme::kPerGroup, VcRule::kScheme, &ml, &mg);
  EXPECT_EQ(ml + 1, 5);
  EXPECT_EQ(mg + 1, 2);
  cycle_of(d, DfRouting::kPar, DfVcScheme::kCompact, VcRule::kScheme, &ml, &mg);
  EXPECT_EQ(ml + 1, 4);
  cycle_of(d, DfRouting::kMinimal, DfVcScheme::kCompact, VcRule::kScheme, &ml, &mg);
  EXPECT_EQ(ml + 1, 2);
  EXPECT_EQ(mg + 1, 1);
}

TEST(DragonflyRouting, WrongVcAssignmentsGiveACycle) {
  const DragonflyParams d{2, 4, 2, 9};
  // one VC for everything: minimal routing alone closes local -> global -> local -> global
  EXPECT_FALSE(cycle_of(d, DfRouting::kMinimal, DfVcScheme::kCompact, VcRule::kAllZero).empty());
  // local VC = local hops taken: a destination-group hop shares VC 0 with a source-group first hop
  EXPECT_FALSE(cycle_of(d, DfRouting::kValiant, DfVcScheme::kCompact, VcRule::kLocalHopCount).empty());
  // local VC = hops taken so far (with global VC = global hops taken): L2 before G1 (l g l g) and
  // after it (g g l)
  EXPECT_FALSE(cycle_of(d, DfRouting::kValiant, DfVcScheme::kCompact, VcRule::kHopCount).empty());
  // PAR with the compact scheme's single source-group VC: its extra local hop collides
  EXPECT_FALSE(cycle_of(d, DfRouting::kPar, DfVcScheme::kCompact, VcRule::kOneSourceVc).empty());
}

}  // namespace
}  // namespace saturn
