// The parameterised InfiniBand-style ECN of Jiang, Dennison & Dally 2015 (001 Table 1, §5;
// PAPERS-SPEC M22's 001 instance; cc.protocol = "ecn"), 001's comparison against the speculative
// protocols. Every choice below is one of M22's suggestions where 001 is silent:
//   - Switch: a data packet is marked (kFlagEcn) as it starts to leave an input VC buffer whose
//     occupancy is above cca.threshold (001: 50%) of that buffer (marking rate 1, no root / victim
//     distinction). Occupancy here = flits of the packets in that input VC that have arrived and
//     not yet started to leave (ecn_waiting; header arrival to grant), the packet itself included.
//     cc.ecn_marking = "output_queue" (CIOQ switches) reads 000's switch instead, which watches the
//     packets waiting at each output port: the packet is marked if the output queue it joins (its
//     output and VC) holds more than cca.threshold of its switch.output_queue_packets. A queue
//     fills only where its link is the bottleneck (the crossbar takes the downstream credits before
//     a packet enters it), so this marks at congestion roots and not at their back-pressured victims.
//   - Destination: every data packet is ACKed (cc.acks); the ACK echoes the mark (kFlagEcnEcho,
//     endpoint_cc.hpp's cc_answer): the BECN is a bit in the ACK.
//   - Source, per (source, destination) pair (cc.ecn_scope = "pair", M22's suggestion; "source": one
//     state per source, for every destination): an index, +1 per echoed mark (up to cca.max_index),
//     -1 per cca.timer_flits cycles (001: 96) without one (floored at 0); the next packet to that
//     destination starts no earlier than the last one's start + its length + index x
//     cca.ipd_step_flits cycles (001: 24; M22's linear CCT). The state outlives messages: with
//     4-flit messages a per-message state would forget every notification. Per pair, a pair's marks
//     come at most once per ACK of its own: 60 sources sharing a hot spot's 4-flit packets ACK each
//     pair once per 240 cycles, 2.5 timer periods, so the index falls faster than it climbs there
//     (docs/jiang2015.md, fig5).
#pragma once
#include <cstdint>

#include "kernels/common/index.hpp"
#include "kernels/common/packet.hpp"
#include "kernels/state/engine_view.hpp"
#include "kernels/state/output_queue.hpp"

namespace saturn {

// Input gp's VC buffer in flits above which a leaving packet is marked.
SATURN_INLINE uint32_t ecn_threshold_flits(const EngineView& v, int gp) {
  const ModelParams& m = v.model;
  const int capacity = m.per_port_buffers ? v.net.in_vc_flits[gp] : m.vc_flits;
  return static_cast<uint32_t>(m.cc.ecn_threshold * capacity);
}

// The header of pk reached input gp (switch phase 1): its flits wait in the VC it arrived on.
SATURN_INLINE void ecn_arrived(const EngineView& v, int gp, const Packet& pk, int t) {
  v.state.cc.ecn_waiting[at(static_cast<int64_t>(gp) * v.model.vcs + pk.vc(), t, v.model.trials)] += pk.size_flits();
}

// pk (its record: the VC it arrived on) starts to leave input gp for output go, whose queue of VC
// vc_out it joins under output queues: marked if its input VC buffer holds more than the threshold
// (cc.ecn_marking = "input_vc"), or if that output queue holds more than the threshold of its
// packets ("output_queue"); then off the input's count.
SATURN_INLINE void ecn_departing(const EngineView& v, int gp, int go, int vc_out, Packet& pk, int t) {
  const ModelParams& m = v.model;
  uint32_t& waiting = v.state.cc.ecn_waiting[at(static_cast<int64_t>(gp) * m.vcs + pk.vc(), t, m.trials)];
  const bool above = m.cc.ecn_at_output ? oq_length(v, go, vc_out, t) > m.cc.ecn_threshold * m.oq_packets
                                        : waiting > ecn_threshold_flits(v, gp);
  if (!pk.control() && above) pk.add_flags(kFlagEcn);
  waiting -= pk.size_flits();
}

// The state source e keeps for destination dst: its own (cc.ecn_scope = "pair"), or the source's one.
SATURN_INLINE int64_t ecn_pair(const EngineView& v, int e, uint32_t dst, int t) {
  if (v.model.cc.ecn_per_source) return at(e, t, v.model.trials);
  return at(static_cast<int64_t>(e) * v.net.num_endpoints + dst, t, v.model.trials);
}

// A congestion index at cycle c: one step down per full timer period since `timer` (the cycle of
// its next decrement). Shared by CCA's send queues (endpoint_cc.hpp) and ECN's pairs. True if it fell.
SATURN_INLINE bool index_timer_tick(uint16_t& index, uint32_t& timer, uint32_t period, uint32_t c) {
  if (index == 0 || c < timer) return false;
  const uint32_t steps = 1u + (c - timer) / period;
  index = static_cast<uint16_t>(steps >= index ? 0u : index - steps);
  timer += steps * period;
  return true;
}

// The pair's index at cycle c.
SATURN_INLINE void ecn_tick(const EngineView& v, int64_t pi, uint32_t c) {
  index_timer_tick(v.state.cc.ecn_index[pi], v.state.cc.ecn_timer[pi], static_cast<uint32_t>(v.model.cc.cca_timer), c);
}

// Whether source e may start a packet to dst at cycle c.
SATURN_INLINE bool ecn_may_send(const EngineView& v, int e, int t, uint32_t dst, uint32_t c) {
  return v.state.cc.ecn_next[ecn_pair(v, e, dst, t)] <= c;
}

// Source e started a packet of `size` flits to dst at cycle c: the pair's next start.
SATURN_INLINE void ecn_sent(const EngineView& v, int e, int t, uint32_t dst, uint32_t c, uint32_t size) {
  const int64_t pi = ecn_pair(v, e, dst, t);
  ecn_tick(v, pi, c);
  v.state.cc.ecn_next[pi] = c + size + static_cast<uint32_t>(v.state.cc.ecn_index[pi]) *
                                           static_cast<uint32_t>(v.model.cc.cca_ipd_step);
}

// An ACK reached source e (`echo`: it echoes a mark): counted for the ecn_echo_fraction metrics.
SATURN_INLINE void ecn_count_ack(const EngineView& v, int e, int t, bool echo) {
  const int64_t ei = at(e, t, v.model.trials);
  v.state.cc.st_ecn_acks[ei] += 1;
  if (echo) v.state.cc.st_ecn_echoes[ei] += 1;
}

// An ACK from `src` echoing a mark reached source e at cycle c: the pair's index up, its timer anew.
SATURN_INLINE void ecn_notified(const EngineView& v, int e, int t, uint32_t src, uint32_t c) {
  const CcState& s = v.state.cc;
  const int64_t pi = ecn_pair(v, e, src, t);
  ecn_tick(v, pi, c);
  if (s.ecn_index[pi] < v.model.cc.cca_max_index) s.ecn_index[pi] += 1;
  s.ecn_timer[pi] = c + static_cast<uint32_t>(v.model.cc.cca_timer);
}

}  // namespace saturn
