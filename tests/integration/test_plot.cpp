// `saturn plot DIR`: the standard plots of a small results directory come out as PNG and SVG;
// a directory that is not a results directory is one error line and exit code 2.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <sys/wait.h>

#include "kernels/state/engine_view.hpp"
#include "tests/support/cli_helpers.hpp"

namespace saturn {
namespace {

namespace fs = std::filesystem;

bool have_matplotlib() {
  return std::system("/usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1") == 0;
}

TEST(Plot, WritesPngAndSvgForSummaryAndSeries) {
  if (!have_matplotlib()) GTEST_SKIP() << "/usr/bin/python3 cannot import matplotlib (bash scripts/setup.sh installs it)";
  const std::string dir = test::make_temp_dir("saturn_plot") + "/run";
  const test::CliRun run = test::saturn_cli(
      {"run", test::source_path("configs/default.toml"), "--out", dir, "--quiet", "--threads", "1", "--trials", "2",
       "--set", "simulation.warmup_ns=10000", "--set", "simulation.duration_ns=40000", "--set",
       "stats.series_interval_ns=10000", "--set", "sweep.traffic.load=[0.2, 0.6]"});
  ASSERT_EQ(run.rc, 0) << run.err;
  const test::CliRun plot = test::saturn_cli({"plot", dir});
  ASSERT_EQ(plot.rc, 0) << plot.err;
  for (const char* name : {"overview", "summary_throughput_per_node", "summary_net_latency_p99_ns",
                           "series_throughput_per_node"})
    for (const char* ext : {".png", ".svg"}) {
      const fs::path file = fs::path(dir) / "plots" / (std::string(name) + ext);
      EXPECT_TRUE(fs::is_regular_file(file)) << file << "\n" << plot.out << plot.err;
      if (fs::is_regular_file(file)) EXPECT_GT(fs::file_size(file), 1000u) << file;
    }
  EXPECT_NE(plot.out.find("/plots/overview.svg"), std::string::npos) << plot.out;
}

// stats.latency_histogram: every trial reports every bin, the bins of a trial add up to the packets
// delivered in its window (and messages fill the message bins), and saturn plot draws the CDF from them.
TEST(Plot, LatencyHistogramBinsAddUpAndGiveACdf) {
  const std::string dir = test::make_temp_dir("saturn_plot_hist") + "/run";
  const test::CliRun run = test::saturn_cli(
      {"run", test::source_path("configs/default.toml"), "--out", dir, "--quiet", "--threads", "1", "--trials", "2",
       "--set", "simulation.warmup_ns=10000", "--set", "simulation.duration_ns=40000", "--set",
       "stats.latency_histogram=true", "--set", "sweep.traffic.load=[0.6]"});
  ASSERT_EQ(run.rc, 0) << run.err;
  // trials.csv: point,trial,seed,<swept keys>,metric,value
  std::map<std::string, double> net_bins, msg_bins, delivered;
  std::map<std::string, int> bins_per_trial;
  std::istringstream in(test::read_file(dir + "/trials.csv"));
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    const size_t last = line.rfind(','), before = line.rfind(',', last - 1);
    const std::string metric = line.substr(before + 1, last - before - 1);
    const double value = std::stod(line.substr(last + 1));
    const std::string trial = line.substr(0, line.find(',', line.find(',') + 1));  // point,trial
    if (metric.rfind("net_latency_hist[", 0) == 0) net_bins[trial] += value, ++bins_per_trial[trial];
    if (metric.rfind("msg_latency_hist[", 0) == 0) msg_bins[trial] += value;
    if (metric == "packets_delivered") delivered[trial] = value;
  }
  ASSERT_FALSE(delivered.empty());
  for (const auto& [trial, packets] : delivered) {
    EXPECT_GT(packets, 0) << trial;
    EXPECT_EQ(net_bins[trial], packets) << trial;
    EXPECT_EQ(bins_per_trial[trial], kHistBins) << trial;
    EXPECT_GT(msg_bins[trial], 0) << trial;  // one-packet messages: as many messages as packets, give or take the window edges
  }
  if (!have_matplotlib()) GTEST_SKIP() << "/usr/bin/python3 cannot import matplotlib (bash scripts/setup.sh installs it)";
  const test::CliRun plot = test::saturn_cli({"plot", dir, "--metric", "throughput_per_node"});
  ASSERT_EQ(plot.rc, 0) << plot.err;
  for (const char* ext : {".png", ".svg"}) {
    const fs::path file = fs::path(dir) / "plots" / (std::string("latency_cdf") + ext);
    EXPECT_TRUE(fs::is_regular_file(file)) << file << "\n" << plot.out << plot.err;
  }
}

TEST(Plot, NotAResultsDirectoryIsOneErrorLine) {
  for (const std::string& dir : {std::string("/nonexistent/saturn"), test::make_temp_dir("saturn_plot_empty")}) {
    const test::CliRun r = test::saturn_cli({"plot", dir});
    EXPECT_EQ(r.rc, 2) << dir;
    EXPECT_EQ(test::line_count(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("saturn plot: '" + dir.substr(0, 60) + "'"), std::string::npos) << r.err;
  }
}

// Issue 65 item 10: files that are not what a run writes, an --out that cannot be made and bad
// options gave Python tracebacks (exit 1); each is one line and exit code 2.
TEST(Plot, BadFilesAndOptionsAreOneErrorLine) {
  if (!have_matplotlib()) GTEST_SKIP() << "/usr/bin/python3 cannot import matplotlib (bash scripts/setup.sh installs it)";
  const std::string header = "point,traffic.load,metric,mean,stddev,ci95_low,ci95_high,n\n";
  const std::string good = header + "0,0.2,throughput_per_node,0.2,0,0.2,0.2,2\n1,0.4,throughput_per_node,0.4,0,0.4,0.4,2\n";
  const auto refused = [](const std::vector<std::string>& args, const std::string& needle) {
    const test::CliRun r = test::saturn_cli(args);
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_EQ(test::line_count(r.err), 1) << r.err;
    EXPECT_EQ(r.err.find("Traceback"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << "'" << needle << "' not in: " << r.err;
  };
  const std::string dir = test::make_temp_dir("saturn_plot_bad");
  test::write_file(dir + "/summary.csv", good);
  test::write_file(dir + "/a_file", "x\n");
  refused({"plot", dir, "--out", dir + "/a_file/plots"}, "--out '" + dir + "/a_file/plots'");
  refused({"plot", dir, "--metric", "nosuch"}, "metric nosuch is not in summary.csv (metrics: throughput_per_node)");
  refused({"plot", dir, "--smooth-ns", "-1"}, "--smooth-ns -1.0: expected a window of 0 ns (none) or more");
  refused({"plot", dir, "--smooth-ns", "nan"}, "--smooth-ns nan");
  test::write_file(dir + "/summary.csv", good + "2,0.6,throughput_per_node,0.6\n");
  refused({"plot", dir}, "summary.csv' line 4 has 4 fields, expected 8");
  test::write_file(dir + "/summary.csv", std::string("\x89PNG\r\n\x1a\n\xff\xfe\0\0", 12));
  refused({"plot", dir}, "summary.csv' is not text");
  test::write_file(dir + "/summary.csv", header + std::string("0,0.2,thr\0ough", 14) + "\n");
  refused({"plot", dir}, "summary.csv' holds NUL bytes");
  test::write_file(dir + "/summary.csv", "a,b\n1,2\n");
  refused({"plot", dir}, "summary.csv' has no column 'ci95_high'");
  fs::remove(dir + "/summary.csv");
  test::write_file(dir + "/series.csv", "point,trial,time_ns,metric,value\n0,0,100,throughput_per_node,0.5\n0,0,200,thr");
  refused({"plot", dir}, "series.csv' line 3 is cut mid-line");
  EXPECT_FALSE(fs::exists(dir + "/plots/overview.png"));
}

// Issue 66: a plotting script run by hand under a python3 without matplotlib (pyenv first on PATH;
// here Debian's python3 with -S, which leaves out its dist-packages) says so in one line naming the
// interpreter, and exits 2: no traceback, and no run started first.
TEST(Plot, ScriptsWithoutMatplotlibSayWhichInterpreterInOneLine) {
  std::vector<std::string> pythons;
  if (std::system("/usr/bin/python3 -S -c 'import matplotlib' >/dev/null 2>&1") != 0)
    pythons.push_back("/usr/bin/python3 -S");
  if (std::system("python3 -c 'import sys' >/dev/null 2>&1") == 0 &&
      std::system("python3 -c 'import matplotlib' >/dev/null 2>&1") != 0)
    pythons.push_back("python3");  // another interpreter first on PATH, as on the machines here
  if (pythons.empty()) GTEST_SKIP() << "every python3 here has matplotlib";
  const std::string dir = test::make_temp_dir("saturn_plot_nompl");
  test::write_file(dir + "/summary.csv", "point,traffic.load,metric,mean,stddev,ci95_low,ci95_high,n\n"
                                         "0,0.2,throughput_per_node,0.2,0,0.2,0.2,2\n");
  const std::vector<std::pair<std::string, std::string>> scripts{
      {"saturn_plot.py", dir},
      {"santos2002.py", "fig2a --out " + dir + "/santos"},
      {"reproduce.py", "santos2002 fig6 --out " + dir + "/reproduce"}};
  for (const std::string& python : pythons)
    for (const auto& [script, args] : scripts) {
      const test::ShellRun r =
          test::shell_output(python + " " + test::source_path("scripts/" + script) + " " + args + " 2>&1");
      EXPECT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 2) << python << " " << script << ": " << r.out;
      EXPECT_EQ(test::line_count(r.out), 1) << r.out;
      EXPECT_EQ(r.out.find("Traceback"), std::string::npos) << r.out;
      EXPECT_NE(r.out.find("scripts/" + script + ": matplotlib is not installed for /"), std::string::npos) << r.out;
    }
  EXPECT_FALSE(fs::exists(dir + "/plots"));
  EXPECT_FALSE(fs::exists(dir + "/santos/fig2a.png"));
}

}  // namespace
}  // namespace saturn
