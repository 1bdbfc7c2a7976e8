// Switch phase 2, "request, grant and departure", for one switch and a lane of trials, after
// switch_inputs.hpp. Every idle output takes the best eligible VOQ head (output_key.hpp: VC class,
// then FCFS by header arrival with hashed ties, or round-robin over inputs), subject to the
// input's read ports (crossbar speedup) and the downstream credits of the packet's VC. Outputs
// grant in a rotating order, each taking the best head among the inputs that still have a read
// port: the same choice as the fused step's scan-then-rescan (an output's first choice, if its
// input still has a port, is also the best of the smaller set). Winners go on the link (one slot
// written per output every cycle); a 1-flit packet's credit goes back in this very cycle.
// The search reads only the cached head keys (kernels/state/voq.hpp), R x R x V contiguous lane
// loads (a head's size only where its output has fewer credits than the largest packet), and
// compares the 64-bit key as two 32-bit halves so that every lane mask stays 32-bit.
// On one trial under round-robin (no CCA, one packet size) the search stops at the first eligible
// head in rank order instead (rr_first_eligible): the same winner, every key being distinct.
// A head short of credits with a smaller packet behind it (mixed sizes only) is looked up
// lane by lane. Same model as switch_step.hpp. kCc adds, compiled out when false: CCA's "waited
// for credits" flag per output (set from the candidates the fused step's first scan visits: the
// inputs with a read port left at the start of the phase), ECN / FECN marks on departure
// (kernels/cc/marking.hpp), and FIFO with bounded bypass, which grants in age order per lane
// (switch_grant_cc.hpp). With output queues (CIOQ, kernels/state/output_queue.hpp) a winner crosses
// into its output's VC queue instead (the output's crossbar port, not its link, must be free, and
// the queue must have room), and each link then takes a queued head (oq_link_depart).
// This is the greedy allocator (switch.allocator = greedy, the default: a maximal matching built
// output by output). switch.allocator = separable_input_first runs the iterative separable
// allocator instead (switch_grant_separable, kernels/arbiters/separable_input_first.hpp), and
// switch.input_queue = fifo lets only each (input, VC) FIFO's head request under either
// (kernels/arbiters/input_fifo.hpp); neither exists in the fused step, and neither combines with
// congestion control yet (build_model refuses it).
#pragma once
#include <cstdint>

#include "kernels/arbiters/input_fifo.hpp"
#include "kernels/arbiters/separable_input_first.hpp"
#include "kernels/cc/marking.hpp"
#include "kernels/common/bits.hpp"
#include "kernels/common/index.hpp"
#include "kernels/isolation/wiring.hpp"
#include "kernels/phases/packet_lanes.hpp"
#include "kernels/cc/ib_ecn.hpp"
#include "kernels/reservation/lhrp_engine.hpp"
#include "kernels/state/credit_pool.hpp"
#include "kernels/state/engine_view.hpp"
#include "kernels/state/link_ring.hpp"
#include "kernels/state/output_queue.hpp"
#include "kernels/state/ring_marks.hpp"
#include "kernels/state/voq.hpp"

namespace saturn {

// Round-robin on one trial (ScalarLanes, switch.arbitration = round_robin, neither CCA nor mixed
// sizes): each candidate's key (VC rank, input rank) is its own, so the first eligible head in rank
// order is the one the full search of switch_grant would pick. This visits the VCs in rank order
// and each VC's inputs in ring order from the VC's pointer, and stops at the first head that is
// ready (and its FIFO's head, with room in the output's queue) and fits the downstream credits; on
// a saturated switch it reads a few heads instead of every input's. Returns the input, -1 = none.
template <int kVcs>
SATURN_INLINE int rr_first_eligible(const EngineView& v, int base, int radix, int o, int t0, uint32_t c,
                                    const uint64_t* wants, const int32_t* read_ports, uint32_t rr_vc,
                                    const uint32_t* rr_in, const int32_t* credits, const bool* queue_room,
                                    const uint32_t* fifo_ready, bool to_switch, int* win_vc) {
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials;
  const int V = kVcs > 0 ? kVcs : m.vcs;
  // Bit i: input i has a packet for o on that VC. Without branches: on a busy switch whether input
  // i wants o is a coin toss per (i, o), and the branch on it was most of this search's time.
  uint64_t by_vc[kVcs > 0 ? kVcs : kMaxVcs] = {};
  for (int i = 0; i < radix; ++i) {
    const uint32_t take = 0u - static_cast<uint32_t>(((wants[i] >> o) & 1u) & static_cast<uint32_t>(read_ports[i] > 0));
    const uint64_t vcs = voq_vcs_any<ScalarLanes>(s, m, base + i, o, t0) & take;
    for (int vc = 0; vc < V; ++vc) by_vc[vc] |= ((vcs >> vc) & 1u) << i;
  }
  for (int r = 0; r < V; ++r) {
    // Strict priority: higher VC first; round-robin: from the pointer on (a compare, not a division).
    int vc = V - 1 - r;
    if (m.vc_arbitration == VcArbitration::kRoundRobin) {
      vc = static_cast<int>(rr_vc) + r;
      if (vc >= V) vc -= V;
    }
    if (queue_room != nullptr && !queue_room[vc]) continue;
    const uint64_t cand = by_vc[vc];
    if (cand == 0) continue;
    // The inputs from the pointer on, then those before it: ring order.
    const int p = static_cast<int>(rr_in[vc]);
    const uint64_t below = p == 0 ? 0 : cand & ((1ull << p) - 1);
    for (int part = 0; part < 2; ++part)
      for (uint64_t left = part == 0 ? cand & ~below : below; left != 0; left &= left - 1) {
        const int i = lowest_bit(left);
        const int gpi = base + i;
        const int64_t q = voq_index(m, gpi, o, vc);
        const uint32_t ready = s.voq_ready[at(q, t0, T)];
        if (ready > c) continue;
        if (fifo_ready != nullptr && ready != fifo_ready[i * V + vc]) continue;
        if (to_switch && !voq_head_fits(v, gpi, q, t0, credits[vc])) continue;
        *win_vc = vc;
        return i;
      }
  }
  return -1;
}

// FIFO with bounded bypass: switch_grant_cc.hpp (which includes this file; include it to run kCc).
template <int kVcs>
SATURN_INLINE void switch_grant_by_age(const EngineView& v, int sw, int t, uint32_t c);

// Departure of the packet this lane's output chose: off its VOQ, onto the link, its entry
// recorded by the output until the tail has left. The VOQ's VC is the VC the packet takes on the
// output link (dragonfly routing changes it per hop, dragonfly_engine.hpp; elsewhere it is the
// packet's own); its credits go back on the VC it arrived on. wslot: the uniform rings' slot, c mod D.
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
  if (m.cc.ecn) ecn_departing(v, gpi, pk, t);  // 001's ECN: marked by its input VC's occupancy (ib_ecn.hpp)
  if (m.cc.speculative && (pk.flags() & kFlagNack))  // a NACK leaving the switch that made it
    pk.dst_vc_flags &= ~(kFlagMadeHere << 24);
  // Dragonfly routing queues a packet on the VC it leaves on (dragonfly_engine.hpp).
  if (m.df.on) pk.dst_vc_flags = (pk.dst_vc_flags & ~(0xFu << 20)) | (static_cast<uint32_t>(vc) & 0xFu) << 20;
  if (iso_on(m.iso)) iso_departed(v, gpi, o, vc, t, &pk);  // leaves in its VOQ's VC (the AFC once adapted)
  const int64_t oi = at(go, t, T);
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
  if (to_switch) credits_take(m, out_books(s), go, vc, t, static_cast<int32_t>(size));
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

// switch.allocator = separable_input_first: the matching of separable_input_first.hpp, then the
// departures (every connected output's link slot is written, empty where it grants nothing; with
// output queues a grant joins its VC's queue and the link takes a queued head) and
// the pointer moves of first-iteration grants only: the input's past the output it got (in_rr),
// the output's past the input (out_rr, which grant_depart moves on every grant under round-robin
// arbitration: later iterations put it back).
template <class L, int kVcs>
SATURN_INLINE void switch_grant_separable(const EngineView& v, int base, int radix, int t0, uint32_t c, int wslot,
                                          const uint64_t* wants, uint64_t wanted, const typename L::M* idle,
                                          typename L::I32* read_ports, const typename L::U32* fifo_ready) {
  using I32 = typename L::I32;
  using M = typename L::M;
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials;
  const bool cioq = cioq_on(m);
  I32 match_in[kMaxRadix], match_vc[kMaxRadix];
  M match_first[kMaxRadix];
  separable_input_first<L, kVcs>(v, base, radix, t0, c, wants, wanted, idle, read_ports, fifo_ready, match_in,
                                 match_vc, match_first);
  for (int o = 0; o < radix; ++o) {
    const int go = base + o;
    if (v.net.peer_type[go] == static_cast<uint8_t>(PeerType::kNone)) continue;
    const bool to_switch = v.net.peer_type[go] == static_cast<uint8_t>(PeerType::kSwitch);
    PacketLanes<L> sent{};
    for (uint32_t b = (wanted >> o) & 1u ? L::bits(match_in[o] >= 0) : 0u; b != 0; b &= b - 1) {
      const int l = lowest_bit(b);
      const int t = t0 + l;
      const int i = L::get(match_in[o], l);
      const bool first = L::get_mask(match_first[o], l);
      const int vc = L::get(match_vc[o], l);
      const int64_t ri = out_rr_index(m, go, vc, t);
      const uint8_t out_pointer = s.out_rr[ri];
      const Packet pk = grant_depart<L, kVcs>(v, base, radix, o, i, vc, -1, kNoEntry, t, c, wslot, to_switch);
      if (first) s.in_rr[at(base + i, t, T)] = static_cast<uint8_t>(o + 1 == radix ? 0 : o + 1);
      else s.out_rr[ri] = out_pointer;
      if (cioq) oq_push(v, go, vc, pk, t);  // the VC its credits were taken on
      else sent.set_lane(l, pk);
    }
    output_send<L>(v, go, t0, c, wslot, sent);
  }
}

// FIFO with bypass: the lanes in which switch_grant_by_age could grant something, because some
// idle output (idle_lo / idle_hi: bit o per lane) has a VOQ head ready at an input with a read port
// left and, towards a switch, at least one credit on that VC. Every grant needs all three (a packet
// behind a head short of credits, mixed sizes, needs the head ready and a credit too), and a lane
// without a grant changes no state but its empty link slots, which the caller writes: so a lane
// outside the mask may skip the scalar grant (same bits). Not for CCA, whose scan also flags the
// outputs that waited for credits. With one read port and packets of hundreds of flits (Santos),
// an output often idles while the packets for it sit behind an input that is sending elsewhere.
template <class L, int kVcs>
SATURN_INLINE typename L::M by_age_may_grant(const EngineView& v, int base, int radix, int t0, uint32_t c,
                                             typename L::U32 idle_lo, typename L::U32 idle_hi) {
  using U32 = typename L::U32;
  using M = typename L::M;
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials;
  const int V = kVcs > 0 ? kVcs : m.vcs;
  M may = L::mask(false);
  for (int i = 0; i < radix; ++i) {
    const int64_t gi = at(base + i, t0, T);
    const U32 want_lo = L::load(s.in_voq_lo + gi) & idle_lo;
    const U32 want_hi = m.max_radix > 32 ? L::load(s.in_voq_hi + gi) & idle_hi : L::u32(0);
    const uint64_t outputs = L::or_lanes(want_lo) | static_cast<uint64_t>(L::or_lanes(want_hi)) << 32;
    if (outputs == 0) continue;
    M can_send = L::mask(true);  // a read port left: fewer than `speedup` outputs send from input i
    if (m.speedup != 0) {
      U32 sending = L::u32(0);
      for (int o = 0; o < radix; ++o) {
        if (v.net.peer_type[base + o] == static_cast<uint8_t>(PeerType::kNone)) continue;
        const U32 src = L::load(s.out_src + at(base + o, t0, T));
        sending = sending + L::sel(L::mand(src != kNoSource, (src >> 16) == static_cast<uint32_t>(i)), L::u32(1), L::u32(0));
      }
      can_send = sending < static_cast<uint32_t>(m.speedup);
      if (L::none(can_send)) continue;
    }
    for (uint64_t left = outputs; left != 0; left &= left - 1) {
      const int o = lowest_bit(left);
      const int go = base + o;
      const U32 want = o < 32 ? want_lo >> static_cast<uint32_t>(o) : want_hi >> static_cast<uint32_t>(o - 32);
      const M wanted = L::mand(can_send, (want & 1u) != 0u);
      if (L::none(wanted)) continue;
      const bool to_switch = v.net.peer_type[go] == static_cast<uint8_t>(PeerType::kSwitch);
      for (uint32_t vcs = voq_vcs_any<L>(s, m, base + i, o, t0); vcs != 0; vcs &= vcs - 1) {
        const int vc = lowest_bit(vcs);
        M ok = L::mand(wanted, L::load(s.voq_ready + at(voq_index(m, base + i, o, vc), t0, T)) <= c);
        if (to_switch) ok = L::mand(ok, L::load_i32(s.out_credits + at(static_cast<int64_t>(go) * V + vc, t0, T)) > 0);
        may = L::mor(may, ok);
      }
    }
  }
  return may;
}

// FIFO with bypass, a lane of trials: switch_grant_by_age in each lane where some input holds a
// packet for an idle output that it could take (by_age_may_grant). In the other lanes it could
// grant nothing, and all it would do is write each connected output's link slot empty, done here.
// (With packets of hundreds of flits, as in the Santos studies, most lanes skip.)
template <class L, int kVcs>
SATURN_INLINE void switch_grant_by_age_lanes(const EngineView& v, int sw, int t0, uint32_t c) {
  using U32 = typename L::U32;
  using M = typename L::M;
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials;
  const int base = v.net.sw_port_base[sw];
  const int radix = v.net.sw_port_base[sw + 1] - base;
  U32 idle_lo = L::u32(0), idle_hi = L::u32(0);  // per lane: bit o set where output o is idle
  for (int o = 0; o < radix; ++o) {
    if (v.net.peer_type[base + o] == static_cast<uint8_t>(PeerType::kNone)) continue;
    const M idle = L::load(s.out_busy_until + at(base + o, t0, T)) <= c;
    if (o < 32) idle_lo = idle_lo | L::sel(idle, L::u32(1u << o), L::u32(0));
    else idle_hi = idle_hi | L::sel(idle, L::u32(1u << (o - 32)), L::u32(0));
  }
  // Lanes that run the grant: where it could take a packet, or under CCA (whose scan also flags the
  // outputs that waited for credits) wherever an input holds one for an idle output.
  M work = L::mask(false);
  if (!m.cc.cca) {
    work = by_age_may_grant<L, kVcs>(v, base, radix, t0, c, idle_lo, idle_hi);
  } else {
    for (int i = 0; i < radix; ++i) {
      const int64_t gi = at(base + i, t0, T);
      work = L::mor(work, (L::load(s.in_voq_lo + gi) & idle_lo) != 0u);
      if (m.max_radix > 32) work = L::mor(work, (L::load(s.in_voq_hi + gi) & idle_hi) != 0u);
    }
  }
  // Every lane's link slots empty first (whole cache lines, vector stores); a lane that runs the
  // grant then writes each of its slots again, with what it sends.
  const int wslot = static_cast<int>(c % static_cast<uint32_t>(m.link_depth));  // uniform rings (link_ring.hpp)
  for (int o = 0; o < radix; ++o) {
    const int go = base + o;
    if (v.net.peer_type[go] == static_cast<uint8_t>(PeerType::kNone)) continue;
    store_mark_bits<L>(s.link_mark + at(ring_slot(v, go, c, wslot), t0, T), 0u);
  }
  for (uint32_t b = L::bits(work); b != 0; b &= b - 1) switch_grant_by_age<kVcs>(v, sw, t0 + lowest_bit(b), c);
}

template <class L, int kVcs, bool kCc = false>
SATURN_INLINE void switch_grant(const EngineView& v, int sw, int t0, uint32_t c) {
  using U32 = typename L::U32;
  using I32 = typename L::I32;
  using M = typename L::M;
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials;
  const int V = kVcs > 0 ? kVcs : m.vcs;
  const int base = v.net.sw_port_base[sw];
  const int radix = v.net.sw_port_base[sw + 1] - base;
  const int wslot = static_cast<int>(c % static_cast<uint32_t>(m.link_depth));  // uniform rings (link_ring.hpp)
  const bool fcfs = m.arbitration != Arbitration::kRoundRobin;
  const bool vc_rr = m.vc_arbitration == VcArbitration::kRoundRobin;
  if (kCc && m.arbitration == Arbitration::kFifoBypass) {  // the grant order differs per lane
    switch_grant_by_age_lanes<L, kVcs>(v, sw, t0, c);
    return;
  }
  const bool cca = kCc && m.cc.cca;
  const bool marks = kCc && cc_departure_hook(m);

  // Outputs that may grant: idle in some lane, and wanted by some input of some lane.
  uint64_t wants[kMaxRadix];
  uint64_t wanted = 0;
  for (int i = 0; i < radix; ++i) {
    const int64_t gi = at(base + i, t0, T);
    wants[i] = L::or_lanes(L::load(s.in_voq_lo + gi));
    if (m.max_radix > 32) wants[i] |= static_cast<uint64_t>(L::or_lanes(L::load(s.in_voq_hi + gi))) << 32;
    wanted |= wants[i];
  }
  // An output may take a packet while its crossbar port is free: the port is its link, or with
  // output queues the crossbar's own (output_queue.hpp).
  const bool cioq = cioq_on(m);
  const uint32_t* xbar_until = xbar_busy_until(v);
  M idle[kMaxRadix];
  for (int o = 0; o < radix; ++o) {
    idle[o] = L::mask(false);
    if (v.net.peer_type[base + o] == static_cast<uint8_t>(PeerType::kNone) || !((wanted >> o) & 1u)) continue;
    idle[o] = L::load(xbar_until + at(base + o, t0, T)) <= c;
    if (L::none(idle[o])) wanted &= ~(1ull << o);
  }
  if (wanted == 0) {  // no output of any lane can grant: the links carry only what the output queues hold
    for (int o = 0; o < radix; ++o) {
      const int go = base + o;
      if (v.net.peer_type[go] == static_cast<uint8_t>(PeerType::kNone)) continue;
      PacketLanes<L> sent{};
      output_send<L>(v, go, t0, c, wslot, sent);
    }
    return;
  }
  // Read ports left per input: the speedup less the outputs still sending its packets.
  I32 read_ports[kMaxRadix];
  for (int i = 0; i < radix; ++i) read_ports[i] = L::i32(m.speedup == 0 ? kMaxRadix : m.speedup);
  if (m.speedup != 0)
    for (int o = 0; o < radix; ++o) {
      const U32 src = L::load(s.out_src + at(base + o, t0, T));
      const M sending = src != kNoSource;
      if (L::none(sending)) continue;
      const U32 in = L::sel(sending, src >> 16, L::u32(kMaxRadix));
      for (int i = 0; i < radix; ++i) read_ports[i] = read_ports[i] - L::sel(in == static_cast<uint32_t>(i), L::i32(1), L::i32(0));
    }
  // FIFO inputs: only the head of each (input, VC) FIFO may request (input_fifo.hpp).
  const bool fifo = m.input_queue == InputQueue::kFifo;
  U32 fifo_ready[kMaxRadix * (kVcs > 0 ? kVcs : kMaxVcs)];
  if (fifo) fifo_head_ready<L, kVcs>(v, base, radix, t0, wants, fifo_ready);
  if (m.allocator == Allocator::kSeparableInputFirst) {
    switch_grant_separable<L, kVcs>(v, base, radix, t0, c, wslot, wants, wanted, idle, read_ports,
                                    fifo ? fifo_ready : nullptr);
    return;
  }
  I32 read_ports0[kMaxRadix];  // CCA: at the start of the phase (the inputs the fused first scan visits)
  if (cca)
    for (int i = 0; i < radix; ++i) read_ports0[i] = read_ports[i];

  // One trial under round-robin: the first eligible head in rank order (rr_first_eligible).
  const bool rr_first = L::kWidth == 1 && !fcfs && !cca && !m.mixed_sizes;
  int o = static_cast<int>(c % static_cast<uint32_t>(radix));
  for (int n = 0; n < radix; ++n, o = o + 1 == radix ? 0 : o + 1) {
    const int go = base + o;
    if (v.net.peer_type[go] == static_cast<uint8_t>(PeerType::kNone)) continue;
    PacketLanes<L> sent{};
    if ((wanted >> o) & 1u) {
      const bool to_switch = v.net.peer_type[go] == static_cast<uint8_t>(PeerType::kSwitch);
      const U32 rr_vc = vc_rr ? L::load(s.out_vc_rr + at(go, t0, T)) : L::u32(0);
      U32 rr_in[kVcs > 0 ? kVcs : kMaxVcs];  // round-robin among inputs from each VC's own pointer (out_rr_index)
      for (int vc = 0; vc < V; ++vc) rr_in[vc] = fcfs ? L::u32(0) : L::load(s.out_rr + out_rr_index(m, go, vc, t0));
      I32 credits[kVcs > 0 ? kVcs : kMaxVcs];
      for (int vc = 0; vc < V; ++vc)
        credits[vc] = !to_switch ? L::i32(0) : L::load_i32(s.out_credits + at(static_cast<int64_t>(go) * V + vc, t0, T));
      M queue_room[kVcs > 0 ? kVcs : kMaxVcs];  // output queues: the VC's queue has room for a packet
      if (cioq)
        for (int vc = 0; vc < V; ++vc)
          queue_room[vc] = (L::load(s.oq_ends + at(oq_queue(m, go, vc), t0, T)) >> 16) < static_cast<uint32_t>(m.oq_packets);
      // Best key so far as two 32-bit halves: [VC rank : 4][input rank : 7][ready >> 11] and
      // [ready : 11 low bits][tie : 21] (output_key.hpp's layout).
      U32 best_hi = L::u32(~0u), best_lo = L::u32(~0u);
      I32 best_in = L::i32(-1), best_vc = L::i32(0), best_e = L::i32(-1), best_prev = L::i32(kNoEntry);
      M stalled = L::mask(false);
      if constexpr (L::kWidth == 1) {
        if (rr_first)
          best_in = rr_first_eligible<kVcs>(v, base, radix, o, t0, c, wants, read_ports, rr_vc, rr_in, credits,
                                            cioq ? queue_room : nullptr, fifo ? fifo_ready : nullptr, to_switch,
                                            &best_vc);
      }
      for (int i = 0; i < (rr_first ? 0 : radix); ++i) {
        if (!((wants[i] >> o) & 1u)) continue;
        const M can = idle[o] & (read_ports[i] > 0);
        const M visit = cca ? L::mand(idle[o], read_ports0[i] > 0) : can;
        if (L::none(visit)) continue;
        const int gpi = base + i;
        const int64_t q0 = voq_index(m, gpi, o, 0);
        // Only FIFOs that hold a packet in some lane (an empty one's head is never ready).
        for (uint32_t vcs = voq_vcs_any<L>(s, m, gpi, o, t0); vcs != 0; vcs &= vcs - 1) {
          const int vc = lowest_bit(vcs);
          const int64_t qi = at(q0 + vc, t0, T);
          const U32 ready = L::load(s.voq_ready + qi);
          M ready_now = visit & (ready <= c);
          if (fifo) ready_now = ready_now & (ready == fifo_ready[i * V + vc]);
          if (cioq) ready_now = ready_now & queue_room[vc];
          if (L::none(ready_now)) continue;
          M ok = can & ready_now;
          M short_of_credits = L::mask(false);
          if (to_switch) {
            // Credits for the largest packet fit any head; below that, read the head's size.
            M fits = credits[vc] >= max_packet_flits(m);
            const uint32_t check = L::bits(ready_now & L::mnot(fits));
            alignas(64) int32_t lane_credits[L::kWidth];  // lanes from an array (see the winners below)
            if (check != 0 || (cca && m.mixed_sizes)) L::store_i32(lane_credits, credits[vc]);
            if (check != 0) {
              uint32_t head_fits = 0;
              for (uint32_t b = check; b != 0; b &= b - 1) {
                const int l = lowest_bit(b);
                if (voq_head_size(v, gpi, q0 + vc, t0 + l) <= lane_credits[l]) head_fits |= 1u << l;
              }
              fits = L::mor(fits, L::from_bits(head_fits));
            }
            if (cca) {  // waiting for credits: the head, or with mixed sizes any ready packet behind it
              stalled = L::mor(stalled, L::mand(ready_now, L::mnot(fits)));
              if (m.mixed_sizes) {
                uint32_t short_behind = 0;
                for (uint32_t b = L::bits(L::mand(ready_now, fits)); b != 0; b &= b - 1) {
                  const int l = lowest_bit(b);
                  if (voq_any_short(v, gpi, q0 + vc, t0 + l, c, lane_credits[l])) short_behind |= 1u << l;
                }
                stalled = L::mor(stalled, L::from_bits(short_behind));
              }
            }
            short_of_credits = ok & L::mnot(fits);
            ok = ok & fits;
          }
          if (L::none(ok) && L::none(short_of_credits)) continue;
          U32 vc_rank;
          if (vc_rr) {
            const U32 r = static_cast<uint32_t>(vc + V) - rr_vc;
            vc_rank = L::sel(r >= static_cast<uint32_t>(V), r - static_cast<uint32_t>(V), r);
          } else {
            vc_rank = L::u32(static_cast<uint32_t>(V - 1 - vc));
          }
          const U32 input_rank = fcfs ? L::u32(0) : alloc_ring_rank<L>(i, radix, rr_in[vc]);
          const U32 rank = (vc_rank << 7) | input_rank;
          const U32 tie = fcfs ? L::load(s.voq_tie + qi) & 0x1FFFFFu : L::u32(0);
          const U32 hi = (rank << 21) | (ready >> 11), lo = (ready << 21) | tie;
          const M better = ok & ((hi < best_hi) | ((hi == best_hi) & (lo < best_lo)));
          best_hi = L::sel(better, hi, best_hi);
          best_lo = L::sel(better, lo, best_lo);
          best_in = L::sel(better, L::i32(i), best_in);
          best_vc = L::sel(better, L::i32(vc), best_vc);
          best_e = L::sel(better, L::i32(-1), best_e);
          if (!m.mixed_sizes || fifo) continue;  // a FIFO head is never bypassed
          // A head short of credits: the first packet behind it that fits, lane by lane.
          for (uint32_t b = L::bits(short_of_credits); b != 0; b &= b - 1) {
            const int l = lowest_bit(b);
            const int t = t0 + l;
            int prev = kNoEntry;
            const int e = voq_find_fit(v, gpi, q0 + vc, t, c, L::get(credits[vc], l), &prev);
            if (e == kNoEntry) continue;
            const int64_t ei = at(entry_index(v, gpi, e), t, T);
            const uint32_t r = s.ent_time[ei], x = fcfs ? s.ent_tie[ei] & 0x1FFFFFu : 0u;
            const uint32_t h = (L::get(rank, l) << 21) | (r >> 11), lw = (r << 21) | x;
            const uint32_t bh = L::get(best_hi, l), bl = L::get(best_lo, l);
            if (h < bh || (h == bh && lw < bl)) {
              L::set(best_hi, l, h);
              L::set(best_lo, l, lw);
              L::set(best_in, l, i);
              L::set(best_vc, l, vc);
              L::set(best_e, l, e);
              L::set(best_prev, l, prev);
            }
          }
        }
      }
      if (cca && L::any(stalled)) L::store_if(stalled, s.cc.out_stalled + at(go, t0, T), L::u32(1));
      // The winners lane by lane, from plain arrays: a lane read from (or written into) a vector goes
      // through the stack, and a whole-vector load of lanes just written one by one stalls on store
      // forwarding (measured: most of the grant's time on a pack). Without output queues the
      // packets go straight into the link row, and the row's marks are the lanes granted.
      const uint32_t granted = L::bits(best_in >= 0);
      const bool direct = !cioq && L::kWidth > 1;  // a pack without output queues: straight into the row
      const int64_t row_at = at(ring_slot(v, go, c, wslot), t0, T);
      Packet* row = s.link + row_at;
      if (direct) store_mark_bits<L>(s.link_mark + row_at, granted);
      if (granted == 0) {
        if (!direct) output_send<L>(v, go, t0, c, wslot, sent);
        continue;
      }
      alignas(64) int32_t win_in[L::kWidth], win_vc[L::kWidth], win_e[L::kWidth], win_prev[L::kWidth];
      L::store_i32(win_in, best_in);
      L::store_i32(win_vc, best_vc);
      L::store_i32(win_e, best_e);
      L::store_i32(win_prev, best_prev);
      uint64_t inputs_granted = 0;
      for (uint32_t b = granted; b != 0; b &= b - 1) {
        const int l = lowest_bit(b);
        const int i = win_in[l];
        const int e = win_e[l];
        Packet pk = grant_depart<L, kVcs>(v, base, radix, o, i, win_vc[l], e, e < 0 ? kNoEntry : win_prev[l], t0 + l, c,
                                          wslot, to_switch);
        if (marks) cc_departure(v, go, pk, t0 + l);
        inputs_granted |= 1ull << i;
        if (cioq) oq_push(v, go, win_vc[l], pk, t0 + l);  // the VC its credits were taken on
        else if (direct) row[l] = pk;
        else sent.set_lane(l, pk);
      }
      // A read port less at each granting input, in the lanes it granted (with unlimited speedup
      // the ports never run out within one cycle: an input has kMaxRadix >= radix of them).
      if (m.speedup != 0)
        for (uint64_t g = inputs_granted; g != 0; g &= g - 1) {
          const int i = lowest_bit(g);
          read_ports[i] = read_ports[i] - L::sel(best_in == i, L::i32(1), L::i32(0));
        }
      if (direct) continue;  // the row is written
    }
    output_send<L>(v, go, t0, c, wslot, sent);
  }
}

}  // namespace saturn
