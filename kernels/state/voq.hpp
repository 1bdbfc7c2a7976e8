// Switch input buffers as VOQ FIFOs with cached head keys: the one-trial operations every step
// path shares (the fused step, the phases per lane, the invariants and the marking).
//
// Representation (columns in state_columns.def):
//   - Each input port gp has a pool of P = ModelParams::entries packet entries (as many packets of
//     the smallest size as its buffer holds, at most kMaxPortPackets = 65535 so that an entry index
//     fits 16 bits with 0xFFFF = kNoEntry). An entry holds the packet, its ready cycle and its FCFS
//     tie, and a 16-bit `next` link. Entries 0-31 are taken lowest free first from a bit mask
//     (in_free_lo): the trials of a pack then tend to use the same entries, whose columns share
//     cache lines. Entries from 32 on form a free list through `next`, plus a high-water mark
//     (entries from there on were never used), both in in_alloc, so every column starts as one
//     constant.
//   - Per (input gp, local output o, VC) a FIFO of entries: head and tail (voq_ends), and a copy
//     of the head's ready cycle and tie (voq_ready is kEmptyReady when the FIFO is empty), so the
//     grant reads R x R x V contiguous head keys and not the entries. The head's size is read from
//     its entry only when the output has fewer credits than the largest packet. in_voq_lo/hi[gp]
//     have bit o set while any VC's FIFO (gp, o) holds a packet, and voq_vcs[gp * R + o] bit vc
//     while FIFO (gp, o, vc) does, so the grant reads only the heads of FIFOs that hold packets
//     (the dragonfly's 8 VCs: most of an input's FIFOs for an output are empty).
//   - Fields read together share a 32-bit word: with trial-minor columns a 16-trial pack of a
//     uint32 column is exactly one cache line, and the step is bound by the lines it touches.
//   - A packet being sent is off its FIFO but keeps its entry until its tail has left (credits go
//     back as the tail leaves, M11). Its output records it (out_src = input << 16 | entry); the
//     output's out_busy_until is the cycle the tail has left, so the input side of the next steps
//     finds the entries to free and the credits to return by reading its switch's outputs, and an
//     input's read ports in use (crossbar speedup) are the outputs sending from it.
// Why FIFOs give the same results as a scan over all resident packets: within a FIFO ready cycles
// increase strictly (one header arrives per input per cycle, with the same router delay), so the
// head has the smallest key of its FIFO (output_key.hpp). The one exception is a head short of
// downstream credits while a smaller packet behind it fits: the slot scan took that packet, so
// the grant walks the FIFO for the first one that fits (voq_find_fit) where packet sizes differ
// within a VC (ModelParams::mixed_sizes), and removes it from the middle of its FIFO.
#pragma once
#include <cstdint>

#include "kernels/common/bits.hpp"
#include "kernels/common/hash.hpp"
#include "kernels/common/index.hpp"
#include "kernels/common/prefetch.hpp"
#include "kernels/routing/route_setup.hpp"
#include "kernels/state/engine_view.hpp"

namespace saturn {

SATURN_INLINE int64_t voq_index(const ModelParams& m, int gp, int o, int vc) {
  return (static_cast<int64_t>(gp) * m.max_radix + o) * m.vcs + vc;
}
// The element of voq_vcs for input gp and local output o: the VCs whose FIFO holds a packet.
SATURN_INLINE int64_t voq_vcs_index(const ModelParams& m, int gp, int o) {
  return static_cast<int64_t>(gp) * m.max_radix + o;
}
// The VCs whose FIFO (gp, o, vc) holds a packet in any lane of L from trial t0: the OR of the lanes'
// voq_vcs bytes (kMaxVcs = 8 bits each).
template <class L>
SATURN_INLINE uint32_t voq_vcs_any(const StateView& s, const ModelParams& m, int gp, int o, int t0) {
  const uint8_t* p = s.voq_vcs + at(voq_vcs_index(m, gp, o), t0, m.trials);
  if constexpr (L::kWidth == 1) {
    return *p;
  } else {
    static_assert(L::kWidth % 8 == 0, "voq_vcs_any: lanes in whole 8-byte words");
    uint64_t any = 0;
    for (int w = 0; w < L::kWidth; w += 8) {
      uint64_t word;
      __builtin_memcpy(&word, p + w, 8);
      any |= word;
    }
    any |= any >> 32;
    any |= any >> 16;
    any |= any >> 8;
    return static_cast<uint32_t>(any & 0xFFu);
  }
}
// Output go's round-robin pointer over inputs for VC vc (out_rr): one per VC. A pointer shared by
// the VCs starved inputs: under VC round-robin each grant of one VC moved it past that VC's inputs,
// so the other VC's search restarted at the same place every time and never reached the inputs in
// between (found on the 3456-node RLFT under ARN + AFI, where it froze the whole network).
SATURN_INLINE int64_t out_rr_index(const ModelParams& m, int go, int vc, int t) {
  return at(static_cast<int64_t>(go) * m.vcs + vc, t, m.trials);
}
// Entry e of input gp: pools of P entries each, or (per_port_buffers: VC buffers per link class,
// kernels/state/link_ring.hpp) each port's own pool at in_entry_base[gp], in_entries[gp] long.
SATURN_INLINE int64_t entry_index(const EngineView& v, int gp, int e) {
  if (v.model.per_port_buffers) return static_cast<int64_t>(v.net.in_entry_base[gp]) + e;
  return static_cast<int64_t>(gp) * v.model.entries + e;
}
SATURN_INLINE int port_entries(const EngineView& v, int gp) {
  return v.model.per_port_buffers ? v.net.in_entries[gp] : v.model.entries;
}
// Do the FCFS ties (ent_tie, voq_tie) take part in arbitration? Under round-robin they are never
// read as anything but 0, their initial value, so they are neither written nor copied: a packet's
// arrival and its promotion to the head touch two cache lines fewer (a 432-node RLFT trial's
// entries are megabytes, beyond L2).
SATURN_INLINE bool fcfs_ties_used(const ModelParams& m) { return m.arbitration != Arbitration::kRoundRobin; }
// Are the FCFS ties kept in columns (ent_tie, voq_tie)? A header's tie is tie_hash_of(the trial's
// seed, its input port, its arrival cycle) (switch_inputs.hpp) and its ready cycle is that arrival
// plus the router delay, so the tie follows from the ready cycle (fcfs_tie) and needs no column;
// except under the speculative protocols, whose re-queued packets (lhrp_engine.hpp) take a new
// ready cycle and keep their tie. Without the columns a fat_tree_4096 trial is 3.75 MB smaller and
// the grant's search reads one column fewer (a hash of the ready cycle in place of a cache miss).
SATURN_INLINE bool ties_stored(const ModelParams& m) { return fcfs_ties_used(m) && m.cc.speculative; }
// The FCFS tie of a packet of input gp ready at `ready`, where ties are not stored: the hash its
// arrival drew. seed_low: the trial seed's low 32 bits, per lane.
template <class U>
SATURN_INLINE U fcfs_tie(const ModelParams& m, U seed_low, int gp, U ready) {
  return tie_hash_of<U, U>(seed_low, gp, ready - static_cast<uint32_t>(m.router_delay));
}
// The FCFS tie of entry ei (= at(entry_index(v, gp, e), t, T)) of input gp, stored or derived.
SATURN_INLINE uint32_t entry_tie(const EngineView& v, int gp, int64_t ei, int t) {
  if (ties_stored(v.model)) return v.state.ent_tie[ei];
  return fcfs_tie<uint32_t>(v.model, static_cast<uint32_t>(v.trial.seed[t]), gp, v.state.ent_time[ei]);
}
// The FCFS tie of the head of FIFO qi (= at(voq_index(m, gp, o, vc), t, T)), stored or derived.
SATURN_INLINE uint32_t head_tie(const EngineView& v, int gp, int64_t qi, int t) {
  if (ties_stored(v.model)) return v.state.voq_tie[qi];
  return fcfs_tie<uint32_t>(v.model, static_cast<uint32_t>(v.trial.seed[t]), gp, v.state.voq_ready[qi]);
}
// The same for a lane of trials from t0, whose heads' ready cycles the caller has loaded; seeds:
// tie_seeds<L>(v, t0), read once per grant.
template <class L>
SATURN_INLINE typename L::U32 tie_seeds(const EngineView& v, int t0) {
  return ties_stored(v.model) ? L::u32(0) : L::narrow(L::load64(v.trial.seed + t0));
}
template <class L>
SATURN_INLINE typename L::U32 head_tie_lanes(const EngineView& v, int gp, int64_t qi, typename L::U32 ready,
                                             typename L::U32 seeds) {
  if (ties_stored(v.model)) return L::load(v.state.voq_tie + qi);
  return fcfs_tie<typename L::U32>(v.model, seeds, gp, ready);
}

// The largest packet of the model: credits at least this large fit any head.
SATURN_INLINE int32_t max_packet_flits(const ModelParams& m) {
  return m.mtu_flits > m.cc.ack_flits ? m.mtu_flits : m.cc.ack_flits;
}
// Is pk smaller than the model's largest packet? voq_small counts such packets per FIFO.
SATURN_INLINE bool is_small_packet(const ModelParams& m, const Packet& pk) {
  return static_cast<int32_t>(pk.size_flits()) < max_packet_flits(m);
}

// Outputs for which input gp (element gi = at(gp, t, T)) holds packets.
SATURN_INLINE uint64_t voq_outputs(const EngineView& v, int64_t gi) {
  const uint64_t lo = v.state.in_voq_lo[gi];
  return v.model.max_radix > 32 ? lo | static_cast<uint64_t>(v.state.in_voq_hi[gi]) << 32 : lo;
}
SATURN_INLINE void voq_mark_output(const EngineView& v, int64_t gi, int o, bool on) {
  uint32_t* word = o < 32 ? v.state.in_voq_lo + gi : v.state.in_voq_hi + gi;
  const uint32_t bit = 1u << (o & 31);
  *word = on ? *word | bit : *word & ~bit;
}

// Entries 0-31 that exist in a pool of `entries` (bits of in_free_lo).
SATURN_INLINE uint32_t low_entries(int entries) { return entries >= 32 ? ~0u : (1u << entries) - 1u; }

// Takes a free entry of input gp for trial t; kNoEntry when the pool is exhausted.
SATURN_INLINE int voq_alloc(const EngineView& v, int gp, int t) {
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials;
  const int64_t gi = at(gp, t, T);
  const uint32_t low = s.in_free_lo[gi];
  const int entries = port_entries(v, gp);
  if ((low & low_entries(entries)) != 0) {
    const int e = lowest_bit(low & low_entries(entries));
    s.in_free_lo[gi] = low & ~(1u << e);
    return e;
  }
  if (entries <= 32) return kNoEntry;
  const uint32_t a = s.in_alloc[gi];
  const int e = static_cast<int>(a & 0xFFFFu);
  if (e != kNoEntry) {
    s.in_alloc[gi] = (a & 0xFFFF0000u) | s.ent_next[at(entry_index(v, gp, e), t, T)];
    return e;
  }
  const int fresh = 32 + static_cast<int>(a >> 16);
  if (fresh >= entries) return kNoEntry;
  s.in_alloc[gi] = static_cast<uint32_t>(fresh - 31) << 16 | kNoEntry;
  return fresh;
}

// Puts entry e of input gp back: on the mask (e < 32) or on the free list.
SATURN_INLINE void voq_release(const EngineView& v, int gp, int e, int t) {
  const StateView& s = v.state;
  const int T = v.model.trials;
  const int64_t gi = at(gp, t, T);
  if (e < 32) {
    s.in_free_lo[gi] |= 1u << e;
    return;
  }
  const uint32_t a = s.in_alloc[gi];
  s.ent_next[at(entry_index(v, gp, e), t, T)] = static_cast<uint16_t>(a & 0xFFFFu);
  s.in_alloc[gi] = (a & 0xFFFF0000u) | static_cast<uint32_t>(e);
}

// CPU: start the loads voq_push(v, gp, o, vc, ...) will make of the FIFO's ends and head key and of
// the VCs in use (the lines that miss: a large network's VOQ columns are megabytes).
SATURN_INLINE void prefetch_voq_push(const EngineView& v, int gp, int o, int vc, int t) {
  const ModelParams& m = v.model;
  const int64_t q = at(voq_index(m, gp, o, vc), t, m.trials);
  prefetch_write(v.state.voq_ends + q);
  prefetch_write(v.state.voq_ready + q);
  if (ties_stored(m)) prefetch_write(v.state.voq_tie + q);
  prefetch_write(v.state.voq_vcs + at(voq_vcs_index(m, gp, o), t, m.trials));
}

// CPU: start the loads of a grant's search (switch_grant.hpp) for the inputs base .. base + radix - 1:
// the head keys (voq_ready, and voq_tie where stored) of every FIFO that holds a packet toward an
// output that may grant (wants[i] & wanted), after each input's voq_vcs row. The search reads them
// output by output, and each was a cache miss in turn (the dragonfly's VOQ columns are R x R x V per
// switch: a pack's head key is a line of its own). Loads only; nothing the search computes changes.
template <class L>
SATURN_INLINE void prefetch_grant_heads(const EngineView& v, int base, int radix, int t0, const uint64_t* wants,
                                        uint64_t wanted) {
#if !defined(__CUDA_ARCH__)
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials;
  for (int i = 0; i < radix; ++i) {
    if ((wants[i] & wanted) == 0) continue;
    const char* row = reinterpret_cast<const char*>(s.voq_vcs + at(voq_vcs_index(m, base + i, 0), t0, T));
    const int bytes = radix * L::kWidth;
    for (int b = 0; b < bytes; b += 64) prefetch_read(row + b);
    prefetch_read(row + bytes - 1);
  }
  const bool ties = ties_stored(m);
  constexpr int kLast = (L::kWidth - 1) * 4;  // a pack's key spans 64 bytes, maybe two lines
  for (int i = 0; i < radix; ++i)
    for (uint64_t w = wants[i] & wanted; w != 0; w &= w - 1) {
      const int o = lowest_bit(w);
      const int64_t q0 = voq_index(m, base + i, o, 0);
      for (uint32_t vcs = voq_vcs_any<L>(s, m, base + i, o, t0); vcs != 0; vcs &= vcs - 1) {
        const int64_t qi = at(q0 + lowest_bit(vcs), t0, T);
        const char* ready = reinterpret_cast<const char*>(s.voq_ready + qi);
        prefetch_read(ready);
        if (kLast > 0) prefetch_read(ready + kLast);
        if (L::kWidth == 1) prefetch_read(s.voq_ends + qi);  // the winner's head: its entry (switch_grant.hpp)
        if (!ties) continue;
        const char* tie = reinterpret_cast<const char*>(s.voq_tie + qi);
        prefetch_read(tie);
        if (kLast > 0) prefetch_read(tie + kLast);
      }
    }
#else
  (void)v, (void)base, (void)radix, (void)t0, (void)wants, (void)wanted;
#endif
}

// Appends entry e (its packet, ready cycle and tie already written) to FIFO (gp, o, vc).
SATURN_INLINE void voq_push(const EngineView& v, int gp, int o, int vc, int e, int t, uint32_t ready, uint32_t tie) {
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials;
  const int64_t q = at(voq_index(m, gp, o, vc), t, T);
  s.ent_next[at(entry_index(v, gp, e), t, T)] = kNoEntry;
  const uint32_t ends = s.voq_ends[q];
  const int tail = static_cast<int>(ends >> 16);
  if (tail == kNoEntry) {
    s.voq_ends[q] = static_cast<uint32_t>(e) * 0x10001u;  // head = tail = e
    s.voq_ready[q] = ready;
    if (ties_stored(m)) s.voq_tie[q] = tie;
    s.voq_vcs[at(voq_vcs_index(m, gp, o), t, T)] |= static_cast<uint8_t>(1u << vc);
    voq_mark_output(v, at(gp, t, T), o, true);
  } else {
    s.ent_next[at(entry_index(v, gp, tail), t, T)] = static_cast<uint16_t>(e);
    s.voq_ends[q] = (ends & 0xFFFFu) | static_cast<uint32_t>(e) << 16;
  }
  if (m.mixed_sizes && is_small_packet(m, s.ent_pkt[at(entry_index(v, gp, e), t, T)]))
    s.voq_small[q] += 1;
}

// Takes entry e off FIFO (gp, o, vc); prev is the entry before it, kNoEntry when e is the head.
// The entry stays allocated (it is being sent).
SATURN_INLINE void voq_remove(const EngineView& v, int gp, int o, int vc, int e, int prev, int t) {
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials;
  const int64_t q = at(voq_index(m, gp, o, vc), t, T);
  const int next = s.ent_next[at(entry_index(v, gp, e), t, T)];
  const uint32_t ends = s.voq_ends[q];
  if (m.mixed_sizes && is_small_packet(m, s.ent_pkt[at(entry_index(v, gp, e), t, T)]))
    s.voq_small[q] -= 1;
  if (prev != kNoEntry) {
    s.ent_next[at(entry_index(v, gp, prev), t, T)] = static_cast<uint16_t>(next);
    if (next == kNoEntry) s.voq_ends[q] = (ends & 0xFFFFu) | static_cast<uint32_t>(prev) << 16;
    return;
  }
  if (next != kNoEntry) {  // the next packet's key becomes the cached head key
    const int64_t ni = at(entry_index(v, gp, next), t, T);
    s.voq_ends[q] = (ends & 0xFFFF0000u) | static_cast<uint32_t>(next);
    s.voq_ready[q] = s.ent_time[ni];
    if (ties_stored(m)) s.voq_tie[q] = s.ent_tie[ni];
    return;
  }
  s.voq_ends[q] = kNoEnds;
  s.voq_ready[q] = kEmptyReady;
  uint8_t& vcs = s.voq_vcs[at(voq_vcs_index(m, gp, o), t, T)];
  vcs = static_cast<uint8_t>(vcs & ~(1u << vc));
  if (vcs == 0) voq_mark_output(v, at(gp, t, T), o, false);
}

// The head entry of FIFO q (an index from voq_index); kNoEntry when empty.
SATURN_INLINE int voq_head(const EngineView& v, int64_t q, int t) {
  return static_cast<int>(v.state.voq_ends[at(q, t, v.model.trials)] & 0xFFFFu);
}

// Size in flits of the head of non-empty FIFO q of input gp.
SATURN_INLINE int32_t voq_head_size(const EngineView& v, int gp, int64_t q, int t) {
  return static_cast<int32_t>(
      v.state.ent_pkt[at(entry_index(v, gp, voq_head(v, q, t)), t, v.model.trials)].size_flits());
}

// Does the head of non-empty FIFO q of input gp fit `credits` downstream flits?
SATURN_INLINE bool voq_head_fits(const EngineView& v, int gp, int64_t q, int t, int32_t credits) {
  return credits >= max_packet_flits(v.model) || credits >= voq_head_size(v, gp, q, t);
}

// The first packet behind the head of FIFO q of input gp that is ready at cycle c and has at most
// `credits` flits, or kNoEntry; *prev gets the entry before it.
SATURN_INLINE int voq_find_fit(const EngineView& v, int gp, int64_t q, int t, uint32_t c, int32_t credits, int* prev) {
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials;
  // Every packet has a flit; and where the FIFO holds only packets of the largest size, none fits
  // credits that are short of it (without this, a congested FIFO was walked whole every cycle).
  if (credits < 1 || (credits < max_packet_flits(m) && s.voq_small[at(q, t, T)] == 0)) return kNoEntry;
  int p = voq_head(v, q, t);
  for (int e = s.ent_next[at(entry_index(v, gp, p), t, T)]; e != kNoEntry;
       p = e, e = s.ent_next[at(entry_index(v, gp, e), t, T)]) {
    const int64_t ei = at(entry_index(v, gp, e), t, T);
    if (s.ent_time[ei] > c) return kNoEntry;  // later ones are not ready either
    // (a route teardown passes nothing: it must stay behind its connection's data, route_setup.hpp)
    if (m.cc.route_setup && route_teardown_packet(s.ent_pkt[ei].flags())) continue;
    if (static_cast<int32_t>(s.ent_pkt[ei].size_flits()) <= credits) {
      *prev = p;
      return e;
    }
  }
  return kNoEntry;
}

// Does FIFO q of input gp hold a packet ready at cycle c with more than `credits` flits? (CCA's
// "waiting for credits" is any such packet, not only the head.)
SATURN_INLINE bool voq_any_short(const EngineView& v, int gp, int64_t q, int t, uint32_t c, int32_t credits) {
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials;
  if (credits >= max_packet_flits(m)) return false;
  for (int e = voq_head(v, q, t); e != kNoEntry; e = s.ent_next[at(entry_index(v, gp, e), t, T)]) {
    const int64_t ei = at(entry_index(v, gp, e), t, T);
    if (s.ent_time[ei] > c) return false;
    if (static_cast<int32_t>(s.ent_pkt[ei].size_flits()) > credits) return true;
  }
  return false;
}

}  // namespace saturn
