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

// A one-line progress bar with percentage and ETA on a stream, redrawn with '\r'.
// Draws only when enabled (the caller passes isatty(stderr)); finish() ends the line.
class ProgressBar {
 public:
  ProgressBar(std::ostream& os, bool enabled, std::string label);
  void update(double fraction_done);  // 0..1; redraws at most ~10 times a second
  void finish();
 private:
  std::ostream& os_;
  bool enabled_;
  std::string label_;
  std::chrono::steady_clock::time_point start_, last_draw_;
  bool drawn_ = false;
};

}  // namespace saturn
