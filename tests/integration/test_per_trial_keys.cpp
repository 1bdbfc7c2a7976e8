// Per-trial keys beyond the loads (docs/parameters.md, "per trial"): points that differ only in
// them share one batch, and each trial of a mixed batch gets the bits it gets when its point runs
// alone. With simulation.seeds = "common" a point alone and the same point in a sweep draw the
// same seeds, so the two runs compare trial for trial.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "host/study/study.hpp"
#include "tests/support/run_helpers.hpp"

namespace saturn {
namespace {

StudyResult run(const Config& config, int threads = 1) {
  StudyOptions options;
  options.threads = threads;
  return run_study(config, options);
}

// The trials of `point` in `mixed` equal those of `alone` (its only point), metric for metric.
void expect_point_as_alone(const StudyResult& mixed, int point, const StudyResult& alone) {
  std::vector<const TrialResult*> mine;
  for (const TrialResult& t : mixed.trials)
    if (t.point == point) mine.push_back(&t);
  ASSERT_EQ(mine.size(), alone.trials.size()) << "point " << point;
  for (size_t i = 0; i < mine.size(); ++i) {
    const TrialResult& a = *mine[i];
    const TrialResult& b = alone.trials[i];
    EXPECT_EQ(a.trial, b.trial);
    EXPECT_EQ(a.seed, b.seed);
    ASSERT_EQ(a.metrics.size(), b.metrics.size());
    for (size_t m = 0; m < a.metrics.size(); ++m) {
      const double x = a.metrics[m].value, y = b.metrics[m].value;
      EXPECT_TRUE(x == y || (x != x && y != y)) << "point " << point << " trial " << a.trial << " " << a.metrics[m].name
                                                 << ": " << x << " mixed, " << y << " alone";
    }
  }
}

// The study batches of `r` whose trials come from more than one point (a batch may run as
// several parts, each listed in r.batches with its batch index).
int mixed_batches(const StudyResult& r) {
  std::map<int, std::set<int>> points_of;
  for (const BatchInfo& b : r.batches) points_of[b.batch].insert(b.points.begin(), b.points.end());
  int n = 0;
  for (const auto& kv : points_of) n += kv.second.size() > 1 ? 1 : 0;
  return n;
}

// 16-node 2-ary 4-tree, timed hot spots, 12 trials a point: two points make a 24-trial batch (a
// pack and a remainder where the build has packs, else scalar trials).
const char* kWindow = R"(
[simulation]
trials = 12
warmup_ns = 0
duration_ns = 30000
seeds = "common"
[topology]
k = 2
n = 4
[traffic]
load = 0.6
pattern = "hotspot_window"
hotspot_nodes = [3]
hotspot_fraction = 0.25
hotspot_start_ns = 5000
hotspot_stop_ns = 25000
)";

TEST(PerTrialKeys, HotspotNodesAndFractionsShareABatchWithTheBitsOfEachAlone) {
  const std::string cases =
      "sweep.hot=[{name = \"a\", traffic.hotspot_nodes = [3], traffic.hotspot_fraction = 0.25},"
      " {name = \"b\", traffic.hotspot_nodes = [12], traffic.hotspot_fraction = 0.5}]";
  const StudyResult mixed = run(load_config_string(kWindow, "mixed", {cases}));
  EXPECT_GT(mixed_batches(mixed), 0) << "one shape: a part holds trials of both points";
  const StudyResult a = run(load_config_string(kWindow, "a"));
  const StudyResult b = run(load_config_string(kWindow, "b", {"traffic.hotspot_nodes=[12]", "traffic.hotspot_fraction=0.5"}));
  expect_point_as_alone(mixed, 0, a);
  expect_point_as_alone(mixed, 1, b);
  // The two points really differ (else the check above could not tell trials apart).
  bool differ = false;
  for (size_t m = 0; m < a.trials[0].metrics.size(); ++m) differ = differ || a.trials[0].metrics[m].value != b.trials[0].metrics[m].value;
  EXPECT_TRUE(differ);
  // The same on two threads.
  const StudyResult two = run(load_config_string(kWindow, "mixed", {cases}), 2);
  expect_point_as_alone(two, 0, a);
  expect_point_as_alone(two, 1, b);
}

TEST(PerTrialKeys, HotspotSourcesOfTheHotspotPatternShareABatch) {
  const char* hotspot = R"(
[simulation]
trials = 10
warmup_ns = 2000
duration_ns = 20000
seeds = "common"
[topology]
k = 2
n = 4
[traffic]
load = 0.8
pattern = "hotspot"
hotspot_destinations = 2
background = "uniform"
background_load = 0.2
[sweep]
traffic.hotspot_sources = [3, 9]
)";
  const StudyResult mixed = run(load_config_string(hotspot, "mixed"));
  EXPECT_GT(mixed_batches(mixed), 0);
  for (int p = 0; p < 2; ++p) {
    const std::string sources = p == 0 ? "3" : "9";
    const StudyResult alone = run(load_config_string(hotspot, "alone", {"sweep.traffic.hotspot_sources=[" + sources + "]"}));
    expect_point_as_alone(mixed, p, alone);
  }
}

// What a per-trial key changes in the batch's shape keeps points apart: a different number of hot
// spots (flows per source), or the victims' row width (hotspot_background = "victims").
TEST(PerTrialKeys, PointsWhoseShapesDifferRunInSeparateBatches) {
  const StudyResult counts = run(load_config_string(
      kWindow, "counts", {"simulation.trials=2", "sweep.traffic.hotspot_nodes=[[3], [3, 12]]"}));
  EXPECT_EQ(mixed_batches(counts), 0);
  const StudyResult victims = run(load_config_string(
      kWindow, "victims",
      {"simulation.trials=2", "traffic.hotspot_background=victims", "sweep.traffic.hotspot_fraction=[0.25, 0.5]"}));
  EXPECT_EQ(mixed_batches(victims), 0);
  // Still each point's own values: the same as alone.
  const StudyResult alone = run(load_config_string(kWindow, "alone", {"simulation.trials=2", "traffic.hotspot_nodes=[3, 12]"}));
  expect_point_as_alone(counts, 1, alone);
}

// An invalid per-trial value is refused as it would be alone, whichever point it is at.
TEST(PerTrialKeys, EveryPointIsCheckedAsIfAlone) {
  const Config config = load_config_string(kWindow, "bad", {"sweep.traffic.hotspot_nodes=[[3], [99]]"});
  try {
    run(config);
    ADD_FAILURE() << "accepted a hot spot that is no endpoint";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("'traffic.hotspot_nodes'"), std::string::npos) << e.what();
  }
}

// simulation.seeds: "per_point" (the default) numbers seeds by point, "common" gives every point
// point 0's seeds.
TEST(PerTrialKeys, CommonSeedsGiveEveryPointTheSameSeeds) {
  const StudyResult common = run(load_config_string(kWindow, "c", {"simulation.trials=2", "sweep.traffic.load=[0.3, 0.6]"}));
  const StudyResult own = run(load_config_string(kWindow, "p", {"simulation.trials=2", "simulation.seeds=per_point",
                                                                  "sweep.traffic.load=[0.3, 0.6]"}));
  ASSERT_EQ(common.trials.size(), 4u);
  EXPECT_EQ(common.trials[0].seed, common.trials[2].seed);
  EXPECT_EQ(common.trials[1].seed, common.trials[3].seed);
  EXPECT_EQ(own.trials[0].seed, common.trials[0].seed);
  EXPECT_NE(own.trials[2].seed, common.trials[2].seed);
  // "common_across_cases": the cases of a case axis draw the seeds of the study without that axis
  // (a figure's curves, each as its one-curve config); the loads draw apart.
  const StudyResult cases = run(load_config_string(
      kWindow, "x", {"simulation.trials=2", "simulation.seeds=common_across_cases", "sweep.traffic.load=[0.3, 0.6]",
                     "sweep.c=[{name = \"a\"}, {name = \"b\", traffic.hotspot_fraction = 0.5}]"}));
  ASSERT_EQ(cases.trials.size(), 8u);  // points (0.3, a), (0.3, b), (0.6, a), (0.6, b)
  for (size_t i = 0; i < cases.trials.size(); ++i)
    EXPECT_EQ(cases.trials[i].seed, own.trials[2 * (i / 4) + i % 2].seed) << i;
}

}  // namespace
}  // namespace saturn

namespace saturn {
namespace {

StudyResult run_file_common(const std::string& config, std::vector<std::string> sets) {
  sets.push_back("simulation.seeds=common");
  return run(load_config_file(test::source_path(config), sets));
}

// Santos et al.'s input-output marking (kernels/cc/marking.hpp): thresholds 4 and 8 in one batch,
// on the two-switch scenario of Fig. 5 with 10 flows, 10 trials a point, a 200 us run.
TEST(PerTrialKeys, OutputThresholdsShareABatchWithTheBitsOfEachAlone) {
  const std::vector<std::string> small{"simulation.warmup_ns=0", "simulation.duration_ns=200000",
                                       "sweep.switch.buffer_bytes=[8272]"};
  auto with = [&](const std::string& axis) {
    std::vector<std::string> s = small;
    s.push_back("sweep.cc.output_threshold=" + axis);
    return s;
  };
  const StudyResult mixed = run_file_common("configs/papers/santos2002/fig5.toml", with("[4, 8]"));
  EXPECT_GT(mixed_batches(mixed), 0);
  expect_point_as_alone(mixed, 0, run_file_common("configs/papers/santos2002/fig5.toml", with("[4]")));
  expect_point_as_alone(mixed, 1, run_file_common("configs/papers/santos2002/fig5.toml", with("[8]")));
  // Threshold 0 is the input trigger alone (another marking mode): a batch of its own.
  const StudyResult modes = run_file_common("configs/papers/santos2002/fig5.toml",
                                            {"simulation.trials=1", "simulation.warmup_ns=0", "simulation.duration_ns=20000",
                                             "sweep.switch.buffer_bytes=[8272]", "sweep.cc.output_threshold=[0, 4]"});
  EXPECT_EQ(mixed_batches(modes), 0);
}

// LHRP's last-hop threshold (001 Fig. 11's axis) on a 5-group dragonfly under the 60:4 hot spot.
TEST(PerTrialKeys, LhrpThresholdsShareABatchWithTheBitsOfEachAlone) {
  const std::vector<std::string> small{"topology.dragonfly_g=5", "link.global_latency_ns=100", "sweep.traffic.load=[0.5]",
                                       "simulation.warmup_ns=1000", "simulation.duration_ns=3000", "simulation.trials=3"};
  auto with = [&](const std::string& axis) {
    std::vector<std::string> s = small;
    s.push_back("sweep.cc.lhrp_threshold_flits=" + axis);
    return s;
  };
  const std::string config = "configs/papers/jiang2015/lhrp_threshold_hotspot_60_4.toml";
  const StudyResult mixed = run_file_common(config, with("[24, 1073741824]"));
  EXPECT_GT(mixed_batches(mixed), 0);
  const StudyResult low = run_file_common(config, with("[24]")), high = run_file_common(config, with("[1073741824]"));
  expect_point_as_alone(mixed, 0, low);
  expect_point_as_alone(mixed, 1, high);
  // The thresholds matter here: the low one drops speculative packets, the high one none.
  EXPECT_GT(test::metric_of(low.trials[0], "dropped_packets"), 0.0);
  EXPECT_EQ(test::metric_of(high.trials[0], "dropped_packets"), 0.0);
}

}  // namespace
}  // namespace saturn
