// Batching is invisible in the results: a study split into several batches by a small memory
// budget, or padded to whole SIMD packs, gives every trial the same bits as one batch (seeds
// depend on (point, trial) only).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "host/study/study.hpp"
#include "kernels/launch/engine_launch.hpp"
#include "tests/support/run_helpers.hpp"

namespace saturn {
namespace {

void expect_same_trials(const StudyResult& a, const StudyResult& b) {
  ASSERT_EQ(a.trials.size(), b.trials.size());
  for (size_t i = 0; i < a.trials.size(); ++i) {
    EXPECT_EQ(a.trials[i].point, b.trials[i].point);
    EXPECT_EQ(a.trials[i].trial, b.trials[i].trial);
    EXPECT_EQ(a.trials[i].seed, b.trials[i].seed);
    ASSERT_EQ(a.trials[i].metrics.size(), b.trials[i].metrics.size());
    for (size_t m = 0; m < a.trials[i].metrics.size(); ++m) {
      const double x = a.trials[i].metrics[m].value, y = b.trials[i].metrics[m].value;
      EXPECT_TRUE(x == y || (x != x && y != y)) << a.trials[i].metrics[m].name << " trial " << i;
    }
  }
}

// A study on the 8-node 2-ary 3-tree with a 2 us warm-up, plus `sets`.
Config tiny_tree(std::vector<std::string> sets) {
  sets.insert(sets.begin(), {"topology.k=2", "topology.n=3", "simulation.warmup_ns=2000"});
  return load_config_string("", "test", sets);
}

// run_study on `threads` threads, with a memory budget for the batches where `budget` > 0.
StudyResult run_on(const Config& config, int threads, size_t budget = 0) {
  StudyOptions options;
  options.threads = threads;
  if (budget > 0) options.memory_budget_override = budget;
  return run_study(config, options);
}

TEST(Batching, MemorySplitGivesIdenticalTrials) {
  const Config config = tiny_tree({"simulation.trials=6", "simulation.duration_ns=40000", "routing.algorithm=random",
                                   "sweep.traffic.load=[0.3, 0.7]"});
  StudyOptions whole;
  whole.threads = 1;
  const StudyResult one = run_study(config, whole);
  ASSERT_EQ(one.batches.size(), 1u);

  StudyOptions split = whole;
  split.memory_budget_override = 3 * one.batches[0].bytes_per_trial;  // 3 trials per batch
  const StudyResult many = run_study(config, split);
  // 12 trials in batches of 3, each batch run as three 1-trial parts (3 scalar trials are cheaper
  // than a pack, and scalar trials run a part each: cpu_parts.hpp); the manifest lists every part.
  EXPECT_EQ(many.batches.size(), 12u);
  for (const auto& b : many.batches) EXPECT_EQ(b.trials, 1);

  expect_same_trials(one, many);
}


// A batch of 12 trials runs as one 16-trial SIMD pack with 4 padding trials where the build has
// packs (host/packet/cpu_parts.hpp): they are run, never reported, and change no bit of the 12.
// Against batches of 3 (no padding: 3 scalar trials are cheaper than a pack), on one thread and
// on two (one padded single-threaded part: 6 scalar trials a thread would take longer), with a
// time series (padding writes no samples).
TEST(Batching, PaddingTrialsFillAPackAndChangeNothing) {
  const Config config = tiny_tree({"simulation.trials=12", "simulation.duration_ns=40000", "stats.series_interval_ns=10000",
                                   "routing.algorithm=random"});
  StudyOptions whole;
  whole.threads = 1;
  const StudyResult one = run_study(config, whole);
  ASSERT_EQ(one.batches.size(), 1u);
  EXPECT_EQ(one.batches[0].trials, 12);
  const bool packs = auto_cpu_step(false) == CpuStep::kPhasesPack16;
  EXPECT_EQ(one.batches[0].padding_trials, packs ? 4 : 0);
  EXPECT_EQ(one.trials.size(), 12u);
  EXPECT_EQ(one.series.size(), 12u * 4u);  // 4 intervals of the 12 trials, none of the padding's
  for (const auto& x : one.series) EXPECT_LT(x.trial, 12);

  StudyOptions split = whole;
  split.memory_budget_override = 3 * one.batches[0].bytes_per_trial;
  const StudyResult small = run_study(config, split);
  EXPECT_EQ(small.batches.size(), 12u);  // 12 trials in batches of 3, each as three 1-trial parts
  for (const auto& b : small.batches) EXPECT_EQ(b.padding_trials, 0);
  expect_same_trials(one, small);

  StudyOptions two = whole;
  two.threads = 2;
  const StudyResult both = run_study(config, two);
  EXPECT_EQ(both.batches.size(), 1u);
  EXPECT_EQ(both.batches[0].padding_trials, packs ? 4 : 0);
  expect_same_trials(one, both);
  ASSERT_EQ(one.series.size(), both.series.size());
  for (size_t i = 0; i < one.series.size(); ++i) EXPECT_EQ(one.series[i].trial, both.series[i].trial);
}

// Several shapes of 12 trials on two threads: each batch is one single-threaded padded pack, so
// two batches run side by side (run_study, PacketStudyEngine::side_by_side). Same bits as one
// thread, batches listed in point order.
TEST(Batching, BatchesSideBySideChangeNothing) {
  const Config config = tiny_tree({"simulation.trials=12", "simulation.duration_ns=20000",
                                   "sweep.switch.buffer_bytes=[4096, 8192, 16384]"});
  const StudyResult one = run_on(config, 1), two = run_on(config, 2);
  EXPECT_EQ(one.batches.size(), 3u);
  ASSERT_EQ(two.batches.size(), 3u);
  for (size_t b = 0; b < two.batches.size(); ++b) {
    EXPECT_EQ(two.batches[b].points, one.batches[b].points);
    EXPECT_EQ(two.batches[b].trials, 12);
  }
  EXPECT_FALSE(two.partial);
  EXPECT_EQ(one.side_by_side, 1);
  EXPECT_EQ(two.side_by_side, auto_cpu_step(false) == CpuStep::kPhasesPack16 ? 2 : 1);
  expect_same_trials(one, two);
}

// A batch of two packs or more runs as one single-threaded engine per pack and one for the
// remainder, `threads` at a time (host/packet/cpu_parts.hpp): 40 trials as packs of 16, 16 and
// 8 padded to 16, on one thread and on two, give the bits of batches of 3 (scalar: an engine a
// trial), with the time series in the same order.
TEST(Batching, APartPerPackChangesNothing) {
  const Config config = tiny_tree({"simulation.trials=40", "simulation.duration_ns=30000",
                                   "stats.series_interval_ns=10000", "routing.algorithm=random"});
  const StudyResult one = run_on(config, 1), two = run_on(config, 2);
  const StudyResult threes = run_on(config, 1, 3 * one.batches[0].bytes_per_trial);
  EXPECT_EQ(threes.batches.size(), 40u);  // 40 trials in batches of 3 (and 1), each trial a part
  const bool packs = auto_cpu_step(false) == CpuStep::kPhasesPack16;
  for (const StudyResult* r : {&one, &two}) {
    ASSERT_EQ(r->batches.size(), packs ? 3u : 1u);
    if (packs) {
      EXPECT_EQ(r->batches[0].trials + r->batches[1].trials + r->batches[2].trials, 40);
      EXPECT_EQ(r->batches[2].padding_trials, 8);
      EXPECT_EQ(r->batches[0].split_mode, "sub-batches");
    }
    EXPECT_EQ(r->trials.size(), 40u);
    expect_same_trials(threes, *r);
    ASSERT_EQ(r->series.size(), threes.series.size());
    for (size_t i = 0; i < r->series.size(); ++i) EXPECT_EQ(r->series[i].trial, threes.series[i].trial);
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
