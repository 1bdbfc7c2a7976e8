// Packet-level flow routing of Zdornov & Birk (000 §4.1, PAPERS-SPEC M17, M18, item 3): the
// extended routing table (ERT: default port + alternate ports per destination), the per-input-port
// route cache (PRC: GCID -> output port, bounded), and the per-hop setup / data / teardown
// operations, for the modified k-ary n-tree with build_kary_ntree's port numbering (ports 0..k-1
// down, k..2k-1 up, then `width` left and `width` right lanes; switch = level * k^(n-1) + w).
// The hop rule and the port selector are flow_route.hpp's own (one definition for both engines):
// a route set up hop by hop here is the path route_flow gives (tested). Fixed-size state, no
// allocation: the caller owns the columns, trial-minor like every engine column.
#pragma once
#include <cstdint>

#include "kernels/common/bits.hpp"
#include "kernels/common/index.hpp"
#include "kernels/flow/flow_route.hpp"

namespace saturn {

constexpr uint32_t kNoGcid = 0xFFFFFFFFu;  // a free PRC entry
constexpr int kNoPrcPort = -1;  // no port (not kNoPort: kernels/isolation/arn_table.hpp has that name)

// The GCID of the packet engine's connections: one per (source, destination) pair (SLID, DLID; the
// engine has one connection per pair, so CID is implicit). Fits 32 bits for N <= 65535 (checked at
// setup), and never equals kNoGcid.
SATURN_INLINE uint32_t connection_gcid(uint32_t src, uint32_t dst, uint32_t nodes) { return src * nodes + dst; }

// One ERT entry: the default port (the InfiniBand forwarding-table port) and the alternate ports
// (bit p = port p; radix <= 64 in Saturn).
struct ErtEntry {
  int dp = kNoPrcPort;
  uint64_t alternates = 0;
};

// ERT of the modified k-ary n-tree in closed form (no table): for destination dst at switch sw,
//   leaf holding dst:            DP = its down port, no alternate;
//   dst not below sw's logical node: DP = the D-mod-K up port, alternates = the other up ports;
//   dst below (descent):         DP = the down port toward dst, alternates = every horizontal lane
//                                (the port selector keeps only the direction M18 allows).
SATURN_INLINE ErtEntry tree_ert_entry(const FlowTree& tr, int sw, int64_t dst) {
  const int k = tr.k, n = tr.n;
  const int lvl = sw / tr.per_level;
  const int64_t w = sw % tr.per_level;
  const int64_t leaf_dst = dst / k;
  ErtEntry e;
  if (lvl == n - 1) {
    if (w == leaf_dst) {
      e.dp = static_cast<int>(dst % k);
      return e;
    }
  } else if (w / chain_size(tr, lvl) == leaf_dst / chain_size(tr, lvl)) {  // same digits w_0..w_{lvl-1}
    e.dp = descent_port(tr, lvl, dst);
    if (tr.width > 0 && k > 1) {
      const uint64_t lanes = (tr.width >= 64 ? ~0ull : (1ull << tr.width) - 1);
      const int64_t i = w % chain_size(tr, lvl);
      if (i > 0) e.alternates |= lanes << (2 * k);                              // left lanes
      if (i < chain_size(tr, lvl) - 1) e.alternates |= lanes << (2 * k + tr.width);  // right lanes
    }
    return e;
  }
  e.dp = k + dmodk_up_port(tr, lvl, dst);
  const uint64_t up = ((k >= 64 ? ~0ull : (1ull << k) - 1)) << k;
  e.alternates = up & ~(1ull << e.dp);
  return e;
}

// The switch and output port a closed-form link id (flow_view.hpp) leaves by, in
// build_kary_ntree's numbering; sw = -1 for an injection link (it leaves an endpoint). Lets the
// flow engine's paths be replayed, and checked, hop by hop on the packet topology.
struct SwitchPort {
  int sw = -1, port = -1;
};
SATURN_INLINE SwitchPort tree_link_port(const FlowTree& t, int64_t id) {
  const int k = t.k;
  const int S = t.per_level;
  if (id < t.nodes) return {};
  if (id < 2 * int64_t{t.nodes}) {
    const int64_t p = id - t.nodes;
    return {static_cast<int>((t.n - 1) * int64_t{S} + p / k), static_cast<int>(p % k)};
  }
  if (id < t.down_base) {
    const int64_t r = id - t.up_base;
    return {static_cast<int>(r / k + S), static_cast<int>(k + r % k)};
  }
  if (id < t.hz_base) {
    const int64_t r = id - t.down_base;
    return {static_cast<int>(r / k), static_cast<int>(r % k)};
  }
  const int64_t r = id - t.hz_base;
  const int right = static_cast<int>((r / t.width) % 2);
  return {static_cast<int>(r / t.width / 2), static_cast<int>(2 * k + (right ? t.width : 0) + r % t.width)};
}

// Where a packet arrived from, by its input port: from below (a child or an endpoint: ascending,
// or at the turnaround switch), from above (descending), or horizontally.
enum class Arrival : uint8_t { kFromBelow = 0, kFromAbove, kMovingRight, kMovingLeft, kCount };
SATURN_INLINE Arrival tree_arrival(const FlowTree& tr, int in_port) {
  if (in_port < tr.k) return Arrival::kFromBelow;
  if (in_port < 2 * tr.k) return Arrival::kFromAbove;
  return in_port < 2 * tr.k + tr.width ? Arrival::kMovingRight : Arrival::kMovingLeft;  // left lanes come from w-1
}

// The ports a setup packet may leave by (M18): the ERT entry with the horizontal lanes cut to the
// one direction the rule allows. Arriving horizontally keeps the direction; arriving from above or
// turning around picks it once, by position in the chain (descent_goes_right). No up port is
// offered to a descending packet: the ERT offers up ports only where dst is not below.
SATURN_INLINE ErtEntry tree_hop_candidates(const FlowTree& tr, int sw, int in_port, int64_t dst) {
  ErtEntry e = tree_ert_entry(tr, sw, dst);
  const int k = tr.k;
  if (e.dp >= k || e.alternates == 0) return e;  // ascent, or no horizontal lane here (leaf, width 0)
  const uint64_t lanes = (tr.width >= 64 ? ~0ull : (1ull << tr.width) - 1);
  const uint64_t left = lanes << (2 * k), right = lanes << (2 * k + tr.width);
  const Arrival a = tree_arrival(tr, in_port);
  int go_right = 0;
  if (a == Arrival::kMovingRight) go_right = 1;
  else if (a == Arrival::kMovingLeft) go_right = 0;
  else go_right = descent_goes_right(tr, sw / tr.per_level, sw % tr.per_level);
  e.alternates &= go_right ? right : left;
  return e;
}

// The route caches of one batch: PRC entries (GCID, output port) per input port, `slots` per
// port, and the flow count per output port (the heuristic: flows on the output link, M17).
// Global port gp = the engine's port index; column index at(gp * slots + e, trial, trials).
struct RouteCacheView {
  uint32_t* prc_gcid = nullptr;  // [gp * slots + e], kNoGcid = free
  uint8_t* prc_port = nullptr;   // [gp * slots + e], the output port of the entry's flow
  uint16_t* port_flows = nullptr;  // [gp] flows set up through the output port
  int slots = 0;                 // PRC entries per input port (>= 1)
  int trials = 1;
};

// The read-only PRC columns a data packet consults in the engine (TrialView's prc_gcid, prc_port):
// the entries are set up on the host before the run (host/engine/adaptive_routes.cpp).
struct PrcTable {
  const uint32_t* prc_gcid = nullptr;
  const uint8_t* prc_port = nullptr;
  int slots = 0;
  int trials = 1;
};

// PRC of input port gp: the entry of `gcid`, or -1. View: RouteCacheView or PrcTable.
template <class View>
SATURN_INLINE int prc_find(const View& c, int64_t gp, int t, uint32_t gcid) {
  for (int e = 0; e < c.slots; ++e)
    if (c.prc_gcid[at(gp * c.slots + e, t, c.trials)] == gcid) return e;
  return -1;
}
template <class View>
SATURN_INLINE int prc_lookup(const View& c, int64_t gp, int t, uint32_t gcid) {
  const int e = prc_find(c, gp, t, gcid);
  return e < 0 ? kNoPrcPort : c.prc_port[at(gp * c.slots + e, t, c.trials)];
}
SATURN_INLINE int prc_used(const RouteCacheView& c, int64_t gp, int t) {
  int used = 0;
  for (int e = 0; e < c.slots; ++e) used += c.prc_gcid[at(gp * c.slots + e, t, c.trials)] != kNoGcid ? 1 : 0;
  return used;
}
// Eviction policy: none. A full PRC refuses the insert (the flow then follows the DP, M17 setup
// step 4); entries leave only by teardown. Evicting a live flow's entry would move its later
// packets to the DP mid-flow and break the in-order delivery M17 is built for.
SATURN_INLINE bool prc_insert(const RouteCacheView& c, int64_t gp, int t, uint32_t gcid, int port) {
  for (int e = 0; e < c.slots; ++e) {
    const int64_t i = at(gp * c.slots + e, t, c.trials);
    if (c.prc_gcid[i] != kNoGcid) continue;
    c.prc_gcid[i] = gcid;
    c.prc_port[i] = static_cast<uint8_t>(port);
    return true;
  }
  return false;
}
SATURN_INLINE bool prc_erase(const RouteCacheView& c, int64_t gp, int t, uint32_t gcid) {
  const int e = prc_find(c, gp, t, gcid);
  if (e < 0) return false;
  c.prc_gcid[at(gp * c.slots + e, t, c.trials)] = kNoGcid;
  return true;
}

// Setup packet p_s of flow `gcid` at switch sw (global ports base .. base + radix - 1), arrived on
// in_port: picks the output port, records the choice and counts the flow on it (U10: count on
// setup). M17: the port selector takes an alternate only if strictly fewer flows use it than the
// DP (ties: DP, then the lowest port) and the input port's PRC has a free entry; else the DP with
// no PRC entry. p_s always advances (no blocking, no backtracking).
SATURN_INLINE int setup_hop(const FlowTree& tr, const RouteCacheView& c, int sw, int64_t base, int in_port, int64_t dst,
                            uint32_t gcid, int t) {
  const ErtEntry e = tree_hop_candidates(tr, sw, in_port, dst);
  int out = e.dp;
  const int64_t in_gp = base + in_port;
  if (e.alternates != 0 && prc_find(c, in_gp, t, kNoGcid) >= 0) {
    int ports[64];
    int n = 0;
    for (uint64_t m = e.alternates; m != 0; m &= m - 1) ports[n++] = lowest_bit(m);
    const int pick = pick_strictly_better(-1, c.port_flows[at(base + e.dp, t, c.trials)], n,
                                          [&](int i) { return c.port_flows[at(base + ports[i], t, c.trials)]; });
    if (pick >= 0) {
      out = ports[pick];
      prc_insert(c, in_gp, t, gcid, out);
    }
  }
  const int64_t oi = at(base + out, t, c.trials);
  c.port_flows[oi] = static_cast<uint16_t>(c.port_flows[oi] + 1);
  return out;
}

// A data packet of `gcid`: its PRC entry at the input port, else the destination's DP.
template <class View>
SATURN_INLINE int data_hop(const FlowTree& tr, const View& c, int sw, int64_t base, int in_port, int64_t dst,
                           uint32_t gcid, int t) {
  const int p = prc_lookup(c, base + in_port, t, gcid);
  return p != kNoPrcPort ? p : tree_ert_entry(tr, sw, dst).dp;
}

// Teardown packet p_t: routed like data, erases its flow's entry and uncounts the flow.
SATURN_INLINE int teardown_hop(const FlowTree& tr, const RouteCacheView& c, int sw, int64_t base, int in_port, int64_t dst,
                               uint32_t gcid, int t) {
  const int out = data_hop(tr, c, sw, base, in_port, dst, gcid, t);
  prc_erase(c, base + in_port, t, gcid);
  const int64_t oi = at(base + out, t, c.trials);
  if (c.port_flows[oi] > 0) c.port_flows[oi] = static_cast<uint16_t>(c.port_flows[oi] - 1);
  return out;
}

}  // namespace saturn
