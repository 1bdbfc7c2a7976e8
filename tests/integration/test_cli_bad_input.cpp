// Issue 65 ("bad input, round three"), the command line: a sweep too large for memory refused
// before it is expanded, and a signal heard while it is (item 1); a FIFO or an empty file as the
// config (items 2, 7); NaN, empty and conflicting options (item 9); --out paths, OMP_NUM_THREADS
// and `saturn reproduce` without arguments (item 11). Each is one stderr line and exit code 2.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/support/cli_helpers.hpp"

namespace saturn {
namespace {

namespace fs = std::filesystem;
using test::CliRun;

std::string sh_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// `prefix saturn args` through /bin/sh (prefix: environment settings, `ulimit -v N;`), with the
// launcher variables of the test's own environment unset; stdin is /dev/null.
CliRun run_sh(const std::vector<std::string>& args, const std::string& prefix = "") {
  const std::string dir = test::make_temp_dir("saturn_bad_input");
  std::string cmd = "unset OMPI_COMM_WORLD_RANK PMI_RANK SLURM_ARRAY_TASK_ID SLURM_PROCID; " + prefix + " exec " +
                    sh_quote(SATURN_BINARY);
  for (const auto& a : args) cmd += " " + sh_quote(a);
  cmd += " < /dev/null > " + dir + "/out.txt 2> " + dir + "/err.txt";
  const int status = std::system(("/bin/sh -c " + sh_quote(cmd)).c_str());
  CliRun r;
  if (WIFEXITED(status)) r.rc = WEXITSTATUS(status);
  r.out = test::read_file(dir + "/out.txt");
  r.err = test::read_file(dir + "/err.txt");
  return r;
}

void expect_error(const CliRun& r, const std::string& needle) {
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_EQ(test::line_count(r.err), 1) << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << "'" << needle << "' not in: " << r.err;
}

std::string small_config() {
  const std::string path = test::make_temp_dir("saturn_bad_cfg") + "/small.toml";
  test::write_file(path, "[simulation]\ntrials = 1\nwarmup_ns = 0\nduration_ns = 2000\n[topology]\nk = 2\nn = 2\n");
  return path;
}

// A config sweeping traffic.load over `values` values.
std::string sweep_config(int values, int trials) {
  std::string list;
  for (int i = 0; i < values; ++i) list += (i ? ", " : "") + std::to_string(i % 1000 / 1000.0);
  const std::string path = test::make_temp_dir("saturn_big_sweep") + "/sweep.toml";
  test::write_file(path, "[simulation]\ntrials = " + std::to_string(trials) +
                             "\n[topology]\nk = 2\nn = 2\n[sweep]\ntraffic.load = [" + list + "]\n");
  return path;
}

// Item 1: 200,000 points x 10 trials need ~30 GiB of results; the estimate from the axis length
// refuses them at once, within 1 GB of address space (the expansion alone took 6.4 GB and 40 s).
TEST(CliBadInput, HugeSweepIsRefusedBeforeItIsExpanded) {
  const std::string cfg = sweep_config(200000, 10);
  const auto start = std::chrono::steady_clock::now();
  const CliRun r = run_sh({"validate", cfg, "--max-memory", "8GiB"}, "ulimit -v 1000000;");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  expect_error(r, "results (at least)");
  EXPECT_NE(r.err.find("more than the 8.0 GiB available"), std::string::npos) << r.err;
  EXPECT_LT(seconds, 10.0) << "refused only after expanding the sweep";
}

// Item 1: while a large sweep is expanded and checked, SIGTERM ends `run` at once (before, the stop
// handler was installed first and the signal waited for the whole planning).
TEST(CliBadInput, SigtermEndsARunStillPlanningItsSweep) {
  const std::string cfg = sweep_config(30000, 1);
  const std::string dir = test::make_temp_dir("saturn_plan_sigterm");
  const pid_t pid = test::spawn_saturn({"run", cfg, "--out", dir + "/out", "--quiet"}, dir);
  ASSERT_GT(pid, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ASSERT_EQ(kill(pid, SIGTERM), 0);
  const auto start = std::chrono::steady_clock::now();
  const CliRun r = test::wait_saturn(pid, dir, 30);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.signal, SIGTERM) << "rc " << r.rc << ": " << r.err;
  EXPECT_LT(seconds, 5.0);
  EXPECT_FALSE(fs::exists(dir + "/out")) << "nothing is written before the study is planned";
}

// Items 2 and 7: a FIFO config blocked open(); an empty or comment-only one ran the defaults.
TEST(CliBadInput, ConfigMustBeARegularFileThatSetsSomething) {
  const std::string dir = test::make_temp_dir("saturn_cfg_kinds");
  ASSERT_EQ(mkfifo((dir + "/fifo.toml").c_str(), 0600), 0);
  expect_error(run_sh({"validate", dir + "/fifo.toml"}), "config '" + dir + "/fifo.toml' is not a regular file (a FIFO)");
  expect_error(run_sh({"run", dir + "/fifo.toml", "--out", dir + "/out"}), "not a regular file (a FIFO)");
  expect_error(run_sh({"validate", dir}), "is not a regular file (a directory)");
  for (const std::string& text : {std::string(""), std::string("# a comment\n\n"), std::string("[simulation]\n[sweep]\n")}) {
    test::write_file(dir + "/empty.toml", text);
    expect_error(run_sh({"validate", dir + "/empty.toml"}), "config '" + dir + "/empty.toml' sets no key");
    expect_error(run_sh({"run", dir + "/empty.toml", "--out", dir + "/out"}), "sets no key");
  }
  EXPECT_FALSE(fs::exists(dir + "/out"));
}

// Item 9: NaN and empty values, and --force with --resume.
TEST(CliBadInput, NanEmptyAndConflictingOptionsAreRefused) {
  const std::string cfg = small_config();
  const std::string out = test::make_temp_dir("saturn_nan") + "/out";
  expect_error(run_sh({"run", cfg, "--out", out, "--checkpoint", "nan"}), "--checkpoint nan: expected seconds");
  expect_error(run_sh({"run", cfg, "--out", out, "--save-state", "nan"}), "--save-state nan: expected seconds");
  expect_error(run_sh({"run", cfg, "--out", out, "--seed", ""}), "--seed '': expected a whole number");
  expect_error(run_sh({"validate", cfg, "--seed", ""}), "--seed '': expected a whole number");
  expect_error(run_sh({"run", cfg, "--out", out, "--max-memory", ""}), "--max-memory '': expected a size");
  expect_error(run_sh({"validate", cfg, "--max-memory", ""}), "--max-memory '': expected a size");
  expect_error(run_sh({"run", cfg, "--out", out, "--force", "--resume"}), "--force and --resume exclude each other");
  expect_error(run_sh({"response", "--out", out, "--bandwidth-gbps", "nan"}), "--bandwidth-gbps nan");
  expect_error(run_sh({"response", "--out", out, "--packet-bytes", "nan"}), "--packet-bytes nan");
  EXPECT_FALSE(fs::exists(out)) << "nothing is written for bad input";
}

// Item 11: --out that is a device, a file, a name over 255 bytes or a path under a file.
TEST(CliBadInput, OutPathsTheSystemRefusesAreOneLine) {
  const std::string cfg = small_config();
  const std::string dir = test::make_temp_dir("saturn_out_paths");
  test::write_file(dir + "/file", "x\n");
  expect_error(run_sh({"run", cfg, "--out", "/dev/null"}), "--out '/dev/null' is not a directory");
  expect_error(run_sh({"run", cfg, "--out", dir + "/file"}), "is not a directory");
  expect_error(run_sh({"run", cfg, "--out", dir + "/" + std::string(300, 'a')}), "File name too long");
  expect_error(run_sh({"run", cfg, "--out", dir + "/file/sub"}), "Not a directory");
  expect_error(run_sh({"response", "--out", "/dev/null"}), "--out '/dev/null' is not a directory");
  EXPECT_EQ(test::read_file(dir + "/file"), "x\n");
}

// Item 11: a bad OMP_NUM_THREADS gave libgomp's line and Saturn's; now Saturn's alone.
TEST(CliBadInput, BadOmpNumThreadsIsOneLine) {
  const std::string cfg = small_config();
  const std::string out = test::make_temp_dir("saturn_omp") + "/out";
  for (const std::string& value : {"abc", "0", "-2", "5000"})
    expect_error(run_sh({"run", cfg, "--out", out, "--quiet"}, "OMP_NUM_THREADS=" + value),
                 "OMP_NUM_THREADS=" + value + ": expected a thread count from 1 to 4096");
  // validate uses no threads: the bad value is only kept from libgomp.
  const CliRun v = run_sh({"validate", cfg}, "OMP_NUM_THREADS=abc");
  EXPECT_EQ(v.rc, 0) << v.err;
  EXPECT_EQ(v.err, "");
  const CliRun ok = run_sh({"run", cfg, "--out", out, "--quiet"}, "OMP_NUM_THREADS=2,1");
  EXPECT_EQ(ok.rc, 0) << ok.err;
  EXPECT_EQ(ok.err.find("libgomp"), std::string::npos) << ok.err;
}

// SATURN_GPU_STEP names a GPU program; a wrong one is refused before the run starts.
TEST(CliBadInput, BadGpuStepIsOneLine) {
  const std::string out = test::make_temp_dir("saturn_gpu_step") + "/out";
  expect_error(run_sh({"run", small_config(), "--out", out, "--quiet"}, "SATURN_GPU_STEP=fast"),
               "SATURN_GPU_STEP=fast: expected one of auto, block, graph, shared, warp");
}

// Item 11: `saturn reproduce` without arguments said "unknown paper 'None'".
TEST(CliBadInput, ReproduceWithoutArgumentsAsksForThem) {
  if (std::system("/usr/bin/python3 -c 'import sys' >/dev/null 2>&1") != 0) GTEST_SKIP() << "no /usr/bin/python3";
  const CliRun r = run_sh({"reproduce"});
  expect_error(r, "which paper and figure? (saturn reproduce PAPER FIGURE; papers: ");
  EXPECT_EQ(r.err.find("None"), std::string::npos) << r.err;
  expect_error(run_sh({"reproduce", "santos2002"}), "which figure of santos2002? (expected one of ");
}

}  // namespace
}  // namespace saturn
