// Sharding (--shard i --shards N, or the MPI/Slurm rank) and `saturn merge`: three shards merged
// give byte-identical trials.csv and summary.csv to the unsharded run, because each trial's seed
// depends on its global (point, trial) index only and per-trial values are stored exactly.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "tests/support/run_helpers.hpp"

namespace saturn {
namespace {

using namespace saturn::test;

int run(const std::string& args) {
  const std::string cmd = std::string(SATURN_BINARY) + " " + args + " > /dev/null 2>&1";
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(Sharding, MergedShardsEqualTheUnshardedRun) {
  const std::string dir = make_temp_dir("saturn_shards");
  write_file(dir + "/study.toml",
             "[simulation]\ntrials = 5\nwarmup_ns = 2000\nduration_ns = 30000\n"
             "[topology]\nk = 2\nn = 3\n[routing]\nalgorithm = \"random\"\n[stats]\nseries_interval_ns = 8192\n"
             "[sweep]\ntraffic.load = [0.2, 0.6]\nswitch.arbitration = [\"fcfs\", \"round_robin\"]\n");
  ASSERT_EQ(run("run " + dir + "/study.toml --threads 1 --out " + dir + "/whole"), 0);
  for (int i = 0; i < 3; ++i)
    ASSERT_EQ(run("run " + dir + "/study.toml --threads 1 --shard " + std::to_string(i) + " --shards 3 --out " + dir + "/parts"), 0);
  EXPECT_FALSE(std::filesystem::exists(dir + "/parts/summary.csv"));  // nothing to summarize until merged
  ASSERT_EQ(run("merge " + dir + "/parts"), 0);
  EXPECT_EQ(read_file(dir + "/parts/trials.csv"), read_file(dir + "/whole/trials.csv"));
  EXPECT_EQ(read_file(dir + "/parts/summary.csv"), read_file(dir + "/whole/summary.csv"));
  EXPECT_GT(read_file(dir + "/whole/series.csv").size(), 1000u);
  EXPECT_EQ(read_file(dir + "/parts/series.csv"), read_file(dir + "/whole/series.csv"));
  const auto manifest = nlohmann::json::parse(read_file(dir + "/parts/manifest.json"));
  EXPECT_EQ(manifest["merged_from"].size(), 3u);
  EXPECT_EQ(manifest["trial_seeds"].size(), 20u);  // 4 points x 5 trials
  EXPECT_EQ(manifest["partial"], false);
}

TEST(Sharding, MergeRefusesAnIncompleteSet) {
  const std::string dir = make_temp_dir("saturn_shards_missing");
  write_file(dir + "/study.toml", "[simulation]\ntrials = 4\nduration_ns = 10000\n[topology]\nk = 2\nn = 2\n");
  ASSERT_EQ(run("run " + dir + "/study.toml --threads 1 --shard 1 --shards 2 --out " + dir + "/parts"), 0);
  EXPECT_NE(run("merge " + dir + "/parts"), 0);
  EXPECT_NE(run("run " + dir + "/study.toml --shard 2 --shards 2 --out " + dir + "/bad"), 0);  // shard out of range
}

TEST(Sharding, ShardFromTheMpiEnvironment) {
  const std::string dir = make_temp_dir("saturn_shards_env");
  write_file(dir + "/study.toml", "[simulation]\ntrials = 4\nduration_ns = 10000\n[topology]\nk = 2\nn = 2\n");
  const std::string bin = std::string(SATURN_BINARY);
  for (int rank = 0; rank < 2; ++rank) {
    const std::string cmd = "OMPI_COMM_WORLD_RANK=" + std::to_string(rank) + " OMPI_COMM_WORLD_SIZE=2 " + bin + " run " +
                            dir + "/study.toml --threads 1 --out " + dir + "/mpi > /dev/null 2>&1";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
  }
  EXPECT_TRUE(std::filesystem::exists(dir + "/mpi/trials.shard-000-of-002.csv"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/mpi/trials.shard-001-of-002.csv"));
  EXPECT_EQ(run("merge " + dir + "/mpi"), 0);
}

}  // namespace
}  // namespace saturn
