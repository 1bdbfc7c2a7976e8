// The deterministic ln and the geometric inter-arrival gaps that replace per-cycle Bernoulli draws.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "kernels/common/fastmath.hpp"
#include "kernels/common/rng.hpp"

namespace saturn {
namespace {

TEST(FastMath, LnMatchesLibmAcrossTheRange) {
  // Tolerance: 1e-13 relative, far below what a geometric draw can resolve.
  for (uint64_t w = 0; w <= 0xFFFFFFFFull; w = w * 3 + 1) {
    const double want = std::log(static_cast<double>(w) + 0.5);
    EXPECT_NEAR(ln_half_offset(static_cast<uint32_t>(w)), want, 1e-13 * std::max(1.0, std::fabs(want))) << w;
  }
  EXPECT_NEAR(ln_half_offset(0xFFFFFFFFu), std::log(4294967295.5), 1e-12);
}

TEST(FastMath, GeometricGapEdgeCases) {
  EXPECT_EQ(geometric_gap(12345u, 0.0), 0xFFFFFFFFu);  // p = 0: never
  const double inf = std::numeric_limits<double>::infinity();
  for (uint32_t w : {0u, 1u, 0x80000000u, 0xFFFFFFFFu}) EXPECT_EQ(geometric_gap(w, -inf), 1u);  // p = 1: every cycle
  EXPECT_GE(geometric_gap(0u, std::log1p(-1e-9)), 1u);
}

TEST(FastMath, GeometricGapHasTheBernoulliMeanAndVariance) {
  // Mean 1/p and variance (1-p)/p^2; 200k draws: tolerance 1.5% on the mean, 4% on the variance.
  for (double p : {0.02, 0.25, 0.5, 0.9}) {
    const double l = std::log1p(-p);
    double sum = 0, sum2 = 0;
    const int n = 200000;
    for (int i = 0; i < n; ++i) {
      const double g = geometric_gap(philox(7, 0, static_cast<uint32_t>(i), 0, Stream::kGenerate).v[0], l);
      sum += g;
      sum2 += g * g;
    }
    const double mean = sum / n, var = sum2 / n - mean * mean;
    EXPECT_NEAR(mean, 1.0 / p, 0.015 / p) << p;
    EXPECT_NEAR(var, (1 - p) / (p * p), 0.04 * (1 - p) / (p * p) + 1e-3) << p;
  }
}

}  // namespace
}  // namespace saturn
