// Segmented reductions (kernels/launch/segmented_reduce.hpp) against a naive reference: trial-minor
// columns with groups (per-trial port counters, per-trial histograms), contiguous segments with
// empty ones, histogram merges across trials, the widened results and the rejected calls.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "kernels/common/index.hpp"
#include "kernels/launch/segmented_reduce.hpp"

namespace saturn {
namespace {

template <class W>
W naive(const std::vector<W>& xs, ReduceOp op) {
  W acc = op == ReduceOp::kMax ? std::numeric_limits<W>::lowest() : op == ReduceOp::kMin ? std::numeric_limits<W>::max() : W{0};
  for (W x : xs) acc = op == ReduceOp::kMax ? std::max(acc, x) : op == ReduceOp::kMin ? std::min(acc, x) : acc + x;
  return acc;
}

template <class V>
std::vector<V> random_column(size_t n, uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<V> col(n);
  for (V& x : col) {
    const uint64_t r = rng();
    if (std::is_floating_point<V>::value)
      x = static_cast<V>(static_cast<double>(static_cast<int64_t>(r % 2000001) - 1000000) / 7.0);
    else if (std::is_signed<V>::value)
      x = static_cast<V>(static_cast<int64_t>(r % 2000001) - 1000000);
    else
      x = static_cast<V>(r);  // full range: 32-bit sums overflow 32 bits and must not wrap
  }
  return col;
}

template <class V>
void check_trial_minor(ReduceOp op) {
  using W = Wide<V>;
  for (int64_t E : {0, 1, 7, 300})
    for (int64_t G : {1, 3})
      for (int T : {1, 5, 130}) {
        const std::vector<V> col = random_column<V>(static_cast<size_t>(E * G * T), static_cast<uint32_t>(E * 1000 + G * 10 + T));
        const std::vector<W> got = reduce_over_elements_host(col, E, G, T, op);
        ASSERT_EQ(got.size(), static_cast<size_t>(G * T));
        for (int64_t g = 0; g < G; ++g)
          for (int t = 0; t < T; ++t) {
            std::vector<W> xs;
            for (int64_t e = 0; e < E; ++e) xs.push_back(static_cast<W>(col[at(e * G + g, t, T)]));
            ASSERT_EQ(got[at(g, t, T)], naive(xs, op)) << "E=" << E << " G=" << G << " T=" << T << " g=" << g << " t=" << t;
          }
      }
}

TEST(SegmentedReduce, TrialMinorColumnsMatchTheNaiveReduction) {
  for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kMax, ReduceOp::kMin}) {
    check_trial_minor<uint32_t>(op);
    check_trial_minor<uint64_t>(op);
    check_trial_minor<int32_t>(op);
    check_trial_minor<int64_t>(op);
  }
  check_trial_minor<double>(ReduceOp::kMax);
  check_trial_minor<double>(ReduceOp::kMin);
}

// The per-endpoint histograms' layout: a group's elements together (col[at(g * E + e, t, T)]).
TEST(SegmentedReduce, GroupMajorColumnsMatchTheNaiveReduction) {
  for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kMax, ReduceOp::kMin})
    for (int64_t E : {0, 1, 7, 300})
      for (int64_t G : {1, 3, 124})
        for (int T : {1, 5, 16}) {
          const std::vector<uint32_t> col =
              random_column<uint32_t>(static_cast<size_t>(E * G * T), static_cast<uint32_t>(E * 7 + G * 3 + T));
          const std::vector<uint64_t> got = reduce_over_elements_host(col, E, G, T, op, GroupLayout::kGroupMajor);
          ASSERT_EQ(got.size(), static_cast<size_t>(G * T));
          for (int64_t g = 0; g < G; ++g)
            for (int t = 0; t < T; ++t) {
              std::vector<uint64_t> xs;
              for (int64_t e = 0; e < E; ++e) xs.push_back(col[at(g * E + e, t, T)]);
              ASSERT_EQ(got[at(g, t, T)], naive(xs, op)) << "E=" << E << " G=" << G << " T=" << T << " g=" << g;
            }
        }
}

TEST(SegmentedReduce, ThirtyTwoBitSumsAreWidened) {
  const std::vector<uint32_t> col(4 * 2, 0xffffffffu);  // 4 elements, 2 trials
  const std::vector<uint64_t> got = reduce_over_elements_host(col, 4, 1, 2, ReduceOp::kSum);
  EXPECT_EQ(got, (std::vector<uint64_t>{4ull * 0xffffffffull, 4ull * 0xffffffffull}));
}

TEST(SegmentedReduce, ContiguousSegmentsWithEmptyOnes) {
  const std::vector<int64_t> col = random_column<int64_t>(100, 7);
  const std::vector<int64_t> begin = {0, 10, 10, 37, 99, 100, 0};
  const std::vector<int64_t> end = {10, 10, 37, 99, 100, 100, 100};
  for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kMax, ReduceOp::kMin}) {
    const std::vector<int64_t> got = segmented_reduce_host(col, begin, end, op);
    ASSERT_EQ(got.size(), begin.size());
    for (size_t s = 0; s < begin.size(); ++s)
      EXPECT_EQ(got[s], naive(std::vector<int64_t>(col.begin() + begin[s], col.begin() + end[s]), op)) << "segment " << s;
  }
  EXPECT_EQ(segmented_reduce_host(col, {5}, {5}, ReduceOp::kMax)[0], std::numeric_limits<int64_t>::lowest());
  EXPECT_EQ(segmented_reduce_host(col, {5}, {5}, ReduceOp::kMin)[0], std::numeric_limits<int64_t>::max());
  EXPECT_EQ(segmented_reduce_host(col, {5}, {5}, ReduceOp::kSum)[0], 0);
  EXPECT_TRUE(segmented_reduce_host(col, {}, {}, ReduceOp::kSum).empty());
}

TEST(SegmentedReduce, HistogramMergeSumsEveryTrialsBins) {
  const int bins = 9, T = 70;
  const std::vector<uint32_t> hist = random_column<uint32_t>(static_cast<size_t>(bins * T), 11);
  std::vector<int64_t> begin, end;
  for (int b = 0; b < bins; ++b) {
    begin.push_back(int64_t{b} * T);
    end.push_back(int64_t{b + 1} * T);
  }
  // merge_histograms takes backend memory; on the host vector path it is the segmented sum above.
  const std::vector<uint64_t> merged = segmented_reduce_host(hist, begin, end, ReduceOp::kSum);
  for (int b = 0; b < bins; ++b) {
    uint64_t want = 0;
    for (int t = 0; t < T; ++t) want += hist[at(b, t, T)];
    EXPECT_EQ(merged[b], want) << "bin " << b;
  }
#if !defined(SATURN_BACKEND_CUDA)  // the CPU backend's memory is host memory
  EXPECT_EQ(merge_histograms(hist.data(), bins, T), merged);
#endif
}

TEST(SegmentedReduce, CountsPresentValuesPerTrial) {
  const int E = 37, T = 70;  // two CPU chunks of trials, the second partial
  const uint32_t absent = 0xFFFFFFFFu;
  std::vector<uint32_t> col(static_cast<size_t>(E) * T, absent);
  std::vector<uint64_t> want(T, 0);
  for (int e = 0; e < E; ++e)
    for (int t = 0; t < T; ++t)
      if ((e * 7 + t * 3) % 5 == 0) {
        col[at(e, t, T)] = static_cast<uint32_t>(e);  // 0 is a present value, not a free one
        ++want[t];
      }
  EXPECT_EQ(count_present_host(col, E, T, absent), want);
  EXPECT_EQ(count_present_host(std::vector<uint32_t>{}, 0, 3, absent), std::vector<uint64_t>(3, 0));
  EXPECT_THROW(count_present_host(col, E + 1, T, absent), std::invalid_argument);
  const std::vector<uint16_t> flows = {1, 2, 3, 4, 5, 6};  // 3 elements x 2 trials, as rc_flows
  EXPECT_EQ(reduce_over_elements_host(flows, 3, 1, 2, ReduceOp::kSum), (std::vector<uint64_t>{9, 12}));
}

TEST(SegmentedReduce, RejectsOrderDependentOrMalformedCalls) {
  const std::vector<double> d(6, 1.0);
  EXPECT_THROW(reduce_over_elements_host(d, 3, 1, 2, ReduceOp::kSum), std::invalid_argument);
  EXPECT_THROW(segmented_reduce_host(d, {0}, {6}, ReduceOp::kSum), std::invalid_argument);
  const std::vector<int64_t> col(6, 1);
  EXPECT_THROW(reduce_over_elements_host(col, 4, 1, 2, ReduceOp::kMax), std::invalid_argument);  // 6 != 8 values
  EXPECT_THROW(reduce_over_elements_host(col, 3, 0, 2, ReduceOp::kMax), std::invalid_argument);
  EXPECT_THROW(segmented_reduce_host(col, {0, 1}, {1}, ReduceOp::kSum), std::invalid_argument);
  EXPECT_THROW(segmented_reduce_host(col, {3}, {2}, ReduceOp::kSum), std::invalid_argument);
  EXPECT_THROW(segmented_reduce_host(col, {0}, {7}, ReduceOp::kSum), std::invalid_argument);
  EXPECT_THROW(reduce_over_elements_host(col, 3, 1, 2, ReduceOp::kCount), std::invalid_argument);
}

}  // namespace
}  // namespace saturn
