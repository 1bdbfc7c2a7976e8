// Unit tests of small kernel pieces: the output arbitration key (output_key.hpp), the latency
// histogram bins (latency_histogram.hpp) and the Packet bit packing (packet.hpp).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kernels/arbiters/output_key.hpp"
#include "kernels/common/packet.hpp"
#include "kernels/stats/latency_histogram.hpp"

namespace saturn {
namespace {

ModelParams params(Arbitration arb, VcArbitration vc_arb, int vcs) {
  ModelParams m{};
  m.arbitration = arb;
  m.vc_arbitration = vc_arb;
  m.vcs = vcs;
  return m;
}

// ---- output_key ----

TEST(OutputKey, FcfsOrdersByReadyCycleThenTie) {
  const ModelParams m = params(Arbitration::kFcfs, VcArbitration::kPriority, 1);
  const int radix = 8;
  // Older header first, whatever the tie or input.
  EXPECT_LT(output_key(m, 0, 0, 7, 0, radix, 5, 0x1FFFFF), output_key(m, 0, 0, 0, 0, radix, 6, 0));
  // Same ready cycle: the tie decides.
  EXPECT_LT(output_key(m, 0, 0, 3, 0, radix, 9, 10), output_key(m, 0, 0, 2, 0, radix, 9, 11));
  // FCFS ignores the input and the pointer entirely.
  EXPECT_EQ(output_key(m, 0, 0, 1, 0, radix, 9, 4), output_key(m, 0, 0, 6, 5, radix, 9, 4));
  // The ready cycle uses all 32 bits without spilling into the input rank field.
  EXPECT_LT(output_key(m, 0, 0, 0, 0, radix, 0xFFFFFFFEu, 0), output_key(m, 0, 0, 0, 0, radix, 0xFFFFFFFFu, 0));
  // Only the low 21 bits of the tie count: a larger tie cannot beat an older header.
  EXPECT_LT(output_key(m, 0, 0, 0, 0, radix, 100, 0xFFFFFFFFu), output_key(m, 0, 0, 0, 0, radix, 101, 0));
}

TEST(OutputKey, RoundRobinRanksInputsFromThePointer) {
  const ModelParams m = params(Arbitration::kRoundRobin, VcArbitration::kPriority, 1);
  const int radix = 8, pointer = 3;
  // Inputs in rank order 3, 4, ..., 7, 0, 1, 2; the rank dominates the age of the packet.
  std::vector<int> order = {3, 4, 5, 6, 7, 0, 1, 2};
  for (size_t i = 0; i + 1 < order.size(); ++i) {
    // The favoured input holds the youngest packet, the other the oldest: rank still wins.
    EXPECT_LT(output_key(m, 0, 0, order[i], pointer, radix, 0xFFFFFFFFu, 0x1FFFFF),
              output_key(m, 0, 0, order[i + 1], pointer, radix, 0, 0))
        << "input " << order[i] << " vs " << order[i + 1];
  }
  // Inside one input, its oldest packet first.
  EXPECT_LT(output_key(m, 0, 0, 5, pointer, radix, 10, 0), output_key(m, 0, 0, 5, pointer, radix, 11, 0));
  // Moving the pointer past an input demotes it to last.
  EXPECT_GT(output_key(m, 0, 0, 3, 4, radix, 0, 0), output_key(m, 0, 0, 2, 4, radix, 0, 0));
}

TEST(OutputKey, StrictVcPriorityPutsHigherVcFirst) {
  const ModelParams m = params(Arbitration::kRoundRobin, VcArbitration::kPriority, 4);
  const int radix = 8;
  for (int vc = 1; vc < 4; ++vc) {
    // Higher VC wins even against a lower VC that is older and on the favoured input.
    EXPECT_LT(output_key(m, vc, 0, 7, 0, radix, 0xFFFFFFFFu, 0x1FFFFF), output_key(m, vc - 1, 0, 0, 0, radix, 0, 0))
        << "vc " << vc;
  }
  // The VC pointer is ignored under strict priority.
  EXPECT_EQ(output_key(m, 2, 0, 1, 0, radix, 7, 7), output_key(m, 2, 3, 1, 0, radix, 7, 7));
}

TEST(OutputKey, VcRoundRobinStartsAtThePointer) {
  const ModelParams m = params(Arbitration::kFcfs, VcArbitration::kRoundRobin, 4);
  const int radix = 8, vc_pointer = 2;
  std::vector<int> order = {2, 3, 0, 1};
  for (size_t i = 0; i + 1 < order.size(); ++i)
    EXPECT_LT(output_key(m, order[i], vc_pointer, 0, 0, radix, 0xFFFFFFFFu, 0),
              output_key(m, order[i + 1], vc_pointer, 0, 0, radix, 0, 0))
        << "vc " << order[i] << " vs " << order[i + 1];
  // With the pointer at 0, VC 0 comes first (opposite of strict priority).
  EXPECT_LT(output_key(m, 0, 0, 0, 0, radix, 5, 0), output_key(m, 3, 0, 0, 0, radix, 5, 0));
}

// ---- latency histogram ----

TEST(LatencyBin, ExactBelowEight) {
  for (uint32_t c = 0; c < 8; ++c) EXPECT_EQ(latency_bin(c), static_cast<int>(c));
  EXPECT_EQ(latency_bin(8), 8);
  EXPECT_EQ(latency_bin(9), 8);  // octave 3 has bins of width 2: [8,10), [10,12), ...
  EXPECT_EQ(latency_bin(10), 9);
  EXPECT_EQ(latency_bin(16), 12);
  EXPECT_EQ(latency_bin(0xFFFFFFFFu), kHistBins - 1);
  EXPECT_EQ(latency_bin(0x80000000u), kHistBins - 4);
}

TEST(LatencyBin, MonotoneAndRangeCoversValue) {
  std::vector<uint32_t> values;
  for (uint32_t c = 0; c < 70000; ++c) values.push_back(c);
  for (int b = 16; b < 32; ++b)
    for (uint32_t x : {(1u << b) - 1, 1u << b, (1u << b) + 1, (1u << b) + (1u << (b - 2)), (1u << b) | (1u << (b - 1))})
      values.push_back(x);
  values.push_back(0xFFFFFFFEu);
  values.push_back(0xFFFFFFFFu);
  int previous = -1;
  uint32_t last_value = 0;
  for (uint32_t v : values) {
    const int bin = latency_bin(v);
    ASSERT_GE(bin, 0);
    ASSERT_LT(bin, kHistBins);
    if (v >= last_value) {
      ASSERT_GE(bin, previous) << "not monotone at " << v;
      previous = bin;
      last_value = v;
    }
    double low = 0, high = 0;
    latency_bin_range(bin, &low, &high);
    ASSERT_LE(low, static_cast<double>(v)) << "value " << v << " bin " << bin;
    ASSERT_LT(static_cast<double>(v), high) << "value " << v << " bin " << bin;
  }
  // Bins tile [0, 2^32) with no gaps or overlaps.
  double expected_low = 0;
  for (int b = 0; b < kHistBins; ++b) {
    double low = 0, high = 0;
    latency_bin_range(b, &low, &high);
    EXPECT_EQ(low, expected_low) << "bin " << b;
    EXPECT_GT(high, low);
    expected_low = high;
  }
  EXPECT_EQ(expected_low, 4294967296.0);
}

// ---- Packet ----

TEST(PacketPacking, RoundTripAtMaximumValues) {
  const uint32_t max_node = kMaxNodes - 1;  // 2^20 - 1
  const Packet p = Packet::make(max_node, max_node, kMaxPacketFlits, 15, kFlagMessageTail, 0xFFFFFFFFu, 0xFFFFFFFEu);
  EXPECT_EQ(p.src(), max_node);
  EXPECT_EQ(p.dst(), max_node);
  EXPECT_EQ(p.size_flits(), 4095u);
  EXPECT_EQ(p.vc(), 15u);
  EXPECT_TRUE(p.valid());
  EXPECT_EQ(p.flags(), kFlagValid | kFlagMessageTail);
  EXPECT_EQ(p.inject_cycle, 0xFFFFFFFFu);
  EXPECT_EQ(p.birth_cycle, 0xFFFFFFFEu);
}

TEST(PacketPacking, FieldsDoNotBleed) {
  const Packet a = Packet::make(0, 0, 0, 0, 0, 0, 0);
  EXPECT_TRUE(a.valid());  // make always sets the valid flag
  EXPECT_EQ(a.flags(), static_cast<uint32_t>(kFlagValid));
  EXPECT_EQ(a.src(), 0u);
  EXPECT_EQ(a.dst(), 0u);
  EXPECT_EQ(a.vc(), 0u);
  EXPECT_EQ(a.size_flits(), 0u);
  const Packet b = Packet::make(12345, 987654, 17, 3, 0, 42, 7);
  EXPECT_EQ(b.src(), 12345u);
  EXPECT_EQ(b.dst(), 987654u);
  EXPECT_EQ(b.size_flits(), 17u);
  EXPECT_EQ(b.vc(), 3u);
  EXPECT_EQ(b.flags() & kFlagMessageTail, 0u);
  // One field at its maximum, the others zero.
  EXPECT_EQ(Packet::make(0, 0, 0, 15, 0, 0, 0).dst(), 0u);
  EXPECT_EQ(Packet::make(0, kMaxNodes - 1, 0, 0, 0, 0, 0).vc(), 0u);
  EXPECT_EQ(Packet::make(kMaxNodes - 1, 0, 0, 0, 0, 0, 0).size_flits(), 0u);
  EXPECT_EQ(Packet::make(0, 0, kMaxPacketFlits, 0, 0, 0, 0).src(), 0u);
  EXPECT_FALSE(Packet::empty().valid());
}

}  // namespace
}  // namespace saturn
