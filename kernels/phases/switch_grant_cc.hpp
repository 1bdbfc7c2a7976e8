// Switch phase 2 for FIFO with bounded bypass (PAPERS-SPEC M8), one switch of one trial: the
// grant of switch_grant.hpp when outputs must grant oldest candidate first, so that an input two
// outputs want sends its older packet. That order differs from trial to trial, so this phase runs
// one trial at a time (a pack calls it per lane). The same choices as the per-trial switch step
// these phases replaced (the golden files hold them):
//   1. each idle output finds its best candidate among the inputs with a read port (the VOQ heads,
//      or behind a head short of credits the first packet that fits) and its head: the oldest
//      packet waiting for it at any input; an output that has used up its bypasses reserves its
//      head's input (fifo_bypass_reserved_input), which then offers no other output anything;
//   2. outputs grant in the order of their candidates' keys (ties: the rotating order), each
//      taking its candidate, or if that input has no read port left any more the best among the
//      inputs that still have one, if the bypass rule allows (kernels/arbiters/fifo_bypass.hpp).
// CCA's "waited for credits" flag and the departure marks are as in switch_grant.hpp.
// On a pack (switch_grant_by_age_lanes) it runs only in the lanes where some grant is possible
// (by_age_may_grant); switch_grant.hpp hands over to it when kCc and the arbitration is FIFO with bypass.
#pragma once
#include <cstdint>

#include "kernels/arbiters/fifo_bypass.hpp"
#include "kernels/arbiters/output_key.hpp"
#include "kernels/cc/marking.hpp"
#include "kernels/common/bits.hpp"
#include "kernels/common/index.hpp"
#include "kernels/common/lanes.hpp"
#include "kernels/phases/switch_depart.hpp"
#include "kernels/state/engine_view.hpp"
#include "kernels/state/voq.hpp"

namespace saturn {

struct ByAgeCandidate {
  uint64_t key;
  int input, vc, entry, prev;  // entry kNoEntry: the head of VOQ (input, o, vc); prev kNoEntry: it is the head
};

// Input i's packets for output o (every VC, in VC order): the best candidate if the input can
// send, and with find_head the head (head_key / head_id: input << 16 | entry). Sets CCA's flag
// where a packet waits for credits. One (input, output) of the scan.
template <int kVcs>
SATURN_INLINE void by_age_consider(const EngineView& v, int base, int radix, int i, int o, int t, uint32_t c,
                                   bool can_send, bool find_head, ByAgeCandidate& best, uint64_t& head_key,
                                   int32_t& head_id) {
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials;
  const int V = kVcs > 0 ? kVcs : m.vcs;
  const int go = base + o, gp = base + i;
  const bool to_switch = v.net.peer_type[go] == static_cast<uint8_t>(PeerType::kSwitch);
  for (int vc = 0; vc < V; ++vc) {
    const int64_t q = voq_index(m, gp, o, vc);
    const int64_t qi = at(q, t, T);
    uint32_t ready = s.voq_ready[qi];
    if (ready > c) continue;  // empty, or its head (hence every packet) not ready yet
    int e = kNoEntry, prev = kNoEntry;
    uint32_t tie = head_tie(v, gp, qi, t);
    if (to_switch) {
      const int32_t credits = s.out_credits[at(static_cast<int64_t>(go) * V + vc, t, T)];
      if (!voq_head_fits(v, gp, q, t, credits)) {
        if (m.cc.cca) s.cc.out_stalled[at(go, t, T)] = 1;
        if (!m.mixed_sizes) continue;
        e = voq_find_fit(v, gp, q, t, c, credits, &prev);
        if (e == kNoEntry) continue;
        const int64_t ei = at(entry_index(v, gp, e), t, T);
        ready = s.ent_time[ei];
        tie = entry_tie(v, gp, ei, t);
      } else if (m.cc.cca && m.mixed_sizes && voq_any_short(v, gp, q, t, c, credits)) {
        s.cc.out_stalled[at(go, t, T)] = 1;
      }
    }
    const int vc_pointer = m.vc_arbitration == VcArbitration::kRoundRobin ? s.out_vc_rr[at(go, t, T)] : 0;
    const uint64_t key = output_key(m, vc, vc_pointer, i, 0, radix, ready, tie);
    if (find_head && key < head_key) {
      head_key = key;
      head_id = i << 16 | (e == kNoEntry ? voq_head(v, q, t) : e);
    }
    if (!can_send || key >= best.key) continue;
    best = ByAgeCandidate{key, i, vc, e, prev};
  }
}

template <int kVcs>
SATURN_INLINE void switch_grant_by_age(const EngineView& v, int sw, int t, uint32_t c) {
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials;
  const int base = v.net.sw_port_base[sw];
  const int radix = v.net.sw_port_base[sw + 1] - base;
  const int wslot = static_cast<int>(c % static_cast<uint32_t>(m.link_depth));  // uniform rings (link_ring.hpp)
  const bool marks = cc_departure_hook(m);

  int8_t reserved_by[kMaxRadix], read_ports[kMaxRadix];
  for (int p = 0; p < radix; ++p) {
    reserved_by[p] = -1;
    read_ports[p] = static_cast<int8_t>(m.speedup == 0 ? kMaxRadix : m.speedup);
  }
  uint64_t idle = 0;
  for (int o = 0; o < radix; ++o) {
    const int go = base + o;
    if (v.net.peer_type[go] == static_cast<uint8_t>(PeerType::kNone)) continue;
    const int r = fifo_bypass_reserved_input(v.model, v.state.cc, at(go, t, v.model.trials));
    if (r >= 0) reserved_by[r] = static_cast<int8_t>(o);
    const uint32_t src = s.out_src[at(go, t, T)];
    if (src != kNoSource && m.speedup != 0) read_ports[src >> 16] -= 1;
    if (s.out_busy_until[at(go, t, T)] <= c) idle |= 1ull << o;
  }

  // Every idle output's candidate and head, inputs outer (the order the golden files hold): only the outputs an
  // input holds packets for (an input reserved by an output offers only that one).
  ByAgeCandidate best[kMaxRadix];
  uint64_t head_key[kMaxRadix];
  int32_t head_id[kMaxRadix];
  int8_t order[kMaxRadix];
  uint64_t holds[kMaxRadix];
  for (int n = 0, o = static_cast<int>(c % static_cast<uint32_t>(radix)); n < radix; ++n, o = o + 1 == radix ? 0 : o + 1) {
    order[n] = static_cast<int8_t>(o);
    best[o].key = ~0ull;
    best[o].input = -1;
    head_key[o] = ~0ull;
    head_id[o] = -1;
  }
  for (int i = 0; i < radix; ++i) {
    holds[i] = voq_outputs(v, at(base + i, t, T));
    if (reserved_by[i] >= 0) holds[i] &= 1ull << reserved_by[i];
    for (uint64_t want = holds[i] & idle; want != 0; want &= want - 1) {
      const int o = lowest_bit(want);
      by_age_consider<kVcs>(v, base, radix, i, o, t, c, read_ports[i] > 0, true, best[o], head_key[o], head_id[o]);
    }
  }
  for (int n = 1; n < radix; ++n)  // insertion sort by key (stable: ties keep the rotating order)
    for (int j = n; j > 0 && best[order[j]].key < best[order[j - 1]].key; --j) {
      const int8_t x = order[j];
      order[j] = order[j - 1];
      order[j - 1] = x;
    }

  for (int n = 0; n < radix; ++n) {
    const int o = order[n];
    const int go = base + o;
    const uint8_t type = v.net.peer_type[go];
    if (type == static_cast<uint8_t>(PeerType::kNone)) continue;
    Packet sent = Packet::empty();
    if ((idle >> o) & 1u) {
      ByAgeCandidate& b = best[o];
      if (b.input >= 0 && read_ports[b.input] <= 0) {  // its input used its last read port on an older packet
        b.key = ~0ull;
        b.input = -1;
        uint64_t unused_key = ~0ull;
        int32_t unused_id = -1;
        for (int i = 0; i < radix; ++i)  // (VOQs (i, o) change only through o's own departures)
          if (read_ports[i] > 0 && ((holds[i] >> o) & 1u))
            by_age_consider<kVcs>(v, base, radix, i, o, t, c, true, false, b, unused_key, unused_id);
      }
      int i = b.input;
      if (i >= 0 && b.entry == kNoEntry) b.entry = voq_head(v, voq_index(m, base + i, o, b.vc), t);
      if (i >= 0 && !fifo_bypass_grant(v.model, v.state.cc, at(go, t, v.model.trials), head_id[o], i << 16 | b.entry)) i = -1;
      if (i >= 0) {
        sent = grant_depart<ScalarLanes, kVcs>(v, base, radix, o, i, b.vc, b.entry, b.prev, t, c, wslot,
                                               type == static_cast<uint8_t>(PeerType::kSwitch));
        read_ports[i] -= 1;
        if (marks) cc_departure(v, go, sent, t);
      }
    }
    store_link_slot(s, at(ring_slot(v, go, c, wslot), t, T), sent);
  }
}

// FIFO with bypass: the lanes in which switch_grant_by_age could grant something, because some
// idle output (idle_lo / idle_hi: bit o per lane) has a VOQ head ready at an input with a read port
// left and, towards a switch, at least one credit on that VC. Every grant needs all three (a packet
// behind a head short of credits, mixed sizes, needs the head ready and a credit too), and a lane
// without a grant changes no state but its empty link slots, which the caller writes: so a lane
// outside the mask may skip the scalar grant (same bits). Not for CCA, whose scan also flags the
// outputs that waited for credits. With one read port and packets of hundreds of flits (Santos),
// an output often idles while the packets for it sit behind an input that is sending elsewhere.
template <class L, int kVcs>
SATURN_INLINE typename L::M by_age_may_grant(const EngineView& v, int base, int radix, int t0, uint32_t c,
                                             typename L::U32 idle_lo, typename L::U32 idle_hi) {
  using U32 = typename L::U32;
  using M = typename L::M;
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials;
  const int V = kVcs > 0 ? kVcs : m.vcs;
  M may = L::mask(false);
  for (int i = 0; i < radix; ++i) {
    const int64_t gi = at(base + i, t0, T);
    const U32 want_lo = L::load(s.in_voq_lo + gi) & idle_lo;
    const U32 want_hi = m.max_radix > 32 ? L::load(s.in_voq_hi + gi) & idle_hi : L::u32(0);
    const uint64_t outputs = L::or_lanes(want_lo) | static_cast<uint64_t>(L::or_lanes(want_hi)) << 32;
    if (outputs == 0) continue;
    M can_send = L::mask(true);  // a read port left: fewer than `speedup` outputs send from input i
    if (m.speedup != 0) {
      U32 sending = L::u32(0);
      for (int o = 0; o < radix; ++o) {
        if (v.net.peer_type[base + o] == static_cast<uint8_t>(PeerType::kNone)) continue;
        const U32 src = L::load(s.out_src + at(base + o, t0, T));
        sending = sending + L::sel(L::mand(src != kNoSource, (src >> 16) == static_cast<uint32_t>(i)), L::u32(1), L::u32(0));
      }
      can_send = sending < static_cast<uint32_t>(m.speedup);
      if (L::none(can_send)) continue;
    }
    for (uint64_t left = outputs; left != 0; left &= left - 1) {
      const int o = lowest_bit(left);
      const int go = base + o;
      const U32 want = o < 32 ? want_lo >> static_cast<uint32_t>(o) : want_hi >> static_cast<uint32_t>(o - 32);
      const M wanted = L::mand(can_send, (want & 1u) != 0u);
      if (L::none(wanted)) continue;
      const bool to_switch = v.net.peer_type[go] == static_cast<uint8_t>(PeerType::kSwitch);
      for (uint32_t vcs = voq_vcs_any<L>(s, m, base + i, o, t0); vcs != 0; vcs &= vcs - 1) {
        const int vc = lowest_bit(vcs);
        M ok = L::mand(wanted, L::load(s.voq_ready + at(voq_index(m, base + i, o, vc), t0, T)) <= c);
        if (to_switch) ok = L::mand(ok, L::load_i32(s.out_credits + at(static_cast<int64_t>(go) * V + vc, t0, T)) > 0);
        may = L::mor(may, ok);
      }
    }
  }
  return may;
}

// FIFO with bypass, a lane of trials: switch_grant_by_age in each lane where some input holds a
// packet for an idle output that it could take (by_age_may_grant). In the other lanes it could
// grant nothing, and all it would do is write each connected output's link slot empty, done here.
// (With packets of hundreds of flits, as in the Santos studies, most lanes skip.)
template <class L, int kVcs>
SATURN_INLINE void switch_grant_by_age_lanes(const EngineView& v, int sw, int t0, uint32_t c) {
  using U32 = typename L::U32;
  using M = typename L::M;
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials;
  const int base = v.net.sw_port_base[sw];
  const int radix = v.net.sw_port_base[sw + 1] - base;
  U32 idle_lo = L::u32(0), idle_hi = L::u32(0);  // per lane: bit o set where output o is idle
  for (int o = 0; o < radix; ++o) {
    if (v.net.peer_type[base + o] == static_cast<uint8_t>(PeerType::kNone)) continue;
    const M idle = L::load(s.out_busy_until + at(base + o, t0, T)) <= c;
    if (o < 32) idle_lo = idle_lo | L::sel(idle, L::u32(1u << o), L::u32(0));
    else idle_hi = idle_hi | L::sel(idle, L::u32(1u << (o - 32)), L::u32(0));
  }
  // Lanes that run the grant: where it could take a packet, or under CCA (whose scan also flags the
  // outputs that waited for credits) wherever an input holds one for an idle output.
  M work = L::mask(false);
  if (!m.cc.cca) {
    work = by_age_may_grant<L, kVcs>(v, base, radix, t0, c, idle_lo, idle_hi);
  } else {
    for (int i = 0; i < radix; ++i) {
      const int64_t gi = at(base + i, t0, T);
      work = L::mor(work, (L::load(s.in_voq_lo + gi) & idle_lo) != 0u);
      if (m.max_radix > 32) work = L::mor(work, (L::load(s.in_voq_hi + gi) & idle_hi) != 0u);
    }
  }
  // Every lane's link slots empty first (whole cache lines, vector stores); a lane that runs the
  // grant then writes each of its slots again, with what it sends.
  const int wslot = static_cast<int>(c % static_cast<uint32_t>(m.link_depth));  // uniform rings (link_ring.hpp)
  for (int o = 0; o < radix; ++o) {
    const int go = base + o;
    if (v.net.peer_type[go] == static_cast<uint8_t>(PeerType::kNone)) continue;
    store_mark_bits<L>(s.link_mark + at(ring_slot(v, go, c, wslot), t0, T), 0u);
  }
  for (uint32_t b = L::bits(work); b != 0; b &= b - 1) switch_grant_by_age<kVcs>(v, sw, t0 + lowest_bit(b), c);
}

}  // namespace saturn
