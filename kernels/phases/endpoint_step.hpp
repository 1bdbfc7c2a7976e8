// One endpoint (NIC) of one trial for one cycle: eject what arrives (infinite sink, statistics),
// take returned credits, start flows and generate messages, and inject at most one packet.
// Sources (PAPERS-SPEC M13, M21 NC baseline): messages wait in a FIFO; up to A of them are in
// service at once and share the injection link round-robin per packet; a packet leaves only when
// the leaf input has credits for all of it. Explicit/phase flows enter service at their start
// (plus a per-trial offset below traffic.start_jitter_ns).
// Congestion control and dynamic flows: endpoint_cc.hpp.
#pragma once
#include <cstdint>

#include "kernels/common/fastmath.hpp"
#include "kernels/common/index.hpp"
#include "kernels/common/rng.hpp"
#include "kernels/phases/endpoint_cc.hpp"
#include "kernels/state/credit_pool.hpp"
#include "kernels/state/engine_view.hpp"
#include "kernels/state/ring_marks.hpp"
#include "kernels/stats/latency_histogram.hpp"
#include "kernels/traffic/destination.hpp"
#include "kernels/traffic/start_jitter.hpp"

namespace saturn {

// A delivered data packet of `size` flits from `src` counts toward the first unfinished flow of
// this (source, destination) pair; `tail` is the cycle its last flit arrives. (Shared by the lane
// phase, endpoint_lanes.hpp, which calls it per lane.) A packet injected before one of its flow
// delivered earlier arrived out of order: a source injects one packet at a time, so the inject
// cycles of one flow (and of one source-destination pair) increase.
SATURN_INLINE void endpoint_attribute_flow(const EngineView& v, int e, int t, uint32_t src, uint32_t size,
                                           uint32_t tail, uint32_t inject) {
  const StateView& s = v.state;
  const int T = v.model.trials;
  const int fps = v.model.flows_per_source;
  for (int j = 0; j < fps; ++j) {
    const int f = v.trial.flow_index[static_cast<int64_t>(src) * fps + j];
    if (f < 0) break;
    if (v.trial.flow_dst[at(f, t, T)] != static_cast<uint32_t>(e)) continue;
    const int64_t fi = at(f, t, T);
    const uint32_t want = v.trial.flow_flits[f];
    if (want != kUnlimited && s.st_flow_flits[fi] >= want) continue;
    s.st_flow_flits[fi] += size;
    if (want != kUnlimited && s.st_flow_flits[fi] >= want) s.st_flow_done[fi] = tail;
    if (inject < s.st_flow_last_inject[fi]) s.st_flow_reordered[fi] += 1;
    else s.st_flow_last_inject[fi] = inject;
    break;
  }
}

// hotspot_window (ModelParams::victim_stats): a message from an open-loop source (role not idle:
// the victims; the hot sources send flows) also counts in the victim latency. Shared by the lane
// phase (endpoint_lanes.hpp).
SATURN_INLINE void endpoint_count_victim(const EngineView& v, int64_t ei, uint32_t src, int t, uint32_t msg_latency) {
  if (!v.model.victim_stats || v.trial.role[at(src, t, v.model.trials)] == kRoleIdle) return;
  v.state.st_victim_msg_done[ei] += 1;
  v.state.st_victim_msg_lat_sum[ei] += msg_latency;
}

// stats.size_split_flits (ModelParams::size_split): a message counts in its size class, below the
// split or not. Its size is not in its packets: the destination draws it again from the source's
// generation draw of the message's birth cycle (endpoint_generate's words: open-loop traffic only).
// Shared by the lane phase (endpoint_lanes.hpp).
SATURN_INLINE void endpoint_count_size_class(const EngineView& v, int e, int t, uint32_t src, uint32_t birth,
                                             uint32_t msg_latency) {
  const ModelParams& m = v.model;
  if (m.size_split == 0) return;
  const uint32_t flits = choose_size_flits(m, philox(v.trial.seed[t], 0u, src, birth, Stream::kGenerate).v[2]);
  const int64_t i = at(static_cast<int64_t>(e) * 2 + (flits >= m.size_split ? 1 : 0), t, m.trials);
  v.state.st_split_msg_done[i] += 1;
  v.state.st_split_msg_lat_sum[i] += msg_latency;
  v.state.st_split_msg_flits[i] += flits;
}

template <bool kCc>
SATURN_INLINE void endpoint_deliver(const EngineView& v, int e, int t, uint32_t c, const Packet& in) {
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials;
  if (kCc && in.control()) {
    cc_control_arrived(v, e, t, c, in);
    return;
  }
  const int64_t ei = at(e, t, T);
  const uint32_t size = in.size_flits();
  const uint32_t tail = c + size - 1;  // the header arrived this cycle; one flit per cycle follows
  if (kCc && m.cc.answers()) {
    if (in.flags() & kFlagEcn) s.cc.st_marked[ei] += 1;
    cc_answer(v, e, t, tail, in);
  }
  const uint32_t latency = tail - in.inject_cycle;
  s.st_del_packets[ei] += 1;
  s.st_del_flits[ei] += size;
  s.st_net_lat_sum[ei] += latency;
  s.st_net_hist[at(hist_slot(v.net.num_endpoints, e, latency_bin(latency)), t, T)] += 1;
  if (in.flags() & kFlagMessageTail) {
    const uint32_t msg_latency = tail - in.birth_cycle;
    s.st_msg_done[ei] += 1;
    s.st_msg_lat_sum[ei] += msg_latency;
    s.st_msg_hist[at(hist_slot(v.net.num_endpoints, e, latency_bin(msg_latency)), t, T)] += 1;
    endpoint_count_victim(v, ei, in.src(), t, msg_latency);
    endpoint_count_size_class(v, e, t, in.src(), in.birth_cycle, msg_latency);
  }
  if (m.flows_per_source > 0) endpoint_attribute_flow(v, e, t, in.src(), size, tail, in.inject_cycle);
}

// Whether service slot ai can take a message or flow: under a window or a rate response a queue
// stays taken until its packets are ACKed (ACKs alone, cc.acks, hold nothing); with route setup
// packets, the queue that owns its pair's connection until the teardown is back (route_setup.hpp).
template <bool kCc>
SATURN_INLINE bool endpoint_slot_free(const EngineView& v, int64_t ai) {
  return v.state.act_left[ai] == 0 && !(kCc && v.model.cc.acks_hold_queue() && v.state.cc.act_inflight[ai] != 0) &&
         !(kCc && v.model.cc.route_setup && (v.state.cc.act_route[ai] & kRtOwner) != 0);
}

// (SRP: and the source has room for the new message's record and Res: spec_source.hpp.)
template <bool kCc>
SATURN_INLINE bool endpoint_any_slot_free(const EngineView& v, int e, int t) {
  if (kCc && v.model.cc.srp_on() && !srp_room(v, e, t)) return false;
  for (int a = 0; a < v.model.active_queues; ++a)
    if (endpoint_slot_free<kCc>(v, at(static_cast<int64_t>(e) * v.model.active_queues + a, t, v.model.trials))) return true;
  return false;
}

// Put a message or flow into a free service slot; false if all A are busy.
// `dynamic`: an ON/OFF flow (starts ON).
template <bool kCc>
SATURN_INLINE bool endpoint_activate(const EngineView& v, int e, int t, uint32_t dst, uint32_t flits, uint32_t birth,
                                     uint32_t stop, uint32_t gap_q16, uint32_t vc, bool dynamic, uint32_t c) {
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  for (int a = 0; a < m.active_queues; ++a) {
    const int64_t ai = at(static_cast<int64_t>(e) * m.active_queues + a, t, m.trials);
    if (!endpoint_slot_free<kCc>(v, ai)) continue;
    if (kCc && m.cc.endpoint_state) {
      if (!(m.cc.persistent && s.act_dst[ai] == dst)) cc_reset_queue(v, ai);  // M28
      s.cc.act_last_start[ai] = c;
      s.cc.act_last_size[ai] = 0;
      s.cc.act_timer[ai] = c + static_cast<uint32_t>(m.cc.cca_timer);
      s.cc.act_off[ai] = 0;
      s.cc.act_phase_end[ai] = dynamic ? c + on_off_period(v, ai, t, c) : kUnlimited;
    }
    if (kCc && m.cc.srp_on()) srp_message_begins(v, e, t, ai, dst, flits, birth, c);
    if (kCc && m.cc.route_setup) s.cc.act_route[ai] = 0;  // no connection yet (route_source_step finds or sets one up)
    s.act_dst[ai] = dst;
    s.act_left[ai] = flits;
    s.act_birth[ai] = birth;
    s.act_stop[ai] = stop;
    s.act_next_q16[ai] = static_cast<uint64_t>(c) << 16;
    s.act_gap_q16[ai] = gap_q16;
    s.act_vc[ai] = static_cast<uint8_t>(iso_message_vc(m.iso, static_cast<uint32_t>(e), dst, vc));  // isolation: the scheme's VC
    return true;
  }
  return false;
}

// Flows (explicit or phase) enter service in start order. Only for m.flows_per_source > 0.
template <bool kCc>
SATURN_INLINE void endpoint_start_flows(const EngineView& v, int e, int t, uint32_t c) {
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials;
  const int64_t ei = at(e, t, T);
  int j = s.ep_flow_next[ei];
  while (j < m.flows_per_source) {
    const int f = v.trial.flow_index[static_cast<int64_t>(e) * m.flows_per_source + j];
    if (f < 0) {
      j = m.flows_per_source;
      break;
    }
    if (v.trial.flow_start[f] > c) break;
    // Drawn only from the shared start on: at most `start_jitter` draws per flow and trial.
    if (m.start_jitter > 0 &&
        static_cast<uint64_t>(v.trial.flow_start[f]) + flow_start_offset(v.trial.seed[t], f, m.start_jitter) > c)
      break;
    const uint32_t dst = v.trial.flow_dst[at(f, t, T)];
    if (dst != kUnlimited &&  // kUnlimited: this source sends no such flow in this trial
        !endpoint_activate<kCc>(v, e, t, dst, v.trial.flow_flits[f], c, v.trial.flow_stop[f], v.trial.flow_gap_q16[f],
                           v.trial.flow_vc[f], v.trial.flow_dynamic[f] != 0, c))
      break;
    ++j;
  }
  s.ep_flow_next[ei] = static_cast<uint8_t>(j);
}

// Open-loop Bernoulli message generation: the process is drawn as geometric gaps between
// messages (fastmath.hpp), one Philox draw per message rather than one per cycle. The source
// queue keeps only each message's birth cycle: its destination and size are words 1 and 2 of
// that cycle's draw, drawn again at admission (4 bytes a queued message instead of 12).
// Only for m.open_loop. Does nothing in a cycle without a new message or an admissible one.
// `pre`, where not null: this cycle's draw and its gap, already computed (a pack draws for all its
// lanes at once: kernels/common/rng_lanes.hpp), the same values this function would compute.
template <bool kCc>
SATURN_INLINE void endpoint_generate(const EngineView& v, int e, int t, uint32_t c, const Draw4* pre = nullptr,
                                     uint32_t pre_gap = 0) {
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials;
  const int64_t ei = at(e, t, T);
  const uint8_t role = v.trial.role[ei];
  Draw4 d{};
  bool drawn_now = false;
  if (s.ep_next_message[ei] == c) {
    d = pre ? *pre : philox(v.trial.seed[t], 0u, static_cast<uint32_t>(e), c, Stream::kGenerate);
    drawn_now = true;
    const uint32_t gap = pre ? pre_gap
                             : geometric_gap(d.v[0], role == kRoleMain ? v.trial.log1m_p_msg[t]
                                                                       : v.trial.log1m_p_background[t]);
    s.ep_next_message[ei] = gap >= kUnlimited - c ? kUnlimited : c + gap;
    s.st_generated[ei] += 1;
    const uint32_t count = s.q_count[ei];
    if (count == 0 && endpoint_any_slot_free<kCc>(v, e, t)) {
      // Into service at once, as the FIFO below would do, without a round trip through q_birth
      // (a cache miss per message: the queue's slots of a block of trials do not stay in cache).
      endpoint_activate<kCc>(v, e, t, choose_destination(v, role, d.v[1], e, t), choose_size_flits(m, d.v[2]), c,
                             kUnlimited, 1u << 16, static_cast<uint32_t>(m.data_vc), false, c);
      s.q_head[ei] = (s.q_head[ei] + 1) % static_cast<uint32_t>(m.queue_capacity);
      return;
    }
    if (count < static_cast<uint32_t>(m.queue_capacity)) {
      const uint32_t slot = (s.q_head[ei] + count) % static_cast<uint32_t>(m.queue_capacity);
      const int64_t qi = at(static_cast<int64_t>(e) * m.queue_capacity + slot, t, T);
      s.q_birth[qi] = c;
      s.q_count[ei] = count + 1;
    } else {
      s.st_refused[ei] += 1;
    }
  }
  // Admission in FIFO order into free service slots.
  while (s.q_count[ei] > 0 && endpoint_any_slot_free<kCc>(v, e, t)) {
    const int64_t qi = at(static_cast<int64_t>(e) * m.queue_capacity + s.q_head[ei], t, T);
    const uint32_t birth = s.q_birth[qi];
    const Draw4 born =
        drawn_now && birth == c ? d : philox(v.trial.seed[t], 0u, static_cast<uint32_t>(e), birth, Stream::kGenerate);
    endpoint_activate<kCc>(v, e, t, choose_destination(v, role, born.v[1], e, t), choose_size_flits(m, born.v[2]),
                           birth, kUnlimited, 1u << 16, static_cast<uint32_t>(m.data_vc), false, c);
    s.q_head[ei] = (s.q_head[ei] + 1) % static_cast<uint32_t>(m.queue_capacity);
    s.q_count[ei] -= 1;
  }
}

template <bool kCc>
SATURN_INLINE void endpoint_sources(const EngineView& v, int e, int t, uint32_t c) {
  if (v.model.flows_per_source > 0) endpoint_start_flows<kCc>(v, e, t, c);
  if (v.model.open_loop) endpoint_generate<kCc>(v, e, t, c);
}

// Inject at most one packet: round-robin over service slots that are within their rate limit
// and whose packet fits in the leaf input's credits.
template <bool kCc>
SATURN_INLINE Packet endpoint_inject(const EngineView& v, int e, int t, uint32_t c) {
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials;
  const int64_t ei = at(e, t, T);
  if (s.ep_busy_until[ei] > c) return Packet::empty();
  if (kCc && m.cc.answers()) {  // control packets go first
    const Packet answer = cc_take_answer(v, e, t, c);
    if (answer.valid()) {
      s.ep_busy_until[ei] = c + static_cast<uint32_t>(m.cc.ack_flits);
      return answer;
    }
  }
  if (kCc && m.cc.speculative) {  // a NACKed packet whose time has come goes next; new data only below the limit
    const Packet resent = lhrp_take_retransmission(v, e, t, c);
    if (resent.valid()) {
      s.ep_busy_until[ei] = c + resent.size_flits();
      return resent;
    }
    if (!lhrp_may_send_new(v, ei)) return Packet::empty();
  }
  const int A = m.active_queues;
  const uint64_t now_q16 = static_cast<uint64_t>(c) << 16;
  int a = s.ep_rr[ei];
  for (int n = 0; n < A; ++n, a = a + 1 == A ? 0 : a + 1) {
    const int64_t ai = at(static_cast<int64_t>(e) * A + a, t, T);
    const uint32_t left = s.act_left[ai];
    if (left == 0) continue;
    if (s.act_stop[ai] <= c) {  // a flow that has reached its stop time ends here
      s.act_left[ai] = 0;
      continue;
    }
    if (kCc && m.cc.endpoint_state) {
      if (m.cc.dynamic_flows && s.cc.act_phase_end[ai] != kUnlimited && !dynamic_flow_on(v, ai, t, c)) continue;
      if (m.cc.cca) cca_timer_tick(v, ai, c);
      if (m.cc.window > 0 && s.cc.act_inflight[ai] >= m.cc.window) continue;
    }
    if (s.act_next_q16[ai] > now_q16) continue;
    const uint32_t size = left < static_cast<uint32_t>(m.mtu_flits) ? left : static_cast<uint32_t>(m.mtu_flits);
    uint32_t vc = s.act_vc[ai];
    bool speculative = kCc && m.cc.speculative;
    if (kCc && m.cc.srp_on() && !srp_may_send(v, e, t, ai, c, &speculative, &vc)) continue;  // SRP: spec_source.hpp
    if (kCc && m.cc.ecn && !ecn_may_send(v, e, t, s.act_dst[ai], c)) continue;  // 001's ECN: kernels/cc/ib_ecn.hpp
    const int64_t ci = at(static_cast<int64_t>(e) * m.vcs + vc, t, T);
    if (s.ep_credits[ci] < static_cast<int32_t>(size)) continue;
    const bool tail = left != kUnlimited && left == size;
    const Packet pk = Packet::make(static_cast<uint32_t>(e), s.act_dst[ai], size, vc,
                                   (tail ? kFlagMessageTail : 0u) | (speculative ? kFlagSpeculative : 0u), c,
                                   s.act_birth[ai]);
    if (speculative) s.cc.spec_out[ei] += 1;
    if (kCc && m.cc.srp_on()) srp_sent(v, e, t, ai, speculative, tail);
    if (kCc && m.cc.ecn) ecn_sent(v, e, t, s.act_dst[ai], c, size);
    credits_take(m, ep_books(s), e, static_cast<int>(vc), t, static_cast<int32_t>(size));
    s.ep_busy_until[ei] = c + size;
    if (left != kUnlimited) s.act_left[ai] = left - size;
    if (kCc && m.cc.endpoint_state) {
      s.cc.act_last_start[ai] = c;
      s.cc.act_last_size[ai] = static_cast<uint16_t>(size);
      if (m.cc.acks && speculative == m.cc.speculative) s.cc.act_inflight[ai] += 1;  // (SRP's granted packets: no)
      cc_refresh_next(v, ai);
    } else {
      s.act_next_q16[ai] = now_q16 + static_cast<uint64_t>(size) * s.act_gap_q16[ai];  // act_next <= now here
    }
    s.ep_rr[ei] = static_cast<uint8_t>(a + 1 == A ? 0 : a + 1);
    s.st_inj_packets[ei] += 1;
    s.st_inj_flits[ei] += size;
    return pk;
  }
  return Packet::empty();
}

template <int kVcs, bool kCc>
SATURN_INLINE void endpoint_step(const EngineView& v, int e, int t, uint32_t c) {
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials;
  const int D = m.link_depth;
  const int gp = v.net.ep_port[e];
  const int wslot = static_cast<int>(c % static_cast<uint32_t>(D));
  const int rslot = static_cast<int>((c + 1u) % static_cast<uint32_t>(D));

  const int64_t up = at(static_cast<int64_t>(gp) * D + rslot, t, T);  // marked slots only (ring_marks.hpp)
  const Packet in = s.link_mark[up] != 0 ? s.link[up] : Packet::empty();
  if (kCc && m.cc.answers()) cc_control_tail(v, e, t, c);
  if (in.valid()) endpoint_deliver<kCc>(v, e, t, c, in);
  const int V = kVcs > 0 ? kVcs : m.vcs;
  add_marked_credits<ScalarLanes>(s, m, static_cast<int64_t>(gp) * D + rslot, ep_books(s), e, V, t);

  endpoint_sources<kCc>(v, e, t, c);
  const int64_t inj = at(static_cast<int64_t>(e) * D + wslot, t, T);
  s.inj_link[inj] = endpoint_inject<kCc>(v, e, t, c);
  s.inj_mark[inj] = s.inj_link[inj].valid() ? 1 : 0;
}

}  // namespace saturn
