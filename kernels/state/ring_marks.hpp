// Marks on the link and credit rings: a byte per ring slot and trial that says whether the slot
// holds something written in its ring's current lap (docs/model/topologies.md, "Ring marks").
//
// A ring slot is written once a lap (kernels/state/link_ring.hpp), mostly with nothing: a link
// carries a header only in a packet's first cycle, and a credit slot holds credits only in the
// cycles a tail left. Writing and reading every slot of every ring every cycle made the rings the
// largest cost of a single-trial run with long links (the 1056-node dragonfly's 1,000-cycle global
// links: a new cache line per port every 4 cycles, one miss each, as the network's state does not
// fit in cache). With marks the writer writes its slot's byte every cycle and the slot itself only
// when it carries something, and the reader reads the byte, then the slot only where it is marked:
// a line of marks covers 64 cycles of one ring.
//   - link_mark / inj_mark [ring slot, trial]: 1 where the slot holds a packet (every marked packet
//     is valid; an unmarked slot holds a stale packet or none, never read);
//   - credit_mark [ring slot, trial]: 1 where the slot's V credit counters were written in this lap.
//     The owner clears the byte at the start of its cycle and the first credit added in the cycle
//     zeroes the slot's counters (credit_add): a lap without credits costs one byte.
// A byte per (slot, trial), not a bit: the GPU's scalar lanes write one trial each, and two
// threads must never write the same word.
#pragma once
#include <cstdint>
#include <cstring>

#include "kernels/common/bits.hpp"
#include "kernels/common/index.hpp"
#include "kernels/common/lanes.hpp"
#include "kernels/state/credit_pool.hpp"
#include "kernels/state/engine_view.hpp"

namespace saturn {

// Lane l's mark byte (p = marks + at(slot, t0, T)) as bit l.
template <class L>
SATURN_INLINE uint32_t load_mark_bits(const uint8_t* p) {
  uint32_t bits = 0;
  for (int l = 0; l < L::kWidth; ++l) bits |= static_cast<uint32_t>(p[l] != 0) << l;
  return bits;
}

// Bit l of `bits` as lane l's mark byte (0 or 1).
template <class L>
SATURN_INLINE void store_mark_bits(uint8_t* p, uint32_t bits) {
  for (int l = 0; l < L::kWidth; ++l) p[l] = static_cast<uint8_t>((bits >> l) & 1u);
}

// Lane l's packet (p = row + at(slot, t0, T)) valid as bit l, from each packet's first word.
template <class L>
SATURN_INLINE uint32_t packet_valid_bits(const Packet* p) {
  uint32_t bits = 0;
  for (int l = 0; l < L::kWidth; ++l) bits |= static_cast<uint32_t>(p[l].valid()) << l;
  return bits;
}

#if !defined(__CUDACC__)
// 16 bytes of 0 / 1 to 16 bits and back, 8 at a time. Gather: byte k times 0x0102040810204080 puts
// its bit at bit 56 + k, and no two partial products share a bit (so nothing carries). Spread: bit k
// to bit 8k in three shifts (nibbles 32 bits apart, pairs 16, bits 8).
template <>
inline uint32_t load_mark_bits<PackLanes16>(const uint8_t* p) {
  uint64_t lo, hi;
  std::memcpy(&lo, p, 8);
  std::memcpy(&hi, p + 8, 8);
  constexpr uint64_t kGather = 0x0102040810204080ull;
  return static_cast<uint32_t>((lo * kGather) >> 56) | static_cast<uint32_t>((hi * kGather) >> 56) << 8;
}
inline uint64_t spread_mark_byte(uint32_t bits8) {
  uint64_t x = bits8 & 0xFFu;
  x = (x | x << 28) & 0x0000000F0000000Full;
  x = (x | x << 14) & 0x0003000300030003ull;
  return (x | x << 7) & 0x0101010101010101ull;
}
template <>
inline void store_mark_bits<PackLanes16>(uint8_t* p, uint32_t bits) {
  const uint64_t lo = spread_mark_byte(bits), hi = spread_mark_byte(bits >> 8);
  std::memcpy(p, &lo, 8);
  std::memcpy(p + 8, &hi, 8);
}
#endif

// One trial's link slot i (an index into link and link_mark): its mark, and the packet if it is one.
SATURN_INLINE void store_link_slot(const StateView& s, int64_t i, const Packet& pk) {
  s.link_mark[i] = pk.valid() ? 1 : 0;
  if (pk.valid()) s.link[i] = pk;
}

// Adds n flits to VC vc of credit ring slot `slot` (a ring element, ring_slot / ring_write) of
// trial t: the first credit of the lap zeroes the slot's V counters and marks it.
SATURN_INLINE void credit_add(const StateView& s, int64_t slot, int V, int vc, int t, int T, uint32_t n) {
  uint8_t& mark = s.credit_mark[at(slot, t, T)];
  if (mark == 0) {
    for (int x = 0; x < V; ++x) s.credit[at(slot * V + x, t, T)] = 0;
    mark = 1;
  }
  s.credit[at(slot * V + vc, t, T)] += static_cast<uint16_t>(n);
}

// The credits returned on credit ring slot `slot` (a ring element) added to the books of `owner`
// (b.credits + at(owner * V + vc, t0, T) per VC: an output's out_credits, an endpoint's ep_credits;
// with a shared VC buffer the owed flits, kernels/state/credit_pool.hpp), in the lanes whose slot
// is marked. Returns the lanes where some VC got credits.
template <class L>
SATURN_INLINE typename L::M add_marked_credits(const StateView& s, const ModelParams& m, int64_t slot,
                                               const CreditBooks& b, int64_t owner, int V, int t0) {
  const int T = m.trials;  // (V: a constant in the one-VC variants)
  typename L::M got = L::mask(false);
  const uint32_t marked = load_mark_bits<L>(s.credit_mark + at(slot, t0, T));
  if (marked == 0) return got;
  const typename L::M in_lap = L::from_bits(marked);
  if (pool_on(m)) {  // per lane: the pool's books change every VC's counter
    for (uint32_t r = marked; r != 0; r &= r - 1) {
      const int t = t0 + lowest_bit(r);
      for (int vc = 0; vc < V; ++vc) {
        const int32_t n = s.credit[at(slot * V + vc, t, T)];
        if (n != 0) credits_return(m, b, owner, vc, t, n);
      }
    }
    for (int vc = 0; vc < V; ++vc)
      got = L::mor(got, L::mand(in_lap, L::as_i32(L::load(s.credit + at(slot * V + vc, t0, T))) != 0));
    return got;
  }
  for (int vc = 0; vc < V; ++vc) {
    int32_t* c = b.credits + at(owner * V + vc, t0, T);
    const typename L::I32 n = L::sel(in_lap, L::as_i32(L::load(s.credit + at(slot * V + vc, t0, T))), L::i32(0));
    L::store_i32(c, L::load_i32(c) + n);
    got = L::mor(got, n != 0);
  }
  return got;
}

}  // namespace saturn
