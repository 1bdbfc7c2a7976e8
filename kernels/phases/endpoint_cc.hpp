// Endpoint side of congestion control (PAPERS-SPEC M22, M26-M28) and dynamic ON/OFF flows,
// for one endpoint of one trial; called from endpoint_step.hpp.
//   - Destinations answer data packets with 20-byte control packets on the ACK class: an ACK
//     for every packet (window or response function on) echoing the ECN mark, or, for CCA alone,
//     a BECN for every FECN-marked packet. They wait in a FIFO and leave before data.
//   - Each send queue (service slot) keeps its congestion state: packets in flight (window), the
//     rate of the response function (f_dec on a marked ACK, f_inc on an unmarked one, start at
//     R_max), and the CCA index (+1 per BECN, -1 per timer period without one; IPD = index * step).
//   - The next packet of a queue may start once its window has room and
//       last start + last size * max(flow gap, 1 / rate or 1 + ipd) + CCA IPD
//     has passed (M26's injection rule; M22's "packet length + IPD").
#pragma once
#include <cstdint>

#include "kernels/cc/ib_ecn.hpp"
#include "kernels/cc/saa_probes.hpp"
#include "kernels/cc/response.hpp"
#include "kernels/common/fastmath.hpp"
#include "kernels/common/index.hpp"
#include "kernels/common/rng.hpp"
#include "kernels/phases/control_queue.hpp"
#include "kernels/reservation/spec_source.hpp"
#include "kernels/routing/route_setup.hpp"
#include "kernels/state/credit_pool.hpp"
#include "kernels/state/engine_view.hpp"

namespace saturn {

// Fresh congestion state: line rate, empty CCT index (the window count is kept: its packets'
// ACKs are still to come).
SATURN_INLINE void cc_reset_queue(const EngineView& v, int64_t ai) {
  const CcState& s = v.state.cc;
  s.act_rate[ai] = 1.0;
  s.act_index[ai] = 0;
}

// Earliest start of the queue's next packet from its last start and current limits.
SATURN_INLINE void cc_refresh_next(const EngineView& v, int64_t ai) {
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  uint64_t gap = s.act_gap_q16[ai];
  if (m.cc.response != Response::kNone) {
    const uint32_t cc_gap = rate_gap_q16(s.cc.act_rate[ai], m.cc.rates, m.cc.ipd_steps);
    if (cc_gap > gap) gap = cc_gap;
  }
  uint64_t next = (static_cast<uint64_t>(s.cc.act_last_start[ai]) << 16) + s.cc.act_last_size[ai] * gap;
  if (m.cc.cca) next += static_cast<uint64_t>(s.cc.act_index[ai]) * static_cast<uint64_t>(m.cc.cca_ipd_step) << 16;
  s.act_next_q16[ai] = next;
}

// CCA timer: one index step down per full period without a BECN (ib_ecn.hpp's index_timer_tick).
SATURN_INLINE void cca_timer_tick(const EngineView& v, int64_t ai, uint32_t c) {
  const CcState& s = v.state.cc;
  if (index_timer_tick(s.act_index[ai], s.act_timer[ai], static_cast<uint32_t>(v.model.cc.cca_timer), c))
    cc_refresh_next(v, ai);
}

// A data packet (header now, tail at `tail`) arrived at its destination e: queue the answer.
SATURN_INLINE void cc_answer(const EngineView& v, int e, int t, uint32_t tail, const Packet& in) {
  const ModelParams& m = v.model;
  const bool marked = (in.flags() & kFlagEcn) != 0;
  if (!m.cc.acks && !(m.cc.cca && marked)) return;
  // generated as the tail arrives (U5: no ACK delay); the ACK of a speculative packet says so, and
  // carries its message's birth (spec_source.hpp: SRP finds the message by it)
  cc_queue_control(v, e, t, in.src(), (marked ? kFlagEcnEcho : 0u) | (in.flags() & kFlagSpeculative), tail + 1,
                   in.birth_cycle);
}

// The first queued control packet, if it is ready and fits in the leaf's ACK-class credits.
SATURN_INLINE Packet cc_take_answer(const EngineView& v, int e, int t, uint32_t c) {
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials;
  const int64_t ei = at(e, t, T);
  if (s.cc.ackq_count[ei] == 0) return Packet::empty();
  const int64_t qi = at(static_cast<int64_t>(e) * m.cc.ack_queue + s.cc.ackq_head[ei], t, T);
  if (s.cc.ackq_ready[qi] > c) return Packet::empty();
  const uint32_t word = s.cc.ackq_word[qi];
  const uint32_t vc_field = (word >> 20) & 0xFu;  // 0: the ACK class, else that VC + 1 (control_queue.hpp)
  const int vc = vc_field != 0 ? static_cast<int>(vc_field) - 1 : m.cc.ack_vc;
  const int64_t ci = at(static_cast<int64_t>(e) * m.vcs + vc, t, T);
  if (s.ep_credits[ci] < m.cc.ack_flits) return Packet::empty();
  credits_take(m, ep_books(s), e, vc, t, m.cc.ack_flits);
  s.cc.ackq_head[ei] = static_cast<uint16_t>((s.cc.ackq_head[ei] + 1) % m.cc.ack_queue);
  s.cc.ackq_count[ei] -= 1;
  s.cc.st_ctrl_injected[ei] += 1;
  // the speculative protocols', SAA's and the route setup's control packets carry their argument in birth_cycle
  const uint32_t arg = m.cc.control_arg() ? s.cc.ackq_arg[qi] : c;
  Packet pk = Packet::make(static_cast<uint32_t>(e), word & 0xFFFFFu, static_cast<uint32_t>(m.cc.ack_flits),
                           static_cast<uint32_t>(vc), word >> 24, c, arg);
  if (m.cc.saa_probes) saa_leaves_source(v, e, t, pk);
  return pk;
}

// The tail of a control packet from `src` (flags: its packet flags) reached source e: update the
// send queue of that destination.
SATURN_INLINE void cc_control_received(const EngineView& v, int e, int t, uint32_t c, uint32_t src, uint32_t flags) {
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials;
  const int A = m.active_queues;
  if (m.cc.ecn) {  // 001's ECN: per pair (ib_ecn.hpp)
    const bool echo = (flags & kFlagEcnEcho) != 0;
    ecn_count_ack(v, e, t, echo);
    if (echo) ecn_notified(v, e, t, src, c);
  }
  int64_t ai = -1;
  for (int a = 0; a < A && ai < 0; ++a) {
    const int64_t i = at(static_cast<int64_t>(e) * A + a, t, T);
    if (s.act_dst[i] == src && (!m.cc.acks || s.cc.act_inflight[i] > 0)) ai = i;
  }
  if (ai < 0) return;  // (BECN for a queue that has moved on to another destination)
  const bool marked = (flags & kFlagEcnEcho) != 0;
  if (m.cc.acks) s.cc.act_inflight[ai] -= 1;
  if (m.cc.response != Response::kNone)
    s.cc.act_rate[ai] = marked ? rate_decrease(m.cc.response, s.cc.act_rate[ai]) : rate_increase(m.cc.response, s.cc.act_rate[ai]);
  if (m.cc.cca && marked) {
    cca_timer_tick(v, ai, c);
    if (s.cc.act_index[ai] < m.cc.cca_max_index) s.cc.act_index[ai] += 1;
    s.cc.act_timer[ai] = c + static_cast<uint32_t>(m.cc.cca_timer);
  }
  cc_refresh_next(v, ai);
}

// A control packet's header arrived at e: it acts when its tail is in (one at a time per link).
SATURN_INLINE void cc_control_arrived(const EngineView& v, int e, int t, uint32_t c, const Packet& in) {
  v.state.cc.st_ctrl_delivered[at(e, t, v.model.trials)] += 1;  // off the wire (conservation counts it here)
  if (v.model.cc.route_setup && route_control_packet(in.flags())) {  // 1-flit control packets only (the config checks)
    route_control_arrived(v, e, t, c, in);
    return;
  }
  if (v.model.cc.saa_probes) {  // 1-flit control packets only (the config checks)
    saa_control_arrived(v, e, t, c, in);
    return;
  }
  if (v.model.cc.speculative) {  // 1-flit control packets only (the config checks)
    const uint32_t answered = spec_control_arrived(v, e, t, c, in);
    if (answered != kNoRetxTime) cc_control_received(v, e, t, c, answered, 0u);
    return;
  }
  if (in.size_flits() == 1) {
    cc_control_received(v, e, t, c, in.src(), in.flags());
    return;
  }
  const int64_t ei = at(e, t, v.model.trials);
  v.state.cc.ctrl_word[ei] = in.src() | (in.flags() << 24);
  v.state.cc.ctrl_at[ei] = c + in.size_flits() - 1;
}

SATURN_INLINE void cc_control_tail(const EngineView& v, int e, int t, uint32_t c) {
  const int64_t ei = at(e, t, v.model.trials);
  const uint32_t word = v.state.cc.ctrl_word[ei];
  if (word == 0 || v.state.cc.ctrl_at[ei] != c) return;
  v.state.cc.ctrl_word[ei] = 0;
  cc_control_received(v, e, t, c, word & 0xFFFFFu, word >> 24);
}

// Exponential ON / OFF period of a dynamic flow (mean cc.on_off_mean cycles, at least 1).
SATURN_INLINE uint32_t on_off_period(const EngineView& v, int64_t ai, int t, uint32_t from) {
  const Draw4 d = philox(v.trial.seed[t], 0u, static_cast<uint32_t>(ai / v.model.trials), from, Stream::kOnOff);
  const double ln_u = ln_half_offset(d.v[0]) - 32.0 * kLn2;
  const double len = -ln_u * static_cast<double>(v.model.cc.on_off_mean) + 0.5;
  return len < 1.0 ? 1u : (len > 1.0e9 ? 1000000000u : static_cast<uint32_t>(len));
}

// Dynamic flows: advance the queue's ON / OFF periods to cycle c; true while it is ON. A new ON
// period is a new flow of the same pair: it starts at R_max unless the state is persistent (M28).
SATURN_INLINE bool dynamic_flow_on(const EngineView& v, int64_t ai, int t, uint32_t c) {
  const CcState& s = v.state.cc;
  while (s.act_phase_end[ai] <= c) {
    const uint32_t end = s.act_phase_end[ai];
    const bool turning_on = s.act_off[ai] != 0;
    s.act_off[ai] = turning_on ? 0 : 1;
    s.act_phase_end[ai] = end + on_off_period(v, ai, t, end);
    if (turning_on && !v.model.cc.persistent) {
      cc_reset_queue(v, ai);
      cc_refresh_next(v, ai);
    }
  }
  return s.act_off[ai] == 0;
}

}  // namespace saturn
