// `saturn plot DIR`: the standard plots of a small results directory come out as PNG and SVG;
// a directory that is not a results directory is one error line and exit code 2.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

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

TEST(Plot, NotAResultsDirectoryIsOneErrorLine) {
  for (const std::string& dir : {std::string("/nonexistent/saturn"), test::make_temp_dir("saturn_plot_empty")}) {
    const test::CliRun r = test::saturn_cli({"plot", dir});
    EXPECT_EQ(r.rc, 2) << dir;
    EXPECT_EQ(test::line_count(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("saturn plot: '" + dir.substr(0, 60) + "'"), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace saturn
