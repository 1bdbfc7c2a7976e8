// The 16-lane pack computes, lane by lane, what the scalar lane computes: masks, selects, widening,
// horizontal ORs, narrow loads and stores, and the packet (de)interleave of packet_lanes.hpp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "kernels/common/hash.hpp"
#include "kernels/common/lanes.hpp"
#include "kernels/common/rng_lanes.hpp"
#include "kernels/phases/packet_lanes.hpp"
#include "kernels/state/ring_marks.hpp"
#include "kernels/state/voq.hpp"

namespace saturn {
namespace {

using P = PackLanes16;
using S = ScalarLanes;

uint32_t next_word(uint64_t& x) {  // a fixed pseudo-random sequence (splitmix64's upper half)
  x += 0x9E3779B97F4A7C15ull;
  uint64_t z = x;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return static_cast<uint32_t>((z ^ (z >> 31)) >> 32);
}

TEST(Lanes, PackMatchesScalarLaneByLane) {
  uint64_t rng = 1;
  for (int round = 0; round < 200; ++round) {
    uint32_t a[16], b[16];
    uint64_t w[16];
    for (int l = 0; l < 16; ++l) {
      a[l] = next_word(rng) % 9;
      b[l] = next_word(rng);
      w[l] = (static_cast<uint64_t>(next_word(rng)) << 32) | next_word(rng);
    }
    const P::U32 pa = P::load(a), pb = P::load(b);
    const P::U64 pw = P::load64(w);
    const P::M m = pa < 4u;
    const P::M m64 = P::m64(pw > P::widen(pb));
    const P::U32 s32 = P::sel(m, pb, pa);
    const P::U64 s64 = P::sel(m, pw, P::widen(pa) << 40);
    uint32_t bits = 0;
    uint64_t ors = 0;
    for (int l = 0; l < 16; ++l) {
      const S::M sm = S::mask(a[l] < 4u);
      EXPECT_EQ(P::get_mask(m, l), sm);
      EXPECT_EQ(P::get_mask(m64, l), S::m64(w[l] > S::widen(b[l])));
      EXPECT_EQ(P::get(s32, l), S::sel(sm, b[l], a[l]));
      EXPECT_EQ(P::get(s64, l), S::sel(sm, w[l], S::widen(a[l]) << 40));
      bits |= static_cast<uint32_t>(sm) << l;
      ors |= w[l];
    }
    EXPECT_EQ(P::bits(m), bits);
    EXPECT_EQ(P::any(m), bits != 0);
    EXPECT_EQ(P::or_lanes(pw), ors);
  }
}

TEST(Lanes, NarrowColumnsLoadAndStoreMaskedLanesOnly) {
  uint8_t bytes[16];
  uint16_t shorts[16];
  for (int l = 0; l < 16; ++l) {
    bytes[l] = static_cast<uint8_t>(200 + l);
    shorts[l] = static_cast<uint16_t>(60000 + l);
  }
  EXPECT_EQ(P::get(P::load(bytes), 15), 215u);
  EXPECT_EQ(P::get(P::load(shorts), 3), 60003u);
  const P::M odd = (P::load(bytes) & 1u) != 0u;
  P::store_if(odd, bytes, P::u32(7));
  P::store_if(odd, shorts, P::u32(9));
  for (int l = 0; l < 16; ++l) {
    EXPECT_EQ(bytes[l], (l % 2) ? 7 : 200 + l);
    EXPECT_EQ(shorts[l], (l % 2) ? 9 : 60000 + l);
  }
}

TEST(Lanes, PacketShufflesRoundTripAndMatchTheScalarFields) {
  std::vector<Packet> in(16), out(16, Packet::empty());
  uint64_t rng = 5;
  for (Packet& p : in) p = Packet{next_word(rng), next_word(rng), next_word(rng), next_word(rng)};
  const PacketLanes<P> lanes = load_packets<P>(in.data());
  for (int l = 0; l < 16; ++l) {
    EXPECT_EQ(P::get(lanes.w[0], l), in[l].dst_vc_flags);
    EXPECT_EQ(P::get(lanes.w[1], l), in[l].src_size);
    EXPECT_EQ(P::get(lanes.w[2], l), in[l].inject_cycle);
    EXPECT_EQ(P::get(lanes.w[3], l), in[l].birth_cycle);
    EXPECT_EQ(P::get(lanes.vc(), l), in[l].vc());
    EXPECT_EQ(P::get(lanes.size_flits(), l), in[l].size_flits());
  }
  store_packets<P>(out.data(), lanes);
  for (int l = 0; l < 16; ++l) EXPECT_EQ(out[l].src_size, in[l].src_size);
  for (int l = 0; l < 16; ++l) EXPECT_EQ(out[l].birth_cycle, in[l].birth_cycle);
  // Masked store: only the odd lanes take the new packets.
  std::vector<Packet> mixed(16, Packet::empty());
  P::M odd = P::mask(false);
  for (int l = 1; l < 16; l += 2) P::set_mask(odd, l, true);
  store_packets_if<P>(odd, mixed.data(), lanes);
  for (int l = 0; l < 16; ++l) EXPECT_EQ(mixed[l].dst_vc_flags, (l % 2) ? in[l].dst_vc_flags : 0u);
}

TEST(Lanes, FromBitsInvertsBits) {
  uint64_t rng = 3;
  for (int round = 0; round < 100; ++round) {
    const uint32_t b = next_word(rng) & 0xFFFFu;
    EXPECT_EQ(P::bits(P::from_bits(b)), b);
    for (int l = 0; l < 16; ++l) EXPECT_EQ(P::get_mask(P::from_bits(b), l), ((b >> l) & 1u) != 0);
  }
  EXPECT_TRUE(S::from_bits(1u));
  EXPECT_FALSE(S::from_bits(0u));
  EXPECT_EQ(S::bits(S::from_bits(1u)), 1u);
}

// Ring marks (kernels/state/ring_marks.hpp): the pack's multiply tricks against the byte loop, for
// every 16-lane pattern; a mark byte other than 1 still reads as marked in the generic loop.
TEST(Lanes, RingMarkBitsRoundTripEveryPattern) {
  for (uint32_t b = 0; b < (1u << 16); ++b) {
    uint8_t bytes[16];
    store_mark_bits<P>(bytes, b);
    for (int l = 0; l < 16; ++l) ASSERT_EQ(bytes[l], (b >> l) & 1u) << "pattern " << b << " lane " << l;
    ASSERT_EQ(load_mark_bits<P>(bytes), b) << "pattern " << b;
  }
  uint8_t one = 1, zero = 0, two = 2;
  EXPECT_EQ(load_mark_bits<S>(&one), 1u);
  EXPECT_EQ(load_mark_bits<S>(&zero), 0u);
  EXPECT_EQ(load_mark_bits<S>(&two), 1u);
  store_mark_bits<S>(&two, 0u);
  EXPECT_EQ(two, 0u);
  store_mark_bits<S>(&two, 1u);
  EXPECT_EQ(two, 1u);
}

TEST(Lanes, TieHashMatchesTheScalarHash) {
  uint32_t seeds[16];
  for (int l = 0; l < 16; ++l) seeds[l] = 0x1234567u * static_cast<uint32_t>(l + 1);
  const P::U32 h = tie_hash_of<P::U32>(P::load(seeds), 37, 123456u);
  for (int l = 0; l < 16; ++l) EXPECT_EQ(P::get(h, l), tie_hash(seeds[l], 37, 123456u));
}

// A tie derived from the ready cycle (kernels/state/voq.hpp: fcfs_tie, where ties are not stored)
// is the one the arrival drew: ready = arrival + router delay, per lane as for one trial.
TEST(Lanes, FcfsTieFromTheReadyCycleIsTheArrivalsTie) {
  uint64_t rng = 11;
  for (int round = 0; round < 100; ++round) {
    ModelParams m{};
    m.router_delay = static_cast<int>(next_word(rng) % 5);
    const int gp = static_cast<int>(next_word(rng) % 5000);
    uint32_t seeds[16], arrival[16], ready[16];
    for (int l = 0; l < 16; ++l) {
      seeds[l] = next_word(rng);
      arrival[l] = next_word(rng);
      ready[l] = arrival[l] + static_cast<uint32_t>(m.router_delay);  // (wraps as the engine's cycles do)
    }
    const P::U32 h = fcfs_tie<P::U32>(m, P::load(seeds), gp, P::load(ready));
    for (int l = 0; l < 16; ++l) {
      EXPECT_EQ(P::get(h, l), tie_hash(seeds[l], gp, arrival[l])) << "lane " << l;
      EXPECT_EQ(fcfs_tie<uint32_t>(m, seeds[l], gp, ready[l]), tie_hash(seeds[l], gp, arrival[l]));
    }
  }
}

TEST(Lanes, PhiloxLanesMatchTheScalarDraw) {
  uint64_t rng = 7;
  for (int round = 0; round < 100; ++round) {
    uint64_t seeds[16];
    for (uint64_t& x : seeds) x = (static_cast<uint64_t>(next_word(rng)) << 32) | next_word(rng);
    const uint32_t element = next_word(rng) % 5000, cycle = next_word(rng), trial = round % 3;
    const Draw4Lanes d = philox_lanes(P::load64(seeds), trial, element, cycle, Stream::kGenerate);
    for (int l = 0; l < 16; ++l) {
      const Draw4 x = philox(seeds[l], trial, element, cycle, Stream::kGenerate);
      for (int w = 0; w < 4; ++w) ASSERT_EQ(P::get(d.v[w], l), x.v[w]) << "lane " << l << " word " << w;
    }
  }
  // Random123's known answer (key 0, counter 0), in every lane.
  uint64_t zero[16] = {};
  const Draw4Lanes k = philox_lanes(P::load64(zero), 0, 0, 0, static_cast<Stream>(0));
  for (int l = 0; l < 16; ++l) {
    EXPECT_EQ(P::get(k.v[0], l), 0x6627e8d5u);
    EXPECT_EQ(P::get(k.v[3], l), 0x9b00dbd8u);
  }
}

TEST(Lanes, GeometricGapLanesMatchTheScalarGap) {
  const double inf = std::numeric_limits<double>::infinity();
  const double logs[] = {std::log1p(-0.5), std::log1p(-0.01), std::log1p(-1e-9), -1e-15, 0.0, -inf, std::log1p(-0.999)};
  uint64_t rng = 11;
  for (int round = 0; round < 400; ++round) {
    uint32_t words[16];
    double l1p[16];
    for (int l = 0; l < 16; ++l) {
      const uint32_t r = next_word(rng);
      words[l] = r % 7 == 0 ? r % 3 : r % 7 == 1 ? 0xFFFFFFFFu - r % 3 : r % 7 == 2 ? 1u << (r % 32) : r;
      l1p[l] = logs[next_word(rng) % 7];
    }
    uint32_t gaps[16];
    geometric_gap_lanes(words, l1p, gaps);
    for (int l = 0; l < 16; ++l)
      ASSERT_EQ(gaps[l], geometric_gap(words[l], l1p[l])) << "word " << words[l] << " log1m_p " << l1p[l];
  }
}

}  // namespace
}  // namespace saturn
