// PAPERS-SPEC reproduction item 9 (Zdornov & Birk 2009, Fig. 6), static-routing half at reduced
// size: NC (greedy, round robin) against SAA (Periodic Selection at the SAA rates) on the same
// flows (configs/papers/zdornov2009/fig6_packet_static.toml run twice: same seeds), 4 runs,
// P = 1 and 3. Acceptance (e): SAA within 5% of the fluid W; (c): SAA / NC in [0.82, 1.00].
#include <gtest/gtest.h>

#include <string>

#include "tests/support/run_helpers.hpp"

namespace saturn {
namespace {

using test::metric_mean;
using test::run_file;
using test::source_path;

StudyResult run_fig6(const std::string& scheduler) {
  return run_file(source_path("configs/papers/zdornov2009/fig6_packet_static.toml"),
                  {"simulation.trials=4", "injection.scheduler=\"" + scheduler + "\"", "sweep.traffic.permutations=[1, 3]"});
}

TEST(ZdornovFig6Packet, SaaMeetsTheFluidBoundAndBeatsNc) {
  const StudyResult nc = run_fig6("round_robin");
  const StudyResult saa = run_fig6("ps");
  for (int point = 0; point < 2; ++point) {
    const double w = metric_mean(saa, "saa_completion_bound_ns", point);
    ASSERT_EQ(w, metric_mean(nc, "saa_completion_bound_ns", point)) << "the same flows in both runs";
    const double s = metric_mean(saa, "completion_time_ns", point), n = metric_mean(nc, "completion_time_ns", point);
    EXPECT_LE(s / w, 1.05) << "P = " << (point == 0 ? 1 : 3) << ": acceptance (e), SAA within 5% of W";
    EXPECT_GE(s / w, 1.0) << "nothing beats the fluid bound";
    EXPECT_GE(s / n, 0.82) << "acceptance (c)";
    EXPECT_LE(s / n, 1.00) << "acceptance (c) and (f): SAA <= NC";
  }
}

}  // namespace
}  // namespace saturn
