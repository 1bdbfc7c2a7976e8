// Switch phase 2, "request, grant and departure", for one switch and a lane of trials, after
// switch_inputs.hpp: the request scan of the greedy allocator (switch.allocator = greedy, the
// default: a maximal matching built output by output). Every idle output takes the best eligible
// VOQ head (output_key.hpp: VC class, then FCFS by header arrival with hashed ties, or round-robin
// over inputs), subject to the input's read ports (crossbar speedup) and the downstream credits of
// the packet's VC. Outputs grant in a rotating order, each taking the best head among the inputs
// that still have a read port: the same choice as a scan of every input with a port left at the
// start, then a rescan for an output whose choice has used its last port on an earlier output (an
// output's first choice, if its input still has a port, is also the best of the smaller set). Winners go on
// the link (switch_depart.hpp: one slot written per output every cycle); a 1-flit packet's credit
// goes back in this very cycle.
// The search reads only the cached head keys (kernels/state/voq.hpp), R x R x V contiguous lane
// loads (a head's size only where its output has fewer credits than the largest packet), and
// compares the 64-bit key as two 32-bit halves so that every lane mask stays 32-bit. A head short
// of credits with a smaller packet behind it (mixed sizes only) is looked up lane by lane.
// Models PAPERS-SPEC M7 (input-buffered, shared VOQ buffer, FCFS, infinite speedup), M8's speedup
// 1 and FIFO with bounded bypass, M11 (credit VCT: credits return as the tail leaves) and M12 (VC
// priority classes).
// The arbitration policies other than the key live apart, and this scan hands over to them:
//   - round-robin on one trial (no CCA, one packet size) stops at the first eligible head in rank
//     order (kernels/arbiters/round_robin_first.hpp): the same winner, every key being distinct;
//   - switch.allocator = separable_input_first: the iterative separable allocator
//     (switch_grant_separable.hpp) after the shared request set-up;
//   - switch.input_queue = fifo: only each (input, VC) FIFO's head requests, under either
//     allocator (kernels/arbiters/input_fifo.hpp); the fused step refuses it and the separable
//     allocator, and neither combines with congestion control yet (build_model refuses it);
//   - kCc, FIFO with bounded bypass: outputs grant in age order, per lane (switch_grant_cc.hpp).
// kCc also adds, compiled out when false: CCA's "waited for credits" flag per output (set from the
// candidates of the first scan: the inputs with a read port left at the start of the phase) and ECN / FECN marks on departure (kernels/cc/marking.hpp). With output queues (CIOQ,
// kernels/state/output_queue.hpp) a winner crosses into its output's VC queue instead (the
// output's crossbar port, not its link, must be free, and the queue must have room), and each link
// then takes a queued head (oq_link_depart).
#pragma once
#include <cstdint>

#include "kernels/arbiters/input_fifo.hpp"
#include "kernels/arbiters/round_robin_first.hpp"
#include "kernels/arbiters/vc_allocation.hpp"
#include "kernels/cc/marking.hpp"
#include "kernels/common/bits.hpp"
#include "kernels/common/index.hpp"
#include "kernels/common/prefetch.hpp"
#include "kernels/phases/packet_lanes.hpp"
#include "kernels/phases/switch_depart.hpp"
#include "kernels/phases/switch_grant_cc.hpp"
#include "kernels/phases/switch_grant_separable.hpp"
#include "kernels/state/engine_view.hpp"
#include "kernels/state/output_queue.hpp"
#include "kernels/state/ring_marks.hpp"
#include "kernels/state/voq.hpp"

namespace saturn {

template <class L, int kVcs, bool kCc = false>
SATURN_INLINE void switch_grant(const EngineView& v, int sw, int t0, uint32_t c) {
  using U32 = typename L::U32;
  using I32 = typename L::I32;
  using M = typename L::M;
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials;
  const int V = kVcs > 0 ? kVcs : m.vcs;
  const int base = v.net.sw_port_base[sw];
  const int radix = v.net.sw_port_base[sw + 1] - base;
  const int wslot = static_cast<int>(c % static_cast<uint32_t>(m.link_depth));  // uniform rings (link_ring.hpp)
  const bool fcfs = m.arbitration != Arbitration::kRoundRobin;
  const bool vc_rr = m.vc_arbitration == VcArbitration::kRoundRobin;
  if (kCc && m.arbitration == Arbitration::kFifoBypass) {  // the grant order differs per lane
    switch_grant_by_age_lanes<L, kVcs>(v, sw, t0, c);
    return;
  }
  const bool cca = kCc && m.cc.cca;
  const bool marks = kCc && cc_departure_hook(m);

  // Outputs that may grant: idle in some lane, and wanted by some input of some lane.
  uint64_t wants[kMaxRadix];
  uint64_t wanted = 0;
  for (int i = 0; i < radix; ++i) {
    const int64_t gi = at(base + i, t0, T);
    wants[i] = L::or_lanes(L::load(s.in_voq_lo + gi));
    if (m.max_radix > 32) wants[i] |= static_cast<uint64_t>(L::or_lanes(L::load(s.in_voq_hi + gi))) << 32;
    wanted |= wants[i];
  }
  // An output may take a packet while its crossbar port is free: the port is its link, or with
  // output queues the crossbar's own (output_queue.hpp).
  const bool cioq = cioq_on(m);
  const uint32_t* xbar_until = xbar_busy_until(v);
  M idle[kMaxRadix];
  for (int o = 0; o < radix; ++o) {
    idle[o] = L::mask(false);
    if (v.net.peer_type[base + o] == static_cast<uint8_t>(PeerType::kNone) || !((wanted >> o) & 1u)) continue;
    idle[o] = L::load(xbar_until + at(base + o, t0, T)) <= c;
    if (L::none(idle[o])) wanted &= ~(1ull << o);
  }
  if (wanted == 0) {  // no output of any lane can grant: the links carry only what the output queues hold
    for (int o = 0; o < radix; ++o) {
      const int go = base + o;
      if (v.net.peer_type[go] == static_cast<uint8_t>(PeerType::kNone)) continue;
      PacketLanes<L> sent{};
      output_send<L>(v, go, t0, c, wslot, sent);
    }
    return;
  }
  // The search's head keys, prefetched for a pack only: for one trial the prefetch loop cost more
  // than the misses it hid, on every fabric measured (bench/RESULTS.md, eighth session: one trial
  // of fat_tree_4096, DF-1056, rlft_432, Zdornov Fig. 6 and Rocher Fig. 6 ran 6-11% faster without).
  if (L::kWidth > 1) prefetch_grant_heads<L>(v, base, radix, t0, wants, wanted);
  // Read ports left per input: the speedup less the outputs still sending its packets.
  I32 read_ports[kMaxRadix];
  for (int i = 0; i < radix; ++i) read_ports[i] = L::i32(m.speedup == 0 ? kMaxRadix : m.speedup);
  if (m.speedup != 0)
    for (int o = 0; o < radix; ++o) {
      const U32 src = L::load(s.out_src + at(base + o, t0, T));
      const M sending = src != kNoSource;
      if (L::none(sending)) continue;
      const U32 in = L::sel(sending, src >> 16, L::u32(kMaxRadix));
      for (int i = 0; i < radix; ++i) read_ports[i] = read_ports[i] - L::sel(in == static_cast<uint32_t>(i), L::i32(1), L::i32(0));
    }
  // FIFO inputs: only the head of each (input, VC) FIFO may request (input_fifo.hpp).
  const bool fifo = m.input_queue == InputQueue::kFifo;
  U32 fifo_ready[kMaxRadix * (kVcs > 0 ? kVcs : kMaxVcs)];
  if (fifo) fifo_head_ready<L, kVcs>(v, base, radix, t0, wants, fifo_ready);
  if (m.allocator == Allocator::kSeparableInputFirst) {
    switch_grant_separable<L, kVcs>(v, base, radix, t0, c, wslot, wants, wanted, idle, read_ports,
                                    fifo ? fifo_ready : nullptr);
    return;
  }
  I32 read_ports0[kMaxRadix];  // CCA: at the start of the phase (the inputs the fused first scan visits)
  if (cca)
    for (int i = 0; i < radix; ++i) read_ports0[i] = read_ports[i];

  const U32 seeds = fcfs ? tie_seeds<L>(v, t0) : L::u32(0);  // a head's tie may follow from its ready cycle (voq.hpp)
  // One trial under round-robin: the first eligible head in rank order (rr_first_eligible).
  const bool rr_first = L::kWidth == 1 && !fcfs && !cca && !m.mixed_sizes;
  // One trial (no CCA, departure marks or speculative protocol): every output chooses
  // first, prefetching its winner's entry, and the departures follow in the same output order, so
  // that the cache misses of a switch's winners overlap instead of following one another (the load
  // of the winner's packet was a fifth of this phase on the 432-node RLFT). The search only reads,
  // and a departure writes only its own output's and FIFO's state (and its input's free list and
  // credit channel, read by no search), so the bits are the same. CPU only, as switch_inputs' pushes.
#if defined(__CUDA_ARCH__)
  constexpr bool kMayDefer = false;
#else
  constexpr bool kMayDefer = L::kWidth == 1;
#endif
  const bool defer_depart = kMayDefer && !m.cc.speculative && !cca && !marks;
  struct DeferredGrant {
    int o, i, vc, e, prev;
    bool to_switch;
  };
  DeferredGrant deferred[kMayDefer ? kMaxRadix : 1];
  int n_deferred = 0;
  // The inputs that want each output (wants transposed, CPU): the search visits only those, in the
  // ascending order of a scan of every input. That scan, radix x radix tests per switch each a
  // branch on an unpredictable bit, was a fifth of this phase for one trial of the 4096-node tree.
  // (On the GPU the array would add to each thread's local memory: it scans.)
#if defined(__CUDA_ARCH__)
  constexpr bool kTransposed = false;
#else
  constexpr bool kTransposed = true;
#endif
  uint64_t wanted_by[kTransposed ? kMaxRadix : 1];
  if constexpr (kTransposed) {
    for (int o = 0; o < radix; ++o) wanted_by[o] = 0;
    if (!rr_first)
      for (int i = 0; i < radix; ++i)
        for (uint64_t w = wants[i] & wanted; w != 0; w &= w - 1) wanted_by[lowest_bit(w)] |= 1ull << i;
  }
  const uint64_t every_input = radix >= 64 ? ~0ull : (1ull << radix) - 1;
  int o = static_cast<int>(c % static_cast<uint32_t>(radix));
  for (int n = 0; n < radix; ++n, o = o + 1 == radix ? 0 : o + 1) {
    const int go = base + o;
    if (v.net.peer_type[go] == static_cast<uint8_t>(PeerType::kNone)) continue;
    PacketLanes<L> sent{};
    if ((wanted >> o) & 1u) {
      const bool to_switch = v.net.peer_type[go] == static_cast<uint8_t>(PeerType::kSwitch);
      const U32 rr_vc = vc_rr ? L::load(s.out_vc_rr + at(go, t0, T)) : L::u32(0);
      U32 rr_in[kVcs > 0 ? kVcs : kMaxVcs];  // round-robin among inputs from each VC's own pointer (out_rr_index)
      for (int vc = 0; vc < V; ++vc) rr_in[vc] = fcfs ? L::u32(0) : L::load(s.out_rr + out_rr_index(m, go, vc, t0));
      I32 credits[kVcs > 0 ? kVcs : kMaxVcs];
      for (int vc = 0; vc < V; ++vc)
        credits[vc] = !to_switch ? L::i32(0) : L::load_i32(s.out_credits + at(static_cast<int64_t>(go) * V + vc, t0, T));
      if (m.vc_per_hop && to_switch) {  // a head may take any free VC of the link (vc_allocation.hpp)
        const I32 any = per_hop_credits<L>(m, credits, V);
        for (int vc = 0; vc < V; ++vc) credits[vc] = any;
      }
      M queue_room[kVcs > 0 ? kVcs : kMaxVcs];  // output queues: the VC's queue has room for a packet
      if (cioq)
        for (int vc = 0; vc < V; ++vc)
          queue_room[vc] = (L::load(s.oq_ends + at(oq_queue(m, go, vc), t0, T)) >> 16) < static_cast<uint32_t>(m.oq_packets);
      // Best key so far as two 32-bit halves: [VC rank : 4][input rank : 7][ready >> 11] and
      // [ready : 11 low bits][tie : 21] (output_key.hpp's layout).
      U32 best_hi = L::u32(~0u), best_lo = L::u32(~0u);
      I32 best_in = L::i32(-1), best_vc = L::i32(0), best_e = L::i32(-1), best_prev = L::i32(kNoEntry);
      M stalled = L::mask(false);
      if constexpr (L::kWidth == 1) {
        if (rr_first)
          best_in = rr_first_eligible<kVcs>(v, base, radix, o, t0, c, wants, read_ports, rr_vc, rr_in, credits,
                                            cioq ? queue_room : nullptr, fifo ? fifo_ready : nullptr, to_switch,
                                            &best_vc);
      }
      for (uint64_t inputs = rr_first ? 0 : kTransposed ? wanted_by[o] : every_input; inputs != 0;
           inputs &= inputs - 1) {
        const int i = lowest_bit(inputs);
        if (!kTransposed && !((wants[i] >> o) & 1u)) continue;
        const M can = idle[o] & (read_ports[i] > 0);
        const M visit = cca ? L::mand(idle[o], read_ports0[i] > 0) : can;
        if (L::none(visit)) continue;
        const int gpi = base + i;
        const int64_t q0 = voq_index(m, gpi, o, 0);
        // Only FIFOs that hold a packet in some lane (an empty one's head is never ready).
        for (uint32_t vcs = voq_vcs_any<L>(s, m, gpi, o, t0); vcs != 0; vcs &= vcs - 1) {
          const int vc = lowest_bit(vcs);
          const int64_t qi = at(q0 + vc, t0, T);
          const U32 ready = L::load(s.voq_ready + qi);
          M ready_now = visit & (ready <= c);
          if (fifo) ready_now = ready_now & (ready == fifo_ready[i * V + vc]);
          if (cioq) ready_now = ready_now & queue_room[vc];
          if (L::none(ready_now)) continue;
          M ok = can & ready_now;
          M short_of_credits = L::mask(false);
          if (to_switch) {
            // Credits for the largest packet fit any head; below that, read the head's size.
            M fits = credits[vc] >= max_packet_flits(m);
            const uint32_t check = L::bits(ready_now & L::mnot(fits));
            alignas(64) int32_t lane_credits[L::kWidth];  // lanes from an array (see the winners below)
            if (check != 0 || (cca && m.mixed_sizes)) L::store_i32(lane_credits, credits[vc]);
            if (check != 0) {
              uint32_t head_fits = 0;
              for (uint32_t b = check; b != 0; b &= b - 1) {
                const int l = lowest_bit(b);
                if (voq_head_size(v, gpi, q0 + vc, t0 + l) <= lane_credits[l]) head_fits |= 1u << l;
              }
              fits = L::mor(fits, L::from_bits(head_fits));
            }
            if (cca) {  // waiting for credits: the head, or with mixed sizes any ready packet behind it
              stalled = L::mor(stalled, L::mand(ready_now, L::mnot(fits)));
              if (m.mixed_sizes) {
                uint32_t short_behind = 0;
                for (uint32_t b = L::bits(L::mand(ready_now, fits)); b != 0; b &= b - 1) {
                  const int l = lowest_bit(b);
                  if (voq_any_short(v, gpi, q0 + vc, t0 + l, c, lane_credits[l])) short_behind |= 1u << l;
                }
                stalled = L::mor(stalled, L::from_bits(short_behind));
              }
            }
            short_of_credits = ok & L::mnot(fits);
            ok = ok & fits;
          }
          if (L::none(ok) && L::none(short_of_credits)) continue;
          U32 vc_rank;
          if (vc_rr) {
            const U32 r = static_cast<uint32_t>(vc + V) - rr_vc;
            vc_rank = L::sel(r >= static_cast<uint32_t>(V), r - static_cast<uint32_t>(V), r);
          } else {
            vc_rank = L::u32(static_cast<uint32_t>(V - 1 - vc));
          }
          const U32 input_rank = fcfs ? L::u32(0) : alloc_ring_rank<L>(i, radix, rr_in[vc]);
          const U32 rank = (vc_rank << 7) | input_rank;
          const U32 tie = fcfs ? head_tie_lanes<L>(v, gpi, qi, ready, seeds) & 0x1FFFFFu : L::u32(0);
          const U32 hi = (rank << 21) | (ready >> 11), lo = (ready << 21) | tie;
          const M better = ok & ((hi < best_hi) | ((hi == best_hi) & (lo < best_lo)));
          best_hi = L::sel(better, hi, best_hi);
          best_lo = L::sel(better, lo, best_lo);
          best_in = L::sel(better, L::i32(i), best_in);
          best_vc = L::sel(better, L::i32(vc), best_vc);
          best_e = L::sel(better, L::i32(-1), best_e);
          if (!m.mixed_sizes || fifo) continue;  // a FIFO head is never bypassed
          // A head short of credits: the first packet behind it that fits, lane by lane.
          for (uint32_t b = L::bits(short_of_credits); b != 0; b &= b - 1) {
            const int l = lowest_bit(b);
            const int t = t0 + l;
            int prev = kNoEntry;
            const int e = voq_find_fit(v, gpi, q0 + vc, t, c, L::get(credits[vc], l), &prev);
            if (e == kNoEntry) continue;
            const int64_t ei = at(entry_index(v, gpi, e), t, T);
            const uint32_t r = s.ent_time[ei], x = fcfs ? entry_tie(v, gpi, ei, t) & 0x1FFFFFu : 0u;
            const uint32_t h = (L::get(rank, l) << 21) | (r >> 11), lw = (r << 21) | x;
            const uint32_t bh = L::get(best_hi, l), bl = L::get(best_lo, l);
            if (h < bh || (h == bh && lw < bl)) {
              L::set(best_hi, l, h);
              L::set(best_lo, l, lw);
              L::set(best_in, l, i);
              L::set(best_vc, l, vc);
              L::set(best_e, l, e);
              L::set(best_prev, l, prev);
            }
          }
        }
      }
      if (cca && L::any(stalled)) L::store_if(stalled, s.cc.out_stalled + at(go, t0, T), L::u32(1));
      // The winners lane by lane, from plain arrays: a lane read from (or written into) a vector goes
      // through the stack, and a whole-vector load of lanes just written one by one stalls on store
      // forwarding (measured: most of the grant's time on a pack). Without output queues the
      // packets go straight into the link row, and the row's marks are the lanes granted.
      const uint32_t granted = L::bits(best_in >= 0);
      if (kMayDefer && defer_depart && granted != 0) {
        const int i = L::get(best_in, 0), vc = L::get(best_vc, 0), e = L::get(best_e, 0);
        const int head = e < 0 ? voq_head(v, voq_index(m, base + i, o, vc), t0) : e;
        const int64_t hi = at(entry_index(v, base + i, head), t0, T);
        prefetch_read(s.ent_pkt + hi);
        prefetch_read(s.ent_next + hi);
        deferred[n_deferred++] = DeferredGrant{o, i, vc, head, e < 0 ? kNoEntry : L::get(best_prev, 0), to_switch};
        if (m.speedup != 0) read_ports[i] = read_ports[i] - 1;
        continue;
      }
      const bool direct = !cioq && L::kWidth > 1;  // a pack without output queues: straight into the row
      const int64_t row_at = at(ring_slot(v, go, c, wslot), t0, T);
      Packet* row = s.link + row_at;
      if (direct) store_mark_bits<L>(s.link_mark + row_at, granted);
      if (granted == 0) {
        if (!direct) output_send<L>(v, go, t0, c, wslot, sent);
        continue;
      }
      alignas(64) int32_t win_in[L::kWidth], win_vc[L::kWidth], win_e[L::kWidth], win_prev[L::kWidth];
      L::store_i32(win_in, best_in);
      L::store_i32(win_vc, best_vc);
      L::store_i32(win_e, best_e);
      L::store_i32(win_prev, best_prev);
      uint64_t inputs_granted = 0;
      for (uint32_t b = granted; b != 0; b &= b - 1) {
        const int l = lowest_bit(b);
        const int i = win_in[l];
        const int e = win_e[l];
        Packet pk = grant_depart<L, kVcs>(v, base, radix, o, i, win_vc[l], e, e < 0 ? kNoEntry : win_prev[l], t0 + l, c,
                                          wslot, to_switch);
        if (marks) cc_departure(v, go, pk, t0 + l);
        inputs_granted |= 1ull << i;
        if (cioq) oq_push(v, go, win_vc[l], pk, t0 + l);  // the VC its credits were taken on
        else if (direct) row[l] = pk;
        else sent.set_lane(l, pk);
      }
      // A read port less at each granting input, in the lanes it granted (with unlimited speedup
      // the ports never run out within one cycle: an input has kMaxRadix >= radix of them).
      if (m.speedup != 0)
        for (uint64_t g = inputs_granted; g != 0; g &= g - 1) {
          const int i = lowest_bit(g);
          read_ports[i] = read_ports[i] - L::sel(best_in == i, L::i32(1), L::i32(0));
        }
      if (direct) continue;  // the row is written
    }
    output_send<L>(v, go, t0, c, wslot, sent);
  }
  if (n_deferred == 0) return;
  // The FIFOs' next heads, whose keys the departures cache (voq_remove), one level further.
  for (int k = 0; k < n_deferred; ++k) {
    const DeferredGrant& d = deferred[k];
    if (d.prev != kNoEntry) continue;
    const int next = s.ent_next[at(entry_index(v, base + d.i, d.e), t0, T)];
    if (next == kNoEntry) continue;
    prefetch_read(s.ent_time + at(entry_index(v, base + d.i, next), t0, T));
    if (ties_stored(m)) prefetch_read(s.ent_tie + at(entry_index(v, base + d.i, next), t0, T));
  }
  for (int k = 0; k < n_deferred; ++k) {
    const DeferredGrant& d = deferred[k];
    const int go = base + d.o;
    PacketLanes<L> sent{};
    const Packet pk = grant_depart<L, kVcs>(v, base, radix, d.o, d.i, d.vc, d.e, d.prev, t0, c, wslot, d.to_switch);
    if (cioq) oq_push(v, go, d.vc, pk, t0);
    else sent.set_lane(0, pk);
    output_send<L>(v, go, t0, c, wslot, sent);
  }
}

}  // namespace saturn
