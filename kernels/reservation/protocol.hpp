// Endpoint congestion-control protocols of Jiang, Dennison & Dally 2015 as pure transition functions:
// baseline, SRP (§2.2, M32), SMSRP (§3.1, M33), LHRP (§3.2, M34), LHRP with fabric drop (§6.1, M35)
// and the comprehensive LHRP + SRP (§6.4, M36). Source side: one MessageState per message in a send
// queue, changed by msg_begin / msg_sent / msg_on_ack / msg_on_nack / msg_on_grant, each returning
// the control packet to send, if any. Switch side: the drop tests and the NACK time.
//
// A message is at most kMaxMessagePackets packets (768 flits at 24 flits per packet; 001's largest
// is 512 flits = 22 packets). Its packets sit in exactly one of five sets (bit k = packet k):
//   spec_ready   may be sent speculatively now;
//   held         waits for a grant (SRP/SMSRP after a NACK, or SRP's remainder once speculation stops);
//   nonspec      to send non-speculatively once now >= retx_at[k] (the granted or NACKed time);
//   in_flight    sent, neither ACKed nor NACKed;
//   acked        delivered.
// Speculative packets use the speculative class, non-speculative ones the data class
// (traffic_class.hpp). Baseline / ECN messages start with every packet in nonspec at the creation
// time. Fixed size, no allocation: every field is one column at(message_slot, trial, T), retx_at
// one column per packet index.
//
// Choices where 001 is silent (docs/model/dragonfly-protocols.md lists them):
//   * SRP reserves the whole message (U16); SMSRP, on its first NACK, the packets not yet ACKed.
//   * SRP and SMSRP stop speculating at the first NACK or at the grant (§2.2 "on a grant or a NACK");
//     LHRP packets are independent (§6.2): a NACK only reschedules its own packet.
//   * Under the comprehensive protocol the message's protocol is fixed at msg_begin by size; an SRP
//     message's NACK is handled as SRP (its time, if any, is ignored: the grant is authoritative).
//   * A NACK that reaches an SRP/SMSRP message after its grant re-sends the packet non-speculatively
//     at max(grant time, now).
#pragma once
#include <cstdint>

#include "kernels/common/bits.hpp"
#include "kernels/common/macros.hpp"
#include "kernels/reservation/scheduler.hpp"
#include "kernels/reservation/traffic_class.hpp"

namespace saturn {

constexpr int kMaxMessagePackets = 32;
constexpr uint32_t kNoTime = 0xFFFFFFFFu;

// 001 Table 1 and §4, §6.4 values at the paper's 1 GHz clock (1 cycle = 1 ns, 1 flit per cycle).
struct ProtocolParams {
  uint32_t fabric_timeout_cycles = 1000;      // SRP/SMSRP speculative fabric timeout: 1 us [Tab. 1]
  uint32_t last_hop_threshold_flits = 1000;   // LHRP last-hop queuing threshold [Tab. 1]
  bool threshold_inclusive = true;            // drop when queued >= threshold ("reaches", §6.3; U16)
  uint32_t comprehensive_split_flits = 48;    // LHRP below, SRP at or above [§6.4]
  uint32_t max_packet_flits = 24;             // [§4]
  uint32_t control_flits = 1;                 // Res, Gnt, ACK, NACK [§4]
  uint32_t nack_lead_cycles = 0;              // LHRP NACK time: book from now + this (U16)
  uint32_t reservation_overhead_flits = 0;    // widening of each booked slot (scheduler.hpp)
  // M35: the fabric timeout applied to LHRP before the last hop; the SRP value (suggested).
  uint32_t lhrp_fabric_timeout_cycles = 1000;
};

enum class ReservationState : uint8_t { kNone = 0, kRequested, kGranted, kCount };

struct MessageState {
  uint32_t flits = 0;
  uint32_t created = 0;
  uint32_t grant_at = kNoTime;
  uint32_t spec_ready = 0, held = 0, nonspec = 0, in_flight = 0, acked = 0;
  uint8_t packets = 0;
  EndpointProtocol mode = EndpointProtocol::kBaseline;  // resolved: never kComprehensive
  ReservationState reservation = ReservationState::kNone;
  uint32_t retx_at[kMaxMessagePackets] = {};
};

// What the source must send after a transition (at most one control packet).
struct ProtocolAction {
  PacketKind send = PacketKind::kCount;  // kReservation, or kCount for nothing
  uint32_t reserve_flits = 0;            // n of Res n
  SATURN_INLINE bool sends_reservation() const { return send == PacketKind::kReservation; }
};

SATURN_INLINE uint32_t all_packets_mask(int packets) {
  return packets >= 32 ? 0xFFFFFFFFu : (1u << packets) - 1u;
}

// Whether msg_begin accepts a message of this size (1 .. kMaxMessagePackets packets).
SATURN_INLINE bool msg_fits(uint32_t flits, const ProtocolParams& q) {
  return flits >= 1 && segment_count(flits, q.max_packet_flits) <= static_cast<uint32_t>(kMaxMessagePackets);
}

SATURN_INLINE bool msg_done(const MessageState& m) { return m.acked == all_packets_mask(m.packets); }

// The protocol one message runs: the comprehensive protocol picks by size (M36: LHRP < 48 flits).
SATURN_INLINE EndpointProtocol resolve_protocol(EndpointProtocol p, uint32_t message_flits, const ProtocolParams& q) {
  if (p != EndpointProtocol::kComprehensive) return p;
  return message_flits < q.comprehensive_split_flits ? EndpointProtocol::kLhrp : EndpointProtocol::kSrp;
}

SATURN_INLINE bool protocol_speculates(EndpointProtocol mode) {
  return mode == EndpointProtocol::kSrp || mode == EndpointProtocol::kSmsrp || mode == EndpointProtocol::kLhrp ||
         mode == EndpointProtocol::kLhrpFabricDrop;
}

// A new message of `flits` (1 .. kMaxMessagePackets * max_packet_flits) created at `now`.
SATURN_INLINE ProtocolAction msg_begin(MessageState& m, EndpointProtocol protocol, uint32_t flits, uint32_t now,
                                       const ProtocolParams& q) {
  m = MessageState{};
  m.flits = flits;
  m.created = now;
  m.packets = static_cast<uint8_t>(segment_count(flits, q.max_packet_flits));
  m.mode = resolve_protocol(protocol, flits, q);
  const uint32_t all = all_packets_mask(m.packets);
  ProtocolAction act;
  if (!protocol_speculates(m.mode)) {
    m.nonspec = all;
    for (int k = 0; k < m.packets; ++k) m.retx_at[k] = now;
    return act;
  }
  m.spec_ready = all;
  if (m.mode == EndpointProtocol::kSrp) {  // Res n first, then speculate (M32 steps 1, 3)
    m.reservation = ReservationState::kRequested;
    act.send = PacketKind::kReservation;
    act.reserve_flits = flits;
  }
  return act;
}

// The packet to send now and how: non-speculative ones first (their class is higher), lowest
// index first. Returns -1 if none; *speculative tells the kind.
SATURN_INLINE int msg_next_packet(const MessageState& m, uint32_t now, bool* speculative) {
  for (uint32_t r = m.nonspec; r != 0; r &= r - 1) {
    const int k = lowest_bit(r);
    if (now >= m.retx_at[k]) {
      *speculative = false;
      return k;
    }
  }
  if (m.spec_ready != 0) {
    *speculative = true;
    return lowest_bit(m.spec_ready);
  }
  return -1;
}

SATURN_INLINE void msg_sent(MessageState& m, int k) {
  const uint32_t b = 1u << k;
  m.spec_ready &= ~b;
  m.nonspec &= ~b;
  m.in_flight |= b;
}

SATURN_INLINE void msg_on_ack(MessageState& m, int k) {
  const uint32_t b = 1u << k;
  if ((m.in_flight & b) == 0) return;  // stray or duplicate
  m.in_flight &= ~b;
  m.acked |= b;
}

// SRP / SMSRP: stop speculating; what was still to send speculatively waits for the grant.
SATURN_INLINE void stop_speculation(MessageState& m) {
  if (m.reservation == ReservationState::kGranted) {
    for (uint32_t r = m.spec_ready; r != 0; r &= r - 1) m.retx_at[lowest_bit(r)] = m.grant_at;
    m.nonspec |= m.spec_ready;
  } else {
    m.held |= m.spec_ready;
  }
  m.spec_ready = 0;
}

// NACK for packet k. has_time / time: the retransmission time an LHRP last-hop drop piggybacks
// (N t); a fabric drop (SRP, SMSRP, M35) carries none.
SATURN_INLINE ProtocolAction msg_on_nack(MessageState& m, int k, bool has_time, uint32_t time, uint32_t now,
                                         const ProtocolParams& q) {
  ProtocolAction act;
  const uint32_t b = 1u << k;
  if ((m.in_flight & b) == 0 || !protocol_speculates(m.mode)) return act;  // stray, or lossless data
  m.in_flight &= ~b;
  if (m.mode == EndpointProtocol::kLhrp || m.mode == EndpointProtocol::kLhrpFabricDrop) {
    if (has_time) {  // M34: re-send at t, lossless
      m.nonspec |= b;
      m.retx_at[k] = time;
    } else {  // M35: no reservation; speculative again
      m.spec_ready |= b;
    }
    return act;
  }
  // SRP and SMSRP (M32 step 5, M33 steps 3-5)
  stop_speculation(m);
  if (m.reservation == ReservationState::kGranted) {
    m.nonspec |= b;
    m.retx_at[k] = m.grant_at > now ? m.grant_at : now;
    return act;
  }
  m.held |= b;
  if (m.reservation == ReservationState::kNone) {  // SMSRP's first NACK: reserve what is not ACKed
    m.reservation = ReservationState::kRequested;
    act.send = PacketKind::kReservation;
    act.reserve_flits = segment_mask_flits(m.flits, all_packets_mask(m.packets) & ~m.acked, q.max_packet_flits);
  }
  return act;
}

// Gnt t arrived: everything not yet delivered or in flight goes non-speculatively from t.
SATURN_INLINE void msg_on_grant(MessageState& m, uint32_t t) {
  if (m.reservation == ReservationState::kGranted) return;
  m.reservation = ReservationState::kGranted;
  m.grant_at = t;
  const uint32_t go = m.held | m.spec_ready;
  for (uint32_t r = go; r != 0; r &= r - 1) m.retx_at[lowest_bit(r)] = t;
  m.nonspec |= go;
  m.held = 0;
  m.spec_ready = 0;
}

// ---- Switch side ----

// Where the protocol's reservation scheduler lives: true = the last-hop switch (M34, M36).
SATURN_INLINE bool scheduler_at_last_hop(EndpointProtocol p) {
  return p == EndpointProtocol::kLhrp || p == EndpointProtocol::kLhrpFabricDrop || p == EndpointProtocol::kComprehensive;
}

// Timeout drop (SRP/SMSRP anywhere; M35 before the last hop): queued in the fabric longer than the
// limit since injection (U16: total in-network time, tested wherever the packet waits). ">" : a packet
// that has waited exactly the limit is still within it.
SATURN_INLINE bool spec_timed_out(uint32_t now, uint32_t inject_cycle, uint32_t timeout_cycles) {
  return now - inject_cycle > timeout_cycles;
}

// LHRP last-hop test: flits queued in this switch for the packet's endpoint (U16: all flits for it
// anywhere in the switch) against the threshold.
SATURN_INLINE bool lhrp_over_threshold(uint32_t queued_flits, const ProtocolParams& q) {
  return q.threshold_inclusive ? queued_flits >= q.last_hop_threshold_flits : queued_flits > q.last_hop_threshold_flits;
}

enum class DropVerdict : uint8_t { kKeep = 0, kDropNack, kDropNackWithTime, kCount };

// Whether a speculative packet waiting in a switch is dropped, for the network-wide protocol
// (kComprehensive included: M36's suggested last-hop policy for both of its modes). at_last_hop:
// this switch owns the destination's ejection port; queued_flits: the LHRP counter there.
SATURN_INLINE DropVerdict speculative_drop(EndpointProtocol p, bool at_last_hop, uint32_t now, uint32_t inject_cycle,
                                           uint32_t queued_flits, const ProtocolParams& q) {
  switch (p) {
    case EndpointProtocol::kSrp:
    case EndpointProtocol::kSmsrp:
      return spec_timed_out(now, inject_cycle, q.fabric_timeout_cycles) ? DropVerdict::kDropNack : DropVerdict::kKeep;
    case EndpointProtocol::kLhrpFabricDrop:
      if (!at_last_hop)
        return spec_timed_out(now, inject_cycle, q.lhrp_fabric_timeout_cycles) ? DropVerdict::kDropNack
                                                                                : DropVerdict::kKeep;
      return lhrp_over_threshold(queued_flits, q) ? DropVerdict::kDropNackWithTime : DropVerdict::kKeep;
    case EndpointProtocol::kLhrp:
    case EndpointProtocol::kComprehensive:
      return at_last_hop && lhrp_over_threshold(queued_flits, q) ? DropVerdict::kDropNackWithTime : DropVerdict::kKeep;
    default: return DropVerdict::kKeep;  // baseline / ECN send nothing speculative
  }
}

// The time an LHRP last-hop drop piggybacks on its NACK: a slot of the packet's flits from the
// endpoint's register in this switch (M34: no separate reservation packets).
SATURN_INLINE uint32_t lhrp_nack_time(uint32_t& next_free, uint32_t now, uint32_t packet_flits, const ProtocolParams& q) {
  return reservation_grant(next_free, now, packet_flits, q.nack_lead_cycles, q.reservation_overhead_flits).start;
}

}  // namespace saturn
