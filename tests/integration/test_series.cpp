// Time series (stats.series_interval_ns): intervals that tile the measurement window add up to
// the window's own metrics, and they show the dynamics the window hides (Zdornov Fig. 1: s5 at
// 1/3 of the link until it finishes at 3 flow-times, then 0).
#include <gtest/gtest.h>

#include <cmath>

#include "tests/support/run_helpers.hpp"

namespace saturn {
namespace {

using namespace saturn::test;

double series_value(const SeriesSample& s, const std::string& name) {
  for (const auto& m : s.metrics)
    if (m.name == name) return m.value;
  return std::nan("");
}

TEST(Series, IntervalsTileTheWindowAndShowTheDynamics) {
  // One interval = 100 packet times; the window is [100, 2500] packet times.
  const StudyResult r = run_file(source_path("configs/papers/zdornov2009/fig1.toml"),
                                 {"simulation.trials=1", "stats.series_interval_ns=163840"});
  ASSERT_FALSE(r.series.empty());
  const double interval = 163840.0;
  double sum = 0;
  int inside = 0;
  for (const auto& s : r.series) {
    const double end = s.time_ns / interval;  // in intervals
    if (end > 1.5 && end < 25.5) {
      sum += series_value(s, "throughput_per_node");
      ++inside;
      // s5 and s6 get 1/3 of d2 while they run (33 or 34 packets per 100).
      EXPECT_NEAR(series_value(s, "flow_rate[s5->d2]"), 1.0 / 3.0, 0.01) << s.time_ns;
    }
    if (end > 31.5) EXPECT_EQ(series_value(s, "flow_rate[s5->d2]"), 0.0) << "s5 finished at 3 flow-times";
  }
  ASSERT_EQ(inside, 24);
  // Tolerance 1e-12: the same integer counts, summed in another order.
  EXPECT_NEAR(sum / inside, metric_of(r.trials[0], "throughput_per_node"), 1e-12);
}

TEST(Series, IntervalShorterThanACycleIsAConfigError) {
  EXPECT_THROW(run_toml("", {"stats.series_interval_ns=1"}), ConfigError);
}

}  // namespace
}  // namespace saturn
