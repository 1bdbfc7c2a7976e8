// Switch phase 2, "request, grant and departure", for one switch and a lane of trials, after
// switch_inputs.hpp. Every idle output takes the best eligible packet (output_key.hpp: VC class,
// then FCFS by header arrival with hashed ties, or round-robin over inputs), subject to the
// input's read ports (crossbar speedup) and the downstream credits of the packet's VC. Outputs
// grant in a rotating order; an output whose chosen input used its last read port on an earlier
// output picks again among the rest. Winners go on the link (one slot written per output every
// cycle); a 1-flit packet's credit goes back in this very cycle.
// Same model as switch_step.hpp without congestion control.
#pragma once
#include <cstdint>

#include "kernels/common/bits.hpp"
#include "kernels/common/index.hpp"
#include "kernels/phases/packet_lanes.hpp"
#include "kernels/state/engine_view.hpp"

namespace saturn {

// Per-switch working values of the grant phase for one lane of trials (registers or L1).
template <class L>
struct GrantLanes {
  typename L::U64 occ[kMaxRadix], dep[kMaxRadix], best_key[kMaxRadix];
  typename L::I32 read_ports[kMaxRadix], best_in[kMaxRadix], best_slot[kMaxRadix];
  typename L::U64 idle;        // bit o: output o is idle
  uint64_t to_switch;          // bit o: output o feeds a switch (credits apply); same for all trials
};

// Best candidate per output among inputs with a read port left, for the lanes in `active`;
// only_output >= 0 restricts the search to that output.
template <class L>
SATURN_INLINE void grant_scan(const EngineView& v, GrantLanes<L>& g, int base, int radix, int t0, uint32_t c,
                              typename L::M active, int only_output) {
  using U32 = typename L::U32;
  using U64 = typename L::U64;
  using M = typename L::M;
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials;
  const int V = m.vcs;
  const bool fcfs = m.arbitration != Arbitration::kRoundRobin;
  const bool vc_rr = m.vc_arbitration == VcArbitration::kRoundRobin;
  const bool vc_priority = m.vc_arbitration == VcArbitration::kPriority;
  for (int i = 0; i < radix; ++i) {
    const M can = active & (g.read_ports[i] > 0);
    if (L::none(can)) continue;
    const U64 r = L::sel(can, g.occ[i] & ~g.dep[i], L::u64(0));
    const int gp = base + i;
    for (uint64_t u = L::or_lanes(r); u != 0; u &= u - 1) {
      const int k = lowest_bit(u);
      M mk = L::m64(((r >> static_cast<uint64_t>(k)) & 1u) != 0u);
      const int64_t si = at(static_cast<int64_t>(gp) * m.slots + k, t0, T);
      const U32 ready = L::load(s.slot_time + si);
      const U32 o = L::load(s.slot_out + si);
      mk = mk & (ready <= c) & L::m64(((g.idle >> L::widen(o)) & 1u) != 0u);
      if (only_output >= 0) mk = mk & (o == static_cast<uint32_t>(only_output));
      if (L::none(mk)) continue;
      const U32 fv = L::load(s.slot_fv + si);
      const U32 vc = fv & 0xFu, size = fv >> 4;
      // Downstream credits of the packet's VC, where the output feeds a switch.
      const M to_switch = L::m64(((L::u64(g.to_switch) >> L::widen(o)) & 1u) != 0u);
      U32 rr_in = L::u32(0), rr_vc = L::u32(0);
      for (uint32_t b = L::bits(mk); b != 0; b &= b - 1) {
        const int l = lowest_bit(b);
        const int64_t go = base + static_cast<int64_t>(L::get(o, l));
        if (L::get_mask(to_switch, l) &&
            s.out_credits[at(go * V + L::get(vc, l), t0 + l, T)] < static_cast<int32_t>(L::get(size, l)))
          L::set_mask(mk, l, false);
        if (!fcfs) L::set(rr_in, l, s.out_rr[at(go, t0 + l, T)]);
        if (vc_rr) L::set(rr_vc, l, s.out_vc_rr[at(go, t0 + l, T)]);
      }
      if (L::none(mk)) continue;
      // output_key.hpp's key: [VC rank : 4][input rank : 7][ready cycle : 32][tie : 21].
      const U32 vc_rank = vc_priority ? static_cast<uint32_t>(V - 1) - vc : (vc - rr_vc + static_cast<uint32_t>(V)) % static_cast<uint32_t>(V);
      const U32 input_rank = fcfs ? L::u32(0) : (static_cast<uint32_t>(i + radix) - rr_in) % static_cast<uint32_t>(radix);
      const U32 tie = fcfs ? L::load(s.slot_tie + si) : L::u32(0);
      const U64 key = (L::widen(vc_rank) << 60) | (L::widen(input_rank) << 53) | (L::widen(ready) << 21) |
                      L::widen(tie & 0x1FFFFFu);
      const U64 want = L::sel(mk, L::u64(1) << L::widen(o), L::u64(0));
      for (uint64_t w = L::or_lanes(want); w != 0; w &= w - 1) {
        const int out = lowest_bit(w);
        const M better = mk & (o == static_cast<uint32_t>(out)) & L::m64(key < g.best_key[out]);
        g.best_key[out] = L::sel(better, key, g.best_key[out]);
        g.best_in[out] = L::sel(better, L::i32(i), g.best_in[out]);
        g.best_slot[out] = L::sel(better, L::i32(k), g.best_slot[out]);
      }
    }
  }
}

template <class L, int kVcs>
SATURN_INLINE void switch_grant(const EngineView& v, int sw, int t0, uint32_t c) {
  using I32 = typename L::I32;
  using M = typename L::M;
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials;
  const int V = kVcs > 0 ? kVcs : m.vcs;
  const int D = m.link_depth;
  const int base = v.net.sw_port_base[sw];
  const int radix = v.net.sw_port_base[sw + 1] - base;
  const int wslot = static_cast<int>(c % static_cast<uint32_t>(D));

  GrantLanes<L> g;
  g.idle = L::u64(0);
  g.to_switch = 0;
  for (int o = 0; o < radix; ++o) {
    const uint8_t type = v.net.peer_type[base + o];
    if (type == static_cast<uint8_t>(PeerType::kNone)) continue;
    if (type == static_cast<uint8_t>(PeerType::kSwitch)) g.to_switch |= 1ull << o;
    const M idle = L::load(s.out_busy_until + at(base + o, t0, T)) <= c;
    g.idle |= L::sel(idle, L::u64(1ull << o), L::u64(0));
  }
  const uint64_t any_idle = L::or_lanes(g.idle);
  if (any_idle == 0) {  // every output of every lane is still sending: nothing to grant
    for (int o = 0; o < radix; ++o)
      if (v.net.peer_type[base + o] != static_cast<uint8_t>(PeerType::kNone))
        store_packets<L>(s.link + at(static_cast<int64_t>(base + o) * D + wslot, t0, T), PacketLanes<L>{});
    return;
  }
  for (int i = 0; i < radix; ++i) {
    const int64_t gi = at(base + i, t0, T);
    g.occ[i] = L::load64(s.in_occupied + gi);
    g.dep[i] = L::load64(s.in_departing + gi);
    if (m.speedup == 0) {
      g.read_ports[i] = L::i32(kMaxSlots);
    } else {
      I32 rp = L::i32(0);
      for (int l = 0; l < L::kWidth; ++l) L::set(rp, l, m.speedup - popcount64(L::get(g.dep[i], l)));
      g.read_ports[i] = rp;
    }
    g.best_key[i] = L::u64(~0ull);
    g.best_in[i] = L::i32(-1);
    g.best_slot[i] = L::i32(0);
  }
  grant_scan<L>(v, g, base, radix, t0, c, L::mask(true), -1);

  int o = static_cast<int>(c % static_cast<uint32_t>(radix));
  for (int n = 0; n < radix; ++n, o = o + 1 == radix ? 0 : o + 1) {
    const int go = base + o;
    if (v.net.peer_type[go] == static_cast<uint8_t>(PeerType::kNone)) continue;
    PacketLanes<L> sent{};
    const M idle = L::m64(((g.idle >> static_cast<uint64_t>(o)) & 1u) != 0u);
    if (L::any(idle)) {
      // The input this output wanted used its last read port on an earlier output: pick again.
      M again = L::mask(false);
      for (uint32_t b = L::bits(idle & (g.best_in[o] >= 0)); b != 0; b &= b - 1) {
        const int l = lowest_bit(b);
        if (L::get(g.read_ports[L::get(g.best_in[o], l)], l) <= 0) L::set_mask(again, l, true);
      }
      if (L::any(again)) {
        g.best_key[o] = L::sel(again, L::u64(~0ull), g.best_key[o]);
        g.best_in[o] = L::sel(again, L::i32(-1), g.best_in[o]);
        grant_scan<L>(v, g, base, radix, t0, c, again, o);
      }
      const M win = idle & (g.best_in[o] >= 0);
      for (uint32_t b = L::bits(win); b != 0; b &= b - 1) {
        const int l = lowest_bit(b);
        const int t = t0 + l;
        const int i = L::get(g.best_in[o], l), k = L::get(g.best_slot[o], l);
        const int64_t si = at(static_cast<int64_t>(base + i) * m.slots + k, t, T);
        const Packet pk = s.slot_pkt[si];
        const uint32_t size = pk.size_flits(), vc = pk.vc();
        L::set(g.dep[i], l, L::get(g.dep[i], l) | (1ull << k));
        L::set(g.read_ports[i], l, L::get(g.read_ports[i], l) - 1);
        s.slot_time[si] = c + size;  // the slot is free once the tail has left
        if (size == 1)               // ... and the tail leaves in this very cycle
          s.credit[at((static_cast<int64_t>(base + i) * D + wslot) * V + vc, t, T)] += 1;
        const int64_t oi = at(go, t, T);
        s.out_busy_until[oi] = c + size;
        s.out_busy_cycles[oi] += size;
        if (m.arbitration == Arbitration::kRoundRobin) s.out_rr[oi] = static_cast<uint8_t>(i + 1 == radix ? 0 : i + 1);
        if (m.vc_arbitration == VcArbitration::kRoundRobin)
          s.out_vc_rr[oi] = static_cast<uint8_t>(static_cast<int>(vc) + 1 == V ? 0 : vc + 1);
        if ((g.to_switch >> o) & 1u) s.out_credits[at(static_cast<int64_t>(go) * V + vc, t, T)] -= static_cast<int32_t>(size);
        L::set(sent.w[0], l, pk.dst_vc_flags);
        L::set(sent.w[1], l, pk.src_size);
        L::set(sent.w[2], l, pk.inject_cycle);
        L::set(sent.w[3], l, pk.birth_cycle);
      }
    }
    store_packets<L>(s.link + at(static_cast<int64_t>(go) * D + wslot, t0, T), sent);
  }
  for (int i = 0; i < radix; ++i) L::store64(s.in_departing + at(base + i, t0, T), g.dep[i]);
}

}  // namespace saturn
