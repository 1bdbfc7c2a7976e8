// Dragonfly routing as device-compatible pure functions (PAPERS-SPEC M4, M19, U11): the per-hop port
// of minimal and Valiant routes, UGAL's choice at the source, PAR's re-evaluation inside the source
// group, and the VC of each hop for deadlock freedom. The geometry and the arrangement of global
// channels are those of host/topology/dragonfly.{hpp,cpp} (the "consecutive" arrangement, U3),
// recomputed here with arithmetic so a GPU thread can route; tests check the two agree.
//
// A packet carries a DfRoute (a few bytes: its Valiant group, whether it reached it, hop counts).
// At each switch: df_route_port gives the output, df_route_vc the VC it takes there, and
// df_route_advance updates the state for the hop. Where several global channels join two groups
// (g < a*h + 1), the channel of the shortest whole path is taken, the lowest such channel on a tie,
// so every switch of a group agrees on it without carrying it in the packet.
//
// VC assignment (M19; "PAR6/2" is 001's name, its meaning unverified):
//   kCompact   global VC = global hops taken; local VC = local hops taken in the source group while no
//              global hop is taken, else (source-group VCs - 1) + global hops taken. With 1 source-group
//              VC: minimal 2/1, Valiant 3/2; with 2 (PAR's extra local hop): 4/2.
//   kPerGroup  our reading of "PAR6/2": 2 local VCs for each of the (at most 3) groups a path visits
//              and one global VC per global hop: local VC = 2 x global hops taken + local hops taken in
//              the current group, global VC = global hops taken. Budget 6/2 for Valiant, UGAL and PAR
//              (PAR uses indices 0..4: the destination group never needs its second), 4/1 for minimal.
// Both make the VC rank rise along every path. "Local VC = hops taken so far" does not: l g l g puts
// local VC 2 before global VC 1 and g g l after it, a cycle the test shows.
// tests/unit/test_dragonfly_routing.cpp checks that the channel dependency graph over (channel, VC)
// is acyclic for every routing and scheme on small dragonflies, and that wrong assignments cycle.
#pragma once
#include <cstdint>

#include "kernels/common/macros.hpp"
#include "kernels/common/rng.hpp"

namespace saturn {

struct DfGeom {
  int p = 0, a = 0, h = 0, g = 0;  // endpoints per switch, switches per group, global ports, groups
};

enum class DfRouting : uint8_t { kMinimal = 0, kValiant, kUgal, kPar, kCount };
enum class DfVcScheme : uint8_t { kCompact = 0, kPerGroup, kCount };

// The packet engine's dragonfly routing (kernels/routing/dragonfly_engine.hpp), part of ModelParams.
// on = false: the engine routes by its tables (topology.kind = dragonfly with table / random).
struct DfEngine {
  bool on;
  DfRouting routing;
  DfGeom geom;
  int route_vcs;          // R: engine VCs per traffic class (df_local_vcs, kCompact); class k owns [k R, k R + R)
  int ugal_threshold;     // flits x hops in favour of the minimal path (UGAL, PAR)
  bool queue_less_rtt;    // UGAL, PAR: queue estimate = credits in use less 2 x the link latency (>= 0)
};

struct DfRoute {
  int16_t mid_group = -1;   // Valiant intermediate group, -1 = minimal
  uint8_t reached_mid = 0;  // the packet has been in mid_group
  uint8_t hops = 0;         // switch-to-switch hops taken
  uint8_t globals = 0;      // global hops taken
  uint8_t src_locals = 0;   // local hops taken before the first global hop
  uint8_t group_locals = 0; // local hops taken since the last global hop (in the current group)
};

// ---- Geometry (same formulas as host/topology/dragonfly.cpp) ----
SATURN_INLINE int dfk_group(const DfGeom& d, int sw) { return sw / d.a; }
SATURN_INLINE int dfk_local_port(const DfGeom& d, int from, int to) { return d.p + (to < from ? to : to - 1); }
SATURN_INLINE int dfk_global_port(const DfGeom& d, int j) { return d.p + d.a - 1 + j; }
SATURN_INLINE bool dfk_is_global_port(const DfGeom& d, int port) { return port >= d.p + d.a - 1; }
SATURN_INLINE bool dfk_is_local_port(const DfGeom& d, int port) { return port >= d.p && port < d.p + d.a - 1; }
SATURN_INLINE int dfk_rounds(const DfGeom& d) { return d.g > 1 ? d.a * d.h / (d.g - 1) : 0; }
// Channel of round r of group `from` that leads to group `to` (from != to).
SATURN_INLINE int dfk_channel(const DfGeom& d, int from, int to, int r) {
  const int o = ((to - from) % d.g + d.g) % d.g;
  return r * (d.g - 1) + o - 1;
}
SATURN_INLINE int dfk_landing(const DfGeom& d, int c) {
  const int r = c / (d.g - 1), o = c % (d.g - 1) + 1;
  return r * (d.g - 1) + (d.g - 1 - o);
}

// The switch beyond a switch-to-switch port (-1 for an endpoint or unconnected port).
SATURN_INLINE int dfk_neighbor(const DfGeom& d, int sw, int port) {
  const int grp = sw / d.a, i = sw % d.a;
  if (dfk_is_local_port(d, port)) {
    const int k = port - d.p;
    return grp * d.a + (k < i ? k : k + 1);
  }
  if (!dfk_is_global_port(d, port) || d.g < 2) return -1;
  const int c = i * d.h + (port - dfk_global_port(d, 0));
  if (c / (d.g - 1) >= dfk_rounds(d)) return -1;
  const int target = (grp + c % (d.g - 1) + 1) % d.g;
  return target * d.a + dfk_landing(d, c) / d.h;
}

// Rounds r in [0, rounds) whose channel r (g - 1) + off lies in [idx h, idx h + h): the rounds in
// which switch idx of a group owns (off = o - 1) or receives (off = g - 1 - o) the channel between
// two groups o apart. Empty when *r0 > *r1. (Closed form of the scan over rounds: routing calls it
// for every header, and a small dragonfly has many rounds, 8 with a = 8, h = 4, g = 5.)
SATURN_INLINE void dfk_round_range(const DfGeom& d, int idx, int off, int* r0, int* r1) {
  const int n = d.g - 1;
  const int lo = idx * d.h - off, hi = idx * d.h + d.h - 1 - off;
  *r0 = lo <= 0 ? 0 : (lo + n - 1) / n;
  const int last = dfk_rounds(d) - 1;
  *r1 = hi < 0 ? -1 : (hi / n < last ? hi / n : last);
}

// Hops of a minimal path between switches (0, 1 inside a group, else 1 to 3: a global channel
// whose owner is s and whose landing switch is t, else one of them, else neither).
SATURN_INLINE int dfk_min_hops(const DfGeom& d, int s, int t) {
  if (s == t) return 0;
  const int gs = s / d.a, gt = t / d.a;
  if (gs == gt) return 1;
  const int o = ((gt - gs) % d.g + d.g) % d.g;
  int x0, x1, y0, y1;
  dfk_round_range(d, s % d.a, o - 1, &x0, &x1);
  dfk_round_range(d, t % d.a, d.g - 1 - o, &y0, &y1);
  if ((x0 > y0 ? x0 : y0) <= (x1 < y1 ? x1 : y1)) return 1;
  return x0 <= x1 || y0 <= y1 ? 2 : 3;
}

// The channel of s's group towards group `to` on the shortest path from s to switch t through it
// (the lowest channel on a tie); out_len gets that path's hop count. The scan stops at the first
// channel that reaches the lower bound (1 hop into t's own group, else 2), which is the lowest
// channel of that length.
SATURN_INLINE int dfk_best_channel(const DfGeom& d, int s, int to, int t, int* out_len) {
  const int gs = s / d.a;
  const int floor_len = to == t / d.a ? 1 : 2;
  int best = 1 << 30, best_c = -1;
  for (int r = 0; r < dfk_rounds(d); ++r) {
    const int c = dfk_channel(d, gs, to, r);
    const int landing = to * d.a + dfk_landing(d, c) / d.h;
    const int len = (c / d.h != s % d.a) + 1 + dfk_min_hops(d, landing, t);
    if (len < best) best = len, best_c = c;
    if (best == floor_len) break;
  }
  if (out_len) *out_len = best;
  return best_c;
}

// Hops of the Valiant path s -> mid_group -> t (mid_group != s's group), as df_valiant_hops.
SATURN_INLINE int dfk_valiant_hops(const DfGeom& d, int s, int mid_group, int t) {
  int len = 0;
  dfk_best_channel(d, s, mid_group, t, &len);
  return len;
}

// Valiant's intermediate group from one random word (as df_intermediate_group): uniform over the
// groups other than the source and destination groups.
SATURN_INLINE int dfk_intermediate_group(uint32_t word, int src_group, int dst_group, int g) {
  const int excluded = src_group == dst_group ? 1 : 2;
  int r = static_cast<int>(uniform_below(word, static_cast<uint32_t>(g - excluded)));
  const int lo = src_group < dst_group ? src_group : dst_group, hi = src_group < dst_group ? dst_group : src_group;
  if (r >= lo) ++r;
  if (excluded == 2 && r >= hi) ++r;
  return r;
}

// ---- Per hop ----

// Port of switch sw towards global channel c of its group: the channel itself, or the local port
// to the switch that owns it.
SATURN_INLINE int dfk_channel_port(const DfGeom& d, int sw, int c) {
  const int x = c / d.h;
  return x == sw % d.a ? dfk_global_port(d, c % d.h) : dfk_local_port(d, sw % d.a, x);
}

// Output port at switch sw for a packet to endpoint dst (ports < p eject).
SATURN_INLINE int df_route_port(const DfGeom& d, int sw, int dst, const DfRoute& r) {
  const int t = dst / d.p, gs = sw / d.a;
  const bool to_mid = r.mid_group >= 0 && !r.reached_mid && gs != r.mid_group;
  const int target = to_mid ? r.mid_group : t / d.a;
  if (gs == target) return sw == t ? dst % d.p : dfk_local_port(d, sw % d.a, t % d.a);
  return dfk_channel_port(d, sw, dfk_best_channel(d, sw, target, t, nullptr));
}

// VC of the hop leaving by `port`, from the state before the hop. src_group_vcs: local VCs of the
// source group under kCompact (1 for minimal / Valiant / UGAL, 2 for PAR).
SATURN_INLINE int df_route_vc(const DfGeom& d, const DfRoute& r, int port, DfVcScheme scheme, int src_group_vcs) {
  if (port < d.p) return 0;  // ejection: a sink, any VC
  if (dfk_is_global_port(d, port)) return r.globals;
  if (scheme == DfVcScheme::kPerGroup) return 2 * r.globals + r.group_locals;
  return r.globals == 0 ? r.src_locals : src_group_vcs - 1 + r.globals;
}

// VCs a routing needs per channel kind under a scheme (the largest index + 1 over every path).
SATURN_INLINE int df_local_vcs(DfRouting routing, DfVcScheme scheme) {
  const bool par = routing == DfRouting::kPar, nonmin = routing != DfRouting::kMinimal;
  if (scheme == DfVcScheme::kPerGroup) return nonmin || par ? 6 : 4;
  return par ? 4 : nonmin ? 3 : 2;
}
SATURN_INLINE int df_global_vcs(DfRouting routing) { return routing == DfRouting::kMinimal ? 1 : 2; }
SATURN_INLINE int df_src_group_vcs(DfRouting routing) { return routing == DfRouting::kPar ? 2 : 1; }

// The hop by `port` from sw was taken: count it and note arrival in the Valiant group.
SATURN_INLINE void df_route_advance(const DfGeom& d, DfRoute& r, int sw, int port) {
  if (port < d.p) return;
  if (dfk_is_global_port(d, port)) {
    r.globals = static_cast<uint8_t>(r.globals + 1);
    r.group_locals = 0;
  } else {
    r.group_locals = static_cast<uint8_t>(r.group_locals + 1);
    if (r.globals == 0) r.src_locals = static_cast<uint8_t>(r.src_locals + 1);
  }
  r.hops = static_cast<uint8_t>(r.hops + 1);
  const int next = dfk_neighbor(d, sw, port);
  if (r.mid_group >= 0 && next >= 0 && next / d.a == r.mid_group) r.reached_mid = 1;
}

// ---- Decisions ----

// UGAL (M19 suggested cost = queue occupancy x hops; same rule as host ugal_prefers_minimal): true =
// minimal. threshold biases towards minimal; a tie goes to minimal.
SATURN_INLINE bool df_ugal_minimal(int64_t queue_min, int hops_min, int64_t queue_nonmin, int hops_nonmin,
                                   int64_t threshold) {
  return queue_min * hops_min <= queue_nonmin * hops_nonmin + threshold;
}

// UGAL at the source switch sw: queue_min / queue_nonmin are the occupancies (flits, or used
// credits) of the first ports of the two candidates (df_route_port of df_minimal_route() and of
// df_valiant_route(mid)). Returns the route to follow.
SATURN_INLINE DfRoute df_minimal_route() { return DfRoute{}; }
SATURN_INLINE DfRoute df_valiant_route(int mid_group) {
  DfRoute r;
  r.mid_group = static_cast<int16_t>(mid_group);
  return r;
}
SATURN_INLINE DfRoute df_ugal_route(const DfGeom& d, int sw, int dst, int mid_group, int64_t queue_min,
                                    int64_t queue_nonmin, int64_t threshold) {
  const int t = dst / d.p;
  const bool minimal = df_ugal_minimal(queue_min, dfk_min_hops(d, sw, t), queue_nonmin,
                                       dfk_valiant_hops(d, sw, mid_group, t), threshold);
  return minimal ? df_minimal_route() : df_valiant_route(mid_group);
}

// PAR (M19, EXT reading): a packet on its minimal route that has taken a local hop but no global
// hop, and is not in its destination group, is re-evaluated once more at this switch with the same
// UGAL rule (hops counted from here). Only that one switch qualifies: its next minimal hop is global.
SATURN_INLINE bool df_par_may_reevaluate(const DfGeom& d, const DfRoute& r, int sw, int dst) {
  return r.mid_group < 0 && r.globals == 0 && r.hops > 0 && sw / d.a != (dst / d.p) / d.a;
}
// Re-evaluation at sw: switch to Valiant through mid_group when UGAL says so.
SATURN_INLINE void df_par_reevaluate(const DfGeom& d, DfRoute& r, int sw, int dst, int mid_group, int64_t queue_min,
                                     int64_t queue_nonmin, int64_t threshold) {
  const int t = dst / d.p;
  if (!df_ugal_minimal(queue_min, dfk_min_hops(d, sw, t), queue_nonmin, dfk_valiant_hops(d, sw, mid_group, t),
                       threshold))
    r.mid_group = static_cast<int16_t>(mid_group);
}

}  // namespace saturn
