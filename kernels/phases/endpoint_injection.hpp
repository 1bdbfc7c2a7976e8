// Explicit-rate injection schedulers at the sources (Zdornov & Birk 000 §6.2; PAPERS-SPEC M30,
// M31, item 10): injection.scheduler = ipd | svc | ps choose which send queue (flow) of a source
// sends next, instead of the round robin of endpoint_lanes_inject. Each flow has a packet gap
// d_p / r(f) (act_pkt_gap_q16), taken at activation from the per-trial flow table
// (flow_sched_gap_q16: the fluid SAA rates of the flows' routes at t = 0, U15, or the flows' own
// configured rates; host/engine/injection_rates.cpp). The schedules themselves are the unit-tested
// components of kernels/injection/. injection.scheduler = window is the existing congestion-control
// window (cc.window with ACKs), so it never comes here.
//
// One scalar rule per (endpoint, trial); the lane phase calls it per idle lane (so the scalar lane
// and the 16-lane pack give the same bits). Models with these schedulers run on the phases only
// (model_needs_phases) and without congestion control at the sources (host/engine/endpoint_setup.cpp).
//
// Semantics (where the paper is silent, docs/zdornov2009.md):
//  * a queue's flow is "active" from its activation until its last packet starts (or its stop
//    time); D(f,t) (act_sent) restarts at 0 when a new flow enters the queue;
//  * PS: R = the sum of the active flows' rates, recomputed whenever the active set changes (U15);
//  * the chosen packet waits for credits (back-pressure) rather than yielding to another flow: the
//    choice is made just before sending (M31), and held back starts restart the schedule (no catch-up).
#pragma once
#include <cstdint>

#include "kernels/common/bits.hpp"
#include "kernels/cc/saa_probes.hpp"
#include "kernels/common/index.hpp"
#include "kernels/injection/inter_packet_delay.hpp"
#include "kernels/injection/periodic_selection.hpp"
#include "kernels/injection/shaped_virtual_clock.hpp"
#include "kernels/routing/route_setup.hpp"
#include "kernels/state/credit_pool.hpp"
#include "kernels/state/engine_view.hpp"

namespace saturn {

// The scheduler's packet gap for the flow now in send queue ai of source e (the flow table entry of
// e with this queue's destination; two flows of one source to one destination share a route and a
// size, so they have the same SAA gap).
SATURN_INLINE uint32_t injection_flow_gap(const EngineView& v, int e, int t, int64_t ai) {
  const int f = source_flow_to(v, e, t, v.state.act_dst[ai]);
  return f < 0 ? 1u << 16 : v.trial.flow_sched_gap_q16[at(f, t, v.model.trials)];  // (f >= 0: every active queue holds a flow of the table)
}

// Record the active set of source e (queues with a flow); new flows start with D = 0 and their
// gap; PS recomputes d_p / R.
SATURN_INLINE void injection_set_active(const EngineView& v, const SourceQueues& q, int e, uint64_t active) {
  const StateView& s = v.state;
  const int64_t ei = q.src_ix();
  const uint64_t known = s.src_active[ei];
  if (active == known) return;
  for (uint64_t m = active & ~known; m != 0; m &= m - 1) {
    const int64_t ai = q.q_ix(lowest_bit(m));
    s.act_sent[ai] = 0;
    s.act_pkt_gap_q16[ai] = v.model.cc.saa_probes ? saa_known_gap(v, e, q.trial, ai) : injection_flow_gap(v, e, q.trial, ai);
  }
  s.src_active[ei] = active;
  if (v.model.injection == InjectionScheduler::kPs) {
    const PeriodicSelectionColumns ps{s.act_sent, s.act_pkt_gap_q16, s.src_ps_next_q16, s.src_ps_period_q16};
    ps_set_active(ps, q, active);
  }
}

// At most one packet from endpoint e in trial t at cycle c (the endpoint is not busy sending).
SATURN_INLINE Packet endpoint_scheduled_inject(const EngineView& v, int e, int t, uint32_t c) {
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials;
  const int A = m.active_queues;
  const SourceQueues q{e, A, t, T};
  const int64_t ei = q.src_ix();
  uint64_t active = 0;
  for (int a = 0; a < A; ++a) {
    const int64_t ai = q.q_ix(a);
    if (s.act_left[ai] == 0) continue;
    if (s.act_stop[ai] <= c) {  // a flow that has reached its stop time ends here
      s.act_left[ai] = 0;
      continue;
    }
    if (m.cc.saa_probes && (s.cc.act_saa_state[ai] & kSaaRunning) == 0) continue;  // no rate yet
    if (m.cc.route_setup && !route_ready(v, ai)) continue;  // its route is not set up yet
    active |= 1ull << a;
  }
  injection_set_active(v, q, e, active);
  if (active == 0) return Packet::empty();
  int a = kNoQueue;
  const PeriodicSelectionColumns ps{s.act_sent, s.act_pkt_gap_q16, s.src_ps_next_q16, s.src_ps_period_q16};
  const ShapedVirtualClockColumns svc{s.act_sent, s.act_pkt_gap_q16, s.act_next_q16};
  const InterPacketDelayColumns ipd{s.act_pkt_gap_q16, s.act_next_q16, s.src_rr};
  switch (m.injection) {
    case InjectionScheduler::kPs: a = ps_pick(ps, q, active, c); break;
    case InjectionScheduler::kSvc: a = svc_pick(svc, q, active, c); break;
    default: a = ipd_pick(ipd, q, active, c); break;
  }
  if (a == kNoQueue) return Packet::empty();
  const int64_t ai = q.q_ix(a);
  const uint32_t left = s.act_left[ai];
  const uint32_t size = left < static_cast<uint32_t>(m.mtu_flits) ? left : static_cast<uint32_t>(m.mtu_flits);
  const uint32_t vc = s.act_vc[ai];
  const int64_t ci = at(static_cast<int64_t>(e) * m.vcs + vc, t, T);
  if (s.ep_credits[ci] < static_cast<int32_t>(size)) return Packet::empty();  // back-pressure: the pick waits
  const bool tail = left != kUnlimited && left == size;
  const Packet pk = Packet::make(static_cast<uint32_t>(e), s.act_dst[ai], size, vc, tail ? kFlagMessageTail : 0u, c,
                                 s.act_birth[ai]);
  credits_take(m, ep_books(s), e, static_cast<int>(vc), t, static_cast<int32_t>(size));
  s.ep_busy_until[ei] = c + size;
  if (left != kUnlimited) s.act_left[ai] = left - size;
  s.st_inj_packets[ei] += 1;
  s.st_inj_flits[ei] += size;
  switch (m.injection) {
    case InjectionScheduler::kPs: ps_sent(ps, q, a, c); break;
    case InjectionScheduler::kSvc: svc_sent(svc, q, a, c); break;
    default: ipd_sent(ipd, q, a, c); break;
  }
  if (s.act_left[ai] == 0) injection_set_active(v, q, e, active & ~(1ull << a));  // the flow's last packet
  return pk;
}

// The lane phase's hook (endpoint_lanes_inject): every idle lane through the scalar rule.
template <class L>
SATURN_INLINE void endpoint_lanes_scheduled_inject(const EngineView& v, int e, int t0, uint32_t c, typename L::M idle,
                                                   Packet* out) {
  for (int l = 0; l < L::kWidth; ++l)
    out[l] = L::get_mask(idle, l) ? endpoint_scheduled_inject(v, e, t0 + l, c) : Packet::empty();
}

}  // namespace saturn
