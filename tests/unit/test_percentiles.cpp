// Percentiles from the merged log-linear latency histogram: exact where bins are one cycle wide,
// within one bin (and interpolated) above.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "host/engine/metrics.hpp"
#include "kernels/stats/latency_histogram.hpp"

namespace saturn {
namespace {

std::vector<uint64_t> histogram_of(const std::vector<uint32_t>& samples) {
  std::vector<uint64_t> bins(kHistBins, 0);
  for (uint32_t x : samples) bins[latency_bin(x)] += 1;
  return bins;
}

TEST(Percentiles, ExactBelowEightCycles) {
  std::vector<uint32_t> xs;
  for (int i = 0; i < 100; ++i) xs.push_back(i < 99 ? 3 : 7);  // 99 x 3, 1 x 7
  const auto h = histogram_of(xs);
  EXPECT_EQ(histogram_percentile(h, 0.99), 3.0);
  EXPECT_EQ(histogram_percentile(h, 1.0), 7.0);
  EXPECT_EQ(histogram_percentile(h, 0.5), 3.0);
}

TEST(Percentiles, WithinOneBinAbove) {
  // 1000 values 1..1000: the true p99 is 990; bins above 8 are 1/4 octave wide (< 19%).
  std::vector<uint32_t> xs;
  for (uint32_t i = 1; i <= 1000; ++i) xs.push_back(i);
  const double p99 = histogram_percentile(histogram_of(xs), 0.99);
  double low, high;
  latency_bin_range(latency_bin(990), &low, &high);
  EXPECT_GE(p99, low);
  EXPECT_LE(p99, high);
  EXPECT_NEAR(p99, 990.0, 0.05 * 990.0);  // interpolation inside a bin of uniform data: within 5%
}

TEST(Percentiles, EmptyIsNaN) { EXPECT_TRUE(std::isnan(histogram_percentile(std::vector<uint64_t>(kHistBins, 0), 0.99))); }

}  // namespace
}  // namespace saturn
