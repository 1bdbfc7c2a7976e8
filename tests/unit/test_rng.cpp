// Known answers for the randomness every result is drawn from: Random123's published Philox4x32-10
// vectors through our wrapper (kernels/common/rng.hpp), and the first draws of our named streams.
// Runs on the CPU on every build; the parity tier shows the GPU draws the same numbers.
#include <gtest/gtest.h>

#include <cstdint>

#include "kernels/common/rng.hpp"

namespace saturn {
namespace {

void expect_draw(const Draw4& d, uint32_t a, uint32_t b, uint32_t c, uint32_t e) {
  EXPECT_EQ(d.v[0], a);
  EXPECT_EQ(d.v[1], b);
  EXPECT_EQ(d.v[2], c);
  EXPECT_EQ(d.v[3], e);
}

// Random123 kat_vectors, "philox4x32 10": key (0,0), counter 0.
TEST(PhiloxKnownAnswer, ZeroKeyZeroCounter) {
  expect_draw(philox(0, 0, 0, 0, static_cast<Stream>(0)), 0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u);
}

TEST(PhiloxKnownAnswer, AllOnes) {
  expect_draw(philox(~uint64_t{0}, ~0u, ~0u, ~0u, static_cast<Stream>(~0u)), 0x408f276du, 0x41c83b0eu, 0xa20bc7c6u,
              0x6d5451fdu);
}

// The digits-of-pi vector fixes how our arguments map onto Philox's words: counter =
// (element, cycle, purpose, trial), key = (low, high half of the seed). A changed mapping would
// change every draw of every result.
TEST(PhiloxKnownAnswer, PiDigitsPinTheWordOrder) {
  const uint64_t seed = (uint64_t{0x299f31d0u} << 32) | 0xa4093822u;
  expect_draw(philox(seed, /*trial=*/0x03707344u, /*element=*/0x243f6a88u, /*cycle=*/0x85a308d3u,
                     static_cast<Stream>(0x13198a2eu)),
              0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u);
}

// First draws of named streams (seed 1, trial 0, element 0, cycle 0), and one draw deep in a
// stream. These pin the stream numbers: renumbering a Stream changes every result of its purpose.
TEST(NamedStreams, FirstDrawsArePinned) {
  expect_draw(philox(1, 0, 0, 0, Stream::kGenerate), 0x07071c12u, 0x428264b6u, 0x3909104bu, 0x6da2bda2u);
  expect_draw(philox(1, 0, 0, 0, Stream::kRoute), 0xbb315460u, 0x70ae55c5u, 0x5fb941cdu, 0xae0508c1u);
  expect_draw(philox(1, 0, 0, 0, Stream::kSetup), 0x5642b3ebu, 0xc6f8b326u, 0x66ac855du, 0x7a25e9feu);
  expect_draw(philox(0x0123456789abcdefull, 5, 3, 1000, Stream::kGenerate), 0x14b4f556u, 0xe6e53555u, 0x5c1d1a7fu,
              0x71215931u);
}

TEST(NamedStreams, PurposesDrawDifferentNumbers) {
  const Draw4 a = philox(1, 0, 0, 0, Stream::kFlow), b = philox(1, 0, 0, 0, Stream::kOnOff);
  EXPECT_NE(a.v[0], b.v[0]);
  expect_draw(a, 0x08e4d831u, 0x50d9a6a3u, 0xe1f3bcbau, 0x16d75aa2u);
  expect_draw(b, 0xa226a945u, 0x80c1a618u, 0x3d059fddu, 0x417bdf60u);
}

TEST(UniformBelow, MultiplyShiftEndpoints) {
  EXPECT_EQ(uniform_below(0u, 10), 0u);
  EXPECT_EQ(uniform_below(0x80000000u, 10), 5u);
  EXPECT_EQ(uniform_below(0xffffffffu, 10), 9u);
  EXPECT_EQ(uniform_below(0xffffffffu, 1), 0u);
}

}  // namespace
}  // namespace saturn
