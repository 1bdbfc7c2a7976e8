// The `saturn` executable: exit codes and one-line messages for bad input, `validate` on every
// shipped config, the three output files of `run`, and Ctrl-C (SIGINT) giving partial results.
#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/support/cli_helpers.hpp"
#include "tests/support/run_helpers.hpp"

namespace saturn {
namespace {

namespace fs = std::filesystem;
using test::read_file;
using test::write_file;

using CliResult = test::CliRun;
using test::line_count;

// Runs or waits for saturn through the shared helpers, with this file's 60 s hang guard.
CliResult finish(pid_t pid, const std::string& dir, double timeout_s = 60) { return test::wait_saturn(pid, dir, timeout_s); }

CliResult run_cli(const std::vector<std::string>& args) {
  const std::string dir = test::make_temp_dir("saturn_cli");
  return finish(test::spawn_saturn(args, dir), dir);
}

// Bad input: exit code 2, nothing on stdout, exactly one line on stderr containing `needle`.
void expect_one_line_error(const CliResult& r, const std::string& needle) {
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_EQ(line_count(r.err), 1) << "stderr: [" << r.err << "]";
  EXPECT_NE(r.err.find(needle), std::string::npos) << "'" << needle << "' not in: " << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

std::string config_file(const std::string& text) {
  const std::string path = test::make_temp_dir("saturn_cfg") + "/study.toml";
  write_file(path, text);
  return path;
}

const char* kSmall = R"(
[simulation]
trials = 2
warmup_ns = 2000
duration_ns = 20000
[topology]
kind = "kary_ntree"
k = 2
n = 2
[traffic]
load = 0.3
[sweep]
traffic.load = [0.2, 0.4]
)";

TEST(Cli, UnknownKey) {
  const std::string cfg = config_file("[switch]\nvcz = 2\n");
  expect_one_line_error(run_cli({"validate", cfg}), "switch.vcz");
  const CliResult r = run_cli({"run", cfg, "--out", test::make_temp_dir()});
  expect_one_line_error(r, "switch.vcz");
}

TEST(Cli, WrongType) {
  expect_one_line_error(run_cli({"validate", config_file("[switch]\nvcs = \"two\"\n")}), "switch.vcs");
  expect_one_line_error(run_cli({"validate", config_file("[traffic]\nload = true\n")}), "traffic.load");
}

TEST(Cli, OutOfRange) {
  expect_one_line_error(run_cli({"validate", config_file("[switch]\nvcs = 9\n")}), "switch.vcs");
  expect_one_line_error(run_cli({"validate", config_file("[traffic]\nload = 1.5\n")}), "traffic.load");
  expect_one_line_error(run_cli({"validate", config_file("[switch]\nspeedup = \"3\"\n")}), "switch.speedup");
}

TEST(Cli, CrossKeyErrorFromValidate) {
  // Each key alone is fine; together the buffer cannot hold one MTU packet.
  expect_one_line_error(run_cli({"validate", config_file("[switch]\nbuffer_bytes = 1024\n")}), "switch.buffer_bytes");
}

TEST(Cli, MissingConfigFile) {
  expect_one_line_error(run_cli({"validate", "/nonexistent/dir/none.toml"}), "/nonexistent/dir/none.toml");
  expect_one_line_error(run_cli({"run", "/nonexistent/dir/none.toml", "--out", test::make_temp_dir()}),
                        "/nonexistent/dir/none.toml");
}

TEST(Cli, BadSet) {
  const std::string cfg = config_file(kSmall);
  expect_one_line_error(run_cli({"validate", cfg, "--set", "novalue"}), "novalue");
  expect_one_line_error(run_cli({"validate", cfg, "--set", "switch.vcs=abc"}), "switch.vcs");
  expect_one_line_error(run_cli({"validate", cfg, "--set", "switch.nokey=1"}), "switch.nokey");
}

TEST(Cli, BadFlag) {
  const std::string cfg = config_file(kSmall);
  expect_one_line_error(run_cli({"run", cfg, "--bogus-flag"}), "--bogus-flag");
  expect_one_line_error(run_cli({"run", cfg, "--threads", "0"}), "--threads");
  expect_one_line_error(run_cli({"frobnicate"}), "subcommand");
}

TEST(Cli, ValidateEveryShippedConfig) {
  const std::vector<std::string> paths = test::shipped_configs();
  for (const std::string& path : paths) {
    const CliResult r = run_cli({"validate", path});
    EXPECT_EQ(r.rc, 0) << path << ": " << r.err;
    EXPECT_NE(r.out.find("ok"), std::string::npos) << path << ": " << r.out;
  }
  EXPECT_GE(paths.size(), 3u);
}

TEST(Cli, RunWritesSummaryTrialsAndManifest) {
  const std::string cfg = config_file(kSmall);
  const std::string out = test::make_temp_dir("saturn_out") + "/results";
  const CliResult r = run_cli({"run", cfg, "--out", out, "--threads", "1", "--quiet"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(r.out.empty()) << "--quiet printed: " << r.out;

  const std::string summary = read_file(out + "/summary.csv");
  const std::string header = summary.substr(0, summary.find('\n'));
  EXPECT_EQ(header, "point,traffic.load,metric,mean,stddev,ci95_low,ci95_high,n");
  EXPECT_NE(summary.find("\n0,0.2,throughput_per_node,"), std::string::npos) << summary;
  EXPECT_NE(summary.find("\n1,0.4,throughput_per_node,"), std::string::npos) << summary;

  const std::string trials = read_file(out + "/trials.csv");
  const std::string theader = trials.substr(0, trials.find('\n'));
  EXPECT_EQ(theader, "point,trial,seed,traffic.load,metric,value");
  // Long format: one row per (trial, metric); 2 points x 2 trials.
  size_t rows = 0;
  for (size_t at = trials.find(",throughput_per_node,"); at != std::string::npos;
       at = trials.find(",throughput_per_node,", at + 1))
    ++rows;
  EXPECT_EQ(rows, 4u) << trials;
  EXPECT_EQ(line_count(trials) - 1, 4 * line_count(summary.substr(summary.find('\n') + 1)) / 2)
      << "every summary row (point, metric) has its 2 trial rows";

  const nlohmann::json m = nlohmann::json::parse(read_file(out + "/manifest.json"));
  EXPECT_EQ(m.at("partial"), false);
  EXPECT_EQ(m.at("backend"), SATURN_BACKEND_NAME);
  EXPECT_EQ(m.at("trial_seeds").size(), 4u);
  EXPECT_EQ(m.at("config").at("values").at("topology.k"), 2);
}

// stderr here is a file, as in a batch job's log: progress comes as plain lines (no '\r'), the
// last one at 100%; --progress off leaves only the run's own lines.
TEST(Cli, ProgressIsPlainLinesInALogAndCanBeTurnedOff) {
  const std::string cfg = config_file(kSmall);
  const std::string dir = test::make_temp_dir("saturn_out");
  const CliResult logged = run_cli({"run", cfg, "--out", dir + "/a", "--threads", "1", "--quiet"});
  ASSERT_EQ(logged.rc, 0) << logged.err;
  EXPECT_EQ(logged.err.find('\r'), std::string::npos) << logged.err;
  EXPECT_NE(logged.err.find("study: 100.0% done after "), std::string::npos) << logged.err;
  const CliResult off = run_cli({"run", cfg, "--out", dir + "/b", "--threads", "1", "--quiet", "--progress", "off"});
  ASSERT_EQ(off.rc, 0) << off.err;
  EXPECT_EQ(off.err.find("% done"), std::string::npos) << off.err;
  expect_one_line_error(run_cli({"run", cfg, "--progress", "sideways"}), "--progress");
}

TEST(Cli, RunWithoutSweepHasPlainHeader) {
  const std::string cfg = config_file("[simulation]\ntrials = 1\nduration_ns = 5000\nwarmup_ns = 0\n"
                                      "[topology]\nk = 2\nn = 1\n");
  const std::string out = test::make_temp_dir("saturn_out");
  const CliResult r = run_cli({"run", cfg, "--out", out, "--threads", "1"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("throughput_per_node"), std::string::npos) << "the summary table goes to stdout";
  const std::string summary = read_file(out + "/summary.csv");
  EXPECT_EQ(summary.substr(0, summary.find('\n')), "point,metric,mean,stddev,ci95_low,ci95_high,n");
}

TEST(Cli, SigintStopsWithPartialResults) {
  // ~6e6 cycles of a 4-ary 2-tree: far more than the 1 s before the interrupt; results come back
  // every 1000 cycles so the stop is prompt.
  const std::string cfg = config_file(R"(
[simulation]
trials = 2
warmup_ns = 0
duration_ns = 1e9
sample_interval_ns = 163840
[topology]
kind = "kary_ntree"
k = 4
n = 2
[traffic]
load = 0.5
)");
  const std::string dir = test::make_temp_dir("saturn_sigint");
  const std::string out = dir + "/results";
  const pid_t pid = test::spawn_saturn({"run", cfg, "--out", out, "--threads", "1", "--quiet"}, dir);
  ASSERT_GT(pid, 0);
  // `run` creates the output directory just before installing its SIGINT handler: wait for it
  // (so a loaded machine cannot make the signal arrive first), then let it run ~1 s.
  for (int i = 0; i < 1000 && !fs::exists(out); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  ASSERT_EQ(kill(pid, SIGINT), 0);
  const CliResult r = finish(pid, dir, 30);
  EXPECT_EQ(r.signal, 0) << "killed by the signal instead of handling it";
  EXPECT_EQ(r.rc, 130) << r.err;
  EXPECT_NE(r.err.find("partial"), std::string::npos) << r.err;
  ASSERT_TRUE(fs::exists(out + "/summary.csv"));
  ASSERT_TRUE(fs::exists(out + "/trials.csv"));
  const nlohmann::json m = nlohmann::json::parse(read_file(out + "/manifest.json"));
  EXPECT_EQ(m.at("partial"), true);
  EXPECT_LT(m.at("simulated_cycles").get<double>(), 6.0e6);
  const std::string summary = read_file(out + "/summary.csv");
  EXPECT_NE(summary.find("\n0,throughput_per_node,"), std::string::npos) << summary;
}

TEST(Cli, FlowModeWritesTheSameOutputsAndRefusesBadValuesInOneLine) {
  const std::string cfg = config_file(
      "[simulation]\nmode = \"flow\"\ntrials = 4\n[topology]\nk = 4\nn = 2\nhorizontal_width = 1\n"
      "[routing]\nalgorithm = \"adaptive\"\n[traffic]\npattern = \"permutation\"\n");
  const std::string out = test::make_temp_dir();
  const CliResult r = run_cli({"run", cfg, "--out", out, "--threads", "2"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("contention_max"), std::string::npos) << r.out;
  for (const char* f : {"/summary.csv", "/trials.csv", "/manifest.json"})
    EXPECT_NO_THROW(test::read_file(out + f)) << f;
  expect_one_line_error(run_cli({"run", cfg, "--out", out, "--set", "routing.algorithm=table"}), "routing.algorithm");
  expect_one_line_error(run_cli({"validate", cfg, "--set", "traffic.pattern=hotspot"}), "traffic.pattern");
}

}  // namespace
}  // namespace saturn
