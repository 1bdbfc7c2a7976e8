// Unit tests for the trial reduction: Student-t quantiles, mean/stddev/CI, NaN handling and row order.
#include "host/stats/summary.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace saturn {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TrialResult trial(int point, int index, std::vector<MetricValue> metrics) {
  TrialResult t;
  t.point = point;
  t.trial = index;
  t.seed = 1000 + static_cast<uint64_t>(index);
  t.metrics = std::move(metrics);
  return t;
}

// One trial per value, all of a single metric at one point.
std::vector<TrialResult> series(int point, const std::string& name, const std::vector<double>& values) {
  std::vector<TrialResult> out;
  for (size_t i = 0; i < values.size(); ++i) out.push_back(trial(point, static_cast<int>(i), {{name, values[i]}}));
  return out;
}

TEST(StatsStudentT, TableValues) {
  EXPECT_DOUBLE_EQ(student_t_975(1), 12.706);
  EXPECT_DOUBLE_EQ(student_t_975(2), 4.303);
  EXPECT_DOUBLE_EQ(student_t_975(3), 3.182);
  EXPECT_DOUBLE_EQ(student_t_975(10), 2.228);
  EXPECT_DOUBLE_EQ(student_t_975(30), 2.042);
}

TEST(StatsStudentT, LargeDfExpansion) {
  // Reference values: t(31) = 2.0395, t(100) = 1.9840, t(1000) = 1.9623.
  EXPECT_NEAR(student_t_975(31), 2.0395, 1e-3);
  EXPECT_NEAR(student_t_975(100), 1.984, 1e-3);
  EXPECT_NEAR(student_t_975(1000), 1.962, 1e-3);
  EXPECT_NEAR(student_t_975(1000000), 1.959964, 1e-5);
}

TEST(StatsStudentT, DecreasesMonotonicallyAcrossTableBoundary) {
  for (int df = 1; df < 500; ++df) EXPECT_GT(student_t_975(df), student_t_975(df + 1)) << "df=" << df;
  // The switch from table to expansion must not jump by more than a table step.
  EXPECT_LT(student_t_975(30) - student_t_975(31), 0.004);
}

TEST(StatsSummarize, HandComputed) {
  const auto rows = summarize(series(0, "x", {1, 2, 3, 4}));
  ASSERT_EQ(rows.size(), 1u);
  const SummaryRow& r = rows[0];
  EXPECT_EQ(r.point, 0);
  EXPECT_EQ(r.metric, "x");
  EXPECT_EQ(r.n, 4);
  EXPECT_DOUBLE_EQ(r.mean, 2.5);
  EXPECT_NEAR(r.stddev, 1.290994, 1e-6);
  const double half = 3.182 * std::sqrt(5.0 / 3.0) / 2.0;
  EXPECT_NEAR(r.ci95_low, 2.5 - half, 1e-12);
  EXPECT_NEAR(r.ci95_high, 2.5 + half, 1e-12);
}

TEST(StatsSummarize, TwoValuesUseDfOne) {
  const auto rows = summarize(series(3, "y", {9, 11}));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].point, 3);
  EXPECT_DOUBLE_EQ(rows[0].mean, 10);
  EXPECT_NEAR(rows[0].stddev, std::sqrt(2.0), 1e-12);
  EXPECT_NEAR(rows[0].ci95_high - rows[0].mean, 12.706, 1e-9);  // 12.706 * sqrt(2) / sqrt(2)
}

TEST(StatsSummarize, NaNValuesAreSkipped) {
  const auto rows = summarize(series(0, "latency", {1, kNaN, 3, kNaN}));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].n, 2);
  EXPECT_DOUBLE_EQ(rows[0].mean, 2);
  EXPECT_NEAR(rows[0].stddev, std::sqrt(2.0), 1e-12);
}

TEST(StatsSummarize, AllNaNGivesRowWithNZero) {
  const auto rows = summarize(series(0, "latency", {kNaN, kNaN}));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].n, 0);
  EXPECT_TRUE(std::isnan(rows[0].mean));
  EXPECT_TRUE(std::isnan(rows[0].stddev));
  EXPECT_TRUE(std::isnan(rows[0].ci95_low));
  EXPECT_TRUE(std::isnan(rows[0].ci95_high));
}

TEST(StatsSummarize, SingleValueHasZeroSpread) {
  const auto rows = summarize(series(0, "x", {7.5, kNaN}));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].n, 1);
  EXPECT_DOUBLE_EQ(rows[0].mean, 7.5);
  EXPECT_DOUBLE_EQ(rows[0].stddev, 0);
  EXPECT_DOUBLE_EQ(rows[0].ci95_low, 7.5);
  EXPECT_DOUBLE_EQ(rows[0].ci95_high, 7.5);
}

TEST(StatsSummarize, EmptyInput) { EXPECT_TRUE(summarize({}).empty()); }

TEST(StatsSummarize, OrderedByPointThenFirstAppearance) {
  std::vector<TrialResult> results;
  results.push_back(trial(2, 0, {{"b", 1}, {"a", 2}}));
  results.push_back(trial(0, 0, {{"z", 1}}));
  results.push_back(trial(0, 1, {{"z", 3}, {"m", 5}}));  // "m" first appears in a later trial
  results.push_back(trial(2, 1, {{"a", 4}, {"b", 3}}));
  const auto rows = summarize(results);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].point, 0);
  EXPECT_EQ(rows[0].metric, "z");
  EXPECT_EQ(rows[0].n, 2);
  EXPECT_DOUBLE_EQ(rows[0].mean, 2);
  EXPECT_EQ(rows[1].point, 0);
  EXPECT_EQ(rows[1].metric, "m");
  EXPECT_EQ(rows[1].n, 1);
  EXPECT_EQ(rows[2].point, 2);
  EXPECT_EQ(rows[2].metric, "b");
  EXPECT_DOUBLE_EQ(rows[2].mean, 2);
  EXPECT_EQ(rows[3].point, 2);
  EXPECT_EQ(rows[3].metric, "a");
  EXPECT_DOUBLE_EQ(rows[3].mean, 3);
}

TEST(StatsSummarize, StableForLargeOffsets) {
  // A naive sum-of-squares formula loses all precision here.
  const double base = 1e12;
  const auto rows = summarize(series(0, "x", {base + 1, base + 2, base + 3}));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_DOUBLE_EQ(rows[0].mean, base + 2);
  EXPECT_NEAR(rows[0].stddev, 1.0, 1e-9);
}

TEST(StatsSummarize, IdenticalValuesGiveZeroStddev) {
  const auto rows = summarize(series(0, "x", {0.1, 0.1, 0.1, 0.1, 0.1}));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_GE(rows[0].stddev, 0.0);
  EXPECT_LT(rows[0].stddev, 1e-15);
  EXPECT_NEAR(rows[0].ci95_low, 0.1, 1e-15);
}

}  // namespace
}  // namespace saturn
