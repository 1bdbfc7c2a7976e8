// A packet per lane (four 32-bit words each), and the lane-generic helpers the switch phases share:
// loading and storing the packet columns.
#pragma once
#include <cstdint>

#include "kernels/common/bits.hpp"
#include "kernels/common/hash.hpp"
#include "kernels/common/lanes.hpp"
#include "kernels/common/packet.hpp"
#include "kernels/state/ring_marks.hpp"

namespace saturn {

template <class L>
struct PacketLanes {
  typename L::U32 w[4];  // Packet's words: dst_vc_flags, src_size, inject_cycle, birth_cycle

  SATURN_INLINE typename L::U32 vc() const { return (w[0] >> 20) & 0xFu; }
  SATURN_INLINE typename L::U32 size_flits() const { return w[1] >> 20; }
  SATURN_INLINE typename L::M valid() const { return ((w[0] >> 24) & static_cast<uint32_t>(kFlagValid)) != 0u; }

  // Lane l's packet, and writing one packet into lane l (the per-lane paths of the phases).
  SATURN_INLINE Packet lane(int l) const { return Packet{L::get(w[0], l), L::get(w[1], l), L::get(w[2], l), L::get(w[3], l)}; }
  SATURN_INLINE void set_lane(int l, const Packet& p) {
    L::set(w[0], l, p.dst_vc_flags);
    L::set(w[1], l, p.src_size);
    L::set(w[2], l, p.inject_cycle);
    L::set(w[3], l, p.birth_cycle);
  }
};

// Lane l's packet of `in`, loaded from `row`: a pack reads it from the row, which still holds it
// (taking four lanes out of vectors goes through the stack: docs/development.md); one trial has it
// in registers.
template <class L>
SATURN_INLINE Packet lane_packet(const Packet* row, const PacketLanes<L>& in, int l) {
  return L::kWidth > 1 ? row[l] : in.lane(l);
}

// The W packets of one element's column (p = column + at(element, t0, T)).
template <class L>
SATURN_INLINE PacketLanes<L> load_packets(const Packet* p) {
  PacketLanes<L> r;
  for (int l = 0; l < L::kWidth; ++l) r.set_lane(l, p[l]);
  return r;
}

template <class L>
SATURN_INLINE void store_packets(Packet* p, const PacketLanes<L>& r) {
  for (int l = 0; l < L::kWidth; ++l)
    p[l] = r.lane(l);
}

template <class L>
SATURN_INLINE void store_packets_if(typename L::M m, Packet* p, const PacketLanes<L>& r) {
  for (uint32_t b = L::bits(m); b != 0; b &= b - 1) {
    const int l = lowest_bit(b);
    p[l] = r.lane(l);
  }
}

// A link ring row (row = link + at(slot, t0, T), marks = link_mark + the same): every lane's mark,
// and the row itself only where some lane sends (kernels/state/ring_marks.hpp). The whole row then:
// its unmarked lanes are never read, and a masked store would have to load the row first (a miss:
// measured, a third of a dragonfly pack's step with output queues).
template <class L>
SATURN_INLINE void store_link_row(Packet* row, uint8_t* marks, const PacketLanes<L>& sent) {
  const uint32_t sending = L::bits(sent.valid());
  store_mark_bits<L>(marks, sending);
  if (sending != 0) store_packets<L>(row, sent);
}

#if !defined(__CUDACC__)
// Two-input shuffle of 16-lane vectors: lane i of the result is lane idx[i] of (a, b) (0-31).
// g++ has __builtin_shuffle with a mask vector; clang (the fuzz and sanitizer builds) gets a loop.
inline PackLanes16::U32 shuffle2(PackLanes16::U32 a, PackLanes16::U32 b, PackLanes16::U32 idx) {
#if defined(__clang__)
  PackLanes16::U32 r;
  for (int i = 0; i < 16; ++i) r[i] = idx[i] < 16 ? a[idx[i]] : b[idx[i] - 16];
  return r;
#else
  return __builtin_shuffle(a, b, idx);
#endif
}

// 16 packets = 64 words, interleaved w0 w1 w2 w3: split into four vectors with two-input shuffles
// (vpermt2d on AVX-512) instead of 64 element inserts.
template <>
inline PacketLanes<PackLanes16> load_packets<PackLanes16>(const Packet* p) {
  using U = PackLanes16::U32;
  U a, b, c, d;  // packets 0-3, 4-7, 8-11, 12-15
  std::memcpy(&a, p, 64);
  std::memcpy(&b, p + 4, 64);
  std::memcpy(&c, p + 8, 64);
  std::memcpy(&d, p + 12, 64);
  const U even = {0, 4, 8, 12, 16, 20, 24, 28, 1, 5, 9, 13, 17, 21, 25, 29};  // w0 then w1 of 8 packets
  const U odd = {2, 6, 10, 14, 18, 22, 26, 30, 3, 7, 11, 15, 19, 23, 27, 31};  // w2 then w3
  const U lo = {0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23};
  const U hi = {8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31};
  const U ab01 = shuffle2(a, b, even), cd01 = shuffle2(c, d, even);
  const U ab23 = shuffle2(a, b, odd), cd23 = shuffle2(c, d, odd);
  PacketLanes<PackLanes16> r;
  r.w[0] = shuffle2(ab01, cd01, lo);
  r.w[1] = shuffle2(ab01, cd01, hi);
  r.w[2] = shuffle2(ab23, cd23, lo);
  r.w[3] = shuffle2(ab23, cd23, hi);
  return r;
}

template <>
inline void store_packets<PackLanes16>(Packet* p, const PacketLanes<PackLanes16>& r) {
  using U = PackLanes16::U32;
  // w0 w1 of packets 0-7 and 8-15, then w2 w3; then interleave to four packets per vector.
  const U lo = {0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23};
  const U hi = {8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31};
  const U w01_lo = shuffle2(r.w[0], r.w[1], lo), w01_hi = shuffle2(r.w[0], r.w[1], hi);
  const U w23_lo = shuffle2(r.w[2], r.w[3], lo), w23_hi = shuffle2(r.w[2], r.w[3], hi);
  // x01 = [w0 of 8 | w1 of 8], x23 = [w2 of 8 | w3 of 8]: packet j's words are x01[j], x01[8+j], x23[j], x23[8+j].
  const U first = {0, 8, 16, 24, 1, 9, 17, 25, 2, 10, 18, 26, 3, 11, 19, 27};
  const U second = {4, 12, 20, 28, 5, 13, 21, 29, 6, 14, 22, 30, 7, 15, 23, 31};
  const U a = shuffle2(w01_lo, w23_lo, first), b = shuffle2(w01_lo, w23_lo, second);
  const U c = shuffle2(w01_hi, w23_hi, first), d = shuffle2(w01_hi, w23_hi, second);
  std::memcpy(p, &a, 64);
  std::memcpy(p + 4, &b, 64);
  std::memcpy(p + 8, &c, 64);
  std::memcpy(p + 12, &d, 64);
}

template <>
inline void store_packets_if<PackLanes16>(PackLanes16::M m, Packet* p, const PacketLanes<PackLanes16>& r) {
  PacketLanes<PackLanes16> x = load_packets<PackLanes16>(p);
  for (int w = 0; w < 4; ++w) x.w[w] = PackLanes16::sel(m, r.w[w], x.w[w]);
  store_packets<PackLanes16>(p, x);
}
#endif

}  // namespace saturn
