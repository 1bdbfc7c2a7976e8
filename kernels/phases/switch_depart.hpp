// What a grant does, whichever policy made it (switch_grant.hpp, switch_grant_separable.hpp,
// switch_grant_cc.hpp): the packet leaves its VOQ for the output's link, or with output queues
// (CIOQ, kernels/state/output_queue.hpp) for its output's VC queue, and every connected output
// writes its link slot each cycle (empty when it sends nothing).
#pragma once
#include <cstdint>

#include "kernels/arbiters/vc_allocation.hpp"
#include "kernels/cc/ib_ecn.hpp"
#include "kernels/common/bits.hpp"
#include "kernels/common/index.hpp"
#include "kernels/isolation/wiring.hpp"
#include "kernels/phases/packet_lanes.hpp"
#include "kernels/reservation/lhrp_engine.hpp"
#include "kernels/state/credit_pool.hpp"
#include "kernels/state/engine_view.hpp"
#include "kernels/state/link_ring.hpp"
#include "kernels/state/output_queue.hpp"
#include "kernels/state/ring_marks.hpp"
#include "kernels/state/voq.hpp"

namespace saturn {

// Departure of the packet this lane's output chose: off its VOQ, onto the link, its entry
// recorded by the output until the tail has left. The VOQ's VC is the VC the packet takes on the
// output link (dragonfly routing changes it per hop, dragonfly_engine.hpp; elsewhere it is the
// packet's own, except under per-hop VC allocation, vc_allocation.hpp, where the VOQ's VC is the one
// it arrived on and it takes a free VC of the link here); its credits go back on the VC it arrived on. wslot: the uniform rings' slot, c mod D.
template <class L, int kVcs>
SATURN_INLINE_HOT Packet grant_depart(const EngineView& v, int base, int radix, int o, int i, int vc, int e, int prev,
                                  int t, uint32_t c, int wslot, bool to_switch) {
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials;
  const int V = kVcs > 0 ? kVcs : m.vcs;
  const int gpi = base + i, go = base + o;
  if (e < 0) e = voq_head(v, voq_index(m, gpi, o, vc), t);
  Packet pk = s.ent_pkt[at(entry_index(v, gpi, e), t, T)];
  const uint32_t size = pk.size_flits();
  const uint32_t vc_in = pk.vc();  // the VC it occupies here (dragonfly routing rewrites pk's below)
  // Cycles the packet holds its input and this output's crossbar port: its length, or with output
  // queues the crossbar's time for it (kernels/state/output_queue.hpp).
  const bool cioq = cioq_on(m);
  const uint32_t busy = cioq ? xbar_cycles(m, size) : size;
  voq_remove(v, gpi, o, vc, e, prev, t);
  if (busy == 1)  // the tail leaves in this very cycle (credits of the VC it occupies here; a NACK made
                  // here from a dropped packet frees that packet's space: lhrp_engine.hpp)
    credit_add(s, ring_slot(v, gpi, c, wslot), V, static_cast<int>(vc_in), t, T,
               m.cc.speculative ? spec_buffer_flits(pk) : size);
  if (m.cc.ecn) ecn_departing(v, gpi, go, vc, pk, t);  // 001's ECN: marked by its input VC's or output queue's occupancy (ib_ecn.hpp)
  if (m.cc.speculative && (pk.flags() & kFlagNack))  // a NACK leaving the switch that made it
    pk.dst_vc_flags &= ~(kFlagMadeHere << 24);
  // Dragonfly routing queues a packet on the VC it leaves on (dragonfly_engine.hpp).
  if (m.df.on) pk.set_vc(static_cast<uint32_t>(vc));
  if (iso_on(m.iso)) iso_departed(v, gpi, o, vc, t, &pk);  // leaves in its VOQ's VC (the AFC once adapted)
  const int64_t oi = at(go, t, T);
  // switch.vc_allocation = per_hop: the VOQ's VC is the one it arrived on; it takes a free VC of the
  // next link (vc_allocation.hpp; the grant saw that one is free).
  int vc_link = vc;
  if (m.vc_per_hop && to_switch) {
    vc_link = per_hop_take(m, s.out_credits, go, t, V, &s.out_vc_next[oi], static_cast<int32_t>(size));
    if (vc_link < 0) vc_link = vc;  // (never: the credit invariants would show it)
    pk.set_vc(static_cast<uint32_t>(vc_link));
  }
  s.out_src[oi] = static_cast<uint32_t>(i) << 16 | static_cast<uint32_t>(e);
  s.out_ret[oi] = static_cast<uint32_t>(vc_in) << 16 | size;  // what switch_inputs returns as the tail leaves
  if (cioq) {
    s.xb_busy_until[oi] = c + busy;  // the link's time is counted as the packet leaves the queue
  } else {
    s.out_busy_until[oi] = c + size;
    s.out_busy_cycles[oi] += size;
  }
  if (m.arbitration == Arbitration::kRoundRobin)  // the pointer of the VC granted only (out_rr_index)
    s.out_rr[out_rr_index(m, go, vc, t)] = static_cast<uint8_t>(i + 1 == radix ? 0 : i + 1);
  if (m.vc_arbitration == VcArbitration::kRoundRobin) s.out_vc_rr[oi] = static_cast<uint8_t>(vc + 1 == V ? 0 : vc + 1);
  if (to_switch) credits_take(m, out_books(s), go, vc_link, t, static_cast<int32_t>(size));
  if (m.cc.speculative && !to_switch && !cioq) s.cc.lh_queued[oi] -= size;  // off the last-hop queue (lhrp_engine.hpp)
  return pk;
}

// Output queues (kernels/state/output_queue.hpp): each lane's output go whose link is idle sends
// the head of one of its VC queues; the link's busy time and, at an endpoint port, the last-hop
// queue are counted here rather than at the crossbar.
template <class L>
SATURN_INLINE void oq_link_depart(const EngineView& v, int go, int t0, uint32_t c, bool to_switch,
                                  PacketLanes<L>& sent) {
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials;
  const int64_t o0 = at(go, t0, T);
  const typename L::M ready = (L::load(s.oq_count + o0) != 0u) & (L::load(s.out_busy_until + o0) <= c);
  for (uint32_t b = L::bits(ready); b != 0; b &= b - 1) {
    const int l = lowest_bit(b);
    const Packet pk = oq_pop_next(v, go, t0 + l);
    const uint32_t size = pk.size_flits();
    s.out_busy_until[o0 + l] = c + size;
    s.out_busy_cycles[o0 + l] += size;
    if (m.cc.speculative && !to_switch) s.cc.lh_queued[o0 + l] -= size;
    sent.set_lane(l, pk);
  }
}

// What output go puts on its link this cycle (every connected output writes its slot, empty when it
// sends nothing): with output queues the queued head an idle link takes, else the grant's packet.
template <class L>
SATURN_INLINE void output_send(const EngineView& v, int go, int t0, uint32_t c, int wslot, PacketLanes<L>& sent) {
  if (cioq_on(v.model))
    oq_link_depart<L>(v, go, t0, c, v.net.peer_type[go] == static_cast<uint8_t>(PeerType::kSwitch), sent);
  const int64_t row = at(ring_slot(v, go, c, wslot), t0, v.model.trials);
  store_link_row<L>(v.state.link + row, v.state.link_mark + row, sent);
}

}  // namespace saturn
