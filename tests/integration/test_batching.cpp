// Batching is invisible in the results: a study split into several batches by a small memory
// budget gives every trial the same bits as one batch (seeds depend on (point, trial) only).
#include <gtest/gtest.h>

#include "host/study/study.hpp"
#include "tests/support/run_helpers.hpp"

namespace saturn {
namespace {

TEST(Batching, MemorySplitGivesIdenticalTrials) {
  const Config config = load_config_string("", "test",
                                           {"topology.k=2", "topology.n=3", "simulation.trials=6",
                                            "simulation.warmup_ns=2000", "simulation.duration_ns=40000",
                                            "routing.algorithm=random", "sweep.traffic.load=[0.3, 0.7]"});
  StudyOptions whole;
  whole.threads = 1;
  const StudyResult one = run_study(config, whole);
  ASSERT_EQ(one.batches.size(), 1u);

  StudyOptions split = whole;
  split.memory_budget_override = 3 * one.batches[0].bytes_per_trial;  // 3 trials per batch
  const StudyResult many = run_study(config, split);
  EXPECT_EQ(many.batches.size(), 4u);  // 12 trials in batches of 3
  for (const auto& b : many.batches) EXPECT_LE(b.trials, 3);

  ASSERT_EQ(one.trials.size(), many.trials.size());
  for (size_t i = 0; i < one.trials.size(); ++i) {
    EXPECT_EQ(one.trials[i].point, many.trials[i].point);
    EXPECT_EQ(one.trials[i].seed, many.trials[i].seed);
    ASSERT_EQ(one.trials[i].metrics.size(), many.trials[i].metrics.size());
    for (size_t m = 0; m < one.trials[i].metrics.size(); ++m) {
      const double a = one.trials[i].metrics[m].value, b = many.trials[i].metrics[m].value;
      EXPECT_TRUE(a == b || (a != a && b != b)) << one.trials[i].metrics[m].name << " trial " << i;
    }
  }
}

TEST(Batching, ATrialLargerThanTheBudgetIsAClearError) {
  const Config config = load_config_string("", "test", {"simulation.trials=1"});
  StudyOptions options;
  options.memory_budget_override = 1024;
  try {
    run_study(config, options);
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("one trial needs"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace saturn
