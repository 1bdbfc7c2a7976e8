// Reduces per-trial metrics to per-point mean, sample stddev and Student-t 95% confidence intervals.
#include "host/stats/summary.hpp"

#include <cmath>
#include <limits>
#include <map>
#include <unordered_map>

namespace saturn {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Printed tables are exact to 3 decimals for small df, where the asymptotic expansion is weakest.
constexpr double kT975[30] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                              2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                              2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};

// One (point, metric) cell while grouping.
struct Group {
  std::string metric;
  std::vector<double> values;
};

struct PointGroups {
  std::vector<Group> groups;                       // in order of first appearance
  std::unordered_map<std::string, size_t> lookup;  // metric name -> index into groups
};

SummaryRow reduce(int point, Group& group) {
  SummaryRow row;
  row.point = point;
  row.metric = std::move(group.metric);
  const std::vector<double>& v = group.values;
  row.n = static_cast<int>(v.size());
  if (v.empty()) {
    row.mean = row.stddev = row.ci95_low = row.ci95_high = kNaN;
    return row;
  }
  const double n = static_cast<double>(v.size());
  double sum = 0;
  for (double x : v) sum += x;
  const double mean = sum / n;
  row.mean = mean;
  if (v.size() == 1) {
    row.stddev = 0;
    row.ci95_low = row.ci95_high = mean;
    return row;
  }
  // Corrected two-pass: the second term cancels the rounding error left in `mean`, so nearly
  // identical large values (e.g. throughputs around 1e11) do not lose their spread to cancellation.
  double sq = 0, dev = 0;
  for (double x : v) {
    const double d = x - mean;
    sq += d * d;
    dev += d;
  }
  double var = (sq - dev * dev / n) / (n - 1);
  if (var < 0) var = 0;
  row.stddev = std::sqrt(var);
  const double half = student_t_975(row.n - 1) * row.stddev / std::sqrt(n);
  row.ci95_low = mean - half;
  row.ci95_high = mean + half;
  return row;
}

}  // namespace

double student_t_975(int df) {
  if (df < 1) return kNaN;
  if (df <= 30) return kT975[df - 1];
  // Cornish-Fisher expansion around the normal quantile; already within 1e-4 of the exact value at df = 31.
  constexpr double z = 1.959963984540054;
  const double d = static_cast<double>(df);
  const double z2 = z * z, z3 = z2 * z, z5 = z3 * z2, z7 = z5 * z2;
  return z + (z3 + z) / (4 * d) + (5 * z5 + 16 * z3 + 3 * z) / (96 * d * d) +
         (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * d * d * d);
}

std::vector<SummaryRow> summarize(const std::vector<TrialResult>& results) {
  // Trials may finish out of order, so sort by point here rather than trusting input order.
  std::map<int, PointGroups> by_point;
  for (const TrialResult& trial : results) {
    PointGroups& pg = by_point[trial.point];
    for (const MetricValue& m : trial.metrics) {
      auto it = pg.lookup.find(m.name);
      size_t idx;
      if (it == pg.lookup.end()) {
        idx = pg.groups.size();
        pg.lookup.emplace(m.name, idx);
        pg.groups.push_back(Group{m.name, {}});
      } else {
        idx = it->second;
      }
      // A metric that is NaN in every trial still gets a row (n = 0), so the CSV shape stays stable.
      if (!std::isnan(m.value)) pg.groups[idx].values.push_back(m.value);
    }
  }

  std::vector<SummaryRow> rows;
  for (auto& [point, pg] : by_point) {
    for (Group& g : pg.groups) rows.push_back(reduce(point, g));
  }
  return rows;
}

}  // namespace saturn
