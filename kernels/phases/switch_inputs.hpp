// Switch phase 1, "link arrival and credit return", for the ports of one switch and a lane of
// trials (owner computes: writes only this switch's input ports, its output credit counters and
// its inputs' credit channels at this cycle's slot). Per port:
//   - slots whose tail has left are freed; the credits of tails leaving in this cycle are written
//     to the credit channel (the grant phase adds those of 1-flit packets it sends now);
//   - the arriving header takes the lowest free slot and is routed (virtual cut-through: the
//     upstream reserved whole-packet space with credits);
//   - the credits the downstream input returned are added to this output's counters.
// Same model as switch_step.hpp without congestion control (PAPERS-SPEC M7, M11, M12).
#pragma once
#include <cstdint>

#include "kernels/common/bits.hpp"
#include "kernels/common/index.hpp"
#include "kernels/phases/packet_lanes.hpp"
#include "kernels/routing/route.hpp"
#include "kernels/state/engine_view.hpp"

namespace saturn {

// CPU: start the loads switch_inputs will make for switch `sw` (its incoming links and slot masks),
// so that they overlap the work on the switch before it. The state of a block of trials does not
// fit in L2, and these loads come from other switches' writes of earlier cycles.
template <class L>
SATURN_INLINE void prefetch_switch_inputs(const EngineView& v, int sw, int t0, uint32_t c) {
#if !defined(__CUDA_ARCH__)
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials, D = m.link_depth;
  const int rslot = static_cast<int>((c + 1u) % static_cast<uint32_t>(D));
  const int base = v.net.sw_port_base[sw], end = v.net.sw_port_base[sw + 1];
  for (int gp = base; gp < end; ++gp) {
    const uint8_t type = v.net.peer_type[gp];
    if (type == static_cast<uint8_t>(PeerType::kNone)) continue;
    const int64_t up = static_cast<int64_t>(v.net.peer[gp]) * D + rslot;
    const char* link = reinterpret_cast<const char*>(
        (type == static_cast<uint8_t>(PeerType::kSwitch) ? s.link : s.inj_link) + at(up, t0, T));
    for (int b = 0; b < static_cast<int>(sizeof(Packet)) * L::kWidth; b += 64) __builtin_prefetch(link + b);
    __builtin_prefetch(s.in_occupied + at(gp, t0, T));
    __builtin_prefetch(s.in_departing + at(gp, t0, T));
  }
#endif
}

template <class L, int kVcs>
SATURN_INLINE void switch_inputs(const EngineView& v, int sw, int t0, uint32_t c) {
  using U32 = typename L::U32;
  using U64 = typename L::U64;
  using M = typename L::M;
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials;
  const int V = kVcs > 0 ? kVcs : m.vcs;
  const int D = m.link_depth;
  const int base = v.net.sw_port_base[sw];
  const int radix = v.net.sw_port_base[sw + 1] - base;
  const int wslot = static_cast<int>(c % static_cast<uint32_t>(D));
  const int rslot = static_cast<int>((c + 1u) % static_cast<uint32_t>(D));  // written D - 1 cycles ago
  const uint64_t slot_mask = m.slots == 64 ? ~0ull : (1ull << m.slots) - 1;
  const bool fcfs_ties = m.arbitration != Arbitration::kRoundRobin;

  for (int p = 0; p < radix; ++p) {
    const int gp = base + p;
    const uint8_t type = v.net.peer_type[gp];
    if (type == static_cast<uint8_t>(PeerType::kNone)) continue;  // nothing ever arrives or leaves
    const int64_t gi = at(gp, t0, T);
    U64 occ = L::load64(s.in_occupied + gi);
    U64 dep = L::load64(s.in_departing + gi);

    // Departing slots: free those whose tail has left, count the tails leaving now.
    U32 freed[kVcs > 0 ? kVcs : kMaxVcs];
    for (int vc = 0; vc < V; ++vc) freed[vc] = L::u32(0);
    for (uint64_t u = L::or_lanes(dep); u != 0; u &= u - 1) {
      const int k = lowest_bit(u);
      const M has = L::m64(((dep >> static_cast<uint64_t>(k)) & 1u) != 0u);
      const int64_t si = at(static_cast<int64_t>(gp) * m.slots + k, t0, T);
      const U32 free_at = L::load(s.slot_time + si);
      const M now = has & (free_at == c + 1u);
      if (L::any(now)) {
        const U32 fv = L::load(s.slot_fv + si);
        const U32 pvc = fv & 0xFu, size = fv >> 4;
        for (int vc = 0; vc < V; ++vc) freed[vc] += L::sel(now & (pvc == static_cast<uint32_t>(vc)), size, L::u32(0));
      }
      const M done = has & (free_at <= c);
      const U64 clear = L::sel(done, L::u64(1ull << k), L::u64(0));
      occ &= ~clear;
      dep &= ~clear;
    }

    // The arriving header, if any, takes the lowest free slot and is routed.
    const int64_t up = static_cast<int64_t>(v.net.peer[gp]) * D + rslot;
    const Packet* link_in = type == static_cast<uint8_t>(PeerType::kSwitch) ? s.link : s.inj_link;
    const PacketLanes<L> in = load_packets<L>(link_in + at(up, t0, T));
    M valid = in.valid();
    if (L::any(valid)) {
      const U64 free_slots = ~occ & slot_mask;
      const M full = valid & L::m64(free_slots == 0u);
      for (uint32_t b = L::bits(full); b != 0; b &= b - 1)
        s.st_port_violations[gi + lowest_bit(b)] += 1;  // credits make this impossible; count it
      valid = valid & L::mnot(full);
      // Lowest free slot per lane: walk slot numbers upwards until every arriving lane has one.
      U32 slot = L::u32(0);
      uint64_t slots_used = 0;
      M need = valid;
      for (int k = 0; L::any(need); ++k) {
        const M here = need & L::m64(((free_slots >> static_cast<uint64_t>(k)) & 1u) != 0u);
        slot = L::sel(here, L::u32(static_cast<uint32_t>(k)), slot);
        if (L::any(here)) slots_used |= 1ull << k;
        need = need & L::mnot(here);
      }
      const U32 dst = L::sel(valid, in.w[0] & 0xFFFFFu, L::u32(0));
      U32 out = L::u32(0);
      if (m.route_mode == RouteMode::kDeterministic) {  // a table lookup in every lane
        const uint8_t* row = v.net.route_det + static_cast<int64_t>(sw) * v.net.num_endpoints;
        for (int l = 0; l < L::kWidth; ++l) L::set(out, l, row[L::get(dst, l)]);
      } else {
        for (uint32_t b = L::bits(valid); b != 0; b &= b - 1) {
          const int l = lowest_bit(b);
          L::set(out, l, static_cast<uint32_t>(route_output(v, sw, L::get(dst, l), t0 + l, gp, c)));
        }
      }
      U32 tie = L::u32(0);
      if (fcfs_ties) tie = tie_hash_of<U32>(L::narrow(L::load64(v.trial.seed + t0)), gp, c);
      const U32 ready = L::u32(c + static_cast<uint32_t>(m.router_delay));
      const U32 fv = (in.size_flits() << 4) | in.vc();
      for (uint64_t u = slots_used; u != 0; u &= u - 1) {
        const int k = lowest_bit(u);
        const M w = valid & (slot == static_cast<uint32_t>(k));
        const int64_t si = at(static_cast<int64_t>(gp) * m.slots + k, t0, T);
        store_packets_if<L>(w, s.slot_pkt + si, in);
        L::store_if(w, s.slot_out + si, out);
        L::store_if(w, s.slot_fv + si, fv);
        L::store_if(w, s.slot_time + si, ready);
        if (fcfs_ties) L::store_if(w, s.slot_tie + si, tie);
      }
      occ |= L::sel(valid, L::u64(1) << L::widen(slot), L::u64(0));
    }

    // Credits the downstream input (our peer) returned for this output.
    if (type == static_cast<uint8_t>(PeerType::kSwitch))
      for (int vc = 0; vc < V; ++vc) {
        int32_t* credits = s.out_credits + at(static_cast<int64_t>(gp) * V + vc, t0, T);
        L::store_i32(credits, L::load_i32(credits) + L::as_i32(L::load(s.credit + at(up * V + vc, t0, T))));
      }

    L::store64(s.in_occupied + gi, occ);
    L::store64(s.in_departing + gi, dep);
    for (int vc = 0; vc < V; ++vc)
      L::store(s.credit + at((static_cast<int64_t>(gp) * D + wslot) * V + vc, t0, T), freed[vc]);
  }
}

}  // namespace saturn
