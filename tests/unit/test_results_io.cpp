// Unit tests for result output: exact CSV contents and quoting, the summary table, and the progress bar.
#include "host/io/results_io.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace saturn {
namespace {

namespace fs = std::filesystem;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A fresh directory per test, removed afterwards, so parallel ctest runs do not collide.
class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = fs::temp_directory_path() /
            ("saturn_io_" + std::to_string(::getpid()) + "_" + info->test_suite_name() + "_" + info->name());
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

std::string read_file(const std::string& path) {
  std::ifstream is(path, std::ios::binary);
  std::stringstream ss;
  ss << is.rdbuf();
  return ss.str();
}

TrialResult trial(int point, int index, uint64_t seed, std::vector<MetricValue> metrics) {
  TrialResult t;
  t.point = point;
  t.trial = index;
  t.seed = seed;
  t.metrics = std::move(metrics);
  return t;
}

// Two points; point 0 has x = 1,2,3,4 over four trials, point 1 has a metric that is never defined.
struct Fixture {
  std::vector<std::string> keys{"load", "routing"};
  std::vector<PointLabel> points{{0, {{"load", "0.5"}, {"routing", "ecmp"}}},
                                 {1, {{"load", "0.9"}, {"routing", "ecmp"}}}};
  std::vector<TrialResult> results{
      trial(0, 0, 18446744073709551615ull, {{"x", 1}}), trial(0, 1, 7, {{"x", 2}}), trial(0, 2, 8, {{"x", 3}}),
      trial(0, 3, 9, {{"x", 4}}), trial(1, 0, 10, {{"lat", kNaN}})};
};

TEST(ResultsIoCsv, SummaryExact) {
  TempDir dir;
  Fixture f;
  const std::string path = dir.file("summary.csv");
  write_summary_csv(path, f.points, f.keys, summarize(f.results));
  EXPECT_EQ(read_file(path),
            "point,load,routing,metric,mean,stddev,ci95_low,ci95_high,n\n"
            "0,0.5,ecmp,x,2.5,1.29099445,0.446027832,4.55397217,4\n"
            "1,0.9,ecmp,lat,nan,nan,nan,nan,0\n");
}

TEST(ResultsIoCsv, TrialsExact) {
  TempDir dir;
  Fixture f;
  f.results[1].metrics.push_back({"link_util[A->B]", 0.125});
  const std::string path = dir.file("trials.csv");
  write_trials_csv(path, f.points, f.keys, f.results);
  EXPECT_EQ(read_file(path),
            "point,trial,seed,load,routing,metric,value\n"
            "0,0,18446744073709551615,0.5,ecmp,x,1\n"
            "0,1,7,0.5,ecmp,x,2\n"
            "0,1,7,0.5,ecmp,link_util[A->B],0.125\n"
            "0,2,8,0.5,ecmp,x,3\n"
            "0,3,9,0.5,ecmp,x,4\n"
            "1,0,10,0.9,ecmp,lat,nan\n");
}

TEST(ResultsIoCsv, NoSweptKeys) {
  TempDir dir;
  const std::string path = dir.file("summary.csv");
  SummaryRow row;
  row.metric = "throughput";
  row.mean = row.ci95_low = row.ci95_high = 123456789012.0;
  row.stddev = 0;
  row.n = 1;
  write_summary_csv(path, {{0, {}}}, {}, {row});
  EXPECT_EQ(read_file(path),
            "point,metric,mean,stddev,ci95_low,ci95_high,n\n"
            "0,throughput,1.23456789e+11,0,1.23456789e+11,1.23456789e+11,1\n");
}

TEST(ResultsIoCsv, QuotesFieldsThatNeedIt) {
  TempDir dir;
  const std::string path = dir.file("trials.csv");
  const std::vector<std::string> keys{"a,b", "plain"};
  const std::vector<PointLabel> points{{0, {{"a,b", "say \"hi\""}, {"plain", "x"}}}};
  write_trials_csv(path, points, keys, {trial(0, 0, 1, {{"line\nbreak", 1.5}, {"link_util[A->B]", 2}})});
  EXPECT_EQ(read_file(path),
            "point,trial,seed,\"a,b\",plain,metric,value\n"
            "0,0,1,\"say \"\"hi\"\"\",x,\"line\nbreak\",1.5\n"
            "0,0,1,\"say \"\"hi\"\"\",x,link_util[A->B],2\n");
}

TEST(ResultsIoCsv, MissingSweptValueIsEmpty) {
  TempDir dir;
  const std::string path = dir.file("trials.csv");
  // Point 5 has no label at all; point 0 lacks one of the keys.
  const std::vector<PointLabel> points{{0, {{"load", "0.1"}}}};
  write_trials_csv(path, points, {"load", "routing"}, {trial(0, 0, 1, {{"x", 1}}), trial(5, 0, 2, {{"x", 2}})});
  EXPECT_EQ(read_file(path),
            "point,trial,seed,load,routing,metric,value\n"
            "0,0,1,0.1,,x,1\n"
            "5,0,2,,,x,2\n");
}

TEST(ResultsIoCsv, UnwritablePathThrows) {
  EXPECT_THROW(write_summary_csv("/nonexistent_saturn_dir/summary.csv", {}, {}, {}), std::runtime_error);
  EXPECT_THROW(write_trials_csv("/nonexistent_saturn_dir/trials.csv", {}, {}, {}), std::runtime_error);
}

// Display column (UTF-8 code points) at which `needle` starts in `line`.
size_t column_of(const std::string& line, const std::string& needle) {
  const size_t pos = line.find(needle);
  if (pos == std::string::npos) return std::string::npos;
  return static_cast<size_t>(
      std::count_if(line.begin(), line.begin() + pos, [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream is(text);
  for (std::string line; std::getline(is, line);) lines.push_back(line);
  return lines;
}

TEST(ResultsIoTable, ContainsExpectedNumbers) {
  Fixture f;
  std::ostringstream os;
  print_summary_table(os, f.points, f.keys, summarize(f.results));
  const auto lines = lines_of(os.str());
  ASSERT_EQ(lines.size(), 4u);  // header, rule, two rows
  EXPECT_NE(lines[0].find("point"), std::string::npos);
  EXPECT_NE(lines[0].find("load"), std::string::npos);
  EXPECT_NE(lines[0].find("routing"), std::string::npos);
  EXPECT_NE(lines[0].find("metric"), std::string::npos);
  EXPECT_NE(lines[2].find("2.5 ± 2.054"), std::string::npos) << lines[2];
  EXPECT_NE(lines[2].find("0.5"), std::string::npos);
  EXPECT_NE(lines[3].find("n/a"), std::string::npos) << lines[3];
  EXPECT_EQ(lines[2].back(), '4');  // n
  EXPECT_EQ(lines[3].back(), '0');
}

TEST(ResultsIoTable, NumberFormatting) {
  std::vector<SummaryRow> rows(3);
  rows[0].metric = "small";
  rows[0].mean = 0.000123456;
  rows[0].ci95_low = rows[0].mean - 0.0000012344;
  rows[0].ci95_high = rows[0].mean + 0.0000012344;
  rows[1].metric = "latency_ns";
  rows[1].mean = 12347.6;
  rows[1].ci95_low = 12347.6 - 2.5;
  rows[1].ci95_high = 12347.6 + 2.5;
  rows[2].metric = "bits";
  rows[2].mean = 1.23456e11;
  rows[2].ci95_low = rows[2].ci95_high = rows[2].mean;
  for (auto& r : rows) r.n = 3;
  std::ostringstream os;
  print_summary_table(os, {}, {}, rows);
  const std::string out = os.str();
  EXPECT_NE(out.find("0.0001235 ± 1.234e-06"), std::string::npos) << out;
  EXPECT_NE(out.find("12348 ± 2.5"), std::string::npos) << out;
  EXPECT_NE(out.find("1.235e+11 ± 0"), std::string::npos) << out;
}

TEST(ResultsIoTable, ColumnsAreAligned) {
  Fixture f;
  f.points[0].swept[1].second = "a_much_longer_value";
  std::ostringstream os;
  print_summary_table(os, f.points, f.keys, summarize(f.results));
  const auto lines = lines_of(os.str());
  ASSERT_EQ(lines.size(), 4u);
  const size_t metric_col = column_of(lines[0], "metric");
  EXPECT_EQ(column_of(lines[2], " x ") + 1, metric_col);
  EXPECT_EQ(column_of(lines[3], "lat"), metric_col);
  const size_t value_col = column_of(lines[0], "mean");
  EXPECT_EQ(column_of(lines[2], "2.5"), value_col);
  EXPECT_EQ(column_of(lines[3], "n/a"), value_col);
  // Every line, including the rule, has the same display width; "±" must count as one column.
  EXPECT_EQ(column_of(lines[2] + "$", "$"), column_of(lines[3] + "$", "$"));
  EXPECT_EQ(column_of(lines[1] + "$", "$"), column_of(lines[2] + "$", "$"));
}

TEST(ResultsIoTable, FiltersMetrics) {
  Fixture f;
  std::ostringstream os;
  print_summary_table(os, f.points, f.keys, summarize(f.results), {"lat"});
  const auto lines = lines_of(os.str());
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_NE(lines[2].find("lat"), std::string::npos);
  EXPECT_EQ(os.str().find("2.054"), std::string::npos);
}

TEST(ResultsIoProgress, DisabledWritesNothing) {
  std::ostringstream os;
  ProgressBar bar(os, ProgressStyle::kOff, "run");
  bar.update(0.0);
  bar.update(0.5);
  bar.update(1.0);
  bar.finish();
  EXPECT_TRUE(os.str().empty());
}

TEST(ResultsIoProgress, FirstUpdateDrawsBarAndPercent) {
  std::ostringstream os;
  ProgressBar bar(os, ProgressStyle::kBar, "sweep");
  bar.update(0.5);
  const std::string out = os.str();
  EXPECT_EQ(out.rfind("\rsweep [" + std::string(20, '#') + std::string(20, '.') + "]  50.0%  ETA ", 0), 0u) << out;
}

TEST(ResultsIoProgress, EtaUnknownBelowOnePercent) {
  std::ostringstream os;
  ProgressBar bar(os, ProgressStyle::kBar, "sweep");
  bar.update(0.005);
  const std::string out = os.str();
  EXPECT_NE(out.find("[" + std::string(40, '.') + "]   0.5%  ETA --"), std::string::npos) << out;
}

TEST(ResultsIoProgress, LinesModeWritesPlainLinesAtItsInterval) {
  std::ostringstream os;
  ProgressBar lines(os, ProgressStyle::kLines, "fig5", std::chrono::seconds(0));
  lines.update(0.005);
  lines.update(0.25);
  lines.finish();
  const std::string out = os.str();
  EXPECT_EQ(out.find('\r'), std::string::npos) << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 3) << out;
  EXPECT_EQ(out.rfind("fig5: 0.5% done after 0s\n", 0), 0u) << out;  // no estimate below 1%
  EXPECT_NE(out.find("\nfig5: 25.0% done after 0s, about 0s left\n"), std::string::npos) << out;
  EXPECT_NE(out.find("\nfig5: 100.0% done after 0s\n"), std::string::npos) << out;

  std::ostringstream quiet;  // a minute's interval: updates within it write nothing
  ProgressBar slow(quiet, ProgressStyle::kLines, "fig5");
  for (int i = 0; i < 100; ++i) slow.update(i / 100.0);
  EXPECT_TRUE(quiet.str().empty()) << quiet.str();
}

TEST(ResultsIoProgress, AStoppedRunDoesNotClaimToBeDone) {
  std::ostringstream bar_os, lines_os;
  ProgressBar bar(bar_os, ProgressStyle::kBar, "run");
  bar.update(0.4);
  bar.finish(false);
  EXPECT_EQ(bar_os.str().find("100.0%"), std::string::npos) << bar_os.str();
  EXPECT_EQ(bar_os.str().back(), '\n');  // the bar's line is ended
  ProgressBar lines(lines_os, ProgressStyle::kLines, "run", std::chrono::seconds(0));
  lines.update(0.4);
  lines.finish(false);
  EXPECT_EQ(lines_os.str(), "run: 40.0% done after 0s\n");  // no progress of its own yet: no estimate
}

// A resumed run's first update holds the part restored from saved batch states (done in no time
// here): the estimate is this run's own rate, 2% in 100 ms leaves about 3 s, not 0 s.
TEST(ResultsIoProgress, TheEstimateIsTheRateSinceTheFirstUpdate) {
  std::ostringstream os;
  ProgressBar lines(os, ProgressStyle::kLines, "run", std::chrono::seconds(0));
  lines.update(0.40);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  lines.update(0.42);
  const std::string out = os.str();
  EXPECT_NE(out.find("\nrun: 42.0% done after 0s, about "), std::string::npos) << out;
  EXPECT_EQ(out.find("about 0s left"), std::string::npos) << out;
}

TEST(ResultsIoProgress, ThrottlesRedrawsButFinishAlwaysDraws) {
  std::ostringstream os;
  ProgressBar bar(os, ProgressStyle::kBar, "sweep");
  for (int i = 0; i < 1000; ++i) bar.update(i / 1000.0);
  const std::string throttled = os.str();
  const auto draws = std::count(throttled.begin(), throttled.end(), '\r');
  EXPECT_GE(draws, 1);
  EXPECT_LT(draws, 100);  // a tight loop of 1000 updates takes far less than 10 s
  bar.finish();
  const std::string out = os.str();
  EXPECT_EQ(std::count(out.begin(), out.end(), '\r'), draws + 1);
  EXPECT_EQ(out.back(), '\n');
  EXPECT_NE(out.find("[" + std::string(40, '#') + "] 100.0%"), std::string::npos);
  // After finish the line is closed; nothing more is drawn.
  bar.update(0.5);
  bar.finish();
  EXPECT_EQ(os.str(), out);
}

}  // namespace
}  // namespace saturn
