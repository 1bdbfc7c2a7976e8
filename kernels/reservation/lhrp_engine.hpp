// LHRP in the packet engine (Jiang, Dennison & Dally 2015 §3.2, PAPERS-SPEC M34; cc.protocol = lhrp;
// docs/model/dragonfly-protocols.md, "LHRP in the engine"). The rules are protocol.hpp's
// (lhrp_over_threshold, lhrp_nack_time: one implementation); this file is where the engine's
// phases call them.
//
//   Source (endpoint phase): every new data packet leaves speculatively (kFlagSpeculative) on the
//     data class, the lowest. A NACK puts the packet into the source's retransmission FIFO with the
//     time it carries; the FIFO's head leaves at that time, before any new data, non-speculatively on
//     the control class (cc.ack_vc). A source holds at most cc.lhrp_outstanding speculative packets
//     that are unanswered or NACKed and waiting (a NIC's finite state; 001's sources are unbounded):
//     at the limit it sends no new data, so a NACK always finds room.
//   Last-hop switch (switch phase 1, on header arrival): a speculative packet routed to an endpoint
//     port whose queue (flits in this switch's VOQs for that port, lh_queued) is at the threshold is
//     dropped. The endpoint's reservation register, kept by this switch, books the packet's flits;
//     the packet turns in place into the 1-flit NACK to its source that carries the booked time.
//     The NACK keeps one flit of the packet's buffer space (its credits return as it leaves) and the
//     rest returns now, so credits stay exact; it is routed from here as if the destination's NIC
//     had sent it.
//   Destination: every data packet is ACKed (cc.acks); the ACK of a speculative packet carries
//     kFlagSpeculative, so the source can tell it from the ACK of a retransmission.
//
// The NACK's words: dst = the source, src = the destination, birth_cycle = the message's birth,
// kFlagMessageTail = the dropped packet was its message's tail, inject_cycle = booked time mod 2^20
// | dropped size << 20. The source decodes the time relative to the NACK's arrival: valid while the
// booking lies within 2^19 cycles of it (a booking further ahead counts a violation at the switch).
#pragma once
#include <cstdint>

#include "kernels/common/index.hpp"
#include "kernels/common/packet.hpp"
#include "kernels/reservation/protocol.hpp"
#include "kernels/routing/dragonfly_engine.hpp"
#include "kernels/state/engine_view.hpp"
#include "kernels/state/link_ring.hpp"

namespace saturn {

constexpr uint32_t kLhrpTimeBits = 20;
constexpr uint32_t kLhrpTimeMask = (1u << kLhrpTimeBits) - 1u;
constexpr uint32_t kLhrpReach = 1u << (kLhrpTimeBits - 1);  // decodable: [arrival - 2^19, arrival + 2^19)

SATURN_INLINE uint32_t lhrp_nack_word(uint32_t time, uint32_t size) {
  return (time & kLhrpTimeMask) | (size << kLhrpTimeBits);
}
SATURN_INLINE uint32_t lhrp_nack_size(uint32_t word) { return word >> kLhrpTimeBits; }
SATURN_INLINE uint32_t lhrp_nack_decode_time(uint32_t word, uint32_t now) {
  const uint32_t from = now - kLhrpReach;
  return from + ((word - from) & kLhrpTimeMask);
}

// ---- Last-hop switch (switch_inputs.hpp) ----

// Whether packet pk, routed to global output port go, is a speculative packet the last hop drops.
SATURN_INLINE bool lhrp_drops(const EngineView& v, const Packet& pk, int go, int t) {
  if ((pk.flags() & (kFlagSpeculative | kFlagControl)) != kFlagSpeculative) return false;
  if (v.net.peer_type[go] != static_cast<uint8_t>(PeerType::kEndpoint)) return false;
  return lhrp_over_threshold(v.state.cc.lh_queued[at(go, t, v.model.trials)], v.model.cc.lhrp_params);
}

// Drops pk (arrived on input gp = base + in_port of switch sw, VC buffer credits on V VCs): books
// its flits, returns all but one flit of its space to the upstream and turns it into the NACK.
// Returns the NACK's local output port; *vq: the VC it leaves on.
SATURN_INLINE int lhrp_drop_to_nack(const EngineView& v, int sw, int base, int gp, int V, Packet& pk, int t, uint32_t c,
                                    int wslot, int* vq) {
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials;
  const uint32_t size = pk.size_flits(), arrival_vc = pk.vc(), dst = pk.dst();
  const uint32_t time = lhrp_nack_time(s.cc.lh_next_free[at(dst, t, T)], c, size, m.cc.lhrp_params);
  if (time - c >= kLhrpReach) s.st_port_violations[at(gp, t, T)] += 1;  // the NACK could not carry it
  s.credit[at(ring_slot(v, gp, c, wslot) * V + arrival_vc, t, T)] += static_cast<uint16_t>(size - 1u);
  s.cc.st_drops[at(gp, t, T)] += 1;
  Packet nack = Packet::make(dst, pk.src(), 1u, static_cast<uint32_t>(m.cc.ack_vc),
                             kFlagControl | kFlagNack | (pk.flags() & kFlagMessageTail), lhrp_nack_word(time, size),
                             pk.birth_cycle);
  const int o = df_engine_route(v, sw, v.net.ep_port[dst] - base, nack, t, c, vq);
  nack.dst_vc_flags = (nack.dst_vc_flags & ~(0xFu << 20)) | (arrival_vc << 20);  // credits: the packet's VC
  pk = nack;
  return o;
}

// ---- Source (endpoint_cc.hpp, endpoint_step.hpp) ----

SATURN_INLINE bool lhrp_may_send_new(const EngineView& v, int64_t ei) {
  return v.state.cc.spec_out[ei] + v.state.cc.rx_count[ei] < static_cast<uint32_t>(v.model.cc.lhrp_outstanding);
}

// A control packet reached source e (after cc_control_arrived counted it). ACKs of retransmissions
// concern no send queue; an ACK of a speculative packet, or a NACK, frees one of its places and
// returns true: the caller then counts it off its send queue (cc_control_received). A NACK also
// queues its packet for retransmission at the time it carries.
SATURN_INLINE bool lhrp_control_arrived(const EngineView& v, int e, int t, uint32_t c, const Packet& in) {
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials;
  const int64_t ei = at(e, t, T);
  const uint32_t flags = in.flags();
  if ((flags & (kFlagNack | kFlagSpeculative)) == 0) return false;  // the ACK of a retransmission
  s.cc.spec_out[ei] -= 1;
  if ((flags & kFlagNack) == 0) return true;
  s.cc.st_nacks[ei] += 1;
  const uint32_t K = static_cast<uint32_t>(m.cc.lhrp_outstanding);
  const uint32_t slot = (s.cc.rx_head[ei] + s.cc.rx_count[ei]) % K;
  s.cc.rx_pkt[at(static_cast<int64_t>(e) * K + slot, t, T)] =
      Packet::make(static_cast<uint32_t>(e), in.src(), lhrp_nack_size(in.inject_cycle), static_cast<uint32_t>(m.cc.ack_vc),
                   flags & kFlagMessageTail, lhrp_nack_decode_time(in.inject_cycle, c), in.birth_cycle);
  s.cc.rx_count[ei] += 1;  // < K: lhrp_may_send_new kept room for every unanswered packet
  return true;
}

// The retransmission FIFO's head, if its time has come and it fits in the leaf's credits of its VC
// (the control class): taken, stamped with this cycle as its injection.
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
  s.ep_credits[ci] -= static_cast<int32_t>(size);
  s.cc.rx_head[ei] = (s.cc.rx_head[ei] + 1u) % K;
  s.cc.rx_count[ei] -= 1;
  s.cc.st_retx[ei] += 1;
  s.st_inj_packets[ei] += 1;
  s.st_inj_flits[ei] += size;
  pk.inject_cycle = c;
  return pk;
}

}  // namespace saturn
