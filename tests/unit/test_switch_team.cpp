// The switch team's primitives on the CPU (kernels/phases/switch_team.hpp): what the warp shuffles
// compute on the GPU (host compiles of this header are the CPU form), which the team's grant relies
// on for the bits of the one-thread scan.
#include <gtest/gtest.h>

#include <cstdint>

#include "kernels/phases/switch_team.hpp"

namespace saturn {
namespace {

LaneVar<uint64_t> keys_of(uint64_t fill) {
  LaneVar<uint64_t> k;
  for (int l = 0; l < kTeamLanes; ++l) k[l] = fill;
  return k;
}

TEST(SwitchTeamPrimitives, ArgminTakesTheSmallestKeyAndTheLowestLaneOnTies) {
  const SwitchTeam team{};
  LaneVar<uint64_t> k = keys_of(kNoKey);
  EXPECT_EQ(team.argmin(k), -1) << "no lane offers anything";
  k[7] = 50;
  k[3] = 90;
  EXPECT_EQ(team.argmin(k), 7);
  k[20] = 50;  // a tie: the lowest lane, as an ascending scan with a strict comparison
  EXPECT_EQ(team.argmin(k), 7);
  k[31] = 0;
  EXPECT_EQ(team.argmin(k), 31);
  LaneVar<uint64_t> only = keys_of(kNoKey);
  only[0] = kNoKey - 1;  // the largest key a lane may offer still counts
  EXPECT_EQ(team.argmin(only), 0);
}

TEST(SwitchTeamPrimitives, OrAllAndShuffle) {
  const SwitchTeam team{};
  LaneVar<uint64_t> bits = keys_of(0);
  bits[2] = 1ull << 40;
  bits[30] = 5;
  EXPECT_EQ(team.or_all(bits), (1ull << 40) | 5u);
  LaneVar<int32_t> x;
  for (int l = 0; l < kTeamLanes; ++l) x[l] = 100 + l;
  EXPECT_EQ(team.shfl(x, 17), 117);
  int calls = 0;
  team.one([&] { ++calls; });
  EXPECT_EQ(calls, 1);
  uint32_t seen = 0;
  team.each([&](int l) { seen |= 1u << l; });
  EXPECT_EQ(seen, 0xFFFFFFFFu);
}

}  // namespace
}  // namespace saturn
