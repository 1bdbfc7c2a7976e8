// Flow-level adaptive routing with its control packets in flight (Zdornov & Birk 000 §4.1,
// PAPERS-SPEC M17; routing.route_setup = "packets"). Instead of every flow being set up on the host
// at t = 0 (host/engine/adaptive_routes.cpp), each connection is set up and torn down by packets:
//   * setup p_s: when a flow of a (source, destination) pair has data and the pair has no
//     connection, the source sends p_s on the control class (cc.ack_vc, before data). At each
//     input it crosses, the switch runs setup_hop (route_cache.hpp: the ERT's candidates, the flow
//     count per output link, a PRC entry for an alternate only if the input's cache has room), so
//     setups that cross one switch in one cycle see each other's counts in port order;
//   * the destination turns p_s back to the source on the default path (the ERT's default ports,
//     no state touched: M17 step 8); the source sends the pair's data only once it is back (step 9);
//   * teardown p_t: when none of the pair's flows has data left, the source sends p_t routed like
//     data (the PRC entry, else the default port), erasing the pair's entries and uncounting it on
//     every link. It goes on the data's VC, behind the pair's last packet: on the control class it
//     could overtake data still in the network, whose later hops would then take the default
//     ports (out of order). The destination turns it back too; once it is back the pair may set up
//     a new connection (M17: "a new flow with the same GCID may start").
// One connection per (source, destination) pair, as with the host setup: the queue that sent p_s
// owns it (kRtOwner) and keeps its send-queue slot until p_t is back; flows of the pair in other
// queues join it (kRtReady). The packets are 1-flit control packets: kFlagControl | kRouteFlag, p_t
// adds kRouteTeardown, the way back kRouteBack (flag bits of NACK, non-minimal and speculative
// packets, whose protocols the config refuses with this routing); birth_cycle carries the cycle p_s
// or p_t left the source (through the control FIFO's argument), so the source measures the round trip.
#pragma once
#include <cstdint>

#include "kernels/common/index.hpp"
#include "kernels/common/packet.hpp"
#include "kernels/injection/injection_common.hpp"
#include "kernels/phases/control_queue.hpp"
#include "kernels/routing/route_cache.hpp"
#include "kernels/state/engine_view.hpp"

namespace saturn {

constexpr uint32_t kRouteFlag = kFlagNack;           // a control packet of the route setup
constexpr uint32_t kRouteTeardown = kFlagNonMinimal;  // with kRouteFlag: p_t (else p_s)
constexpr uint32_t kRouteBack = kFlagSpeculative;     // with kRouteFlag: turned back at the destination

// act_route bits of a send queue.
enum RouteQueueState : uint8_t {
  kRtOwner = 1,        // this queue sent its pair's p_s: it owns the connection until p_t is back
  kRtSetupOut = 2,     // the owner's p_s is in the network
  kRtReady = 4,        // the connection is up: this queue's flow may send data
  kRtTeardownOut = 8,  // the owner's p_t is in the network
};

SATURN_INLINE bool route_control_packet(uint32_t flags) {
  return (flags & (kFlagControl | kRouteFlag)) == (kFlagControl | kRouteFlag);
}

// A teardown on its way out (not yet turned back): it must not pass a packet of its VOQ (voq.hpp).
SATURN_INLINE bool route_teardown_packet(uint32_t flags) {
  return route_control_packet(flags) && (flags & (kRouteTeardown | kRouteBack)) == kRouteTeardown;
}

// The PRCs and flow counts the packets write (CC columns rc_*, one batch).
SATURN_INLINE RouteCacheView route_setup_caches(const EngineView& v) {
  RouteCacheView c;
  c.prc_gcid = v.state.cc.rc_gcid;
  c.prc_port = v.state.cc.rc_port;
  c.port_flows = v.state.cc.rc_flows;
  c.slots = v.model.prc_slots;
  c.trials = v.model.trials;
  return c;
}

// Switch sw (global ports base ..), a packet from src to dst with `flags` arrived on in_port:
// its output port. Data and p_t follow the PRC entry, else the default port; p_s runs the setup
// hop; packets turned back take the default port and touch nothing.
SATURN_INLINE int route_setup_hop(const EngineView& v, int sw, int64_t base, int in_port, uint32_t src, uint32_t dst,
                                  uint32_t flags, int t) {
  const FlowTree& tr = v.model.tree;
  const RouteCacheView rc = route_setup_caches(v);
  const uint32_t gcid = connection_gcid(src, dst, static_cast<uint32_t>(v.net.num_endpoints));
  if (!route_control_packet(flags)) return data_hop(tr, rc, sw, base, in_port, dst, gcid, t);
  if ((flags & kRouteBack) != 0) return tree_ert_entry(tr, sw, dst).dp;
  if ((flags & kRouteTeardown) != 0) return teardown_hop(tr, rc, sw, base, in_port, dst, gcid, t);
  // (a full PRC with an alternate on offer: the setup takes the default port, M17 step 4; counted
  // so that an "unlimited" cache sized by the host can be seen to have been enough)
  if (prc_find(rc, base + in_port, t, kNoGcid) < 0 && tree_hop_candidates(tr, sw, in_port, dst).alternates != 0)
    v.state.cc.st_route_full[at(base + in_port, t, v.model.trials)] += 1;
  return setup_hop(tr, rc, sw, base, in_port, dst, gcid, t);
}

// The queue of source e that owns its connection to dst, or kNoQueue.
SATURN_INLINE int route_owner(const EngineView& v, int e, int t, uint32_t dst) {
  return first_send_queue(v, e, t, [&](int64_t ai) {
    return (v.state.cc.act_route[ai] & kRtOwner) != 0 && v.state.act_dst[ai] == dst;
  });  // (kNoQueue = -1 when none)
}

// Whether some flow of source e to dst still has data to send.
SATURN_INLINE bool route_pair_has_data(const EngineView& v, int e, int t, uint32_t dst) {
  return first_send_queue(v, e, t, [&](int64_t ai) { return v.state.act_left[ai] != 0 && v.state.act_dst[ai] == dst; }) >= 0;
}

// Source e, every cycle it could send: flows with data and no connection join their pair's (if it
// is up) or send its p_s (if the pair has none); an owner whose pair has no data left sends p_t.
// Leaves one control-FIFO place for the packets the destination side turns back.
SATURN_INLINE void route_source_step(const EngineView& v, int e, int t, uint32_t c) {
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int A = m.active_queues;
  for (int a = 0; a < A; ++a) {
    const int64_t ai = at(static_cast<int64_t>(e) * A + a, t, m.trials);
    const uint8_t st = s.cc.act_route[ai];
    const uint32_t dst = s.act_dst[ai];
    if (s.act_left[ai] != 0 && (st & (kRtOwner | kRtReady)) == 0) {  // a flow without its connection
      const int o = route_owner(v, e, t, dst);
      if (o != kNoQueue) {  // the pair's: join it if it is up (else wait for its p_s or p_t to come back)
        const uint8_t owner = s.cc.act_route[at(static_cast<int64_t>(e) * A + o, t, m.trials)];
        if ((owner & (kRtReady | kRtTeardownOut)) == kRtReady) s.cc.act_route[ai] = kRtReady;
        continue;
      }
      if (!control_room_for_own(v, e, t)) return;
      cc_queue_control(v, e, t, dst, kRouteFlag, c, c);
      s.cc.act_route[ai] = kRtOwner | kRtSetupOut;
      continue;
    }
    if ((st & (kRtOwner | kRtReady | kRtTeardownOut)) != (kRtOwner | kRtReady) || route_pair_has_data(v, e, t, dst))
      continue;
    if (!control_room_for_own(v, e, t)) return;
    cc_queue_control(v, e, t, dst, kRouteFlag | kRouteTeardown, c, c, s.act_vc[ai]);
    for (int b = 0; b < A; ++b) {  // no flow of the pair sends on this connection any more
      const int64_t bi = at(static_cast<int64_t>(e) * A + b, t, m.trials);
      if (s.act_dst[bi] == dst) s.cc.act_route[bi] = static_cast<uint8_t>(s.cc.act_route[bi] & ~kRtReady);
    }
    s.cc.act_route[ai] = kRtOwner | kRtTeardownOut;
  }
}

// A route packet's header (its only flit) arrived at endpoint e.
SATURN_INLINE void route_control_arrived(const EngineView& v, int e, int t, uint32_t c, const Packet& in) {
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const uint32_t flags = in.flags();
  if ((flags & kRouteBack) == 0) {  // at the destination: back to the source on the default path
    cc_queue_control(v, e, t, in.src(), kRouteFlag | kRouteBack | (flags & kRouteTeardown), c + 1, in.birth_cycle);
    return;
  }
  const int o = route_owner(v, e, t, in.src());
  if (o == kNoQueue) return;  // (not reached: the owner keeps its slot until its p_t is back)
  const int A = m.active_queues;
  const int64_t ei = at(e, t, m.trials);
  if ((flags & kRouteTeardown) != 0) {  // the pair's connection is gone: the slot is free again
    s.cc.act_route[at(static_cast<int64_t>(e) * A + o, t, m.trials)] = 0;
    s.cc.st_route_teardowns[ei] += 1;
    return;
  }
  s.cc.st_route_setups[ei] += 1;
  s.cc.st_route_setup_cycles[ei] += c - in.birth_cycle;
  for (int b = 0; b < A; ++b) {  // the owner and every flow of the pair with data may send
    const int64_t bi = at(static_cast<int64_t>(e) * A + b, t, m.trials);
    if (s.act_dst[bi] != in.src()) continue;
    if (b == o) s.cc.act_route[bi] = kRtOwner | kRtReady;
    else if (s.act_left[bi] != 0) s.cc.act_route[bi] = kRtReady;
  }
}

// Whether send queue ai may send data now.
SATURN_INLINE bool route_ready(const EngineView& v, int64_t ai) { return (v.state.cc.act_route[ai] & kRtReady) != 0; }

}  // namespace saturn
