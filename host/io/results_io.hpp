// Result files and terminal output: summary.csv, trials.csv, the stdout table, the progress bar.
#pragma once
#include <chrono>
#include <ostream>
#include <string>
#include <vector>

#include "host/stats/summary.hpp"

namespace saturn {

// Columns: point, <one per swept key>, metric, mean, stddev, ci95_low, ci95_high, n.
// Numbers with up to 9 significant digits; NaN written as "nan". Throws std::runtime_error if the
// file cannot be written.
void write_summary_csv(const std::string& path, const std::vector<PointLabel>& points,
                       const std::vector<std::string>& swept_keys, const std::vector<SummaryRow>& rows);

// Columns: point, trial, seed, <one per swept key>, metric, value.
void write_trials_csv(const std::string& path, const std::vector<PointLabel>& points,
                      const std::vector<std::string>& swept_keys, const std::vector<TrialResult>& results);

// Columns: point, trial, time_ns, <one per swept key>, metric, value (values exact, as in trials.csv).
void write_series_csv(const std::string& path, const std::vector<PointLabel>& points,
                      const std::vector<std::string>& swept_keys, const std::vector<SeriesSample>& series);

// A readable fixed-width table: one row per (point, metric), "mean ± ci half-width (n)".
// Only metrics whose names are in `metrics` are printed (all if empty).
void print_summary_table(std::ostream& os, const std::vector<PointLabel>& points,
                         const std::vector<std::string>& swept_keys, const std::vector<SummaryRow>& rows,
                         const std::vector<std::string>& metrics = {});

// How a run shows its progress on stderr: a bar redrawn in place with '\r' (a terminal), one plain
// line every `log_interval` (a log file or a batch job's output, where '\r' would pile up into one
// unreadable line), or nothing.
enum class ProgressStyle { kOff, kBar, kLines };

// Progress with percentage, elapsed time and ETA. The ETA is the rate of the progress since the
// first update (a resumed run's first update already holds the restored part); none until that
// is 1% of the work. kBar redraws at most ~10 times a second; kLines
// writes "label: 42.1% done after 1h05m, about 1h30m left" at most every log_interval. finish()
// ends the bar's line, or writes the last line; finish(false), for a run stopped part way, only
// ends a bar's line (the run's own last line says what was kept).
class ProgressBar {
 public:
  ProgressBar(std::ostream& os, ProgressStyle style, std::string label,
              std::chrono::steady_clock::duration log_interval = std::chrono::seconds(60));
  void update(double fraction_done);  // 0..1
  void finish(bool complete = true);
 private:
  std::ostream& os_;
  ProgressStyle style_;
  std::string label_;
  std::chrono::steady_clock::duration log_interval_;
  std::chrono::steady_clock::time_point start_, last_draw_, first_update_;
  double first_fraction_ = -1;  // the first update's fraction; -1 = none yet
  bool drawn_ = false;
};

}  // namespace saturn
