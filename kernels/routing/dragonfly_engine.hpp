// Dragonfly routing in the packet engine (PAPERS-SPEC M4, M19; 001 §4): minimal, Valiant, UGAL and
// PAR at each switch a header reaches, with the VC of the next hop for deadlock freedom, built on
// the pure per-hop functions of dragonfly_route.hpp (kCompact VC scheme, checked acyclic there).
//
// The packet carries no route record: its hop state is read from where it is.
//   - Engine VC = traffic class x R + routing VC (R = ModelParams::df.route_vcs, the local VCs the
//     routing needs; a global link uses the first df_global_vcs of them). The routing VC of the VC it
//     arrived on, and whether it came from an endpoint, a local or a global port, give the hops
//     taken (kCompact: a local VC below S = source-group VCs means "still in the source group after
//     VC + 1 local hops"; a local VC S - 1 + k, or a global VC k - 1, means k global hops taken).
//   - Non-minimal packets carry kFlagNonMinimal; their intermediate group is drawn from
//     (trial seed, source, injection cycle, destination), which identify the packet (a NIC starts at
//     most one packet per cycle), so every switch on the path recomputes the same group. Valiant
//     always reaches it by its first global hop, so "reached" = one global hop taken.
//   - UGAL (and PAR's first decision) at the source switch, for packets arriving from an endpoint:
//     minimal when q_min x H_min <= q_nonmin x H_nonmin + routing.ugal_threshold, q = flits of
//     credit in use over every VC of the first output of each path (UGAL-L on credit counts, 001
//     §6.5, U11; routing.ugal_queue = credits_less_rtt takes twice the link latency off, see
//     df_engine_queue), H = switch-to-switch hops of the whole path. PAR re-decides once, at the switch of
//     the source group that owns the minimal global channel (df_par_may_reevaluate), with the same
//     intermediate group.
//   - Ejection keeps the VC the packet arrived on (the sink takes any VC).
#pragma once
#include <cstdint>

#include "kernels/common/index.hpp"
#include "kernels/common/packet.hpp"
#include "kernels/common/rng.hpp"
#include "kernels/routing/dragonfly_route.hpp"
#include "kernels/state/engine_view.hpp"
#include "kernels/state/link_ring.hpp"

namespace saturn {

// Hop state of a packet arriving at local port in_port with routing VC rvc (see above).
SATURN_INLINE DfRoute df_engine_state(const DfGeom& d, int in_port, int rvc, int src_group_vcs) {
  DfRoute r;
  if (in_port < d.p) return r;  // from its source NIC
  if (dfk_is_global_port(d, in_port)) {
    r.globals = static_cast<uint8_t>(rvc + 1);
  } else if (rvc < src_group_vcs) {
    r.src_locals = static_cast<uint8_t>(rvc + 1);
    r.group_locals = r.src_locals;
  } else {
    r.globals = static_cast<uint8_t>(rvc - (src_group_vcs - 1));
    r.src_locals = 1;  // (not read once a global hop is taken)
  }
  r.hops = static_cast<uint8_t>(r.globals + r.src_locals);  // > 0 once a hop is taken (all PAR reads)
  r.reached_mid = r.globals > 0 ? 1 : 0;
  return r;
}

// The packet's intermediate group (any group but its source and destination groups; g >= 3).
SATURN_INLINE int df_engine_mid(const EngineView& v, const Packet& pk, int t) {
  const DfGeom& d = v.model.df.geom;
  const int src_group = static_cast<int>(pk.src()) / (d.p * d.a), dst_group = static_cast<int>(pk.dst()) / (d.p * d.a);
  const Draw4 w = philox(v.trial.seed[t], pk.src(), pk.dst(), pk.inject_cycle, Stream::kDragonfly);
  return dfk_intermediate_group(w.v[0], src_group, dst_group, d.g);
}

// Flits of credit in use on output port go (every VC): UGAL-L's queue estimate. 0 for an ejection port.
// With routing.ugal_queue = credits_less_rtt, less twice the link's latency (floored at 0): credits
// in use count the flits on the wire and the credits on their way back too, up to 2 x latency on a
// busy link (about 2,000 flits on 001's 1 us global channels against about 100 on a 50 ns local one),
// which is not queue; without this the minimal global hop looks congested at any load.
SATURN_INLINE int64_t df_engine_queue(const EngineView& v, int go, int t) {
  if (v.net.peer_type[go] != static_cast<uint8_t>(PeerType::kSwitch)) return 0;
  const ModelParams& m = v.model;
  const int peer = v.net.peer[go];
  int64_t used = 0;
  for (int vc = 0; vc < m.vcs; ++vc)
    used += port_vc_capacity(v, peer, vc) - v.state.out_credits[at(static_cast<int64_t>(go) * m.vcs + vc, t, m.trials)];
  if (m.df.queue_less_rtt) {
    used -= 2 * static_cast<int64_t>(ring_depth_of(v, go) - 1);  // a ring is latency + 1 slots deep
    if (used < 0) used = 0;
  }
  return used;
}

// UGAL's rule at switch sw for a packet still on its minimal path: true = go non-minimal via mid.
// Only called outside the destination group (and mid is never sw's group), so each path's first port
// and hop count come from one scan of the global channels (as df_route_port, dfk_min_hops and
// dfk_valiant_hops would give them).
SATURN_INLINE bool df_engine_take_valiant(const EngineView& v, int sw, const Packet& pk, int mid, int t) {
  const DfGeom& d = v.model.df.geom;
  const int base = v.net.sw_port_base[sw];
  const int t_sw = static_cast<int>(pk.dst()) / d.p;
  int hops_min = 0, hops_non = 0;
  const int port_min = dfk_channel_port(d, sw, dfk_best_channel(d, sw, t_sw / d.a, t_sw, &hops_min));
  const int port_non = dfk_channel_port(d, sw, dfk_best_channel(d, sw, mid, t_sw, &hops_non));
  return !df_ugal_minimal(df_engine_queue(v, base + port_min, t), hops_min, df_engine_queue(v, base + port_non, t),
                          hops_non, v.model.df.ugal_threshold);
}

// Output port (local index) at switch sw for packet pk arriving on local port in_port, and in
// *out_vc the engine VC it takes there. May set kFlagNonMinimal on pk (UGAL, PAR).
SATURN_INLINE int df_engine_route(const EngineView& v, int sw, int in_port, Packet& pk, int t, uint32_t c,
                                  int* out_vc) {
  (void)c;
  const DfEngine& df = v.model.df;
  const DfGeom& d = df.geom;
  const int R = df.route_vcs;
  const int vc = static_cast<int>(pk.vc());
  const int cls = vc / R;
  const int S = df_src_group_vcs(df.routing);
  DfRoute r = df_engine_state(d, in_port, vc - cls * R, S);
  const int dst = static_cast<int>(pk.dst());
  const int dst_group = dst / (d.p * d.a), src_group = static_cast<int>(pk.src()) / (d.p * d.a);
  const bool can_detour = d.g >= 3 && sw / d.a != dst_group;
  if (df.routing != DfRouting::kMinimal && can_detour) {
    bool non_min = (pk.flags() & kFlagNonMinimal) != 0;
    if (!non_min) {
      if (df.routing == DfRouting::kValiant && in_port < d.p && src_group != dst_group) {
        non_min = true;
      } else if ((df.routing == DfRouting::kUgal || df.routing == DfRouting::kPar) && in_port < d.p) {
        non_min = df_engine_take_valiant(v, sw, pk, df_engine_mid(v, pk, t), t);
      } else if (df.routing == DfRouting::kPar && df_par_may_reevaluate(d, r, sw, dst)) {
        non_min = df_engine_take_valiant(v, sw, pk, df_engine_mid(v, pk, t), t);
      }
      if (non_min) pk.add_flags(kFlagNonMinimal);
    }
    if (non_min) r.mid_group = static_cast<int16_t>(df_engine_mid(v, pk, t));
  }
  const int port = df_route_port(d, sw, dst, r);
  *out_vc = port < d.p ? vc : cls * R + df_route_vc(d, r, port, DfVcScheme::kCompact, S);
  return port;
}

}  // namespace saturn
