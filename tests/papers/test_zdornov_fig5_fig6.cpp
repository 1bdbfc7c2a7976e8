// Zdornov & Birk 2009, Fig. 5 (PAPERS-SPEC item 5): max and average per-flow contention against
// horizontal width, static D-mod-K on the unmodified tree against adaptive flow routing on the
// modified tree; item 4's "+10% ports"; and item 9's fluid lower bounds (Fig. 6), at reduced trial
// counts. Tolerances are PAPERS-SPEC's acceptance bands unless a comment says otherwise.
#include <gtest/gtest.h>

#include "tests/support/run_helpers.hpp"

namespace saturn {
namespace {
using namespace saturn::test;

// Points: 0 = D-mod-K, width 0; 1..4 = adaptive at widths 0, 1, 2, 4.
StudyResult contention_study(int k, int trials) {
  const std::string toml = R"(
[simulation]
mode = "flow"
[topology]
n = 3
[traffic]
pattern = "permutation"
[flow]
maxmin = false
)";
  StudyResult r = run_toml(toml, {"topology.k=" + std::to_string(k), "simulation.trials=" + std::to_string(trials)}, 2);
  StudyResult adaptive = run_toml(toml, {"topology.k=" + std::to_string(k), "simulation.trials=" + std::to_string(trials),
                                         "routing.algorithm=adaptive", "sweep.topology.horizontal_width=[0, 1, 2, 4]"},
                                  2);
  for (auto& t : adaptive.trials) {
    t.point += 1;
    r.trials.push_back(t);
  }
  return r;
}

TEST(ZdornovFig5, SixteenAryThreeTree4096Nodes) {
  const StudyResult r = contention_study(16, 150);
  const double static_max = metric_mean(r, "contention_max", 0), static_avg = metric_mean(r, "contention_mean", 0);
  EXPECT_NEAR(static_max, 5.9, 0.4);  // item 5: oblivious mean max 5.9 +- 0.4 with d-mod-k
  EXPECT_NEAR(static_avg, 2.33, 0.05);  // Appendix A oracle: 2.33
  // Width 0: adaptation during ascent only, "no impact": within 15% of static.
  EXPECT_NEAR(metric_mean(r, "contention_max", 1) / static_max, 1.0, 0.15);
  // Width >= 2: max -40..60%, average -20% or more.
  for (int p : {3, 4}) {
    SCOPED_TRACE("point " + std::to_string(p));
    const double max_ratio = metric_mean(r, "contention_max", p) / static_max;
    EXPECT_GE(max_ratio, 0.40);
    EXPECT_LE(max_ratio, 0.60);
    EXPECT_LE(metric_mean(r, "contention_mean", p) / static_avg, 0.80);
  }
  // Max contention is non-increasing in width (within sampling noise of 150 trials).
  for (int p = 2; p <= 4; ++p) EXPECT_LE(metric_mean(r, "contention_max", p), metric_mean(r, "contention_max", p - 1) + 0.05);
  // Item 4: width 2 adds 1980 ports, 9.7% of the 20480 used ones.
  EXPECT_EQ(metric_mean(r, "switch_ports", 3), 20480 + 1980);
  EXPECT_NEAR(metric_mean(r, "switch_ports_added_pct", 3), 9.7, 0.05);
}

// The 64-node 4-ary 3-tree at the same acceptance where it holds. The 40-60% band for the max is the
// paper's 4096-node claim; on 64 nodes the spec's own oracle (Appendix A, 300 permutations) gives
// 1.94 / 3.11 = 0.62 at width 2 and 0.59 at width 4, and so do we: the max can hardly fall below 2
// here. We hold the max ratio to <= 0.66 (measured 0.63 at width 2, 0.60 at width 4).
TEST(ZdornovFig5, FourAryThreeTree64Nodes) {
  const StudyResult r = contention_study(4, 400);
  const double static_max = metric_mean(r, "contention_max", 0), static_avg = metric_mean(r, "contention_mean", 0);
  EXPECT_NEAR(metric_mean(r, "contention_max", 1) / static_max, 1.0, 0.15);
  for (int p : {3, 4}) {
    SCOPED_TRACE("point " + std::to_string(p));
    EXPECT_LE(metric_mean(r, "contention_max", p) / static_max, 0.66);
    EXPECT_LE(metric_mean(r, "contention_mean", p) / static_avg, 0.80);
  }
}

// Fig. 6 fluid lower bound W (= SAA completion) for P superposed permutations, static D-mod-K on
// the unmodified tree against adaptive routing at width 2. Appendix A (8 seeds, +-0.3): static 5.9,
// 12.4, 19.6 and adaptive 3.0, 7.1, 12.3 for P = 1, 4, 8.
TEST(ZdornovFig6, FluidLowerBoundsAgainstPermutations) {
  const std::string toml = R"(
[simulation]
mode = "flow"
trials = 16
[topology]
k = 16
n = 3
[traffic]
pattern = "permutation"
[flow]
maxmin = false
[sweep]
traffic.permutations = [1, 4, 8]
)";
  const StudyResult st = run_toml(toml, {}, 2);
  const StudyResult ad = run_toml(toml, {"routing.algorithm=adaptive", "topology.horizontal_width=2"}, 2);
  const double want_static[] = {5.9, 12.4, 19.6}, want_adaptive[] = {3.0, 7.1, 12.3};
  for (int p = 0; p < 3; ++p) {
    SCOPED_TRACE("point " + std::to_string(p));
    EXPECT_NEAR(metric_mean(st, "saa_completion", p), want_static[p], 0.4);
    EXPECT_NEAR(metric_mean(ad, "saa_completion", p), want_adaptive[p], 0.4);
    for (const auto* r : {&st, &ad})
      for (const auto& t : r->trials)
        EXPECT_EQ(metric_of(t, "saa_completion"), metric_of(t, "completion_lower_bound"));
  }
}

}  // namespace
}  // namespace saturn
