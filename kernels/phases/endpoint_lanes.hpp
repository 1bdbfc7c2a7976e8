// The endpoint step as a phase over a lane of trials (ScalarLanes: one trial; PackLanes16: 16): the
// same rules as endpoint_step<kVcs, kCc> (endpoint_step.hpp) and the same bits
// (tests/integration/test_step_identity.cpp). The work of every cycle runs branch-free
// over the lanes: ejection and its statistics, credit return, the round-robin choice among the
// send queues that are within their rate and fit in the credits, and the injection link. Rare
// events run per lane, under a mask, through endpoint_step.hpp's own scalar helpers (one
// implementation of each rule): flow activation, message generation and source-queue admission,
// and attributing a delivery to its flow; trace replay (kernels/traffic/trace_replay.hpp): the
// arrivals of trace packets and the replay of the nodes with work this cycle. kCc (congestion
// control, endpoint_cc.hpp) adds, compiled out when false: control packets received (per lane,
// through endpoint_cc.hpp), answers queued and sent first (per lane), the window and ON / OFF
// checks of each send queue and the rate update of the one that sends (branch-free, then
// cc_refresh_next per sending lane); a lane where some send queue's state changes when the walk
// visits it (a CCA timer step or an ON / OFF boundary due) runs the fused walk,
// endpoint_inject<true>, for that cycle.
#pragma once
#include <cstdint>

#include "kernels/arbiters/vc_allocation.hpp"
#include "kernels/common/bits.hpp"
#include "kernels/common/index.hpp"
#include "kernels/common/rng_lanes.hpp"
#include "kernels/phases/endpoint_injection.hpp"
#include "kernels/phases/endpoint_step.hpp"
#include "kernels/phases/packet_lanes.hpp"
#include "kernels/state/credit_pool.hpp"
#include "kernels/state/engine_view.hpp"
#include "kernels/state/link_ring.hpp"
#include "kernels/stats/latency_histogram.hpp"
#include "kernels/traffic/trace_replay.hpp"

namespace saturn {

// u64 column += a U32 value per lane (statistics), only where it changes anything.
template <class L>
SATURN_INLINE void endpoint_lanes_add64(uint64_t* p, typename L::U32 x) {
  L::store64(p, L::load64(p) + L::widen(x));
}

// Place of send queue a in this cycle's round-robin order, which starts at rr (0 = first).
template <class L>
SATURN_INLINE typename L::U32 endpoint_lanes_rr_pos(int a, int A, typename L::U32 rr) {
  return L::sel(rr <= static_cast<uint32_t>(a), L::u32(static_cast<uint32_t>(a)) - rr,
                L::u32(static_cast<uint32_t>(a + A)) - rr);
}

// Ejection of the arriving packet: the statistics of endpoint_deliver<false> in every lane.
template <class L>
SATURN_INLINE void endpoint_lanes_deliver(const EngineView& v, int e, int t0, uint32_t c, const PacketLanes<L>& in,
                                          typename L::M valid) {
  using U32 = typename L::U32;
  using M = typename L::M;
  const StateView& s = v.state;
  const int T = v.model.trials;
  const int64_t ei = at(e, t0, T);
  const U32 zero = L::u32(0);
  const U32 size = in.size_flits();
  const U32 tail = size + (c - 1u);  // the header arrived this cycle; one flit per cycle follows
  const U32 latency = tail - in.w[2];
  endpoint_lanes_add64<L>(s.st_del_packets + ei, L::sel(valid, L::u32(1), zero));
  endpoint_lanes_add64<L>(s.st_del_flits + ei, L::sel(valid, size, zero));
  endpoint_lanes_add64<L>(s.st_net_lat_sum + ei, L::sel(valid, latency, zero));
  const int64_t N = v.net.num_endpoints;  // (histogram slots: latency_histogram.hpp)
  // Lanes from arrays, not vectors: a lane read from a vector goes through the stack and waits on
  // store forwarding each time (switch_grant.hpp).
  alignas(64) uint32_t lat[L::kWidth];
  L::store(lat, latency);
  for (uint32_t b = L::bits(valid); b != 0; b &= b - 1) {
    const int l = lowest_bit(b);
    s.st_net_hist[at(hist_slot(N, e, latency_bin(lat[l])), t0 + l, T)] += 1;
  }
  M msg_tail = L::mand(valid, ((in.w[0] >> 24) & static_cast<uint32_t>(kFlagMessageTail)) != 0u);
  M untraced = valid;
  if (v.model.trace) {  // trace packets: their birth word names their recv (trace_replay.hpp); no message latency or flow
    const M traced = L::mand(valid, (in.w[3] & kTraceTag) != 0u);
    for (uint32_t b = L::bits(traced); b != 0; b &= b - 1) {
      const int l = lowest_bit(b);
      trace_arrive(v, e, t0 + l, c, L::get(in.w[3], l), L::get(size, l));
    }
    untraced = L::mand(valid, L::mnot(traced));
    msg_tail = L::mand(msg_tail, untraced);
  }
  if (L::any(msg_tail)) {
    const U32 msg_latency = tail - in.w[3];
    endpoint_lanes_add64<L>(s.st_msg_done + ei, L::sel(msg_tail, L::u32(1), zero));
    endpoint_lanes_add64<L>(s.st_msg_lat_sum + ei, L::sel(msg_tail, msg_latency, zero));
    alignas(64) uint32_t msg_lat[L::kWidth], src_size[L::kWidth], birth[L::kWidth];
    L::store(msg_lat, msg_latency);
    L::store(src_size, in.w[1]);
    L::store(birth, in.w[3]);
    for (uint32_t b = L::bits(msg_tail); b != 0; b &= b - 1) {
      const int l = lowest_bit(b);
      s.st_msg_hist[at(hist_slot(N, e, latency_bin(msg_lat[l])), t0 + l, T)] += 1;
      endpoint_count_victim(v, ei + l, src_size[l] & 0xFFFFFu, t0 + l, msg_lat[l]);
      endpoint_count_size_class(v, e, t0 + l, src_size[l] & 0xFFFFFu, birth[l], msg_lat[l]);
    }
  }
  if (v.model.flows_per_source > 0)
    for (uint32_t b = L::bits(untraced); b != 0; b &= b - 1) {
      const int l = lowest_bit(b);
      endpoint_attribute_flow(v, e, t0 + l, L::get(in.w[1], l) & 0xFFFFFu, L::get(size, l), L::get(tail, l),
                              L::get(in.w[2], l));
    }
}

// Message generation and admission in the lanes of `work`; `born`: the lanes where a message is born
// now. A pack draws the born lanes' Philox words and gaps at once (rng_lanes.hpp), the same values
// endpoint_generate draws one lane at a time.
template <class L, bool kCc>
SATURN_INLINE void endpoint_lanes_generate(const EngineView& v, int e, int t0, uint32_t c, typename L::M born,
                                           typename L::M work) {
#if !defined(__CUDACC__)
  if constexpr (L::kWidth == PackLanes16::kWidth) {
    const uint32_t born_bits = L::bits(born);
    if (born_bits != 0) {
      const int64_t ei = at(e, t0, v.model.trials);
      const Draw4Lanes d = philox_lanes(L::load64(v.trial.seed + t0), 0u, static_cast<uint32_t>(e), c, Stream::kGenerate);
      alignas(128) double log1m_p[L::kWidth];
      for (int l = 0; l < L::kWidth; ++l)
        log1m_p[l] = v.trial.role[ei + l] == kRoleMain ? v.trial.log1m_p_msg[t0 + l] : v.trial.log1m_p_background[t0 + l];
      alignas(64) uint32_t words[4][L::kWidth], gaps[L::kWidth];
      for (int w = 0; w < 4; ++w) L::store(words[w], d.v[w]);
      geometric_gap_lanes(words[0], log1m_p, gaps);
      for (uint32_t b = L::bits(work); b != 0; b &= b - 1) {
        const int l = lowest_bit(b);
        const Draw4 lane_draw{{words[0][l], words[1][l], words[2][l], words[3][l]}};
        const bool lane_born = (born_bits >> l) & 1u;
        endpoint_generate<kCc>(v, e, t0 + l, c, lane_born ? &lane_draw : nullptr, gaps[l]);
      }
      return;
    }
  }
#endif
  for (uint32_t b = L::bits(work); b != 0; b &= b - 1) endpoint_generate<kCc>(v, e, t0 + lowest_bit(b), c);
}

// Flow activation, message generation and admission: per lane, only in lanes where one may happen
// (the masks may be wider than needed: the helpers do nothing in a lane without an event). Returns
// the lanes it visited (their send queues may have changed).
template <class L, bool kCc>
SATURN_INLINE typename L::M endpoint_lanes_sources(const EngineView& v, int e, int t0, uint32_t c) {
  using U32 = typename L::U32;
  using M = typename L::M;
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials;
  const int64_t ei = at(e, t0, T);
  M visited = L::mask(false);
  if (m.flows_per_source > 0) {
    const M pending = L::load(s.ep_flow_next + ei) < static_cast<uint32_t>(m.flows_per_source);
    for (uint32_t b = L::bits(pending); b != 0; b &= b - 1) endpoint_start_flows<kCc>(v, e, t0 + lowest_bit(b), c);
    visited = pending;
  }
  if (m.open_loop) {
    M any_free = L::mask(false);  // (with ACKs a slot also waits for them: a wider mask is fine)
    for (int a = 0; a < m.active_queues; ++a)
      any_free = L::mor(any_free, L::load(s.act_left + at(static_cast<int64_t>(e) * m.active_queues + a, t0, T)) == 0u);
    const U32 queued = L::load(s.q_count + ei);
    const M born = L::load(s.ep_next_message + ei) == c;
    const M work = L::mor(born, L::mand(queued != 0u, any_free));
    endpoint_lanes_generate<L, kCc>(v, e, t0, c, born, work);
    visited = L::mor(visited, work);
  }
  if (m.trace) {  // trace replay: lanes whose node has work this cycle
    const M due = L::load(s.tr_wake + ei) <= c;
    for (uint32_t b = L::bits(due); b != 0; b &= b - 1) trace_step<kCc>(v, e, t0 + lowest_bit(b), c);
    visited = L::mor(visited, due);
  }
  return visited;
}

// Send queues with congestion-control state (window, response-function rate, CCA, ON / OFF flows:
// the Santos and CCA studies) spend most cycles waiting, for an ACK or for their rate, and the walk
// of endpoint_lanes_inject finds nothing to do. cc.ep_wake keeps, per lane, the first cycle at
// which the walk could act without anything arriving: a queue's stop time, the cycle its rate
// allows its next packet, the end of its ON or OFF period, its CCA timer. What arrives (a packet,
// a control packet's tail, credits) and what the sources start resets it to 0 (endpoint_lanes).
// A lane before its wake cycle and not busy is one whose walk would find no packet and change no
// state, so skipping it gives the same bits (tests/integration/test_step_identity.cpp compares
// with the fused step, which walks every cycle). The protocols with more events at the source
// (speculative, 001's ECN, route setup, SAA probes, the schedulers, trace replay) walk every cycle.
SATURN_INLINE bool endpoint_wake_on(const ModelParams& m) {
  return m.cc.endpoint_state && !m.cc.speculative && !m.cc.srp_on() && !m.cc.ecn && !m.cc.route_setup &&
         !m.cc.saa_probes && !m.trace && !injection_scheduled(m);
}

// The wake cycle of the lanes the walk has just visited (`visited`): 0 where it sent or answered
// (`acted`), else the earliest of the cycles above over the queues with flits and the ready cycle
// of a queued answer.
template <class L>
SATURN_INLINE void endpoint_lanes_set_wake(const EngineView& v, int e, int t0, uint32_t c, typename L::M visited,
                                           typename L::M acted) {
  using U32 = typename L::U32;
  using U64 = typename L::U64;
  using M = typename L::M;
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials;
  const int A = m.active_queues;
  const int64_t ei = at(e, t0, T);
  const U32 never = L::u32(kUnlimited);
  const U64 now_q16 = L::u64(static_cast<uint64_t>(c) << 16);
  U32 wake = never;
  for (int a = 0; a < A; ++a) {
    const int64_t ai = at(static_cast<int64_t>(e) * A + a, t0, T);
    const M live = L::load(s.act_left + ai) != 0u;
    if (L::none(L::mand(visited, live))) continue;
    U32 when = L::load(s.act_stop + ai);  // (a visited queue with flits has not reached it)
    const U64 next = L::load64(s.act_next_q16 + ai);
    const U64 first = (next + L::u64(0xFFFFu)) >> 16;  // the first cycle c' with c' << 16 >= next
    const M rate_later = L::mand(L::m64(next > now_q16), L::m64(first < L::u64(kUnlimited)));
    when = L::sel(L::mand(rate_later, L::narrow(first) < when), L::narrow(first), when);
    if (m.cc.dynamic_flows) {  // (kUnlimited for a static flow)
      const U32 end = L::load(s.cc.act_phase_end + ai);
      when = L::sel(end < when, end, when);
    }
    if (m.cc.cca) {
      const U32 timer = L::load(s.cc.act_timer + ai);
      when = L::sel(L::mand(L::load(s.cc.act_index + ai) != 0u, timer < when), timer, when);
    }
    wake = L::sel(L::mand(live, when < wake), when, wake);
  }
  // A queued answer leaves when it is ready and its class has credits (a credit resets the wake).
  if (m.cc.answers())
    for (uint32_t b = L::bits(L::mand(visited, L::load(s.cc.ackq_count + ei) != 0u)); b != 0; b &= b - 1) {
      const int l = lowest_bit(b);
      const uint32_t head = s.cc.ackq_head[ei + l];
      const uint32_t ready = s.cc.ackq_ready[at(static_cast<int64_t>(e) * m.cc.ack_queue + head, t0 + l, T)];
      const uint32_t when = ready <= c ? 0u : ready;
      if (when < L::get(wake, l)) L::set(wake, l, when);
    }
  L::store_if(visited, s.cc.ep_wake + ei, L::sel(acted, L::u32(0), wake));
}

// endpoint_inject<false> in every lane: the first send queue, in round-robin order from ep_rr,
// that has flits, has not reached its stop time, is within its rate and whose packet fits in the
// credits of its VC. Queues visited before it (all of them if none qualifies) that reached their
// stop time end, as in the scalar walk; an endpoint still busy sending visits none.
// kCc, before the walk: in lanes that are not busy, a ready control packet leaves first
// (cc_take_answer), and lanes where the walk would change some send queue's state run the fused
// walk (endpoint_inject<true>). Both become `handled` (their packets in `pk`) and leave `idle`.
// LHRP (lhrp_engine.hpp) runs the fused walk in every lane that is not busy.
template <class L>
SATURN_INLINE void endpoint_lanes_cc_first(const EngineView& v, int e, int t0, uint32_t c, typename L::M& idle,
                                           typename L::M& handled, PacketLanes<L>& pk) {
  using M = typename L::M;
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials;
  const int64_t ei = at(e, t0, T);
  M walk = L::mask(false);
  if (m.cc.speculative || m.cc.ecn) walk = idle;  // every lane takes the scalar walk (retransmissions, the
                                                  // limit; ECN's per-pair gaps)
  if (m.cc.route_setup)  // route setup and teardown packets join the control FIFO (route_setup.hpp)
    for (uint32_t b = L::bits(idle); b != 0; b &= b - 1) route_source_step(v, e, t0 + lowest_bit(b), c);
  if ((m.cc.answers() || m.cc.route_setup) && !m.cc.speculative) {
    const M waiting = L::mand(idle, L::load(s.cc.ackq_count + ei) != 0u);
    for (uint32_t b = L::bits(waiting); b != 0; b &= b - 1) {
      const int l = lowest_bit(b);
      const Packet answer = cc_take_answer(v, e, t0 + l, c);
      if (!answer.valid()) continue;
      s.ep_busy_until[ei + l] = c + static_cast<uint32_t>(m.cc.ack_flits);
      pk.set_lane(l, answer);
      L::set_mask(handled, l, true);
      L::set_mask(idle, l, false);
    }
  }
  if (m.cc.endpoint_state && (m.cc.dynamic_flows || m.cc.cca) && !m.cc.speculative) {
    for (int a = 0; a < m.active_queues; ++a) {
      const int64_t ai = at(static_cast<int64_t>(e) * m.active_queues + a, t0, T);
      const M live = L::mand(L::load(s.act_left + ai) != 0u, L::load(s.act_stop + ai) > c);
      M due = L::mask(false);
      if (m.cc.dynamic_flows) due = L::load(s.cc.act_phase_end + ai) <= c;  // (kUnlimited never is)
      if (m.cc.cca)
        due = L::mor(due, L::mand(L::load(s.cc.act_index + ai) != 0u, L::load(s.cc.act_timer + ai) <= c));
      walk = L::mor(walk, L::mand(live, due));
    }
  }
  walk = L::mand(walk, idle);
  for (uint32_t b = L::bits(walk); b != 0; b &= b - 1) {
    const int l = lowest_bit(b);
    const Packet sent = endpoint_inject<true>(v, e, t0 + l, c);
    pk.set_lane(l, sent);
    L::set_mask(handled, l, true);
    L::set_mask(idle, l, false);
  }
}

// injection.rates = "saa_probes" (kernels/cc/saa_probes.hpp) or routing.route_setup = "packets"
// (kernels/routing/route_setup.hpp), per idle lane: the flows' due SAA or route packets join the
// control FIFO, a ready control packet leaves first, else the scheduler picks.
template <class L>
SATURN_INLINE void endpoint_lanes_control_inject(const EngineView& v, int e, int t0, uint32_t c, typename L::M idle,
                                                 Packet* out) {
  const int64_t ei = at(e, t0, v.model.trials);
  for (int l = 0; l < L::kWidth; ++l) {
    out[l] = Packet::empty();
    if (!L::get_mask(idle, l)) continue;
    if (v.model.cc.route_setup) route_source_step(v, e, t0 + l, c);
    if (v.model.cc.saa_probes) saa_source_step(v, e, t0 + l, c);
    const Packet answer = cc_take_answer(v, e, t0 + l, c);
    if (answer.valid()) {
      v.state.ep_busy_until[ei + l] = c + static_cast<uint32_t>(v.model.cc.ack_flits);
      out[l] = answer;
      continue;
    }
    out[l] = endpoint_scheduled_inject(v, e, t0 + l, c);
  }
}

// Returns the lanes (as bits) whose slot in `out` now holds a packet, the injection ring's marks.
// A cycle in which no lane sends writes nothing: an unmarked slot is never read (ring_marks.hpp),
// and an endpoint busy with a 517-flit packet (Santos) sends in one cycle of 517.
template <class L, int kVcs, bool kCc = false>
SATURN_INLINE uint32_t endpoint_lanes_inject(const EngineView& v, int e, int t0, uint32_t c, Packet* out) {
  using U32 = typename L::U32;
  using I32 = typename L::I32;
  using U64 = typename L::U64;
  using M = typename L::M;
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials;
  const int V = kVcs > 0 ? kVcs : m.vcs;
  const int A = m.active_queues;
  const int64_t ei = at(e, t0, T);
  const U32 zero = L::u32(0);
  M idle = L::load(s.ep_busy_until + ei) <= c;
  if (L::none(idle)) return 0;
  if (injection_scheduled(m)) {  // ipd, svc, ps: endpoint_injection.hpp (they write the whole row)
    if (kCc && (m.cc.saa_probes || m.cc.route_setup)) endpoint_lanes_control_inject<L>(v, e, t0, c, idle, out);
    else endpoint_lanes_scheduled_inject<L>(v, e, t0, c, idle, out);
    return packet_valid_bits<L>(out);  // from each packet's first word: a load each store forwards
  }
  const bool wake = kCc && endpoint_wake_on(m);
  if (wake) {  // lanes before their wake cycle walk as if busy (endpoint_wake_on)
    idle = L::mand(idle, L::load(s.cc.ep_wake + ei) <= c);
    if (L::none(idle)) return 0;
  }
  const M visited = idle;
  M handled = L::mask(false);  // kCc: lanes whose packet (or none) is already in `early`
  PacketLanes<L> early{};
  if (kCc) endpoint_lanes_cc_first<L>(v, e, t0, c, idle, handled, early);
  const bool window = kCc && m.cc.endpoint_state && m.cc.window > 0;
  const bool on_off = kCc && m.cc.endpoint_state && m.cc.dynamic_flows;
  I32 credits[kVcs > 0 ? kVcs : kMaxVcs];
  for (int vc = 0; vc < V; ++vc) credits[vc] = L::load_i32(s.ep_credits + at(static_cast<int64_t>(e) * V + vc, t0, T));
  // switch.vc_allocation = per_hop: a packet may take any free VC of the link (vc_allocation.hpp).
  const I32 per_hop = m.vc_per_hop ? per_hop_credits<L>(m, credits, V) : L::i32(0);
  const uint64_t now_q16 = static_cast<uint64_t>(c) << 16;
  const U32 mtu = L::u32(static_cast<uint32_t>(m.mtu_flits));
  const U32 rr = L::load(s.ep_rr + ei);
  const U32 none_pos = L::u32(static_cast<uint32_t>(A));
  // Pass 1: each queue's eligibility and its place in this cycle's round-robin order. Queues
  // without flits in any lane that is not busy are skipped in both passes (`queues`: the others).
  U32 best_pos = none_pos, best = zero;
  uint32_t queues = 0;
  for (int a = 0; a < A; ++a) {
    const int64_t ai = at(static_cast<int64_t>(e) * A + a, t0, T);
    const U32 left = L::load(s.act_left + ai);
    if (L::none(L::mand(idle, left != 0u))) continue;
    queues |= 1u << a;
    const M live = L::mand(left != 0u, L::load(s.act_stop + ai) > c);
    const U32 size = L::sel(left < mtu, left, mtu);
    const U32 vc = L::load(s.act_vc + ai);
    I32 cred = credits[0];
    for (int k = 1; k < V; ++k) cred = L::sel(vc == static_cast<uint32_t>(k), credits[k], cred);
    if (m.vc_per_hop) cred = per_hop;
    M ok = L::mand(L::mand(live, L::m64(L::load64(s.act_next_q16 + ai) <= now_q16)), cred >= L::as_i32(size));
    if (on_off)  // an OFF period (its end is not due: endpoint_lanes_cc_first)
      ok = L::mand(ok, L::mor(L::load(s.cc.act_phase_end + ai) == kUnlimited, L::load(s.cc.act_off + ai) == 0u));
    if (window) ok = L::mand(ok, L::load(s.cc.act_inflight + ai) < static_cast<uint32_t>(m.cc.window));
    if (kCc && m.cc.route_setup)  // its route is set up (route_setup.hpp)
      ok = L::mand(ok, (L::load(s.cc.act_route + ai) & static_cast<uint32_t>(kRtReady)) != 0u);
    const U32 pos = endpoint_lanes_rr_pos<L>(a, A, rr);
    const M better = L::mand(ok, pos < best_pos);
    best_pos = L::sel(better, pos, best_pos);
    best = L::sel(better, L::u32(static_cast<uint32_t>(a)), best);
  }
  // Pass 2: end the visited queues that reached their stop time; take the packet of the chosen one.
  const M sent = L::mand(idle, best_pos < none_pos);
  U32 size = zero, vc = zero, dst = zero, birth = zero, flags = zero;
  for (uint32_t r = queues; r != 0; r &= r - 1) {
    const int a = lowest_bit(r);
    const int64_t ai = at(static_cast<int64_t>(e) * A + a, t0, T);
    const U32 left = L::load(s.act_left + ai);
    const U32 pos = endpoint_lanes_rr_pos<L>(a, A, rr);
    const M stopped = L::mand(L::mand(idle, left != 0u), L::mand(L::load(s.act_stop + ai) <= c, pos < best_pos));
    const M take = L::mand(sent, best == static_cast<uint32_t>(a));
    if (L::any(stopped)) L::store_if(stopped, s.act_left + ai, zero);
    if (L::none(take)) continue;
    const U32 sz = L::sel(left < mtu, left, mtu);
    const M finite = left != kUnlimited;
    size = L::sel(take, sz, size);
    vc = L::sel(take, L::load(s.act_vc + ai), vc);
    dst = L::sel(take, L::load(s.act_dst + ai), dst);
    birth = L::sel(take, L::load(s.act_birth + ai), birth);
    flags = L::sel(L::mand(take, L::mand(finite, left == sz)), L::u32(kFlagMessageTail | kFlagValid),
                   L::sel(take, L::u32(kFlagValid), flags));
    L::store_if(L::mand(take, finite), s.act_left + ai, left - sz);
    if (kCc && m.cc.endpoint_state) {  // the rate, window and CCA state set the next start
      L::store_if(take, s.cc.act_last_start + ai, L::u32(c));
      L::store_if(take, s.cc.act_last_size + ai, sz);
      if (m.cc.acks) L::store_if(take, s.cc.act_inflight + ai, L::load(s.cc.act_inflight + ai) + 1u);
      for (uint32_t b = L::bits(take); b != 0; b &= b - 1) cc_refresh_next(v, ai + lowest_bit(b));
    } else {
      const U64 next = L::u64(now_q16) + L::widen(sz) * L::widen(L::load(s.act_gap_q16 + ai));
      L::store64_if(take, s.act_next_q16 + ai, next);
    }
  }
  if (wake) endpoint_lanes_set_wake<L>(v, e, t0, c, visited, L::mor(sent, handled));
  if (L::none(sent)) {
    if (!kCc || L::none(handled)) return 0;
    store_packets<L>(out, early);
    return L::bits(early.valid());
  }
  if (m.vc_per_hop) {  // per lane, the free VC it takes (vc_allocation.hpp); its credits are taken below
    alignas(64) uint32_t vcs[L::kWidth], sizes[L::kWidth];
    L::store(vcs, vc);
    L::store(sizes, size);
    for (uint32_t b = L::bits(sent); b != 0; b &= b - 1) {
      const int l = lowest_bit(b);
      const int w = per_hop_take(m, s.ep_credits, e, t0 + l, V, &s.ep_vc_next[ei + l], static_cast<int32_t>(sizes[l]));
      if (w >= 0) vcs[l] = static_cast<uint32_t>(w);
    }
    vc = L::load(vcs);
  }
  if (pool_on(m)) {  // a shared VC buffer: per lane (kernels/state/credit_pool.hpp)
    alignas(64) uint32_t vcs[L::kWidth], sizes[L::kWidth];
    L::store(vcs, vc);
    L::store(sizes, size);
    for (uint32_t b = L::bits(sent); b != 0; b &= b - 1) {
      const int l = lowest_bit(b);
      credits_take(m, ep_books(s), e, static_cast<int>(vcs[l]), t0 + l, static_cast<int32_t>(sizes[l]));
    }
  } else {
    for (int k = 0; k < V; ++k) {
      const M here = L::mand(sent, vc == static_cast<uint32_t>(k));
      if (L::any(here))
        L::store_i32(s.ep_credits + at(static_cast<int64_t>(e) * V + k, t0, T),
                     credits[k] - L::as_i32(L::sel(here, size, zero)));
    }
  }
  L::store_if(sent, s.ep_busy_until + ei, size + c);
  L::store_if(sent, s.ep_rr + ei, L::sel(best + 1u == static_cast<uint32_t>(A), zero, best + 1u));
  endpoint_lanes_add64<L>(s.st_inj_packets + ei, L::sel(sent, L::u32(1), zero));
  endpoint_lanes_add64<L>(s.st_inj_flits + ei, size);
  PacketLanes<L> pk;
  pk.w[0] = (dst & 0xFFFFFu) | ((vc & 0xFu) << 20) | (flags << 24);
  pk.w[1] = L::sel(sent, L::u32(static_cast<uint32_t>(e) & 0xFFFFFu) | ((size & 0xFFFu) << 20), zero);
  pk.w[2] = L::sel(sent, L::u32(c), zero);
  pk.w[3] = birth;
  if (kCc)
    for (int w = 0; w < 4; ++w) pk.w[w] = L::sel(handled, early.w[w], pk.w[w]);
  store_packets<L>(out, pk);
  return L::bits(pk.valid());
}

// kCc: a control packet's tail completing now (those lanes in `tail_now`), and the arrivals that
// are control packets (both act on the send queues, endpoint_cc.hpp) or data packets to answer.
// Returns the data arrivals. `row`: the link row `in` was loaded from (lane_packet, packet_lanes.hpp).
template <class L>
SATURN_INLINE typename L::M endpoint_lanes_cc_arrivals(const EngineView& v, int e, int t0, uint32_t c,
                                                       const Packet* row, const PacketLanes<L>& in,
                                                       typename L::M valid, typename L::M& tail_now) {
  using M = typename L::M;
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  if (!m.cc.control_packets()) return valid;  // no control packets in this model
  const int64_t ei = at(e, t0, m.trials);
  tail_now = L::mand(L::load(s.cc.ctrl_word + ei) != 0u, L::load(s.cc.ctrl_at + ei) == c);
  for (uint32_t b = L::bits(tail_now); b != 0; b &= b - 1) cc_control_tail(v, e, t0 + lowest_bit(b), c);
  if (L::none(valid)) return valid;
  const M control = L::mand(valid, ((in.w[0] >> 24) & static_cast<uint32_t>(kFlagControl)) != 0u);
  const M data = L::mand(valid, L::mnot(control));
  const uint32_t control_bits = L::bits(control);
  for (uint32_t b = L::bits(valid); b != 0; b &= b - 1) {
    const int l = lowest_bit(b);
    const Packet pk = lane_packet<L>(row, in, l);
    if ((control_bits >> l) & 1u) {
      cc_control_arrived(v, e, t0 + l, c, pk);
      continue;
    }
    if (pk.flags() & kFlagEcn) s.cc.st_marked[ei + l] += 1;
    cc_answer(v, e, t0 + l, c + pk.size_flits() - 1, pk);
  }
  return data;
}

// One endpoint for one cycle and the lanes of trials from t0: endpoint_step<kVcs, kCc>.
template <class L, int kVcs, bool kCc = false>
SATURN_INLINE void endpoint_lanes(const EngineView& v, int e, int t0, uint32_t c) {
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials;
  const int V = kVcs > 0 ? kVcs : m.vcs;
  const int gp = v.net.ep_port[e];
  const int64_t rslot = ring_read(v, gp, c);  // the switch port's link to e and its input's credits
  const int64_t ei = at(e, t0, T);

  // The link and credit slots are read only in the lanes whose marks say they hold something.
  const Packet* row = s.link + at(rslot, t0, T);
  const uint32_t arrived = load_mark_bits<L>(s.link_mark + at(rslot, t0, T));
  const PacketLanes<L> in = arrived != 0 ? load_packets<L>(row) : PacketLanes<L>{};
  typename L::M valid = L::from_bits(arrived);
  const bool wake = kCc && endpoint_wake_on(m);
  typename L::M touched = valid;  // wake: lanes whose send queues something may change this cycle
  if (kCc) {
    typename L::M tail_now = L::mask(false);
    valid = endpoint_lanes_cc_arrivals<L>(v, e, t0, c, row, in, valid, tail_now);
    touched = L::mor(touched, tail_now);
  }
  if (L::any(valid)) endpoint_lanes_deliver<L>(v, e, t0, c, in, valid);
  const typename L::M credited = add_marked_credits<L>(s, m, rslot, ep_books(s), e, V, t0);
  if (wake) touched = L::mor(touched, credited);
  touched = L::mor(touched, endpoint_lanes_sources<L, kCc>(v, e, t0, c));
  if (wake && L::any(touched)) L::store_if(touched, s.cc.ep_wake + ei, L::u32(0));
  // The injection writes its row only in a cycle in which some lane sends; the marks say which.
  const int64_t inj = at(inj_ring_write(v, e, c), t0, T);
  store_mark_bits<L>(s.inj_mark + inj, endpoint_lanes_inject<L, kVcs, kCc>(v, e, t0, c, s.inj_link + inj));
}

}  // namespace saturn
