// SAA by control packets in the packet engine (Zdornov & Birk 000 §5.1, Algorithm 1; PAPERS-SPEC
// M29; injection.rates = "saa_probes"): the rates the explicit-rate schedulers inject at are found
// by the protocol itself instead of being given at t = 0 (U15's "optionally an ablation with real
// probes"). The rate rule is the one kernels/flow/saa_protocol.hpp simulates at flow level:
//   * every link has a weight register W_l (flits): the switches keep one per output port
//     (saa_link_w; the ejection link is the last switch's output), the NIC one for its injection
//     link (saa_inj_w), so a flow's registers are exactly the links of its SAA path;
//   * a flow's AnnounceStart, ProbeLinks and AnnounceEnd are each one control packet that leaves
//     the NIC before data (the control FIFO), follows the flow's own route to the destination
//     (the data packets' routing: the PRC under adaptive routing), where it visits each link in
//     path order: W_l += w_f (announce), W_l -= w_f (end), and the packet's running maximum
//     p.W_f = max(p.W_f, W_l) (announce, probe). The destination turns it back to the source
//     (kSaaBack: routed as the reverse pair's packets, no state touched), which then knows W_f and sends at
//     r(f) = w_f / W_f (saa_gap_q16, the same gap the given rates use);
//   * a flow sends no data before its AnnounceStart is back (injection.saa_first_rate = probe:
//     before the probe it sends as soon as that is back, so its first rate counts every flow that
//     had announced by then; Algorithm 1 as written starts at the announce's own maximum, which
//     misses the flows on its links that announce after it); then it probes, one probe at a time,
//     injection.saa_probe_interval_ns after the previous one returned (0: back to back), while it
//     has data; after its last packet it sends AnnounceEnd. At most one SAA packet per
//     (source, destination) pair is outstanding, so a returning packet finds its send queue by
//     its source alone (two flows of one pair take turns, the one due the longest first).
// The packet: kFlagControl with the kind in flag bits 8 and 16 (ECN's bits, unused here: the
// config refuses congestion control with these probes), kSaaBack in bit 32 (LHRP's, likewise);
// inject_cycle carries w_f and birth_cycle the running maximum (both flits, < 2^31: checked).
// A probe that returns after the flow's last packet left is discarded (no data left to rate).
// Re-probing lets a rate rise once flows on its bottleneck have ended (M29's UNSPEC: SAA does not
// require it); a flow counts in saa_flows_never_central if it never sent at its central rate.
#pragma once
#include <cstdint>

#include "kernels/common/bits.hpp"
#include "kernels/common/index.hpp"
#include "kernels/common/packet.hpp"
#include "kernels/injection/injection_common.hpp"
#include "kernels/injection/periodic_selection.hpp"
#include "kernels/phases/control_queue.hpp"
#include "kernels/state/engine_view.hpp"

namespace saturn {

constexpr uint32_t kSaaAnnounce = kFlagEcn;
constexpr uint32_t kSaaProbe = kFlagEcnEcho;
constexpr uint32_t kSaaEnd = kFlagEcn | kFlagEcnEcho;
constexpr uint32_t kSaaKind = kFlagEcn | kFlagEcnEcho;
constexpr uint32_t kSaaBack = kFlagSpeculative;

// act_saa_state bits of a send queue.
enum SaaQueueState : uint8_t {
  kSaaStarted = 1,  // AnnounceStart sent
  kSaaRunning = 2,  // AnnounceStart back: the flow has a rate and may send
  kSaaOut = 4,      // one of its SAA packets is in the network
  kSaaOver = 8,     // its data has all left: AnnounceEnd sent
  kSaaDone = 16,    // AnnounceEnd back
  kSaaCentral = 32, // it has sent at its central SAA rate (the flow table's gap) at some time
  kSaaAbove = 64,   // it was given a rate above its central one before it first had that one
};

// The flow of source e to dst in the flow table (two flows of one pair share a route and a size:
// the first stands for both), or -1.
SATURN_INLINE int source_flow_to(const EngineView& v, int e, int t, uint32_t dst) {
  const int fps = v.model.flows_per_source;
  for (int j = 0; j < fps; ++j) {
    const int f = v.trial.flow_index[static_cast<int64_t>(e) * fps + j];
    if (f < 0) break;
    if (v.trial.flow_dst[at(f, t, v.model.trials)] == dst) return f;
  }
  return -1;
}

// One link of the flow's path, in path order (Algorithm 1's loop body).
SATURN_INLINE void saa_visit_link(uint32_t& wl, Packet& pk) {
  const uint32_t kind = pk.flags() & kSaaKind;
  if (kind == kSaaAnnounce) wl += pk.inject_cycle;
  else if (kind == kSaaEnd) wl -= pk.inject_cycle;
  if (kind != kSaaEnd && wl > pk.birth_cycle) pk.birth_cycle = wl;
}

// Switch: packet `pk` starts to leave output go (called with the departure marks, marking.hpp).
SATURN_INLINE void saa_departure(const EngineView& v, int go, Packet& pk, int t) {
  if (!pk.control() || (pk.flags() & kSaaBack) != 0) return;
  saa_visit_link(v.state.cc.saa_link_w[at(go, t, v.model.trials)], pk);
}

// NIC: an outgoing SAA packet leaves e (cc_take_answer): it carries w_f and visits the injection link.
SATURN_INLINE void saa_leaves_source(const EngineView& v, int e, int t, Packet& pk) {
  if ((pk.flags() & kSaaBack) != 0) return;
  const int f = source_flow_to(v, e, t, pk.dst());
  pk.inject_cycle = f < 0 ? 0u : v.trial.flow_flits[f];
  pk.birth_cycle = 0;
  saa_visit_link(v.state.cc.saa_inj_w[at(e, t, v.model.trials)], pk);
}

// The packet gap of send queue ai at the W_f its source knows.
SATURN_INLINE uint32_t saa_known_gap(const EngineView& v, int e, int t, int64_t ai) {
  const int f = source_flow_to(v, e, t, v.state.act_dst[ai]);
  const double w = f < 0 ? 1.0 : static_cast<double>(v.trial.flow_flits[f]);
  return saa_gap_q16(static_cast<double>(v.model.mtu_flits), w, static_cast<double>(v.state.cc.act_saa_w[ai]));
}

// The send queue of e to dst that has an SAA packet out (at most one: the one-per-pair rule), or kNoQueue.
SATURN_INLINE int saa_queue_out(const EngineView& v, int e, int t, uint32_t dst) {
  return first_send_queue(v, e, t, [&](int64_t ai) {
    return (v.state.cc.act_saa_state[ai] & kSaaOut) != 0 && v.state.act_dst[ai] == dst;
  });  // (kNoQueue = -1 when none)
}

// The SAA packet send queue ai has due at cycle c (0: none): AnnounceStart once it holds a flow,
// ProbeLinks while it has data and its interval has passed, AnnounceEnd after its last packet.
SATURN_INLINE uint32_t saa_due(const EngineView& v, int64_t ai, uint32_t c) {
  const StateView& s = v.state;
  const uint8_t st = s.cc.act_saa_state[ai];
  if ((st & (kSaaOut | kSaaDone)) != 0) return 0;
  if ((st & kSaaStarted) == 0) return s.act_left[ai] != 0 ? kSaaAnnounce : 0u;  // (0 flits: no flow here yet)
  if (s.act_left[ai] == 0) return kSaaEnd;
  return s.cc.act_saa_next[ai] <= c ? kSaaProbe : 0u;
}

// Source e, every cycle it could inject: launch each flow's due SAA packet into the control FIFO.
// Two flows of one pair take turns: the one due the longest goes first (ties: the lower queue),
// so a flow that probes back to back cannot keep its twin from announcing. Leaves one FIFO place
// for the turnarounds of the destination side.
SATURN_INLINE void saa_source_step(const EngineView& v, int e, int t, uint32_t c) {
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int A = m.active_queues;
  const int64_t ei = at(e, t, m.trials);
  for (int a = 0; a < A; ++a) {
    const int64_t ai = at(static_cast<int64_t>(e) * A + a, t, m.trials);
    const uint32_t kind = saa_due(v, ai, c);
    if (kind == 0) continue;
    const uint32_t dst = s.act_dst[ai];
    bool waits = false;  // a twin has its packet out, or is due longer and goes first
    for (int b = 0; b < A && !waits; ++b) {
      const int64_t bi = at(static_cast<int64_t>(e) * A + b, t, m.trials);
      if (b == a || s.act_dst[bi] != dst) continue;
      waits = (s.cc.act_saa_state[bi] & kSaaOut) != 0 ||
              (saa_due(v, bi, c) != 0 && (s.cc.act_saa_next[bi] < s.cc.act_saa_next[ai] ||
                                          (s.cc.act_saa_next[bi] == s.cc.act_saa_next[ai] && b < a)));
    }
    if (waits) continue;
    if (!control_room_for_own(v, e, t)) return;
    uint8_t st = s.cc.act_saa_state[ai];
    if (kind == kSaaAnnounce) st |= kSaaStarted;
    if (kind == kSaaEnd) {
      st |= kSaaOver;
      if ((st & kSaaCentral) == 0) s.cc.st_saa_off[ei] += 1;
      if ((st & kSaaAbove) != 0) s.cc.st_saa_above[ei] += 1;
    }
    cc_queue_control(v, e, t, dst, kind, c, 0);
    s.cc.act_saa_state[ai] = static_cast<uint8_t>(st | kSaaOut);
  }
}

// Source e: send queue a's flow now sends at W_f = w (the returning packet's running maximum).
SATURN_INLINE void saa_set_rate(const EngineView& v, int e, int t, int a, uint32_t w, uint32_t c) {
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const SourceQueues q{e, m.active_queues, t, m.trials};
  const int64_t ai = q.q_ix(a), ei = q.src_ix();
  s.cc.act_saa_w[ai] = w;
  s.cc.st_saa_settled[ei] = c;
  const uint32_t gap = saa_known_gap(v, e, t, ai);
  const int f = source_flow_to(v, e, t, s.act_dst[ai]);
  if (f >= 0) {
    // (a W_f seen is at most the central one: registers hold only flows announced and not ended)
    const uint32_t central = v.trial.flow_sched_gap_q16[at(f, t, m.trials)];
    if (gap == central) s.cc.act_saa_state[ai] |= kSaaCentral;
    else if (gap < central && (s.cc.act_saa_state[ai] & kSaaCentral) == 0) s.cc.act_saa_state[ai] |= kSaaAbove;
  }
  if (((s.src_active[ei] >> a) & 1u) == 0) return;  // not sending yet: the gap is set when it joins
  s.act_pkt_gap_q16[ai] = gap;
  if (m.injection == InjectionScheduler::kPs) {
    const PeriodicSelectionColumns ps{s.act_sent, s.act_pkt_gap_q16, s.src_ps_next_q16, s.src_ps_period_q16};
    ps_set_active(ps, q, s.src_active[ei]);
  }
}

// An SAA packet's header (its only flit) arrived at endpoint e.
SATURN_INLINE void saa_control_arrived(const EngineView& v, int e, int t, uint32_t c, const Packet& in) {
  const StateView& s = v.state;
  const uint32_t kind = in.flags() & kSaaKind;
  if ((in.flags() & kSaaBack) == 0) {  // at the destination: back to the source, state untouched
    cc_queue_control(v, e, t, in.src(), kind | kSaaBack, c + 1, in.birth_cycle);
    return;
  }
  const int a = saa_queue_out(v, e, t, in.src());
  if (a == kNoQueue) return;  // (not reached: every SAA packet out has its queue)
  const int64_t ai = at(static_cast<int64_t>(e) * v.model.active_queues + a, t, v.model.trials);
  const uint8_t before = s.cc.act_saa_state[ai];
  const bool after_probe = v.model.cc.saa_rate_after_probe;
  // saa_first_rate = probe: the AnnounceStart only registers the flow; its first probe goes at once
  // and brings the first rate.
  const bool first = (before & kSaaRunning) == 0 &&
                     (after_probe ? kind == kSaaProbe && s.act_left[ai] != 0 : kind == kSaaAnnounce);
  uint8_t st = static_cast<uint8_t>(before & ~kSaaOut);
  if (first) st |= kSaaRunning;
  if (kind == kSaaEnd) st |= kSaaDone;
  s.cc.act_saa_state[ai] = st;  // (before saa_set_rate, which may add kSaaCentral or kSaaAbove)
  s.cc.act_saa_next[ai] = kind == kSaaAnnounce && after_probe ? c : c + v.model.cc.saa_probe_interval;
  const uint32_t w = in.birth_cycle;
  if (kind == kSaaAnnounce && after_probe) {
    s.cc.act_saa_w[ai] = w;  // (known, not used: the probe's maximum includes this register)
  } else if (first) {
    saa_set_rate(v, e, t, a, w, c);
  } else if (kind == kSaaProbe && s.act_left[ai] != 0 && w != s.cc.act_saa_w[ai]) {
    // (a probe back after the flow's last packet is discarded: no data left to rate)
    s.cc.st_saa_changes[at(e, t, v.model.trials)] += 1;
    saa_set_rate(v, e, t, a, w, c);
  }
}

}  // namespace saturn
