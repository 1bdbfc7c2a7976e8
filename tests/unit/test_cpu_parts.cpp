// The CPU parts of a batch (host/packet/cpu_parts.hpp): where padding trials fill a 16-trial pack,
// when whole packs beat scalar trials, in trial times (pack 1, scalar = speedup), and that scalar
// trials run as parts of one trial each.
#include <gtest/gtest.h>

#include <cstddef>
#include <limits>
#include <vector>

#include "host/packet/cpu_parts.hpp"

namespace saturn {
namespace {

constexpr size_t kRoom = std::numeric_limits<size_t>::max() / 2;

// `count` scalar parts of one trial each from trial `first`, after the parts `before`.
std::vector<CpuPart> singles(size_t first, size_t count, std::vector<CpuPart> before = {}) {
  for (size_t t = first; t < first + count; ++t) before.push_back(CpuPart{t, 1, 0, 1});
  return before;
}

void expect_parts(const std::vector<CpuPart>& got, const std::vector<CpuPart>& want) {
  ASSERT_EQ(got.size(), want.size());
  size_t next = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].first, want[i].first) << "part " << i;
    EXPECT_EQ(got[i].count, want[i].count) << "part " << i;
    EXPECT_EQ(got[i].padding, want[i].padding) << "part " << i;
    EXPECT_EQ(got[i].threads, want[i].threads) << "part " << i;
    EXPECT_EQ(got[i].first, next) << "parts cover the batch in order";
    next += got[i].count;
  }
}

TEST(CpuParts, OneThreadPadsARemainderWhereAPackIsCheaper) {
  expect_parts(plan_cpu_parts(10, 1, 3.9, kRoom), {{0, 10, 6, 1}});  // 10 x 3.9 = 39 > 16
  expect_parts(plan_cpu_parts(26, 1, 3.9, kRoom), {{0, 16, 0, 1}, {16, 10, 6, 1}});  // a pack and 10 padded to one
  expect_parts(plan_cpu_parts(5, 1, 2.8, kRoom), singles(0, 5));  // 14 < 16: scalar, a part a trial
  expect_parts(plan_cpu_parts(12, 1, 1.3, kRoom), singles(0, 12));  // 15.6 < 16
  expect_parts(plan_cpu_parts(32, 1, 3.9, kRoom), {{0, 16, 0, 1}, {16, 16, 0, 1}});  // a part per pack
  expect_parts(plan_cpu_parts(1, 1, 3.9, kRoom), {{0, 1, 0, 1}});
}

TEST(CpuParts, PaddingNeedsRoomInMemory) {
  expect_parts(plan_cpu_parts(10, 1, 3.9, 15), singles(0, 10));
  expect_parts(plan_cpu_parts(10, 1, 3.9, 16), {{0, 10, 6, 1}});
}

TEST(CpuParts, SmallBatchesOnSeveralThreadsTakeTheCheaperSplit) {
  // 10 trials, 2 threads: 5 scalar each costs 19.5 with Santos' 3.9, so one padded pack (16);
  // with the fat tree's 2.8 it costs 14, so ten 1-trial parts, two at a time.
  expect_parts(plan_cpu_parts(10, 2, 3.9, kRoom), {{0, 10, 6, 1}});
  expect_parts(plan_cpu_parts(10, 2, 2.8, kRoom), singles(0, 10));
  // 20 trials, 2 threads: a pack on one thread, 4 scalar trials (11.2) on the other.
  expect_parts(plan_cpu_parts(20, 2, 2.8, kRoom), singles(16, 4, {{0, 16, 0, 1}}));
  // 5 trials (Rocher's 5 seeds) on the dragonfly-like 1.3: scalar.
  expect_parts(plan_cpu_parts(5, 2, 1.3, kRoom), singles(0, 5));
  // No packs on this build (speedup 0): scalar.
  expect_parts(plan_cpu_parts(10, 2, 0.0, kRoom), singles(0, 10));
  expect_parts(plan_cpu_parts(10, 1, 0.0, kRoom), singles(0, 10));
}

// Two packs or more: a part per pack (its state contiguous), the remainder padded where it pays;
// without packs one threaded part, as before.
TEST(CpuParts, LargeBatchesRunAPartPerPackWithTheirRemainderPadded) {
  expect_parts(plan_cpu_parts(40, 2, 3.9, kRoom), {{0, 16, 0, 1}, {16, 16, 0, 1}, {32, 8, 8, 1}});  // 8 x 3.9 > 16
  expect_parts(plan_cpu_parts(36, 2, 3.9, kRoom), singles(32, 4, {{0, 16, 0, 1}, {16, 16, 0, 1}}));  // 4 x 3.9 < 16
  expect_parts(plan_cpu_parts(40, 2, 3.9, 39), singles(32, 8, {{0, 16, 0, 1}, {16, 16, 0, 1}}));  // no room to pad
  expect_parts(plan_cpu_parts(128, 4, 2.8, kRoom),
               {{0, 16, 0, 1}, {16, 16, 0, 1}, {32, 16, 0, 1}, {48, 16, 0, 1}, {64, 16, 0, 1}, {80, 16, 0, 1},
                {96, 16, 0, 1}, {112, 16, 0, 1}});
  expect_parts(plan_cpu_parts(140, 2, 0.0, kRoom), {{0, 140, 0, 2}});
}

TEST(CpuParts, SpeedupEstimateByModelFamily) {
  ModelParams m{};
  EXPECT_DOUBLE_EQ(pack_speedup_estimate(m), 2.8);
  m.df.on = true;
  EXPECT_DOUBLE_EQ(pack_speedup_estimate(m), 1.3);
}

// A trial that fits the last-level cache in a pack far beyond it: no pack (the estimate 1), and a
// batch of such trials runs a part a trial, whatever its size. Sizes from bench/RESULTS.md,
// 2026-12-07: default.toml's fat tree at 0.24, 2.1, 7.9 and 20 MB a trial, the 1056-node dragonfly
// at 115 MB.
TEST(CpuParts, TrialsThatFitTheCacheInPacksThatDoNotRunOneAPart) {
  ModelParams m{};
  const size_t mb = size_t{1} << 20;
  EXPECT_DOUBLE_EQ(pack_speedup_estimate(m, mb / 4), 2.8);
  EXPECT_DOUBLE_EQ(pack_speedup_estimate(m, 2 * mb), 2.8);   // a pack of 34 MB: still pays (2.6x)
  EXPECT_DOUBLE_EQ(pack_speedup_estimate(m, 8 * mb), 1.0);   // 126 MB a pack
  EXPECT_DOUBLE_EQ(pack_speedup_estimate(m, 20 * mb), 1.0);
  m.df.on = true;
  EXPECT_DOUBLE_EQ(pack_speedup_estimate(m, 115 * mb), 1.3);  // fits no cache alone either
  EXPECT_DOUBLE_EQ(pack_speedup_estimate(m, 6 * mb), 1.0);
  expect_parts(plan_cpu_parts(50, 2, 1.0, kRoom), singles(0, 50));
  expect_parts(plan_cpu_parts(32, 1, 1.0, kRoom), singles(0, 32));
  expect_parts(plan_cpu_parts(16, 2, 1.0, kRoom), singles(0, 16));
  expect_parts(plan_cpu_parts(10, 1, 1.0, kRoom), singles(0, 10));  // no padding either
}

}  // namespace
}  // namespace saturn
