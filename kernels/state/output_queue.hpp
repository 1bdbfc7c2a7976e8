// CIOQ output queues (switch.output_queue_packets > 0; PAPERS-SPEC M9, docs/model/switch.md):
// per switch output port and VC, a FIFO ring of at most K = ModelParams::oq_packets packets.
//
// The crossbar moves a packet from its input VOQ into the queue of its output and VC at
// ModelParams::xbar_flits flits a cycle (switch.speedup: Chuang et al.'s speedup, the fabric
// running that many times the link rate); an input sends one packet at a time and an output
// receives one at a time (out_src and xb_busy_until record the transfer). The downstream credits
// are taken when the packet enters the crossbar, as in BookSim's input-queued router, so a queued
// packet can always leave: the queue decouples the output link from the inputs, and with speedup
// 2 an output that is sending can already take the next packet, freeing its input for others.
// The link takes the head of one VC queue whenever it is idle (by switch.vc_arbitration: the
// highest VC, or round-robin from oq_vc_rr), in the very cycle the packet entered at the
// earliest (cut-through: the crossbar is at least as fast as the link), so a zero-load packet
// is not delayed.
//
// Columns (kernels/state/state_columns.def), per trial: oq_ends[gp * V + vc] = head | count << 16,
// oq_pkt[(gp * V + vc) * K + k] the ring, oq_count[gp] the packets over all of gp's VCs (one lane
// load says whether an output has anything to send), oq_vc_rr[gp].
#pragma once
#include <cstdint>

#include "kernels/common/index.hpp"
#include "kernels/common/packet.hpp"
#include "kernels/state/engine_view.hpp"

namespace saturn {

SATURN_INLINE bool cioq_on(const ModelParams& m) { return m.oq_packets > 0; }

// The column that says until when each output's crossbar port is busy (out_src's packet leaving its
// input): the link's own busy cycle without output queues, the crossbar's with them.
SATURN_INLINE uint32_t* xbar_busy_until(const EngineView& v) {
  return cioq_on(v.model) ? v.state.xb_busy_until : v.state.out_busy_until;
}

// Cycles the crossbar takes to move a packet of `size` flits.
SATURN_INLINE uint32_t xbar_cycles(const ModelParams& m, uint32_t size) {
  const uint32_t rate = static_cast<uint32_t>(m.xbar_flits);
  return (size + rate - 1u) / rate;
}

SATURN_INLINE int64_t oq_queue(const ModelParams& m, int gp, int vc) { return static_cast<int64_t>(gp) * m.vcs + vc; }

// Packets queued at output port gp on VC vc of trial t.
SATURN_INLINE uint32_t oq_length(const EngineView& v, int gp, int vc, int t) {
  return v.state.oq_ends[at(oq_queue(v.model, gp, vc), t, v.model.trials)] >> 16;
}

// The k-th packet from the head of queue (gp, vc) of trial t (k < its length).
SATURN_INLINE const Packet& oq_at(const EngineView& v, int gp, int vc, uint32_t k, int t) {
  const ModelParams& m = v.model;
  const int64_t q = oq_queue(m, gp, vc);
  const uint32_t head = v.state.oq_ends[at(q, t, m.trials)] & 0xFFFFu;
  const uint32_t slot = (head + k) % static_cast<uint32_t>(m.oq_packets);
  return v.state.oq_pkt[at(q * m.oq_packets + slot, t, m.trials)];
}

// Appends pk to queue (gp, vc) of trial t; the grant checked that it has room.
SATURN_INLINE void oq_push(const EngineView& v, int gp, int vc, const Packet& pk, int t) {
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials;
  const int64_t q = oq_queue(m, gp, vc);
  const uint32_t ends = s.oq_ends[at(q, t, T)];
  const uint32_t head = ends & 0xFFFFu, count = ends >> 16;
  const uint32_t slot = (head + count) % static_cast<uint32_t>(m.oq_packets);
  s.oq_pkt[at(q * m.oq_packets + slot, t, T)] = pk;
  s.oq_ends[at(q, t, T)] = head | (count + 1u) << 16;
  s.oq_count[at(gp, t, T)] += 1u;
}

// Output port go of trial t, whose link is idle and whose queues hold a packet: the VC whose head
// goes (switch.vc_arbitration), taken off its queue.
SATURN_INLINE Packet oq_pop_next(const EngineView& v, int go, int t) {
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials, V = m.vcs;
  int vc = -1;
  if (m.vc_arbitration == VcArbitration::kRoundRobin) {
    const int first = s.oq_vc_rr[at(go, t, T)];
    for (int n = 0; n < V && vc < 0; ++n) {
      const int x = first + n < V ? first + n : first + n - V;
      if (oq_length(v, go, x, t) > 0) vc = x;
    }
    s.oq_vc_rr[at(go, t, T)] = static_cast<uint8_t>(vc + 1 == V ? 0 : vc + 1);
  } else {
    for (int x = V - 1; x >= 0 && vc < 0; --x)
      if (oq_length(v, go, x, t) > 0) vc = x;
  }
  const int64_t q = oq_queue(m, go, vc);
  const uint32_t ends = s.oq_ends[at(q, t, T)];
  const uint32_t head = ends & 0xFFFFu, count = ends >> 16;
  const Packet pk = s.oq_pkt[at(q * m.oq_packets + head, t, T)];
  const uint32_t next = head + 1u == static_cast<uint32_t>(m.oq_packets) ? 0u : head + 1u;
  s.oq_ends[at(q, t, T)] = next | (count - 1u) << 16;
  s.oq_count[at(go, t, T)] -= 1u;
  return pk;
}

}  // namespace saturn
