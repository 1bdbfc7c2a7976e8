// The `saturn` executable on hostile input (issue 9): memory refused before allocation (under
// `ulimit -v`, so that an allocation would fail), devices as topology files, the --seed range,
// unknown subcommands, launcher variables, --out "", and the batching note printed once.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <sys/wait.h>

#include <sys/wait.h>

#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "host/study/study.hpp"
#include "tests/support/cli_helpers.hpp"
#include "tests/support/run_helpers.hpp"

namespace saturn {
namespace {

struct Result {
  int rc = -1;
  std::string out, err;
};

std::string sh_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Runs `prefix saturn args` through /bin/sh (prefix: environment settings, `ulimit -v N;`).
Result run_saturn(const std::vector<std::string>& args, const std::string& prefix = "") {
  const std::string dir = test::make_temp_dir("saturn_limits");
  // The launcher variables of the test's own environment must not decide the sharding here.
  std::string cmd = "unset OMPI_COMM_WORLD_RANK OMPI_COMM_WORLD_SIZE PMI_RANK PMI_SIZE SLURM_ARRAY_TASK_ID "
                    "SLURM_ARRAY_TASK_COUNT SLURM_ARRAY_TASK_MIN SLURM_PROCID SLURM_NTASKS; " +
                    prefix + " exec " + sh_quote(SATURN_BINARY);
  for (const auto& a : args) cmd += " " + sh_quote(a);
  cmd += " > " + dir + "/out.txt 2> " + dir + "/err.txt";
  const int status = std::system(("/bin/sh -c " + sh_quote(cmd)).c_str());
  Result r;
  if (WIFEXITED(status)) r.rc = WEXITSTATUS(status);
  r.out = test::read_file(dir + "/out.txt");
  r.err = test::read_file(dir + "/err.txt");
  return r;
}

int lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

void expect_error(const Result& r, const std::string& needle) {
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << "'" << needle << "' not in: " << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

std::string small_config() {
  const std::string path = test::make_temp_dir("saturn_cfg") + "/small.toml";
  test::write_file(path, "[simulation]\ntrials = 1\nwarmup_ns = 0\nduration_ns = 2000\n[topology]\nk = 2\nn = 2\n");
  return path;
}

// 1 GB of address space: enough to start, far too little for any of the refused tables.
const std::string kSmallAddressSpace = "ulimit -v 1000000;";

TEST(CliLimits, HugeNetworksAreRefusedBeforeAnyAllocation) {
  const std::string cfg = small_config();
  for (const auto& kn : std::vector<std::pair<std::string, std::string>>{{"4", "8"}, {"32", "4"}, {"16", "5"}}) {
    const Result r = run_saturn({"validate", cfg, "--set", "topology.k=" + kn.first, "--set", "topology.n=" + kn.second,
                                 "--max-memory", "8GiB"},
                                kSmallAddressSpace);
    expect_error(r, "routing tables");
    EXPECT_NE(r.err.find("8.0 GiB available (--max-memory)"), std::string::npos) << r.err;
  }
  // run refuses the same way.
  const std::string out = test::make_temp_dir("saturn_out") + "/never";
  expect_error(run_saturn({"run", cfg, "--set", "topology.k=4", "--set", "topology.n=8", "--max-memory", "8GiB", "--out",
                           out},
                          kSmallAddressSpace),
               "needs about");
}

TEST(CliLimits, ValidateSizesTablesWithoutBuildingThem) {
  // 16 x 65536 routing entries need about 6 GiB: allowed here, and validate builds none of it.
  const Result r = run_saturn({"validate", small_config(), "--set", "topology.k=16", "--set", "topology.n=4",
                               "--trials", "1000", "--max-memory", "64GiB"},
                              kSmallAddressSpace);
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("ok"), std::string::npos) << r.out;
  expect_error(run_saturn({"validate", small_config(), "--max-memory", "lots"}), "--max-memory 'lots'");
}

// validate --memory: the need item by item, then one trial's engine state column by column, whose
// shares add up to the whole; a study refused for its size still shows the report before its one
// error line; the flow engine has no engine state columns.
TEST(CliLimits, ValidateMemoryShowsWhereTheMemoryGoes) {
  const Result r = run_saturn({"validate", small_config(), "--memory", "--max-memory", "8GiB"});
  EXPECT_EQ(r.rc, 0) << r.err;
  for (const char* needle : {": ok (1 point x 1 trials)", "8.0 GiB available (--max-memory)", "results",
                             "engine state of one trial (point 0", "ent_pkt", "voq_ready",
                             "packet entries: at most 8 per input port (switch.packet_descriptors); its buffers hold "
                             "up to 8 packets",
                             "one trial's stage for the GPU's shared program (SATURN_GPU_STEP=shared): "})
    EXPECT_NE(r.out.find(needle), std::string::npos) << needle << " not in: " << r.out;
  const size_t by_column = r.out.find("by column:");
  ASSERT_NE(by_column, std::string::npos) << r.out;
  double share = 0;
  int columns = 0;
  std::istringstream in(r.out.substr(by_column));
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line.back() == '%') {
      share += std::stod(line.substr(line.rfind(' ') + 1));
      ++columns;
    }
  EXPECT_GT(columns, 5) << r.out;
  EXPECT_NEAR(share, 100.0, 0.05 * columns + 0.05) << r.out;  // each share rounded to 0.1%

  const Result big = run_saturn({"validate", small_config(), "--memory", "--trials", "1000000", "--max-memory", "1GiB"});
  EXPECT_EQ(big.rc, 2) << big.err;
  EXPECT_EQ(lines(big.err), 1) << big.err;
  EXPECT_NE(big.err.find("needs about"), std::string::npos) << big.err;
  EXPECT_NE(big.out.find("1.0 GiB available (--max-memory)"), std::string::npos) << big.out;
  EXPECT_NE(big.out.find("results"), std::string::npos) << big.out;

  const Result flow = run_saturn({"validate", test::source_path("configs/papers/zdornov2009/fig5_contention.toml"),
                                  "--memory", "--max-memory", "8GiB"});
  EXPECT_EQ(flow.rc, 0) << flow.err;
  EXPECT_NE(flow.out.find("flow-engine scratch"), std::string::npos) << flow.out;
  EXPECT_EQ(flow.out.find("by column"), std::string::npos) << flow.out;
}

TEST(CliLimits, DevicesAreNotTopologyOrConfigFiles) {
  // (without small_config()'s topology.k and n, which do not apply to an edge-list topology)
  const std::string cfg = test::make_temp_dir("saturn_cfg") + "/file_topology.toml";
  test::write_file(cfg, "[simulation]\ntrials = 1\n");
  for (const char* device : {"/dev/zero", "/dev/urandom"})
    expect_error(run_saturn({"validate", cfg, "--set", "topology.kind=file", "--set",
                             std::string("topology.file=") + device, "--set", "routing.algorithm=table"},
                            kSmallAddressSpace),
                 "not a regular file");
  expect_error(run_saturn({"validate", "/dev/zero"}, kSmallAddressSpace), "not a regular file");
}

TEST(CliLimits, SeedErrorsQuoteTheInputAndTheRealRange) {
  const std::string cfg = small_config();
  for (const std::string seed : {"-1", "abc", "18446744073709551616", "9223372036854775808"}) {
    const Result r = run_saturn({"validate", cfg, "--seed", seed});
    expect_error(r, "--seed '" + seed + "'");
    EXPECT_NE(r.err.find("0..9223372036854775807"), std::string::npos) << r.err;
    EXPECT_LT(r.err.size(), 200u) << r.err;
  }
  EXPECT_EQ(run_saturn({"validate", cfg, "--seed", "9223372036854775807"}).rc, 0);
}

TEST(CliLimits, UnknownSubcommandIsNamed) {
  expect_error(run_saturn({"frobnicate"}), "unknown subcommand 'frobnicate'");
  expect_error(run_saturn({"validat", small_config()}), "'validat'");
}

TEST(CliLimits, LongValuesAreClipped) {
  const std::string huge(100000, 'x');
  const Result r = run_saturn({"validate", small_config(), "--set", "switch.speedup=" + huge});
  expect_error(r, "xxx...");
  EXPECT_LT(r.err.size(), 300u);
  const Result t = run_saturn({"run", small_config(), "--threads", huge});
  EXPECT_EQ(t.rc, 2);
  EXPECT_LT(t.err.size(), 400u);
}

TEST(CliLimits, BadLauncherVariablesAreErrors) {
  const std::string cfg = small_config();
  const std::string out = test::make_temp_dir("saturn_out");
  const auto with_env = [&](const std::string& env) { return run_saturn({"run", cfg, "--out", out, "--threads", "1"}, env); };
  expect_error(with_env("OMPI_COMM_WORLD_RANK=5 OMPI_COMM_WORLD_SIZE=3"), "OMPI_COMM_WORLD_RANK=5");
  expect_error(with_env("OMPI_COMM_WORLD_RANK=x OMPI_COMM_WORLD_SIZE=3"), "OMPI_COMM_WORLD_RANK='x'");
  expect_error(with_env("OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=-2"), "OMPI_COMM_WORLD_SIZE");
  expect_error(with_env("SLURM_ARRAY_TASK_ID=0 SLURM_ARRAY_TASK_COUNT=0"), "SLURM_ARRAY_TASK_COUNT='0'");
  expect_error(with_env("SLURM_ARRAY_TASK_ID=10 SLURM_ARRAY_TASK_COUNT=6"), "SLURM_ARRAY_TASK_ID=10");
  // Explicit --shard/--shards win over the environment; consistent variables still work.
  EXPECT_EQ(run_saturn({"run", cfg, "--out", out, "--quiet", "--shard", "0", "--shards", "1"},
                       "OMPI_COMM_WORLD_RANK=x")
                .rc,
            0);
  // (The directory now holds that complete run: replacing it takes --force.)
  const Result sharded =
      run_saturn({"run", cfg, "--out", out, "--threads", "1", "--force"}, "OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=1");
  EXPECT_EQ(sharded.rc, 0) << sharded.err;
}

// The thread count: --threads, else OMP_NUM_THREADS (its outermost level), else every core; the
// manifest records the one used. A value that is not a count is an error naming the variable.
TEST(CliLimits, OmpNumThreadsIsTheDefaultThreadCount) {
  const std::string cfg = small_config();
  const std::string out = test::make_temp_dir("saturn_out");
  const auto threads_used = [&](const std::vector<std::string>& extra, const std::string& env) {
    std::vector<std::string> args = {"run", cfg, "--out", out, "--quiet", "--force"};
    args.insert(args.end(), extra.begin(), extra.end());
    const Result r = run_saturn(args, env);
    EXPECT_EQ(r.rc, 0) << env << ": " << r.err;
    return nlohmann::json::parse(test::read_file(out + "/manifest.json")).at("threads").get<int>();
  };
  EXPECT_EQ(threads_used({}, "OMP_NUM_THREADS=1"), 1);
  EXPECT_EQ(threads_used({}, "OMP_NUM_THREADS=3,1"), 3);
  EXPECT_EQ(threads_used({"--threads", "2"}, "OMP_NUM_THREADS=1"), 2);
  // (libgomp prints its own warning line about such a value before saturn starts: ours names it too.)
  for (const char* bad : {"OMP_NUM_THREADS=many", "OMP_NUM_THREADS=0"}) {
    const Result r = run_saturn({"run", cfg, "--out", out, "--force"}, bad);
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_NE(r.err.find(std::string("saturn: ") + bad + ": expected a thread count"), std::string::npos) << r.err;
  }
}

// The estimate's limit is the smaller of MemAvailable and the address-space limit: a sweep of
// 10^6 points (about 16 GB of point configs) under ulimit -v 3 GB is refused before expansion.
TEST(CliLimits, MillionPointSweepIsRefusedUnderAnAddressSpaceLimit) {
  const std::string file = std::string(SATURN_SOURCE_DIR) + "/tests/fuzz/regressions/sweep_million_points.toml";
  const std::string cmd = "ulimit -v 3000000; " + std::string(SATURN_BINARY) + " validate " + file + " 2>&1";
  const test::ShellRun run = test::shell_output("/bin/sh -c '" + cmd + "'");
  const std::string& out = run.out;
  ASSERT_NE(run.status, -1);
  EXPECT_EQ(WEXITSTATUS(run.status), 2) << out;
  EXPECT_NE(out.find("ulimit -v"), std::string::npos) << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
}

TEST(CliLimits, EmptyOutIsRefused) {
  expect_error(run_saturn({"run", small_config(), "--out", ""}), "--out ''");
}

// Two shapes (switch.vcs 1 and 2), each split into batches: one note for the study, not one per shape.
TEST(CliLimits, BatchingNoteIsPrintedOnce) {
  const Config config = load_config_string("", "test",
                                           {"topology.k=2", "topology.n=2", "simulation.trials=4",
                                            "simulation.warmup_ns=0", "simulation.duration_ns=2000",
                                            "sweep.switch.vcs=[1, 2]", "switch.buffer_bytes=32768"});
  StudyOptions whole;
  const StudyResult one = run_study(config, whole);
  StudyOptions split;
  size_t per_trial = 0;
  for (const auto& b : one.batches) per_trial = std::max(per_trial, b.bytes_per_trial);
  split.memory_budget_override = 2 * per_trial;
  testing::internal::CaptureStderr();
  const StudyResult many = run_study(config, split);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_GT(many.batches.size(), 2u);
  EXPECT_EQ(lines(err), 1) << err;
  EXPECT_NE(err.find("8 trials need"), std::string::npos) << err;
}

}  // namespace
}  // namespace saturn
