// The packet record that travels on links and sits in buffer slots (16 bytes, one load on a GPU).
#pragma once
#include <cstdint>
#include "kernels/common/macros.hpp"

namespace saturn {

constexpr int kMaxVcs = 8;
constexpr int kMaxRadix = 64;         // request and slot masks are 64-bit words
constexpr uint32_t kMaxNodes = 1u << 20;
constexpr uint32_t kMaxPacketFlits = 4095;

// Flags carried by a packet.
enum PacketFlag : uint32_t {
  kFlagValid = 1u,        // a link slot holds a packet this cycle
  kFlagMessageTail = 2u,  // last packet of its message
  kFlagControl = 4u,      // an ACK or BECN packet (not data)
  kFlagEcn = 8u,          // data: marked by a congested switch (ECN / FECN)
  kFlagEcnEcho = 16u,     // control: the acknowledged packet was marked (ECN echo / BECN)
  // 32 and 64 mean other things under congestion isolation (kFlagAdapted, kFlagArn in
  // kernels/isolation/afi.hpp); the config refuses cc.protocol = lhrp with an isolation technique.
  kFlagSpeculative = 32u, // LHRP: data sent speculatively (droppable at the last hop); on an ACK: it acknowledges one
  kFlagNack = 64u,        // LHRP: control, a NACK of a dropped speculative packet (kernels/reservation/lhrp_engine.hpp)
  kFlagNonMinimal = 128u, // dragonfly: routed through an intermediate group (kernels/routing/dragonfly_engine.hpp)
};

// dst (20 bits) | vc (4 bits) | flags (8 bits); src (20 bits) | size_flits (12 bits).
struct Packet {
  uint32_t dst_vc_flags;
  uint32_t src_size;
  uint32_t inject_cycle;  // head left the source NIC
  uint32_t birth_cycle;   // the message was created

  SATURN_INLINE uint32_t dst() const { return dst_vc_flags & 0xFFFFFu; }
  SATURN_INLINE uint32_t vc() const { return (dst_vc_flags >> 20) & 0xFu; }
  SATURN_INLINE void set_vc(uint32_t vc) { dst_vc_flags = (dst_vc_flags & ~(0xFu << 20)) | (vc & 0xFu) << 20; }
  SATURN_INLINE uint32_t flags() const { return dst_vc_flags >> 24; }
  SATURN_INLINE bool valid() const { return (flags() & kFlagValid) != 0; }
  SATURN_INLINE bool control() const { return (flags() & kFlagControl) != 0; }
  SATURN_INLINE void add_flags(uint32_t f) { dst_vc_flags |= (f & 0xFFu) << 24; }
  SATURN_INLINE uint32_t src() const { return src_size & 0xFFFFFu; }
  SATURN_INLINE uint32_t size_flits() const { return src_size >> 20; }

  SATURN_INLINE static Packet make(uint32_t src, uint32_t dst, uint32_t size_flits, uint32_t vc,
                                   uint32_t flags, uint32_t inject, uint32_t birth) {
    Packet p;
    p.dst_vc_flags = (dst & 0xFFFFFu) | ((vc & 0xFu) << 20) | ((flags | kFlagValid) << 24);
    p.src_size = (src & 0xFFFFFu) | ((size_flits & 0xFFFu) << 20);
    p.inject_cycle = inject;
    p.birth_cycle = birth;
    return p;
  }
  SATURN_INLINE static Packet empty() { return Packet{0u, 0u, 0u, 0u}; }
};

static_assert(sizeof(Packet) == 16, "Packet must stay 16 bytes");

}  // namespace saturn
