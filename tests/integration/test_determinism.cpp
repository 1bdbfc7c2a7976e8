// Determinism: results depend only on the configuration and the seed, never on the number of
// threads or on how the CPU backend splits the work (trials or elements). Metric values are
// compared bit for bit (double ==; NaN must match NaN).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "kernels/common/macros.hpp"
#include "kernels/launch/engine_launch.hpp"
#include "tests/support/run_helpers.hpp"

namespace saturn {
namespace {

using test::run_toml;

// How the CPU backend splits work is a CPU matter; on a cuda build the same comparisons are a
// check that the GPU gives the same bits for any batching.

const char* kConfig = R"(
[simulation]
trials = 32
warmup_ns = 20000
duration_ns = 200000
[topology]
kind = "kary_ntree"
k = 4
n = 2
[routing]
algorithm = "random"
[traffic]
pattern = "uniform"
load = 0.6
[stats]
per_link = true
)";

bool same_value(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

// Every trial of `a` and `b`: same point, trial, seed, metric names and bit-identical values.
void expect_identical(const StudyResult& a, const StudyResult& b) {
  ASSERT_EQ(a.trials.size(), b.trials.size());
  for (size_t i = 0; i < a.trials.size(); ++i) {
    const TrialResult& x = a.trials[i];
    const TrialResult& y = b.trials[i];
    EXPECT_EQ(x.point, y.point);
    EXPECT_EQ(x.trial, y.trial);
    EXPECT_EQ(x.seed, y.seed);
    ASSERT_EQ(x.metrics.size(), y.metrics.size()) << "trial " << i;
    for (size_t m = 0; m < x.metrics.size(); ++m) {
      ASSERT_EQ(x.metrics[m].name, y.metrics[m].name);
      EXPECT_TRUE(same_value(x.metrics[m].value, y.metrics[m].value))
          << "trial " << i << " " << x.metrics[m].name << ": " << x.metrics[m].value << " vs " << y.metrics[m].value;
    }
  }
}

// How many (trial, metric) values differ between two runs.
int count_differences(const StudyResult& a, const StudyResult& b) {
  int diff = 0;
  for (size_t i = 0; i < a.trials.size() && i < b.trials.size(); ++i)
    for (size_t m = 0; m < a.trials[i].metrics.size() && m < b.trials[i].metrics.size(); ++m)
      if (!same_value(a.trials[i].metrics[m].value, b.trials[i].metrics[m].value)) ++diff;
  return diff;
}

TEST(Determinism, ThreadsDoNotChangeResultsTrialSplit) {
  const StudyResult one = run_toml(kConfig, {}, 1);
  const StudyResult two = run_toml(kConfig, {}, 2);
  ASSERT_EQ(one.trials.size(), 32u);
  // Where 16-trial packs run, the CPU runs each pack as a sub-batch of its own (two here, one per
  // thread); else one batch whose trials the engine splits between the threads (the engine's
  // own trial split is compared with one thread in test_step_identity.cpp).
  const bool packs = kCpuBackend && auto_cpu_step(false) == CpuStep::kPhasesPack16;
  ASSERT_EQ(two.batches.size(), packs ? 2u : 1u);
  if (kCpuBackend) EXPECT_EQ(two.batches[0].split_mode, packs ? "sub-batches" : "trials");
  expect_identical(one, two);
  // Trials are really different from one another (the comparison is not trivially true).
  EXPECT_NE(test::metric_of(one.trials[0], "net_latency_mean_ns"), test::metric_of(one.trials[1], "net_latency_mean_ns"));
  EXPECT_GT(test::metric_of(one.trials[0], "packets_delivered"), 0.0);
}

TEST(Determinism, ThreadsDoNotChangeResultsElementSplit) {
  // One trial on a 48-switch 4-ary 3-tree with 2 threads: the element split (a barrier per phase).
  // Short window: the element split synchronizes every phase of every cycle.
  const std::vector<std::string> single = {"simulation.trials=1", "topology.n=3", "simulation.duration_ns=60000"};
  const StudyResult one = run_toml(kConfig, single, 1);
  const StudyResult two = run_toml(kConfig, single, 2);
  ASSERT_EQ(one.trials.size(), 1u);
  ASSERT_EQ(two.batches.size(), 1u);
  if (kCpuBackend) EXPECT_EQ(two.batches[0].split_mode, "elements");
  expect_identical(one, two);
  // A trial's numbers do not depend on how many trials share its batch: trial 0 of a 1-trial
  // run equals trial 0 of a 3-trial run (trial seeds depend on (seed, point, trial) only). With
  // 2 threads the 3 trials run as single-threaded 1-trial sub-batches, two at a time.
  const StudyResult many = run_toml(kConfig, {"simulation.trials=3", "topology.n=3", "simulation.duration_ns=60000"}, 2);
  if (kCpuBackend) {
    ASSERT_EQ(many.batches.size(), 3u);
    EXPECT_EQ(many.batches[0].split_mode, "sub-batches");
    EXPECT_EQ(many.batches[0].trials + many.batches[1].trials + many.batches[2].trials, 3);
  }
  StudyResult first = many;
  first.trials.resize(1);
  expect_identical(one, first);
}

TEST(Determinism, SameSeedSameValuesOtherSeedOtherValues) {
  const std::vector<std::string> base = {"simulation.trials=4", "simulation.seed=7"};
  const StudyResult a = run_toml(kConfig, base, 1);
  const StudyResult b = run_toml(kConfig, base, 1);
  expect_identical(a, b);
  const StudyResult c = run_toml(kConfig, {"simulation.trials=4", "simulation.seed=8"}, 1);
  ASSERT_EQ(c.trials.size(), a.trials.size());
  for (size_t i = 0; i < a.trials.size(); ++i) EXPECT_NE(a.trials[i].seed, c.trials[i].seed);
  // Nearly every stochastic metric moves with the seed; demand that most do.
  const int diff = count_differences(a, c);
  EXPECT_GT(diff, static_cast<int>(a.trials.size()) * 4) << "only " << diff << " values changed with the seed";
  EXPECT_NE(test::metric_of(a.trials[0], "packets_injected"), test::metric_of(c.trials[0], "packets_injected"));
}

}  // namespace
}  // namespace saturn
