// One switch of one trial for one cycle, its phases spread over a team of 32 lanes (issue 62 item
// 1; the team: switch_team.hpp), with the bits of switch_inputs.hpp and switch_grant.hpp:
//   - arrival: a lane per port takes its arriving header (entry, route, VOQ push) and its returned
//     credits, and a lane per input settles the tails its outputs have finished sending;
//   - request and grant: the outputs grant one after another in switch_grant's rotating order,
//     and for each output a lane per input finds that input's best head (its VCs in ascending
//     order, as the scan), and the team takes the smallest key, the lowest input on ties: the
//     winner of switch_grant's ascending scan with a strict comparison. One lane then makes the
//     departure (switch_depart.hpp), and the winner's lane counts its read port.
// So no thread keeps the radix-long arrays of the one-thread phases (wants, read ports, FIFO heads:
// the kilobytes of stack in bench/RESULTS.md's kernel table); each lane keeps its own port's.
// Where a step cannot be split without changing the bits it runs on one lane as the one-thread
// phase does: arrivals whose route reads switch state (flow-adaptive routes, the dragonfly's UGAL
// and PAR, congestion isolation) or on which congestion control acts port by port (occupancy,
// ECN, speculative drops); and a model the team's grant does not cover (team_grant_covers) runs the
// one-thread phases: the drivers choose. The GPU runs it with a warp per (switch, trial); the CPU
// runs the same source in the tests (GpuStep::kWarpSwitch, tests/integration/test_switch_team.cpp).
#pragma once
#include <cstdint>

#include "kernels/arbiters/input_fifo.hpp"
#include "kernels/arbiters/separable_input_first.hpp"
#include "kernels/arbiters/vc_allocation.hpp"
#include "kernels/cc/marking.hpp"
#include "kernels/common/bits.hpp"
#include "kernels/common/index.hpp"
#include "kernels/phases/packet_lanes.hpp"
#include "kernels/phases/switch_depart.hpp"
#include "kernels/phases/switch_inputs.hpp"
#include "kernels/phases/switch_team.hpp"
#include "kernels/routing/dragonfly_engine.hpp"
#include "kernels/routing/route.hpp"
#include "kernels/state/engine_view.hpp"
#include "kernels/state/output_queue.hpp"
#include "kernels/state/ring_marks.hpp"
#include "kernels/state/voq.hpp"

namespace saturn {

// Models whose grant the team makes: the greedy allocator on switches of at most 32 ports, without
// FIFO with bypass or CCA's "waited for credits" flags (congestion control's other switch paths,
// departure marks included, are the one-thread phase's calls). The others run the one-thread phases.
SATURN_INLINE bool team_grant_covers(const ModelParams& m) {
  return m.allocator == Allocator::kGreedy && m.max_radix <= kTeamLanes && m.arbitration != Arbitration::kFifoBypass &&
         !m.cc.cca;
}
// Arrivals whose route reads only tables and the trial's draws (D-mod-K, oblivious; the dragonfly's
// minimal and Valiant routes), and on which congestion control acts at no port (ACKs alone: no
// occupancy, ECN or speculative drops), so that ports do not depend on one another (switch_inputs'
// deferred pushes rest on the same fact).
SATURN_INLINE bool team_arrivals_split(const ModelParams& m) {
  const bool route_reads_tables = m.df.on ? m.df.routing == DfRouting::kMinimal || m.df.routing == DfRouting::kValiant
                                          : m.route_mode == RouteMode::kDeterministic ||
                                                m.route_mode == RouteMode::kOblivious;
  const bool cc_at_ports = m.cc.track_occupancy || m.cc.ecn || m.cc.speculative || m.cc.fabric_drop;
  return team_grant_covers(m) && route_reads_tables && !cc_at_ports && !iso_on(m.iso);
}

// kSplit: team_arrivals_split(model), which the caller has checked (a separate instantiation, so
// that the split program holds nothing of the one-thread phase).
template <int kVcs, bool kCc, bool kSplit>
SATURN_INLINE void team_switch_inputs(const SwitchTeam& team, const EngineView& v, int sw, int t, uint32_t c) {
  const ModelParams& m = v.model;
  if constexpr (!kSplit) {
    team.one([&] { switch_inputs<ScalarLanes, kVcs, kCc>(v, sw, t, c); });
    return;
  }
  const StateView& s = v.state;
  const int T = m.trials;
  const int V = kVcs > 0 ? kVcs : m.vcs;
  const int base = v.net.sw_port_base[sw];
  const int radix = v.net.sw_port_base[sw + 1] - base;
  const int wslot = static_cast<int>(c % static_cast<uint32_t>(m.link_depth));
  const int rslot = static_cast<int>((c + 1u) % static_cast<uint32_t>(m.link_depth));
  const uint32_t* xbar_until = xbar_busy_until(v);
  // This cycle's credit channels start empty.
  team.each([&](int p) {
    if (p < radix && v.net.peer_type[base + p] != static_cast<uint8_t>(PeerType::kNone))
      store_mark_bits<ScalarLanes>(s.credit_mark + at(ring_slot(v, base + p, c, wslot), t, T), 0u);
  });
  // Tails leaving: input i's lane visits the outputs sending its packets in ascending order (the
  // order switch_inputs frees them in, which a free list keeps).
  team.each([&](int i) {
    if (i >= radix) return;
    for (int o = 0; o < radix; ++o) {
      const int64_t oi = at(base + o, t, T);
      const uint32_t src = s.out_src[oi];
      if (src == kNoSource || static_cast<int>(src >> 16) != i) continue;
      const uint32_t free_at = xbar_until[oi];
      if (free_at > c + 1u) continue;
      if (free_at <= c) {
        voq_release(v, base + i, static_cast<int>(src & 0xFFFFu), t);
      } else {
        const uint32_t ret = s.out_ret[oi];
        credit_add(s, ring_slot(v, base + i, c, wslot), V, static_cast<int>(ret >> 16), t, T, ret & 0xFFFFu);
      }
    }
  });
  team.each([&](int o) {
    if (o >= radix) return;
    const int64_t oi = at(base + o, t, T);
    if (s.out_src[oi] != kNoSource && xbar_until[oi] <= c) s.out_src[oi] = kNoSource;
  });
  // Per port: the arriving header and the credits the downstream input returned.
  team.each([&](int p) {
    if (p >= radix) return;
    const int gp = base + p;
    const uint8_t type = v.net.peer_type[gp];
    if (type == static_cast<uint8_t>(PeerType::kNone)) return;
    const bool from_switch = type == static_cast<uint8_t>(PeerType::kSwitch);
    const int64_t up = from_switch ? ring_slot(v, v.net.peer[gp], c + 1u, rslot) : inj_ring_slot(v, v.net.peer[gp], c + 1u, rslot);
    if (load_mark_bits<ScalarLanes>((from_switch ? s.link_mark : s.inj_mark) + at(up, t, T)) != 0) {
      const int e = voq_alloc(v, gp, t);
      if (e == kNoEntry) {
        s.st_no_descriptor[at(gp, t, T)] += 1;  // (switch_inputs.hpp)
      } else {
        Packet pk = (from_switch ? s.link : s.inj_link)[at(up, t, T)];
        int vq = static_cast<int>(pk.vc());  // the VOQ's VC (the dragonfly: the VC it leaves on)
        const int o = m.df.on ? df_engine_route(v, sw, p, pk, t, c, &vq)
                              : route_output(v, sw, pk.src(), pk.dst(), pk.flags(), t, gp, p, c);
        const uint32_t ready = c + static_cast<uint32_t>(m.router_delay);
        const int64_t ei = at(entry_index(v, gp, e), t, T);
        s.ent_pkt[ei] = pk;
        s.ent_time[ei] = ready;
        voq_push(v, gp, o, vq, e, t, ready, 0u);  // (ties are stored only under the speculative protocols)
      }
    }
    if (from_switch) add_marked_credits<ScalarLanes>(s, m, up, out_books(s), gp, V, t);
  });
}

// Input i's best head for output go (switch_grant's scan restricted to one input): its key
// (switch_grant's two 32-bit halves as one word, hi << 32 | lo, compared the same; kNoKey for none),
// VC, and for a packet found behind a head short of credits its entry and the entry before it (else
// -1 and kNoEntry).
struct TeamCandidate {
  uint64_t key;
  int vc, e, prev;
};
constexpr TeamCandidate kNoCandidate{kNoKey, 0, -1, kNoEntry};

template <int kVcs>
SATURN_INLINE TeamCandidate team_input_candidate(const EngineView& v, int base, int radix, int i, int o, uint32_t c,
                                                 int t, bool to_switch, bool fcfs, bool vc_rr, uint32_t rr_vc,
                                                 const uint32_t* rr_in, const int32_t* credits, const bool* queue_room,
                                                 const uint32_t* fifo_ready, uint32_t seed) {
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials;
  const int V = kVcs > 0 ? kVcs : m.vcs;
  const bool cioq = cioq_on(m), fifo = fifo_ready != nullptr;
  const int gpi = base + i;
  const int64_t q0 = voq_index(m, gpi, o, 0);
  TeamCandidate best = kNoCandidate;
  for (uint32_t vcs = voq_vcs_any<ScalarLanes>(s, m, gpi, o, t); vcs != 0; vcs &= vcs - 1) {
    const int vc = lowest_bit(vcs);
    const int64_t qi = at(q0 + vc, t, T);
    const uint32_t ready = s.voq_ready[qi];
    if (ready > c) continue;
    if (fifo && ready != fifo_ready[vc]) continue;
    if (cioq && !queue_room[vc]) continue;
    bool ok = true, short_of_credits = false;
    if (to_switch) {
      const bool fits = credits[vc] >= max_packet_flits(m) || voq_head_size(v, gpi, q0 + vc, t) <= credits[vc];
      short_of_credits = !fits;
      ok = fits;
    }
    const uint32_t vc_rank = vc_rr ? alloc_ring_rank<ScalarLanes>(vc, V, rr_vc) : static_cast<uint32_t>(V - 1 - vc);
    const uint32_t input_rank = fcfs ? 0u : alloc_ring_rank<ScalarLanes>(i, radix, rr_in[vc]);
    const uint32_t rank = (vc_rank << 7) | input_rank;
    if (ok) {
      const uint32_t tie = fcfs ? head_tie_lanes<ScalarLanes>(v, gpi, qi, ready, seed) & 0x1FFFFFu : 0u;
      const uint64_t key = static_cast<uint64_t>((rank << 21) | (ready >> 11)) << 32 | ((ready << 21) | tie);
      if (key < best.key) best = TeamCandidate{key, vc, -1, kNoEntry};
    }
    if (!short_of_credits || !m.mixed_sizes || fifo) continue;  // a FIFO head is never bypassed
    int prev = kNoEntry;
    const int e = voq_find_fit(v, gpi, q0 + vc, t, c, credits[vc], &prev);
    if (e == kNoEntry) continue;
    const int64_t ei = at(entry_index(v, gpi, e), t, T);
    const uint32_t r = s.ent_time[ei], x = fcfs ? entry_tie(v, gpi, ei, t) & 0x1FFFFFu : 0u;
    const uint64_t key = static_cast<uint64_t>((rank << 21) | (r >> 11)) << 32 | ((r << 21) | x);
    if (key < best.key) best = TeamCandidate{key, vc, e, prev};
  }
  return best;
}

// The grant of a model the team covers (team_grant_covers: the caller chooses).
template <int kVcs, bool kCc>
SATURN_INLINE void team_switch_grant(const SwitchTeam& team, const EngineView& v, int sw, int t, uint32_t c) {
  const ModelParams& m = v.model;
  constexpr int kV = kVcs > 0 ? kVcs : kMaxVcs;
  const StateView& s = v.state;
  const int T = m.trials;
  const int V = kVcs > 0 ? kVcs : m.vcs;
  const int base = v.net.sw_port_base[sw];
  const int radix = v.net.sw_port_base[sw + 1] - base;
  const int wslot = static_cast<int>(c % static_cast<uint32_t>(m.link_depth));
  const bool fcfs = m.arbitration != Arbitration::kRoundRobin;
  const bool vc_rr = m.vc_arbitration == VcArbitration::kRoundRobin;
  const bool cioq = cioq_on(m), fifo = m.input_queue == InputQueue::kFifo;
  const bool marks = kCc && cc_departure_hook(m);  // ECN / FECN marks, SAA's link registers (marking.hpp)
  const uint32_t* xbar_until = xbar_busy_until(v);
  // The outputs each input wants, and the outputs that may grant: wanted by some input and idle
  // (an unconnected output keeps its bit, as in switch_grant, and is passed over below).
  LaneVar<uint64_t> wants, lane_bits;
  team.each([&](int i) {
    uint64_t w = 0;
    if (i < radix) {
      const int64_t gi = at(base + i, t, T);
      w = s.in_voq_lo[gi];
      if (m.max_radix > 32) w |= static_cast<uint64_t>(s.in_voq_hi[gi]) << 32;
    }
    wants[i] = w;
  });
  const uint64_t asked = team.or_all(wants);
  team.each([&](int o) {
    uint64_t b = 0;
    if (o < radix && ((asked >> o) & 1u))
      b = v.net.peer_type[base + o] == static_cast<uint8_t>(PeerType::kNone) || xbar_until[at(base + o, t, T)] <= c
              ? 1ull << o
              : 0;
    lane_bits[o] = b;
  });
  const uint64_t wanted = team.or_all(lane_bits);
  // Outputs that grant nothing this cycle send what they send (an output queue's head, or nothing)
  // now: they touch only their own output's state, as the grants below do theirs.
  team.each([&](int o) {
    if (o >= radix || ((wanted >> o) & 1u) || v.net.peer_type[base + o] == static_cast<uint8_t>(PeerType::kNone)) return;
    PacketLanes<ScalarLanes> sent{};
    output_send<ScalarLanes>(v, base + o, t, c, wslot, sent);
  });
  if (wanted == 0) return;
  // Each input's read ports left: the speedup less the outputs still sending its packets.
  LaneVar<int32_t> read_ports;
  team.each([&](int i) {
    int32_t r = m.speedup == 0 ? kMaxRadix : m.speedup;
    if (m.speedup != 0 && i < radix)
      for (int o = 0; o < radix; ++o) {
        const uint32_t src = s.out_src[at(base + o, t, T)];
        if (src != kNoSource && static_cast<int>(src >> 16) == i) --r;
      }
    read_ports[i] = r;
  });
  struct FifoHeads {
    uint32_t ready[kV];
  };
  LaneVar<FifoHeads> fifo_heads;
  if (fifo)
    team.each([&](int i) {
      const uint64_t w = wants[i];
      if (i < radix) fifo_head_ready<ScalarLanes, kVcs>(v, base + i, 1, t, &w, fifo_heads[i].ready);
    });
  const uint32_t seed = tie_seeds<ScalarLanes>(v, t);
  int o = static_cast<int>(c % static_cast<uint32_t>(radix));
  for (int n = 0; n < radix; ++n, o = o + 1 == radix ? 0 : o + 1) {
    const int go = base + o;
    if (v.net.peer_type[go] == static_cast<uint8_t>(PeerType::kNone) || !((wanted >> o) & 1u)) continue;
    const bool to_switch = v.net.peer_type[go] == static_cast<uint8_t>(PeerType::kSwitch);
    // The output's own words, the same in every lane.
    const uint32_t rr_vc = vc_rr ? s.out_vc_rr[at(go, t, T)] : 0u;
    uint32_t rr_in[kV];
    int32_t credits[kV];
    bool queue_room[kV];
    for (int vc = 0; vc < V; ++vc) {
      rr_in[vc] = fcfs ? 0u : s.out_rr[out_rr_index(m, go, vc, t)];
      credits[vc] = !to_switch ? 0 : s.out_credits[at(static_cast<int64_t>(go) * V + vc, t, T)];
      queue_room[vc] = cioq && (s.oq_ends[at(oq_queue(m, go, vc), t, T)] >> 16) < static_cast<uint32_t>(m.oq_packets);
    }
    if (m.vc_per_hop && to_switch) {
      const int32_t any = per_hop_credits<ScalarLanes>(m, credits, V);
      for (int vc = 0; vc < V; ++vc) credits[vc] = any;
    }
    LaneVar<uint64_t> key;
    LaneVar<int32_t> win_vc, win_e, win_prev;
    team.each([&](int i) {
      TeamCandidate x = kNoCandidate;
      if (i < radix && ((wants[i] >> o) & 1u) && read_ports[i] > 0)
        x = team_input_candidate<kVcs>(v, base, radix, i, o, c, t, to_switch, fcfs, vc_rr, rr_vc, rr_in, credits,
                                       queue_room, fifo ? fifo_heads[i].ready : nullptr, seed);
      key[i] = x.key;
      win_vc[i] = x.vc;
      win_e[i] = x.e;
      win_prev[i] = x.prev;
    });
    const int w = team.argmin(key);
    if (w < 0) {
      team.one([&] {
        PacketLanes<ScalarLanes> sent{};
        output_send<ScalarLanes>(v, go, t, c, wslot, sent);
      });
      continue;
    }
    const int vc = team.shfl(win_vc, w), e = team.shfl(win_e, w), prev = team.shfl(win_prev, w);
    team.one([&] {
      PacketLanes<ScalarLanes> sent{};
      Packet pk = grant_depart<ScalarLanes, kVcs>(v, base, radix, o, w, vc, e, e < 0 ? kNoEntry : prev, t, c, wslot,
                                                  to_switch);
      if (marks) cc_departure(v, go, pk, t);
      if (cioq) oq_push(v, go, vc, pk, t);  // the VC its credits were taken on
      else sent.set_lane(0, pk);
      output_send<ScalarLanes>(v, go, t, c, wslot, sent);
    });
    if (m.speedup != 0)
      team.each([&](int i) {
        if (i == w) read_ports[i] -= 1;
      });
  }
}

// The team's cycle of one switch of a model it covers (team_grant_covers; the drivers run the
// one-thread phases otherwise, so that this code holds no radix-long array of theirs): arrivals,
// then request, grant and departure.
// kSplit: team_arrivals_split(model).
template <int kVcs, bool kCc, bool kSplit>
SATURN_INLINE void switch_team_step(const SwitchTeam& team, const EngineView& v, int sw, int t, uint32_t c) {
  team_switch_inputs<kVcs, kCc, kSplit>(team, v, sw, t, c);
  team_switch_grant<kVcs, kCc>(team, v, sw, t, c);
}

}  // namespace saturn
