// Endpoint protocols of Jiang, Dennison & Dally 2015 (001 §2.2, §3, §4, §6.1, §6.4), their packet
// kinds, the strict-priority traffic classes they use (PAPERS-SPEC M12, §P1.9 item 12) and message
// segmentation into packets of 1-24 flits (M9, M13): pure functions, no state.
//
// Classes (M12; the relative order of the control classes is UNSPEC, the suggested one is used):
//   grant > reservation > ACK/NACK > non-speculative data > speculative data.
// The class number is the priority rank, 0 = highest, so a strict-priority output serves the lowest
// set bit of its class mask first (highest_priority_class). A protocol uses a subset:
//   baseline, ECN: data + ACK (2); LHRP (+ fabric drop): + speculative (3, NACKs share ACK);
//   SRP, SMSRP, comprehensive: + reservation + grant (5; §P1.9-12 reads "two additional" as on top of
//   LHRP's three). class_slot renumbers the used classes densely (0 = highest) for VC indexing.
#pragma once
#include <cstdint>

#include "kernels/common/bits.hpp"
#include "kernels/common/macros.hpp"

namespace saturn {

enum class EndpointProtocol : uint8_t {
  kBaseline = 0,    // every data packet ACKed, no congestion control
  kEcn,             // InfiniBand-style ECN (M22, kernels/cc): same classes as the baseline
  kSrp,             // reservation before every message, speculative meanwhile (M32)
  kSmsrp,           // speculative first, reservation only after a NACK (M33)
  kLhrp,            // speculative, dropped only at the last hop, time on the NACK (M34)
  kLhrpFabricDrop,  // LHRP plus timeout drops before the last hop, NACK without time (M35)
  kComprehensive,   // LHRP below the split size, SRP at or above it, one last-hop scheduler (M36)
  kCount
};

enum class PacketKind : uint8_t {
  kData = 0,     // non-speculative (lossless) data, or any data of baseline / ECN
  kSpeculative,  // speculative data: may be dropped
  kAck,
  kNack,         // NACK of a dropped speculative packet (LHRP: carries the retransmission time)
  kReservation,  // Res n
  kGrant,        // Gnt t
  kCount
};

// Priority rank: 0 is served first.
enum class TrafficClass : uint8_t {
  kGrant = 0,
  kReservation = 1,
  kAckNack = 2,
  kData = 3,
  kSpeculative = 4,
  kCount
};
constexpr int kTrafficClasses = static_cast<int>(TrafficClass::kCount);

SATURN_INLINE TrafficClass traffic_class_of(PacketKind kind) {
  switch (kind) {
    case PacketKind::kGrant: return TrafficClass::kGrant;
    case PacketKind::kReservation: return TrafficClass::kReservation;
    case PacketKind::kAck:
    case PacketKind::kNack: return TrafficClass::kAckNack;
    case PacketKind::kSpeculative: return TrafficClass::kSpeculative;
    default: return TrafficClass::kData;
  }
}

// Bit c set = class c exists under the protocol (001 §4, M12).
SATURN_INLINE uint32_t protocol_class_mask(EndpointProtocol p) {
  const uint32_t base = (1u << static_cast<int>(TrafficClass::kAckNack)) | (1u << static_cast<int>(TrafficClass::kData));
  const uint32_t spec = 1u << static_cast<int>(TrafficClass::kSpeculative);
  const uint32_t handshake =
      (1u << static_cast<int>(TrafficClass::kGrant)) | (1u << static_cast<int>(TrafficClass::kReservation));
  switch (p) {
    case EndpointProtocol::kLhrp:
    case EndpointProtocol::kLhrpFabricDrop: return base | spec;
    case EndpointProtocol::kSrp:
    case EndpointProtocol::kSmsrp:
    case EndpointProtocol::kComprehensive: return base | spec | handshake;
    default: return base;
  }
}

SATURN_INLINE int protocol_class_count(EndpointProtocol p) { return popcount64(protocol_class_mask(p)); }

// Whether the protocol sends a packet of this kind at all (baseline sends no NACK, LHRP no Res/Gnt).
SATURN_INLINE bool protocol_uses_kind(EndpointProtocol p, PacketKind k) {
  if (k == PacketKind::kNack) return p != EndpointProtocol::kBaseline && p != EndpointProtocol::kEcn;
  return ((protocol_class_mask(p) >> static_cast<int>(traffic_class_of(k))) & 1u) != 0;
}

// Dense class index under the protocol, 0 = highest priority: the VC group a packet of this kind
// uses (times the VCs per class that routing needs). -1 if the protocol does not send this kind.
SATURN_INLINE int class_slot(EndpointProtocol p, PacketKind k) {
  if (!protocol_uses_kind(p, k)) return -1;
  const int c = static_cast<int>(traffic_class_of(k));
  return popcount64(protocol_class_mask(p) & ((1u << c) - 1u));
}

// Strict priority: the class an output serves among those with a packet ready (bit c = class c).
SATURN_INLINE int highest_priority_class(uint32_t ready_mask) {
  return ready_mask == 0 ? -1 : lowest_bit(static_cast<uint64_t>(ready_mask));
}

// ---- Segmentation (001 §4: packets of 1-24 flits; larger messages split by the source NIC) ----
// Choice (001 silent): full max-size packets first, the remainder last, so 512 flits give 21 x 24 +
// 8 = 22 packets and 192 flits 8 packets, the counts 001 §6.2 states.
constexpr uint32_t kMaxPacketFlits001 = 24;

SATURN_INLINE uint32_t segment_count(uint32_t message_flits, uint32_t max_packet_flits = kMaxPacketFlits001) {
  return message_flits == 0 ? 0u : (message_flits + max_packet_flits - 1u) / max_packet_flits;
}

// Size of packet `index` (0-based) of the message; 0 past the end.
SATURN_INLINE uint32_t segment_flits(uint32_t message_flits, uint32_t index,
                                     uint32_t max_packet_flits = kMaxPacketFlits001) {
  const uint64_t first = static_cast<uint64_t>(index) * max_packet_flits;
  if (first >= message_flits) return 0u;
  const uint32_t left = message_flits - static_cast<uint32_t>(first);
  return left < max_packet_flits ? left : max_packet_flits;
}

// Flits of the packets in `mask` (bit k = packet k) of a message.
SATURN_INLINE uint32_t segment_mask_flits(uint32_t message_flits, uint64_t mask,
                                          uint32_t max_packet_flits = kMaxPacketFlits001) {
  uint32_t sum = 0;
  for (uint64_t m = mask; m != 0; m &= m - 1) sum += segment_flits(message_flits, lowest_bit(m), max_packet_flits);
  return sum;
}

}  // namespace saturn
