// Issue 9 item 1: every config under configs/ (reduced to 2 trials and a short window) gives the
// same trials.csv, byte for byte, with 1 and 2 threads and unsharded or as 3 merged shards. Two
// threads split small batches into concurrent sub-batches, and shards cut the trial list, so a
// metric that depended on its batch's composition (e.g. a finite trial's rate over the batch's
// length instead of its own) shows up here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include "host/engine/model_setup.hpp"
#include "tests/support/cli_helpers.hpp"

namespace saturn {
namespace {
using namespace saturn::test;

class DeterminismEachConfig : public ::testing::TestWithParam<int> {};

TEST_P(DeterminismEachConfig, ThreadsAndShardsGiveTheSameTrialsCsv) {
  ASSERT_GE(run_tested_configs().size(), static_cast<size_t>(kConfigShards));
  const auto paths = run_tested_configs_shard(GetParam());
  ASSERT_FALSE(paths.empty());
  const std::string root = make_temp_dir("saturn_det_all_" + std::to_string(GetParam()));
  for (const auto& path : paths) {
    SCOPED_TRACE(path);
    const std::string dir = root + "/" + std::filesystem::path(path).stem().string();
    // 2 trials per point, a 10 us window from t = 0 (finite flows run to completion regardless;
    // the flow engine has no time, and its configs refuse the window's keys).
    std::vector<std::string> reduce{"--trials", "2", "--quiet"};
    if (load_config_file(path).get_string("simulation.mode") != "flow")
      reduce.insert(reduce.end(), {"--set", "simulation.warmup_ns=0", "--set", "simulation.duration_ns=10000"});
    for (const std::string& o : small_size_overrides(path)) reduce.insert(reduce.end(), {"--set", o});
    auto run = [&](std::vector<std::string> args) {
      args.insert(args.begin() + 1, path);
      args.insert(args.end(), reduce.begin(), reduce.end());
      const CliRun r = saturn_cli(args);
      EXPECT_EQ(r.rc, 0) << r.err;
    };
    run({"run", "--threads", "1", "--out", dir + "/t1"});
    run({"run", "--threads", "2", "--out", dir + "/t2"});
    for (int i = 0; i < 3; ++i)
      run({"run", "--threads", "1", "--shard", std::to_string(i), "--shards", "3", "--out", dir + "/s3"});
    const CliRun merged = saturn_cli({"merge", dir + "/s3", "--quiet"});
    ASSERT_EQ(merged.rc, 0) << merged.err;
    const std::string reference = read_file(dir + "/t1/trials.csv");
    EXPECT_EQ(read_file(dir + "/t2/trials.csv"), reference) << "--threads 2 differs from --threads 1";
    EXPECT_EQ(read_file(dir + "/s3/trials.csv"), reference) << "3 merged shards differ from the unsharded run";
    EXPECT_EQ(read_file(dir + "/s3/summary.csv"), read_file(dir + "/t1/summary.csv"));
  }
}

INSTANTIATE_TEST_SUITE_P(Shard, DeterminismEachConfig, ::testing::Range(0, kConfigShards));

// The case: the trials of a finite phase finish at different cycles. Run as one batch or
// as batches of one trial each, every trial reports the same metrics, and its throughput is its
// own: trials that finish at different times report different rates.
TEST(DeterminismAllConfigs, FiniteTrialsAreMeasuredOverTheirOwnWindow) {
  const std::string path = source_path("configs/examples/permutation_phase.toml");
  const Config config = load_config_file(path, {"simulation.trials=6", "sweep.routing.algorithm=[\"dmodk\"]",
                                                "sweep.traffic.permutations=[8]",
                                                "stats.series_interval_ns=5000"});
  StudyOptions one_batch;
  one_batch.config_dir = source_path("configs/examples");
  // The memory check reserves series samples up to the 1 s time limit a finite run may reach (about
  // 18 GiB here), more than a busy machine has available; the run itself takes a few MB.
  one_batch.max_memory = size_t{64} << 30;
  StudyOptions single = one_batch;
  single.memory_budget_override = build_model(expand_sweep(config).front().config, one_batch.config_dir).bytes_per_trial();
  const StudyResult a = run_study(config, one_batch), b = run_study(config, single);
  ASSERT_EQ(a.batches.size(), 1u);
  ASSERT_EQ(b.batches.size(), 6u);
  ASSERT_EQ(a.trials.size(), 6u);
  std::set<double> rates, completions;
  for (size_t i = 0; i < a.trials.size(); ++i) {
    ASSERT_EQ(a.trials[i].metrics.size(), b.trials[i].metrics.size());
    for (size_t m = 0; m < a.trials[i].metrics.size(); ++m) {
      const double x = a.trials[i].metrics[m].value, y = b.trials[i].metrics[m].value;
      EXPECT_TRUE(x == y || (std::isnan(x) && std::isnan(y))) << a.trials[i].metrics[m].name << " of trial " << i;
    }
    rates.insert(metric_of(a.trials[i], "throughput_per_node"));
    completions.insert(metric_of(a.trials[i], "completion_time_ns"));
  }
  ASSERT_GT(completions.size(), 1u) << "the trials should finish at different cycles";
  // A finished trial's time series stops with it, whatever its batch does next.
  ASSERT_EQ(a.series.size(), b.series.size());
  for (size_t i = 0; i < a.series.size(); ++i) {
    EXPECT_EQ(a.series[i].trial, b.series[i].trial);
    EXPECT_EQ(a.series[i].time_ns, b.series[i].time_ns);
  }
  EXPECT_GT(rates.size(), 1u) << "a trial's rate must follow its own completion, not its batch's";
}

}  // namespace
}  // namespace saturn
