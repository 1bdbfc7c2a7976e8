// Per-trial metric records and their reduction across trials: mean, stddev, 95% CI.
#pragma once
#include <cstdint>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace saturn {

struct MetricValue {
  std::string name;
  double value;  // NaN = not defined for this trial (e.g. no packet delivered); excluded from n
};

struct TrialResult {
  int point = 0;        // global sweep point index
  int trial = 0;        // trial index within the point
  uint64_t seed = 0;    // the trial's own seed
  std::vector<MetricValue> metrics;
};

// Windowed metrics of one trial over one interval of a time series (stats.series_interval_ns).
struct SeriesSample {
  int point = 0;
  int trial = 0;
  double time_ns = 0;  // end of the interval
  std::vector<MetricValue> metrics;
};

// How a point is labelled: swept key -> value as text, in sweep order.
struct PointLabel {
  int index = 0;
  std::vector<std::pair<std::string, std::string>> swept;
};

struct SummaryRow {
  int point = 0;
  std::string metric;
  double mean = 0, stddev = 0, ci95_low = 0, ci95_high = 0;  // NaN when n == 0; CI = mean when n == 1
  int n = 0;
};

// Two-sided 97.5% quantile of Student's t with df degrees of freedom (df >= 1).
double student_t_975(int df);

// Group by (point, metric); rows ordered by point, then by first appearance of the metric.
// stddev is the sample standard deviation (n - 1); CI = mean -/+ t(0.975, n-1) * stddev / sqrt(n).
std::vector<SummaryRow> summarize(const std::vector<TrialResult>& results);

}  // namespace saturn
