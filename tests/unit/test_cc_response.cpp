// Response functions of Santos et al. (PAPERS-SPEC M27, item 37): the exact recovery times of
// Fig. 6, the per-ACK steps on the continuous F_inc curve, the design principles, the discrete
// IPD mapping, and the deterministic exp2 the kernels use.
#include <gtest/gtest.h>

#include <cmath>

#include "host/cc/recovery.hpp"
#include "kernels/cc/response.hpp"

namespace saturn {
namespace {

constexpr double kPacketTimeUs = 2.048;  // 2048-byte payload at 1 GB/s: the paper's Fig. 6 unit

// Fig. 6: R_min -> R_max takes 8T = 2048 packet times (FIMD) and 255T = 65280 (LIPD, AIMD), i.e.
// 4.194 ms and 133.69 ms at 2.048 us (the paper: 4.2 ms, 133.7 ms). Tolerance: +-1 packet time,
// and 1% against the paper's milliseconds. ACK counts from PAPERS-SPEC Appendix A.
TEST(CcResponse, RecoveryTimesOfFigure6) {
  const Recovery fimd = recover_from_min(Response::kFimd);
  const Recovery lipd = recover_from_min(Response::kLipd);
  const Recovery aimd = recover_from_min(Response::kAimd);
  EXPECT_NEAR(fimd.time, 2048.0, 1.0);
  EXPECT_NEAR(lipd.time, 65280.0, 1.0);
  EXPECT_NEAR(aimd.time, 65280.0, 1.0);
  EXPECT_EQ(fimd.acks, 365);
  EXPECT_EQ(lipd.acks, 1417);
  EXPECT_EQ(aimd.acks, 32765);
  EXPECT_NEAR(fimd.time * kPacketTimeUs / 1000.0, 4.2, 0.042);
  EXPECT_NEAR(lipd.time * kPacketTimeUs / 1000.0, 133.7, 1.337);
  EXPECT_NEAR(aimd.time * kPacketTimeUs / 1000.0, 133.7, 1.337);
}

// Each per-ACK step lands on the paper's continuous curve (relative error 1e-9 before R_max).
TEST(CcResponse, PerAckStepsFollowTheContinuousCurve) {
  for (Response f : {Response::kFimd, Response::kLipd, Response::kAimd}) {
    const Recovery r = recover_from_min(f);
    for (size_t i = 0; i + 1 < r.steps.size(); ++i) {
      const double expected = continuous_recovery(f, r.steps[i].time);
      ASSERT_NEAR(r.steps[i].rate / expected, 1.0, 1e-9) << response_name(f) << " step " << i;
    }
  }
  // The closed forms themselves (Fig. 6 shapes): 2^(t/T)/256, (1 + t/T)/256, 1/(256 - t/T).
  const double T = 256.0;
  for (double t : {0.0, 100.0, 1000.0, 2000.0}) EXPECT_NEAR(continuous_recovery(Response::kFimd, t), std::exp2(t / T) / 256.0, 1e-12);
  for (double t : {0.0, 1e3, 3e4, 6.5e4}) {
    EXPECT_NEAR(continuous_recovery(Response::kAimd, t), (1.0 + t / T) / 256.0, 1e-12);
    EXPECT_NEAR(continuous_recovery(Response::kLipd, t), 1.0 / (256.0 - t / T), 1e-12);
  }
}

// LIPD recovers slowly at low rates and fast at high ones: below AIMD for all 0 < t < 255T, and
// under 0.1 R_max until about 246T.
TEST(CcResponse, LipdStaysBelowAimdUntilTheEnd) {
  const double T = 256.0;
  for (double t = T / 4; t < 255.0 * T; t += T / 4)
    ASSERT_LE(continuous_recovery(Response::kLipd, t), continuous_recovery(Response::kAimd, t)) << t;
  EXPECT_LT(continuous_recovery(Response::kLipd, 245.0 * T), 0.1);
  EXPECT_GT(continuous_recovery(Response::kLipd, 247.0 * T), 0.1);
}

// f_dec: FIMD and AIMD halve (the seed's "min" is the max of PAPERS-SPEC P1.9 #1), LIPD adds one
// to ipd; all floor at R_min. f_inc is capped at R_max.
TEST(CcResponse, DecreaseAndIncreaseFunctions) {
  EXPECT_DOUBLE_EQ(rate_decrease(Response::kAimd, 0.5), 0.25);
  EXPECT_DOUBLE_EQ(rate_decrease(Response::kFimd, 0.5), 0.25);
  EXPECT_DOUBLE_EQ(rate_decrease(Response::kAimd, kRateMin), kRateMin);
  EXPECT_DOUBLE_EQ(rate_decrease(Response::kLipd, 1.0), 0.5);        // ipd 0 -> 1
  EXPECT_DOUBLE_EQ(rate_decrease(Response::kLipd, 1.0 / 3.0), 0.25);  // ipd 2 -> 3
  EXPECT_DOUBLE_EQ(rate_decrease(Response::kLipd, kRateMin), kRateMin);
  for (Response f : {Response::kFimd, Response::kLipd, Response::kAimd}) EXPECT_EQ(rate_increase(f, 1.0), 1.0);
  EXPECT_DOUBLE_EQ(rate_increase(Response::kLipd, 0.5), 0.5 / (1.0 - kRateMin));
  EXPECT_DOUBLE_EQ(rate_increase(Response::kAimd, 0.5), 0.5 + kRateMin * kRateMin / 0.5);
}

// Design choice of M27 for FIMD and LIPD: a decreased flow returns to its previous rate in
// constant time T = 256 packet times, whatever the rate (per-ACK iteration; tolerance 1% plus one
// ACK interval). Classic AIMD does not: its recovery grows with the rate (the contrast of Fig. 6).
TEST(CcResponse, DecreasedFlowRecoversInConstantTime) {
  for (Response f : {Response::kFimd, Response::kLipd})
    for (double r0 : {0.02, 0.1, 0.3, 0.9}) {
      double r = rate_decrease(f, r0), t = 0;
      while (r < r0 * (1.0 - 1e-12)) {
        t += 1.0 / r;
        r = rate_increase(f, r);
      }
      EXPECT_NEAR(t, 256.0, 2.56 + 1.0 / rate_decrease(f, r0)) << response_name(f) << " r0 " << r0;
    }
  double r = rate_decrease(Response::kAimd, 0.9), t = 0;
  while (r < 0.9) t += 1.0 / r, r = rate_increase(Response::kAimd, r);
  EXPECT_GT(t, 100 * 256.0);
}

// Discrete mode: ipd = ceil(1/r - 1) in 0..255, rate 1 / (1 + ipd); the spacing per flit.
TEST(CcResponse, DiscreteIpdMapping) {
  EXPECT_EQ(rate_to_ipd(1.0), 0);
  EXPECT_EQ(rate_to_ipd(0.5), 1);
  EXPECT_EQ(rate_to_ipd(0.3), 3);
  EXPECT_EQ(rate_to_ipd(1.0 / 20.0), 19);
  EXPECT_EQ(rate_to_ipd(kRateMin), 255);
  EXPECT_EQ(rate_to_ipd(kRateMin / 2), 255);
  EXPECT_EQ(rate_gap_q16(0.3, RateGrid::kDiscrete), 4u << 16);
  EXPECT_EQ(rate_gap_q16(0.5, RateGrid::kContinuous), 2u << 16);
  EXPECT_EQ(rate_gap_q16(1.0, RateGrid::kContinuous), 1u << 16);
}

// cc.ipd_steps = s: the grid 1 / (1 + ipd / s), ipd in 0..255 s, rounding down as with s = 1; the
// lowest rate is the same, and the gaps are exact.
TEST(CcResponse, FinerIpdGrid) {
  EXPECT_EQ(rate_to_ipd(0.7, RateGrid::kDiscrete, 2), 1);  // 2/3 (1 step), where s = 1 sends at 1/2
  EXPECT_EQ(rate_gap_q16(0.7, RateGrid::kDiscrete, 2), (1u << 16) + (1u << 15));
  EXPECT_EQ(rate_to_ipd(0.5, RateGrid::kDiscrete, 2), 2);  // on the grid
  EXPECT_EQ(rate_to_ipd(0.8, RateGrid::kDiscrete, 4), 1);  // 4/5: on the grid of s = 4
  EXPECT_EQ(rate_to_ipd(0.8, RateGrid::kDiscreteNearest, 2), 1);  // 2/3 is 0.133 away, 1 is 0.2
  EXPECT_EQ(rate_to_ipd(0.9, RateGrid::kDiscreteNearest, 2), 0);  // 1 is 0.1 away, 2/3 is 0.233
  EXPECT_EQ(rate_to_ipd(kRateMin, RateGrid::kDiscrete, 8), 255 * 8);
  EXPECT_EQ(rate_to_ipd(kRateMin / 2, RateGrid::kDiscrete, 8), 255 * 8);
  for (int s : {1, 2, 4, 16}) {
    for (double r = kRateMin; r <= 1.0; r *= 1.01) {
      const int ipd = rate_to_ipd(r, RateGrid::kDiscrete, s);
      const double sent = s / static_cast<double>(s + ipd);
      EXPECT_LE(sent, r + 1e-12) << s << " " << r;  // never above the computed rate
      if (ipd > 0) EXPECT_GT(s / static_cast<double>(s + ipd - 1), r - 1e-12) << s << " " << r;  // the highest such
      EXPECT_EQ(rate_gap_q16(r, RateGrid::kDiscrete, s), static_cast<uint32_t>(65536.0 / sent + 0.5)) << s << " " << r;
    }
  }
}

// discrete_nearest: the grid rate 1 / (1 + ipd) nearest to r, ties to the lower rate.
TEST(CcResponse, DiscreteNearestIpdMapping) {
  const RateGrid nearest = RateGrid::kDiscreteNearest;
  EXPECT_EQ(rate_to_ipd(1.0, nearest), 0);
  EXPECT_EQ(rate_to_ipd(0.8, nearest), 0);   // 1 is 0.2 away, 1/2 is 0.3
  EXPECT_EQ(rate_to_ipd(0.7, nearest), 1);   // 1/2 is 0.2 away, 1 is 0.3
  EXPECT_EQ(rate_to_ipd(0.75, nearest), 1);  // a tie goes down
  EXPECT_EQ(rate_to_ipd(0.3, nearest), 2);   // 1/3 is 0.033 away, 1/4 is 0.05
  EXPECT_EQ(rate_to_ipd(0.5, nearest), 1);   // on the grid
  EXPECT_EQ(rate_to_ipd(kRateMin, nearest), 255);
  EXPECT_EQ(rate_to_ipd(kRateMin / 2, nearest), 255);
  for (double r = kRateMin; r <= 1.0; r *= 1.01) {
    const int ipd = rate_to_ipd(r, nearest);
    const double sent = 1.0 / (1 + ipd);
    for (int other = 0; other <= kMaxIpd; ++other)
      EXPECT_LE(std::fabs(sent - r), std::fabs(1.0 / (1 + other) - r) + 1e-12) << r << " " << ipd << " " << other;
  }
  EXPECT_EQ(rate_gap_q16(0.7, nearest), 2u << 16);
  EXPECT_EQ(rate_gap_q16(0.8, nearest), 1u << 16);
}

TEST(CcResponse, Exp2MatchesLibm) {
  for (double x = 0; x <= 1.0; x += 1.0 / 64) EXPECT_NEAR(exp2_unit(x) / std::exp2(x), 1.0, 1e-15) << x;
}

}  // namespace
}  // namespace saturn
