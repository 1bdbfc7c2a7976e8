// Switch phase 1, "link arrival and credit return", for the ports of one switch and a lane of
// trials (owner computes: writes only this switch's input ports, its outputs' records of what
// they send, its output credit counters and its inputs' credit channels at this cycle's slot):
//   - the packets this switch's outputs are sending (out_src): the credits of tails leaving in this
//     cycle are written to the input's credit channel (the grant phase adds those of 1-flit packets
//     it sends now), and the entries of tails that have left are freed (kernels/state/voq.hpp);
//   - per port, the arriving header takes a free entry, is routed and joins the tail of its VOQ
//     (virtual cut-through: the upstream reserved whole-packet space with credits);
//   - per port, the credits the downstream input returned are added to this output's counters.
// The entry and VOQ work differs per trial (which entry, which VOQ), so it runs lane by lane; the
// column loads and stores that are the same element for every trial are whole lanes.
// PAPERS-SPEC M7, M11, M12 (switch_grant.hpp says which part); kCc adds occupancy tracking and the
// congestion triggers and marks (switch_cc_lanes.hpp), compiled out when false.
#pragma once
#include <cstdint>

#include "kernels/common/bits.hpp"
#include "kernels/common/index.hpp"
#include "kernels/isolation/wiring.hpp"
#include "kernels/phases/packet_lanes.hpp"
#include "kernels/phases/switch_cc_lanes.hpp"
#include "kernels/cc/ib_ecn.hpp"
#include "kernels/reservation/lhrp_engine.hpp"
#include "kernels/routing/route.hpp"
#include "kernels/routing/dragonfly_engine.hpp"
#include "kernels/state/engine_view.hpp"
#include "kernels/state/link_ring.hpp"
#include "kernels/state/output_queue.hpp"
#include "kernels/state/ring_marks.hpp"
#include "kernels/state/voq.hpp"

namespace saturn {

// CPU: start the loads switch_inputs will make for switch `sw` (its incoming links and send records),
// so that they overlap the work on the switch before it. The state of a block of trials does not
// fit in L2, and these loads come from other switches' writes of earlier cycles.
template <class L>
SATURN_INLINE void prefetch_switch_inputs(const EngineView& v, int sw, int t0, uint32_t c) {
#if !defined(__CUDA_ARCH__)
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials;
  const int rslot = static_cast<int>((c + 1u) % static_cast<uint32_t>(m.link_depth));  // uniform rings
  const int base = v.net.sw_port_base[sw], end = v.net.sw_port_base[sw + 1];
  for (int gp = base; gp < end; ++gp) {
    const uint8_t type = v.net.peer_type[gp];
    if (type == static_cast<uint8_t>(PeerType::kNone)) continue;
    const int64_t up = type == static_cast<uint8_t>(PeerType::kSwitch) ? ring_slot(v, v.net.peer[gp], c + 1u, rslot)
                                                                        : inj_ring_slot(v, v.net.peer[gp], c + 1u, rslot);
    const char* link = reinterpret_cast<const char*>(
        (type == static_cast<uint8_t>(PeerType::kSwitch) ? s.link : s.inj_link) + at(up, t0, T));
    for (int b = 0; b < static_cast<int>(sizeof(Packet)) * L::kWidth; b += 64) prefetch_read(link + b);
    prefetch_read((type == static_cast<uint8_t>(PeerType::kSwitch) ? s.link_mark : s.inj_mark) + at(up, t0, T));
    prefetch_read(s.out_src + at(gp, t0, T));
    prefetch_read(xbar_busy_until(v) + at(gp, t0, T));
  }
#endif
}

template <class L, int kVcs, bool kCc = false>
SATURN_INLINE void switch_inputs(const EngineView& v, int sw, int t0, uint32_t c) {
  using U32 = typename L::U32;
  using M = typename L::M;
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials;
  const int V = kVcs > 0 ? kVcs : m.vcs;
  const int base = v.net.sw_port_base[sw];
  const int radix = v.net.sw_port_base[sw + 1] - base;
  // Uniform rings' slots this cycle (per-port rings find their own: link_ring.hpp).
  const int wslot = static_cast<int>(c % static_cast<uint32_t>(m.link_depth));
  const int rslot = static_cast<int>((c + 1u) % static_cast<uint32_t>(m.link_depth));
  const bool stored_ties = ties_stored(m);  // (else the grant derives a tie from the ready cycle: voq.hpp)
  const bool occupancy = kCc && m.cc.track_occupancy;
  const bool iso = iso_on(m.iso), arn = iso_arn(m.iso);  // congestion isolation (kernels/isolation/wiring.hpp)
  SwitchCcLanes<L> cc;
  if (occupancy) switch_cc_begin<L>(cc);
  // One trial whose routing reads no VOQ (D-mod-K or oblivious, no isolation, dragonfly or congestion
  // control): every port's header is routed first, the lines its VOQ push needs prefetched, and
  // the pushes follow once all are routed, so that the cache misses of a switch's arrivals overlap
  // instead of following one another (fat_tree_4096: half of this phase's time was one such load).
  // The pushes touch only their own port's FIFOs, so their order changes nothing. CPU only: device
  // code prefetches nothing, and the list would be a per-thread array in local memory.
#if defined(__CUDA_ARCH__)
  constexpr bool kMayDefer = false;
#else
  constexpr bool kMayDefer = L::kWidth == 1 && !kCc;
#endif
  const bool defer_push = kMayDefer && !iso && !m.df.on &&
                          (m.route_mode == RouteMode::kDeterministic || m.route_mode == RouteMode::kOblivious);
  struct DeferredPush {
    int gp, o, vq, e;
    uint32_t tie;
  };
  DeferredPush deferred[kMayDefer ? kMaxRadix : 1];
  int n_deferred = 0;

  // This cycle's credit channels start empty (unmarked: ring_marks.hpp); the tails leaving now add to them.
  for (int p = 0; p < radix; ++p)
    if (v.net.peer_type[base + p] != static_cast<uint8_t>(PeerType::kNone))
      store_mark_bits<L>(s.credit_mark + at(ring_slot(v, base + p, c, wslot), t0, T), 0u);

  // Packets being sent: credits as the tail leaves, the entry freed in the cycle after. (With
  // output queues the tail leaves the input when the crossbar has moved it: output_queue.hpp.)
  const uint32_t* xbar_until = xbar_busy_until(v);
  for (int o = 0; o < radix; ++o) {
    const int64_t oi = at(base + o, t0, T);
    const U32 src = L::load(s.out_src + oi);
    const M sending = src != kNoSource;
    if (L::none(sending)) continue;
    const U32 free_at = L::load(xbar_until + oi);
    const M settle = sending & (free_at <= c + 1u);
    if (L::none(settle)) continue;
    const M done = settle & (free_at <= c);
    const uint32_t done_bits = L::bits(done);
    alignas(64) uint32_t src_lanes[L::kWidth];  // lanes from an array, not the vector (switch_grant.hpp)
    L::store(src_lanes, src);
    for (uint32_t b = L::bits(settle); b != 0; b &= b - 1) {
      const int l = lowest_bit(b);
      const int t = t0 + l;
      const int gpi = base + static_cast<int>(src_lanes[l] >> 16);
      const int e = static_cast<int>(src_lanes[l] & 0xFFFFu);
      if ((done_bits >> l) & 1u) {
        if (occupancy) switch_cc_note_release<L>(cc, o, l, src_lanes[l]);
        voq_release(v, gpi, e, t);
      } else {  // (out_ret: the packet's VC and size as the grant read them, not its entry again)
        const uint32_t ret = s.out_ret[oi + l];
        credit_add(s, ring_slot(v, gpi, c, wslot), V, static_cast<int>(ret >> 16), t, T, ret & 0xFFFFu);
      }
    }
    L::store(s.out_src + oi, L::sel(done, L::u32(kNoSource), src));
  }

  for (int p = 0; p < radix; ++p) {
    const int gp = base + p;
    const uint8_t type = v.net.peer_type[gp];
    if (type == static_cast<uint8_t>(PeerType::kNone)) continue;  // nothing ever arrives or leaves
    const int64_t gi = at(gp, t0, T);
    if (occupancy) switch_cc_port_releases<L>(v, cc, base, p, t0);
    if (arn)
      for (int l = 0; l < L::kWidth; ++l) iso_arn_port(v, sw, base, p, t0 + l, c);

    // The arriving header, if any, takes a free entry, is routed and joins its VOQ.
    // (the upstream's slot written latency cycles ago; for a switch peer also its credit slot)
    const int64_t up = type == static_cast<uint8_t>(PeerType::kSwitch) ? ring_slot(v, v.net.peer[gp], c + 1u, rslot)
                                                                        : inj_ring_slot(v, v.net.peer[gp], c + 1u, rslot);
    // Only the marked lanes hold a packet (ring_marks.hpp): the others' slots are not read.
    const bool from_switch = type == static_cast<uint8_t>(PeerType::kSwitch);
    const Packet* link_in = (from_switch ? s.link : s.inj_link) + at(up, t0, T);
    const uint32_t arrived = load_mark_bits<L>((from_switch ? s.link_mark : s.inj_mark) + at(up, t0, T));
    if (arrived != 0) {
      U32 tie = L::u32(0);
      if (stored_ties) tie = tie_hash_of<U32>(L::narrow(L::load64(v.trial.seed + t0)), gp, c);
      alignas(64) uint32_t ties[L::kWidth];  // lanes from arrays, not vectors (switch_grant.hpp)
      L::store(ties, tie);
      const uint32_t ready = c + static_cast<uint32_t>(m.router_delay);
      for (uint32_t b = arrived; b != 0; b &= b - 1) {
        const int l = lowest_bit(b);
        const int t = t0 + l;
        const int e = voq_alloc(v, gp, t);
        if (e == kNoEntry) {
          // Only a switch.packet_descriptors below what the buffers hold makes this possible:
          // the packet is lost, and the host stops the run at its next sample (batch_run.cpp).
          s.st_no_descriptor[gi + l] += 1;
          continue;
        }
        Packet pk = link_in[l];
        int vq = static_cast<int>(pk.vc());  // the VOQ's VC (isolation: the AFC; dragonfly: the VC it leaves on)
        int o = iso        ? iso_route(v, sw, base, p, &pk, t, c, &vq)
                : m.df.on ? df_engine_route(v, sw, p, pk, t, c, &vq)
                          : route_output(v, sw, pk.src(), pk.dst(), pk.flags(), t, gp, p, c);
        // Speculative protocols: a dropped packet becomes the NACK to its source (lhrp_engine.hpp).
        if (kCc && m.cc.speculative) {
          const SpecVerdict verdict = spec_verdict(v, pk, p, base + o, t, c);
          if (verdict == SpecVerdict::kLastHop) o = lhrp_drop_to_nack(v, sw, gp, pk, t, c, &vq);
          if (verdict == SpecVerdict::kFabric) o = spec_drop_to_timeless_nack(v, sw, gp, pk, t, c, &vq);
          if (m.cc.last_hop_grants) {  // comprehensive: the last hop answers a Res (lhrp_engine.hpp)
            const int og = lhrp_answer_reservation(v, sw, base + o, pk, t, c, &vq);
            if (og >= 0) o = og;
          }
        }
        const int64_t ei = at(entry_index(v, gp, e), t, T);
        s.ent_pkt[ei] = pk;
        s.ent_time[ei] = ready;
        if (stored_ties) s.ent_tie[ei] = ties[l];  // (else no column: the grant derives it, voq.hpp)
        if (defer_push) {
          prefetch_voq_push(v, gp, o, vq, t);
          deferred[n_deferred++] = DeferredPush{gp, o, vq, e, ties[l]};
          continue;
        }
        voq_push(v, gp, o, vq, e, t, ready, ties[l]);
        if (iso) iso_enqueued(v, gp, o, vq, t);
        if (kCc && m.cc.ecn) ecn_arrived(v, gp, pk, t);  // (kernels/cc/ib_ecn.hpp)
        if (kCc && m.cc.speculative && v.net.peer_type[base + o] == static_cast<uint8_t>(PeerType::kEndpoint))
          s.cc.lh_queued[at(base + o, t, T)] += pk.size_flits();  // until it leaves (grant_depart)
        if (occupancy) cc.output_trigger[l] |= cc_packet_arrived(v, gp, base, o, pk, t, c);
      }
    }
    if (occupancy) switch_cc_tail_check<L>(v, cc, gp, t0, c);

    // Credits the downstream input (our peer) returned for this output.
    if (from_switch) add_marked_credits<L>(s, m, up, out_books(s), gp, V, t0);
  }
  for (int k = 0; k < n_deferred; ++k) {
    const DeferredPush& d = deferred[k];
    voq_push(v, d.gp, d.o, d.vq, d.e, t0, c + static_cast<uint32_t>(m.router_delay), d.tie);
  }
  if (kCc && m.cc.fabric_drop)  // speculative packets queued too long at VOQ heads (lhrp_engine.hpp)
    for (int l = 0; l < L::kWidth; ++l) spec_timeout_sweep(v, sw, base, radix, t0 + l, c);
  if (occupancy) switch_cc_apply<L>(v, cc, base, t0);
  if (arn)
    for (int l = 0; l < L::kWidth; ++l) iso_detect(v, sw, t0 + l, c);
}

}  // namespace saturn
