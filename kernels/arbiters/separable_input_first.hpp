// Separable input-first allocation (switch.allocator = separable_input_first), for one switch and a
// lane of trials: the matching of inputs to outputs that switch_grant_separable.hpp then sends.
//
// Each iteration has two stages over the outputs still free and the inputs with a read port left
// (speedup 1: the inputs not yet matched):
//   1. input stage: every input picks one of its requests, an eligible head (ready, credits for its
//      VC downstream, with output queues room in the VC's queue; under FIFO inputs only the FIFO
//      head, input_fifo.hpp) for a free output:
//      the best VC class first (priority or the output's VC round-robin, as in output_key.hpp), then
//      the first output at or after the input's round-robin pointer (in_rr); under per-hop VC
//      allocation, where VCs are not classes, the output first and the VC last (alloc_class_rank);
//   2. output stage: every output that was picked grants one of the inputs that picked it, by the
//      switch's output arbitration (output_key.hpp: VC class, then round-robin among inputs from
//      out_rr, or FCFS by header arrival with hashed ties; per_hop: the input before the VC).
// switch.allocator_iterations rounds run, fewer if a round matches nothing new. Pointers move only
// on grants of the first iteration (iSLIP's rule, McKeown 1999, which keeps them desynchronized):
// the input's to one past the output it got, the output's to one past the input (switch_grant_separable.hpp
// does both after the departures). Only heads request: a VOQ head short of credits does not step
// aside for a smaller packet behind it, as it does in the greedy allocator.
#pragma once
#include <cstdint>

#include "kernels/arbiters/input_fifo.hpp"
#include "kernels/arbiters/vc_allocation.hpp"
#include "kernels/common/bits.hpp"
#include "kernels/common/index.hpp"
#include "kernels/state/engine_view.hpp"
#include "kernels/state/output_queue.hpp"
#include "kernels/state/voq.hpp"

namespace saturn {

// Rank of VC vc among V (smaller wins): strict priority (higher VC first) or round-robin from rr_vc.
template <class L>
SATURN_INLINE typename L::U32 alloc_vc_rank(int vc, int V, bool vc_rr, typename L::U32 rr_vc) {
  if (!vc_rr) return L::u32(static_cast<uint32_t>(V - 1 - vc));
  const typename L::U32 r = static_cast<uint32_t>(vc + V) - rr_vc;
  return L::sel(r >= static_cast<uint32_t>(V), r - static_cast<uint32_t>(V), r);
}

// The 11-bit rank of a request from its VC's rank (4 bits) and its port's (7 bits): the VC first
// where VCs are classes (switch.vc_allocation = fixed: priority classes, SLs), the port first under
// per_hop, where a VC is only one of an input's buffers and the pointers over ports (in_rr, out_rr)
// keep the inputs' choices apart as iSLIP's do (BookSim2's switch allocator: round-robin over ports).
template <class L>
SATURN_INLINE typename L::U32 alloc_class_rank(const ModelParams& m, typename L::U32 vc_rank, typename L::U32 port_rank) {
  return m.vc_per_hop ? (port_rank << 4) | vc_rank : (vc_rank << 7) | port_rank;
}

// Distance from pointer rr to x on a ring of n (x in [0, n), rr in [0, n)).
template <class L>
SATURN_INLINE typename L::U32 alloc_ring_rank(int x, int n, typename L::U32 rr) {
  const typename L::U32 r = static_cast<uint32_t>(x + n) - rr;
  return L::sel(r >= static_cast<uint32_t>(n), r - static_cast<uint32_t>(n), r);
}

// Fills match_in[o] / match_vc[o] (local input and VC output o grants, -1 = none) and match_first[o]
// (granted in the first iteration). idle[o]: lanes where output o may grant (idle, connected and
// wanted); read_ports[i] is decremented per match; fifo_ready: input_fifo.hpp's head ready cycles,
// nullptr for VOQ inputs.
template <class L, int kVcs>
SATURN_INLINE void separable_input_first(const EngineView& v, int base, int radix, int t0, uint32_t c,
                                         const uint64_t* wants, uint64_t wanted, const typename L::M* idle,
                                         typename L::I32* read_ports, const typename L::U32* fifo_ready,
                                         typename L::I32* match_in, typename L::I32* match_vc,
                                         typename L::M* match_first) {
  using U32 = typename L::U32;
  using I32 = typename L::I32;
  using M = typename L::M;
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials;
  const int V = kVcs > 0 ? kVcs : m.vcs;
  const bool fcfs = m.arbitration != Arbitration::kRoundRobin;
  const U32 seeds = fcfs ? tie_seeds<L>(v, t0) : L::u32(0);  // a head's tie may follow from its ready cycle (voq.hpp)
  const bool vc_rr = m.vc_arbitration == VcArbitration::kRoundRobin;
  const int iterations = m.allocator_iterations > 0 ? m.allocator_iterations : 1;
  const bool cioq = cioq_on(m);

  M free_out[kMaxRadix];
  for (int o = 0; o < radix; ++o) {
    match_in[o] = L::i32(-1);
    match_vc[o] = L::i32(0);
    match_first[o] = L::mask(false);
    free_out[o] = idle[o];
  }
  I32 choice_o[kMaxRadix], choice_vc[kMaxRadix];
  for (int it = 0; it < iterations; ++it) {
    // 1. Input stage: each input's best request to a free output.
    uint64_t picked = 0;  // outputs some input picked in some lane
    for (int i = 0; i < radix; ++i) {
      choice_o[i] = L::i32(-1);
      choice_vc[i] = L::i32(0);
      const uint64_t cand = wants[i] & wanted;
      const M can = read_ports[i] > 0;
      if (cand == 0 || L::none(can)) continue;
      const int gpi = base + i;
      const U32 rr = L::load(s.in_rr + at(gpi, t0, T));
      U32 best = L::u32(~0u);
      for (uint64_t b = cand; b != 0; b &= b - 1) {
        const int o = lowest_bit(b);
        const M open = can & free_out[o];
        if (L::none(open)) continue;
        const int go = base + o;
        const bool to_switch = v.net.peer_type[go] == static_cast<uint8_t>(PeerType::kSwitch);
        const U32 out_rank = alloc_ring_rank<L>(o, radix, rr);
        const U32 rr_vc = vc_rr ? L::load(s.out_vc_rr + at(go, t0, T)) : L::u32(0);
        const int64_t q0 = voq_index(m, gpi, o, 0);
        for (int vc = 0; vc < V; ++vc) {
          const U32 ready = L::load(s.voq_ready + at(q0 + vc, t0, T));
          M ok = open & (ready <= c);
          if (fifo_ready != nullptr) ok = ok & (ready == fifo_ready[i * V + vc]);
          if (L::none(ok)) continue;
          if (to_switch)
            ok = head_fits_credits<L>(v, gpi, q0 + vc, t0, ok, head_credits<L>(m, s.out_credits, go, vc, t0, V));
          if (cioq)  // output queues: room in the VC's queue (an output grants once a cycle, so it holds)
            ok = ok & ((L::load(s.oq_ends + at(oq_queue(m, go, vc), t0, T)) >> 16) < static_cast<uint32_t>(m.oq_packets));
          const U32 rank = alloc_class_rank<L>(m, alloc_vc_rank<L>(vc, V, vc_rr, rr_vc), out_rank);
          const M better = ok & (rank < best);
          best = L::sel(better, rank, best);
          choice_o[i] = L::sel(better, L::i32(o), choice_o[i]);
          choice_vc[i] = L::sel(better, L::i32(vc), choice_vc[i]);
        }
      }
      for (uint32_t b = L::bits(choice_o[i] >= 0); b != 0; b &= b - 1) picked |= 1ull << L::get(choice_o[i], lowest_bit(b));
    }
    if (picked == 0) break;  // nothing left to match in any lane

    // 2. Output stage: each picked output grants the best of the inputs that picked it. The key is
    // the greedy allocator's: [VC rank : 4][input rank : 7][ready >> 11] and [ready : 11][tie : 21]
    // (per_hop: [input rank : 7][VC rank : 4], alloc_class_rank).
    for (uint64_t b = picked; b != 0; b &= b - 1) {
      const int o = lowest_bit(b);
      const int go = base + o;
      const U32 rr_vc = vc_rr ? L::load(s.out_vc_rr + at(go, t0, T)) : L::u32(0);
      U32 rr_in[kVcs > 0 ? kVcs : kMaxVcs];  // round-robin among inputs from each VC's own pointer (out_rr_index)
      for (int vc = 0; vc < V; ++vc) rr_in[vc] = fcfs ? L::u32(0) : L::load(s.out_rr + out_rr_index(m, go, vc, t0));
      U32 best_hi = L::u32(~0u), best_lo = L::u32(~0u);
      I32 best_in = L::i32(-1), best_vc = L::i32(0);
      for (int i = 0; i < radix; ++i) {
        const M chose = choice_o[i] == o;
        if (L::none(chose)) continue;
        const int64_t q0 = voq_index(m, base + i, o, 0);
        for (int vc = 0; vc < V; ++vc) {
          const M ok = chose & (choice_vc[i] == vc);
          if (L::none(ok)) continue;
          const int64_t qi = at(q0 + vc, t0, T);
          const U32 ready = L::load(s.voq_ready + qi);
          const U32 tie = fcfs ? head_tie_lanes<L>(v, base + i, qi, ready, seeds) & 0x1FFFFFu : L::u32(0);
          const U32 input_rank = fcfs ? L::u32(0) : alloc_ring_rank<L>(i, radix, rr_in[vc]);
          const U32 rank = alloc_class_rank<L>(m, alloc_vc_rank<L>(vc, V, vc_rr, rr_vc), input_rank);
          const U32 hi = (rank << 21) | (ready >> 11), lo = (ready << 21) | tie;
          const M better = ok & ((hi < best_hi) | ((hi == best_hi) & (lo < best_lo)));
          best_hi = L::sel(better, hi, best_hi);
          best_lo = L::sel(better, lo, best_lo);
          best_in = L::sel(better, L::i32(i), best_in);
          best_vc = L::sel(better, L::i32(vc), best_vc);
        }
      }
      const M granted = best_in >= 0;
      match_in[o] = L::sel(granted, best_in, match_in[o]);
      match_vc[o] = L::sel(granted, best_vc, match_vc[o]);
      if (it == 0) match_first[o] = granted;
      free_out[o] = free_out[o] & L::mnot(granted);
      for (uint32_t g = L::bits(granted); g != 0; g &= g - 1) {
        const int l = lowest_bit(g);
        const int i = L::get(best_in, l);
        L::set(read_ports[i], l, L::get(read_ports[i], l) - 1);
      }
    }
  }
}

}  // namespace saturn
