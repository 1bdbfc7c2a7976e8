// Where a port's link ring and credit ring live, and the VC buffer of an input port: one rule for
// every phase and the invariants (docs/model/topologies.md, "Link delays per class").
//
// A link is a ring of depth d = latency + 1 slots: the sender writes slot c mod d in cycle c, the
// receiver reads slot (c + 1) mod d, written d - 1 = latency cycles earlier. Switch port gp owns
// the ring of the link leaving it (column link) and the credit ring of its input (credit, per VC:
// written by gp's switch, read by the upstream); endpoint e owns the ring of its injection link
// (inj_link). Both directions of a link have the same delay.
//   - Uniform (ModelParams::per_port_links false, every model but the dragonfly of 001): every ring
//     has depth D = link_depth and port gp's slots are [gp D, gp D + D): arithmetic only.
//   - Per port: port gp's ring is [ring_base[gp], ring_base[gp] + ring_depth[gp]) and endpoint
//     e's injection ring [inj_ring_base[e], ... + ring_depth of its switch port), NET columns built
//     from the topology's link classes; a trial then holds the sum of the link delays in slots,
//     not ports x the longest delay.
#pragma once
#include <cstdint>

#include "kernels/state/engine_view.hpp"

namespace saturn {

// Ring element of switch port gp written in cycle c (its output link's slot; its input's credit slot
// is this times V plus the VC), and the one its receiver reads in cycle c.
SATURN_INLINE int64_t ring_write(const EngineView& v, int gp, uint32_t c) {
  if (!v.model.per_port_links) {
    const int D = v.model.link_depth;
    return static_cast<int64_t>(gp) * D + static_cast<int64_t>(c % static_cast<uint32_t>(D));
  }
  return v.net.ring_base[gp] + static_cast<int64_t>(c % static_cast<uint32_t>(v.net.ring_depth[gp]));
}
SATURN_INLINE int64_t ring_read(const EngineView& v, int gp, uint32_t c) { return ring_write(v, gp, c + 1u); }

// ring_write / ring_read with the uniform slot (c mod D, or (c + 1) mod D for a read) computed once
// by the caller for all its ports: the uniform path then costs no division per port.
SATURN_INLINE int64_t ring_slot(const EngineView& v, int gp, uint32_t c, int uniform_slot) {
  if (!v.model.per_port_links) return static_cast<int64_t>(gp) * v.model.link_depth + uniform_slot;
  return v.net.ring_base[gp] + static_cast<int64_t>(c % static_cast<uint32_t>(v.net.ring_depth[gp]));
}
SATURN_INLINE int64_t inj_ring_slot(const EngineView& v, int e, uint32_t c, int uniform_slot) {
  if (!v.model.per_port_links) return static_cast<int64_t>(e) * v.model.link_depth + uniform_slot;
  return v.net.inj_ring_base[e] + static_cast<int64_t>(c % static_cast<uint32_t>(v.net.ring_depth[v.net.ep_port[e]]));
}

// The same for endpoint e's injection link (its depth is that of the switch port it attaches to).
SATURN_INLINE int64_t inj_ring_write(const EngineView& v, int e, uint32_t c) {
  if (!v.model.per_port_links) {
    const int D = v.model.link_depth;
    return static_cast<int64_t>(e) * D + static_cast<int64_t>(c % static_cast<uint32_t>(D));
  }
  return v.net.inj_ring_base[e] + static_cast<int64_t>(c % static_cast<uint32_t>(v.net.ring_depth[v.net.ep_port[e]]));
}
SATURN_INLINE int64_t inj_ring_read(const EngineView& v, int e, uint32_t c) { return inj_ring_write(v, e, c + 1u); }

// First slot and depth of a ring (the invariants walk every slot).
SATURN_INLINE int64_t ring_first(const EngineView& v, int gp) {
  return v.model.per_port_links ? v.net.ring_base[gp] : static_cast<int64_t>(gp) * v.model.link_depth;
}
SATURN_INLINE int64_t inj_ring_first(const EngineView& v, int e) {
  return v.model.per_port_links ? v.net.inj_ring_base[e] : static_cast<int64_t>(e) * v.model.link_depth;
}
SATURN_INLINE int ring_depth_of(const EngineView& v, int gp) {
  return v.model.per_port_links ? v.net.ring_depth[gp] : v.model.link_depth;
}

// VC buffer of input port gp in flits (= the upstream's credits for that VC when empty).
SATURN_INLINE int port_vc_capacity(const EngineView& v, int gp, int vc) {
  return v.model.per_port_buffers ? v.net.in_vc_flits[gp] : vc_capacity(v.model, vc);
}

}  // namespace saturn
