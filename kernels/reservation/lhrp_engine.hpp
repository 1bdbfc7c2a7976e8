// The speculative protocols of Jiang, Dennison & Dally 2015 in the packet engine: LHRP (§3.2, M34;
// cc.protocol = lhrp), LHRP with fabric drop (§6.1, M35; lhrp_fabric_drop) and SMSRP (§3.1, M33;
// smsrp); docs/model/dragonfly-protocols.md, "Speculative protocols in the engine". The rules are
// protocol.hpp's (lhrp_over_threshold, spec_timed_out, lhrp_nack_time, reservation_grant: one
// implementation); this file is where the engine's phases call them on the switch side and for the
// source's retransmission FIFO; what a source does with the control packets it receives, and SRP
// (cc.protocol = srp, comprehensive), are spec_source.hpp's.
//
//   Source (endpoint phase): every new data packet leaves speculatively (kFlagSpeculative) on the
//     data class, the lowest. A NACK puts the packet into the source's retransmission FIFO; the
//     FIFO's head leaves, after any waiting control packet and before new data, when its time has
//     come: non-speculatively on the control class (cc.ack_vc) at a reserved time, or (a time-less
//     NACK under lhrp_fabric_drop) speculatively again at once. A source holds at most
//     cc.lhrp_outstanding speculative packets that are unanswered or NACKed and waiting (a NIC's
//     finite state; 001's sources are unbounded): at the limit it sends no new data, so a NACK
//     always finds room.
//   Last-hop switch (LHRP, both variants; switch phase 1, on header arrival): a speculative packet
//     routed to an endpoint port whose queue (flits in this switch's VOQs for that port, lh_queued)
//     is at the threshold is dropped. The endpoint's reservation register, kept by this switch,
//     books the packet's flits; the packet turns in place into the 1-flit NACK to its source that
//     carries the booked time. The NACK keeps the packet's buffer space until it leaves (then its
//     credits return at once: spec_buffer_flits), so credits and entry pools stay exact; it is
//     routed from here as if the destination's NIC had sent it.
//   Fabric drop (lhrp_fabric_drop before the last hop, smsrp anywhere; on header arrival and at VOQ
//     heads every cycle): a speculative packet whose queuing time exceeds cc.spec_timeout_ns
//     turns into a NACK without time, routed as if an endpoint of this switch had sent it.
//   SMSRP: a time-less NACK makes the source send a 1-flit reservation Res n to the destination
//     NIC, whose register (reservation_grant) answers with a grant Gnt t; the packet waits in the
//     FIFO until the grant sets its time. Res and Gnt ride the control class.
//   Destination: every data packet is ACKed (cc.acks); the ACK of a speculative packet carries
//     kFlagSpeculative, so the source can tell it from the ACK of a retransmission.
//
// Control packets' words. NACK with time: dst = the source, src = the destination, birth_cycle =
// the message's birth, kFlagMessageTail = the dropped packet ended its message, inject_cycle =
// booked time mod 2^20 | dropped size << 20 (decoded within 2^19 cycles of the NACK's arrival; a
// booking further ahead counts a violation at the switch). NACK without time: inject_cycle = the
// destination | size << 20, src = an endpoint of the dropping switch. Res: birth_cycle = n. Gnt:
// birth_cycle = t.
#pragma once
#include <cstdint>

#include "kernels/common/bits.hpp"
#include "kernels/common/index.hpp"
#include "kernels/common/packet.hpp"
#include "kernels/phases/control_queue.hpp"
#include "kernels/reservation/protocol.hpp"
#include "kernels/routing/dragonfly_engine.hpp"
#include "kernels/state/credit_pool.hpp"
#include "kernels/state/engine_view.hpp"
#include "kernels/state/link_ring.hpp"
#include "kernels/state/voq.hpp"

namespace saturn {

// Control-packet kinds of these protocols, in the flag bits ECN uses elsewhere (the config refuses
// marking and the source response with a speculative protocol): kFlagNack (+ kFlagNackNoTime),
// kFlagReservation (+ kFlagGrantBit = a grant); none of them = an ACK.
constexpr uint32_t kFlagNackNoTime = kFlagEcnEcho;
constexpr uint32_t kFlagReservation = kFlagEcn;
constexpr uint32_t kFlagGrantBit = kFlagEcnEcho;
constexpr uint32_t kNoRetxTime = 0xFFFFFFFFu;  // a retransmission waiting for its grant (SMSRP)
// On a NACK's record in the input of the switch that made it (never on a link): spec_buffer_flits.
constexpr uint32_t kFlagMadeHere = kFlagSpeculative;

constexpr uint32_t kLhrpTimeBits = 20;
constexpr uint32_t kLhrpTimeMask = (1u << kLhrpTimeBits) - 1u;
constexpr uint32_t kLhrpReach = 1u << (kLhrpTimeBits - 1);  // decodable: [arrival - 2^19, arrival + 2^19)

// A NACK's inject_cycle: the booked time (or, without one, the destination) | the dropped size.
SATURN_INLINE uint32_t lhrp_nack_word(uint32_t time, uint32_t size) {
  return (time & kLhrpTimeMask) | (size << kLhrpTimeBits);
}
SATURN_INLINE uint32_t lhrp_nack_size(uint32_t word) { return word >> kLhrpTimeBits; }
SATURN_INLINE uint32_t lhrp_nack_decode_time(uint32_t word, uint32_t now) {
  const uint32_t from = now - kLhrpReach;
  return from + ((word - from) & kLhrpTimeMask);
}

// Flits of input buffer space a packet record in an input holds: its size, except for a NACK
// made in this switch from a dropped packet (kFlagMadeHere, cleared as it leaves), which keeps the
// whole packet's space (on the VC the packet arrived on, its record's VC) until it leaves; its
// credits then return all at once (switch_depart.hpp), so upstream credits and entry pools stay exact.
SATURN_INLINE uint32_t spec_buffer_flits(const Packet& pk) {
  return (pk.flags() & (kFlagNack | kFlagMadeHere)) == (kFlagNack | kFlagMadeHere) ? lhrp_nack_size(pk.inject_cycle)
                                                                                    : pk.size_flits();
}

// ---- Last-hop switch (switch_inputs.hpp) ----

enum class SpecVerdict : uint8_t { kKeep = 0, kLastHop, kFabric };

// Cycles speculative packet pk has spent queued in the fabric when its header reaches local input
// in_port: its time since injection less the zero-load flight of the hops its VC records
// (dragonfly_engine.hpp's hop state: global hops exactly, local hops at least one per group they
// are known in), each hop's link and router delay. 001's timeout is on queuing: its 1 us global
// links alone would exceed a 1 us limit on the time in the network. The estimate errs by at most
// a few local links (50 ns each in 001) towards more queuing.
SATURN_INLINE uint32_t spec_queued_cycles(const EngineView& v, int in_port, const Packet& pk, uint32_t c) {
  const ModelParams& m = v.model;
  const DfEngine& df = m.df;
  const DfRoute r = df_engine_state(df.geom, in_port, static_cast<int>(pk.vc()) % df.route_vcs, df_src_group_vcs(df.routing));
  const int globals = r.globals, locals = r.hops - r.globals;
  const auto latency = [&](int k) { return m.per_port_links ? m.class_latency[k] : m.link_latency; };
  const int64_t flight = latency(0) + static_cast<int64_t>(globals) * latency(2) + static_cast<int64_t>(locals) * latency(1) +
                         static_cast<int64_t>(r.hops) * m.router_delay;
  const int64_t queued = static_cast<int64_t>(c - pk.inject_cycle) - flight;
  return queued > 0 ? static_cast<uint32_t>(queued) : 0u;
}

// What happens to packet pk, whose header reached local input in_port at cycle c and is routed to
// global output port go: kept, dropped at the last hop (NACK with time) or dropped by the fabric
// timeout (queued longer than cc.spec_timeout_ns, "> ": protocol.hpp's spec_timed_out rule).
SATURN_INLINE SpecVerdict spec_verdict(const EngineView& v, const Packet& pk, int in_port, int go, int t, uint32_t c) {
  const CcParams& cc = v.model.cc;
  if ((pk.flags() & (kFlagSpeculative | kFlagControl)) != kFlagSpeculative) return SpecVerdict::kKeep;
  const bool last_hop = v.net.peer_type[go] == static_cast<uint8_t>(PeerType::kEndpoint);
  if (cc.last_hop_drop && last_hop) {
    ProtocolParams q = cc.lhrp_params;
    q.last_hop_threshold_flits = v.trial.lhrp_threshold_flits[t];  // a per-trial key
    if (lhrp_over_threshold(v.state.cc.lh_queued[at(go, t, v.model.trials)], q)) return SpecVerdict::kLastHop;
  }
  if (cc.fabric_drop && (cc.nic_grants || !last_hop) && spec_queued_cycles(v, in_port, pk, c) > cc.spec_timeout)
    return SpecVerdict::kFabric;
  return SpecVerdict::kKeep;
}

// The 1-flit NACK that replaces speculative packet pk in its input of switch sw: from endpoint
// `src` of this switch, with `word` in inject_cycle and `flags` besides the NACK's own, routed as
// if that endpoint had sent it (*o: its local output, *vq: the VC it leaves on). Its record keeps
// pk's VC, whose buffer space it holds (spec_buffer_flits).
SATURN_INLINE Packet spec_nack_of(const EngineView& v, int sw, const Packet& pk, uint32_t src, uint32_t flags,
                                  uint32_t word, int t, uint32_t c, int* o, int* vq) {
  Packet nack = Packet::make(src, pk.src(), 1u, static_cast<uint32_t>(v.model.cc.ack_vc),
                             kFlagControl | kFlagNack | kFlagMadeHere | flags | (pk.flags() & kFlagMessageTail), word,
                             pk.birth_cycle);
  *o = df_engine_route(v, sw, v.net.ep_port[src] - v.net.sw_port_base[sw], nack, t, c, vq);
  nack.set_vc(pk.vc());
  return nack;
}

// Drops pk (arrived on input gp of switch sw): books its flits and turns it into the NACK carrying
// the booked time, as if the destination's NIC had sent it. Returns the NACK's local output port;
// *vq: the VC it leaves on.
SATURN_INLINE int lhrp_drop_to_nack(const EngineView& v, int sw, int gp, Packet& pk, int t, uint32_t c, int* vq) {
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials;
  const uint32_t size = pk.size_flits(), dst = pk.dst();
  const uint32_t time = lhrp_nack_time(s.cc.lh_next_free[at(dst, t, T)], c, size, m.cc.lhrp_params);
  if (time - c >= kLhrpReach) s.st_port_violations[at(gp, t, T)] += 1;  // the NACK could not carry it
  s.cc.st_drops[at(gp, t, T)] += 1;
  int o = 0;
  pk = spec_nack_of(v, sw, pk, dst, 0u, lhrp_nack_word(time, size), t, c, &o, vq);
  return o;
}

// The comprehensive protocol (M36: one scheduler in the last-hop switch): a Res n whose header
// reaches the last-hop switch of its destination (routed to output port go) is answered there. The
// endpoint's register books n flits and the Res turns in place into the Gnt t to its source, routed
// as if the destination's NIC had sent it (1 flit, as the Res: its record keeps the Res's VC and
// space). Returns its local output port (*vq: the VC it leaves on), or -1 for any other packet.
SATURN_INLINE int lhrp_answer_reservation(const EngineView& v, int sw, int go, Packet& pk, int t, uint32_t c, int* vq) {
  if ((pk.flags() & (kFlagControl | kFlagReservation | kFlagGrantBit)) != (kFlagControl | kFlagReservation) ||
      v.net.peer_type[go] != static_cast<uint8_t>(PeerType::kEndpoint))
    return -1;
  const ModelParams& m = v.model;
  const CcState& s = v.state.cc;
  const int T = m.trials;
  const uint32_t dst = pk.dst(), arrival_vc = pk.vc();
  s.st_res[at(dst, t, T)] += 1;
  const ReservationGrant g = reservation_grant(s.lh_next_free[at(dst, t, T)], c, pk.birth_cycle,
                                               m.cc.lhrp_params.nack_lead_cycles,
                                               m.cc.lhrp_params.reservation_overhead_flits);
  if (g.start - c >= kLhrpReach) v.state.st_port_violations[at(go, t, T)] += 1;  // (a uint32 time: counted as LHRP's)
  pk = Packet::make(dst, pk.src(), 1u, static_cast<uint32_t>(m.cc.ack_vc),
                    kFlagControl | kFlagReservation | kFlagGrantBit, c, g.start);
  const int o = df_engine_route(v, sw, v.net.ep_port[dst] - v.net.sw_port_base[sw], pk, t, c, vq);
  pk.set_vc(arrival_vc);
  return o;
}

// The fabric timeout (lhrp_fabric_drop, smsrp): as lhrp_drop_to_nack, without a booking; the NACK
// names the destination in inject_cycle and leaves as if an endpoint of this switch had sent it.
// spec_timeless_nack makes it (*o: its local output, *vq: the VC it leaves on); the second drops.
SATURN_INLINE Packet spec_timeless_nack(const EngineView& v, int sw, const Packet& pk, int t, uint32_t c, int* o,
                                        int* vq) {
  const uint32_t here = static_cast<uint32_t>(sw * v.model.df.geom.p);  // an endpoint of this switch
  return spec_nack_of(v, sw, pk, here, kFlagNackNoTime, lhrp_nack_word(pk.dst(), pk.size_flits()), t, c, o, vq);
}

SATURN_INLINE int spec_drop_to_timeless_nack(const EngineView& v, int sw, int gp, Packet& pk, int t, uint32_t c, int* vq) {
  int o = 0;
  pk = spec_timeless_nack(v, sw, pk, t, c, &o, vq);
  v.state.cc.st_drops[at(gp, t, v.model.trials)] += 1;
  return o;
}

// The fabric timeout while packets wait (lhrp_fabric_drop, smsrp; switch phase 1, after the
// arrivals, every cycle): a speculative packet at the head of a VOQ of this switch whose queuing
// time exceeds the limit is dropped there, as on arrival (spec_drop_to_timeless_nack's NACK, which
// takes the packet's entry into the VOQ of its own route), and so is the head behind it. Only
// heads: a packet behind a head waits for the head to leave or be dropped (a FIFO).
SATURN_INLINE void spec_timeout_sweep(const EngineView& v, int sw, int base, int radix, int t, uint32_t c) {
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials;
  const int R = m.df.route_vcs, first_vc = (m.data_vc / R) * R;  // the data class: speculative packets
  for (int p = 0; p < radix; ++p) {
    const int gp = base + p;
    if (v.net.peer_type[gp] == static_cast<uint8_t>(PeerType::kNone)) continue;
    for (uint64_t outs = voq_outputs(v, at(gp, t, T)); outs != 0; outs &= outs - 1) {
      const int o = lowest_bit(outs);
      const bool last_hop = v.net.peer_type[base + o] == static_cast<uint8_t>(PeerType::kEndpoint);
      if (last_hop && !m.cc.nic_grants) continue;  // LHRP's fabric drop stops before the last hop
      for (int vc = first_vc; vc < first_vc + R; ++vc) {
        const int64_t q = voq_index(m, gp, o, vc);
        for (int e = voq_head(v, q, t); e != kNoEntry; e = voq_head(v, q, t)) {
          const int64_t ei = at(entry_index(v, gp, e), t, T);
          Packet pk = s.ent_pkt[ei];
          if ((pk.flags() & (kFlagSpeculative | kFlagControl)) != kFlagSpeculative ||
              spec_queued_cycles(v, p, pk, c) <= m.cc.spec_timeout)
            break;
          int o2 = 0, vq = 0;
          const Packet nack = spec_timeless_nack(v, sw, pk, t, c, &o2, &vq);
          // Ready cycles increase strictly along a FIFO (voq.hpp) and the next arrival's is later
          // than this cycle's: a FIFO that took a packet ready at this cycle's arrival time (an
          // arrival, or a drop just now) takes this NACK next cycle instead.
          const uint32_t ready = c + static_cast<uint32_t>(m.router_delay);
          const int tail = static_cast<int>(s.voq_ends[at(voq_index(m, gp, o2, vq), t, T)] >> 16);
          if (tail != kNoEntry && s.ent_time[at(entry_index(v, gp, tail), t, T)] >= ready) break;
          voq_remove(v, gp, o, vc, e, kNoEntry, t);
          if (last_hop) s.cc.lh_queued[at(base + o, t, T)] -= pk.size_flits();
          s.cc.st_drops[at(gp, t, T)] += 1;
          pk = nack;
          s.ent_pkt[ei] = pk;
          s.ent_time[ei] = ready;
          voq_push(v, gp, o2, vq, e, t, ready, s.ent_tie[ei]);
          if (v.net.peer_type[base + o2] == static_cast<uint8_t>(PeerType::kEndpoint))
            s.cc.lh_queued[at(base + o2, t, T)] += pk.size_flits();
        }
      }
    }
  }
}

// ---- Source (endpoint_cc.hpp, endpoint_step.hpp) ----

SATURN_INLINE bool lhrp_may_send_new(const EngineView& v, int64_t ei) {
  return v.state.cc.spec_out[ei] + v.state.cc.rx_count[ei] < static_cast<uint32_t>(v.model.cc.lhrp_outstanding);
}

// Puts a packet to resend into source e's FIFO (room is kept by lhrp_may_send_new).
SATURN_INLINE void spec_push_retransmission(const EngineView& v, int e, int t, const Packet& pk) {
  const ModelParams& m = v.model;
  const CcState& s = v.state.cc;
  const int64_t ei = at(e, t, m.trials);
  const uint32_t K = static_cast<uint32_t>(m.cc.lhrp_outstanding);
  const uint32_t slot = (s.rx_head[ei] + s.rx_count[ei]) % K;
  s.rx_pkt[at(static_cast<int64_t>(e) * K + slot, t, m.trials)] = pk;
  s.rx_count[ei] += 1;
}

// The retransmission FIFO's head, if its time has come and it fits in the leaf's credits of its VC
// (the control class, or the data class for a speculative resend): taken, stamped with this cycle
// as its injection. A head waiting for its grant (SMSRP) holds the FIFO.
SATURN_INLINE Packet lhrp_take_retransmission(const EngineView& v, int e, int t, uint32_t c) {
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials;
  const int64_t ei = at(e, t, T);
  if (s.cc.rx_count[ei] == 0) return Packet::empty();
  const uint32_t K = static_cast<uint32_t>(m.cc.lhrp_outstanding);
  Packet pk = s.cc.rx_pkt[at(static_cast<int64_t>(e) * K + s.cc.rx_head[ei], t, T)];
  if (pk.inject_cycle > c) return Packet::empty();
  const uint32_t size = pk.size_flits();
  const int64_t ci = at(static_cast<int64_t>(e) * m.vcs + pk.vc(), t, T);
  if (s.ep_credits[ci] < static_cast<int32_t>(size)) return Packet::empty();
  credits_take(m, ep_books(s), e, static_cast<int>(pk.vc()), t, static_cast<int32_t>(size));
  s.cc.rx_head[ei] = (s.cc.rx_head[ei] + 1u) % K;
  s.cc.rx_count[ei] -= 1;
  s.cc.st_retx[ei] += 1;
  if (pk.flags() & kFlagSpeculative) s.cc.spec_out[ei] += 1;  // (it left rx_count: the limit holds)
  s.st_inj_packets[ei] += 1;
  s.st_inj_flits[ei] += size;
  pk.inject_cycle = c;
  return pk;
}

}  // namespace saturn
