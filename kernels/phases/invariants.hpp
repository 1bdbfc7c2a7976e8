// Debug-mode model invariants for one trial at the end of a cycle (simulation.check_invariants):
//   - credits never negative and never above the VC buffer;
//   - no input VC holds more flits than its buffer;
//   - credit conservation on every link and VC: upstream credits + flits buffered downstream +
//     flits on the wire + credits on the wire back = the VC buffer size;
//   - packet conservation (data and control): injected = delivered + resident in buffers + on the wire.
// Each violated check adds one to st_violations[trial].
#pragma once
#include <cstdint>

#include "kernels/common/bits.hpp"
#include "kernels/common/index.hpp"
#include "kernels/state/engine_view.hpp"

namespace saturn {

SATURN_INLINE void check_invariants(const EngineView& v, int t, uint32_t c) {
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials, D = m.link_depth, V = m.vcs;
  const int consumed = static_cast<int>((c + 1u) % static_cast<uint32_t>(D));  // slot already read this cycle
  uint64_t violations = 0;
  int64_t resident_packets = 0, wire_packets = 0;

  for (int gp = 0; gp < v.net.num_ports; ++gp) {
    const uint8_t type = v.net.peer_type[gp];
    if (type == static_cast<uint8_t>(PeerType::kNone)) continue;
    // Packets on the wire leaving this output port.
    for (int k = 0; k < D; ++k)
      if (k != consumed && s.link[at(static_cast<int64_t>(gp) * D + k, t, T)].valid()) ++wire_packets;
    // Buffered flits per VC at this input port.
    int64_t buffered[kMaxVcs];
    for (int vc = 0; vc < V; ++vc) buffered[vc] = 0;
    const uint64_t occ = s.in_occupied[at(gp, t, T)], dep = s.in_departing[at(gp, t, T)];
    if ((dep & ~occ) != 0) ++violations;
    for (uint64_t r = occ; r != 0; r &= r - 1) {
      const int k = lowest_bit(r);
      const int64_t si = at(static_cast<int64_t>(gp) * m.slots + k, t, T);
      const Packet pk = s.slot_pkt[si];
      const bool departing = (dep >> k) & 1ull;
      // A departing packet's credits went back in the cycle its tail left (free cycle - 1).
      if (!departing || s.slot_time[si] > c + 1) buffered[pk.vc()] += pk.size_flits();
      if (!departing) ++resident_packets;
    }
    // The link into this input: from a switch output port or an endpoint.
    const int32_t up = v.net.peer[gp];
    for (int vc = 0; vc < V; ++vc) {
      int64_t wire_flits = 0, wire_credits = 0;
      for (int k = 0; k < D; ++k) {
        if (k == consumed) continue;
        const Packet pk = type == static_cast<uint8_t>(PeerType::kSwitch)
                              ? s.link[at(static_cast<int64_t>(up) * D + k, t, T)]
                              : s.inj_link[at(static_cast<int64_t>(up) * D + k, t, T)];
        if (pk.valid() && static_cast<int>(pk.vc()) == vc) wire_flits += pk.size_flits();
        wire_credits += s.credit[at((static_cast<int64_t>(gp) * D + k) * V + vc, t, T)];
      }
      const int64_t credits = type == static_cast<uint8_t>(PeerType::kSwitch)
                                  ? s.out_credits[at(static_cast<int64_t>(up) * V + vc, t, T)]
                                  : s.ep_credits[at(static_cast<int64_t>(up) * V + vc, t, T)];
      const int capacity = vc_capacity(m, vc);
      if (credits < 0 || credits > capacity) ++violations;
      if (buffered[vc] > capacity) ++violations;
      if (credits + buffered[vc] + wire_flits + wire_credits != capacity) ++violations;
    }
  }
  int64_t injected = 0, delivered = 0;
  for (int e = 0; e < v.net.num_endpoints; ++e) {
    injected += static_cast<int64_t>(s.st_inj_packets[at(e, t, T)] + s.cc.st_ctrl_injected[at(e, t, T)]);
    delivered += static_cast<int64_t>(s.st_del_packets[at(e, t, T)] + s.cc.st_ctrl_delivered[at(e, t, T)]);
    for (int k = 0; k < D; ++k)
      if (k != consumed && s.inj_link[at(static_cast<int64_t>(e) * D + k, t, T)].valid()) ++wire_packets;
  }
  if (injected != delivered + resident_packets + wire_packets) ++violations;
  s.st_violations[t] += violations;
}

}  // namespace saturn
