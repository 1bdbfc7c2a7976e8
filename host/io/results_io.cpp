// Writes summary.csv / trials.csv, prints the human-readable summary table, and draws the progress bar.
#include "host/io/results_io.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

namespace saturn {
namespace {

// RFC 4180: only fields with a separator, quote or line break need quoting; quotes inside are doubled.
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

// snprintf would print "-nan" for some NaN payloads; downstream tools want one spelling.
std::string format_number(double x, int significant) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", significant, x);
  return buf;
}

std::string csv_number(double x) { return format_number(x, 9); }

// Per-trial values are the raw data (shards are merged from them): the shortest text that reads
// back to the same double.
std::string exact_number(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, x);
  return std::string(buf, r.ptr);
}

// 4 significant digits, except that mid-sized magnitudes (latencies in ns, byte counts) print as whole
// numbers: "12348" reads better than "1.235e+04", whose rounding can exceed the CI half-width beside it.
std::string table_number(double x) {
  const double mag = std::fabs(x);
  if (mag >= 1e4 && mag < 1e9) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f", x);
    return buf;
  }
  return format_number(x, 4);
}

// Swept values of each point, ordered like swept_keys; a key a point lacks reads as "".
class SweptLookup {
 public:
  SweptLookup(const std::vector<PointLabel>& points, const std::vector<std::string>& swept_keys)
      : width_(swept_keys.size()) {
    for (const PointLabel& p : points) {
      std::vector<std::string> values(width_);
      for (size_t k = 0; k < width_; ++k) {
        for (const auto& [key, value] : p.swept) {
          if (key == swept_keys[k]) {
            values[k] = value;
            break;
          }
        }
      }
      // Looked up by PointLabel::index, not vector position, so a partial points list still works.
      values_[p.index] = std::move(values);
    }
  }

  const std::vector<std::string>& values(int point) const {
    auto it = values_.find(point);
    return it == values_.end() ? empty_ : it->second;
  }
  size_t width() const { return width_; }

 private:
  size_t width_;
  std::unordered_map<int, std::vector<std::string>> values_;
  std::vector<std::string> empty_ = std::vector<std::string>(width_);
};

void write_row(std::ostream& os, const std::vector<std::string>& fields) {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i) os << ',';
    os << csv_field(fields[i]);
  }
  os << '\n';
}

std::ofstream open_for_write(const std::string& path) {
  std::ofstream os(path, std::ios::out | std::ios::trunc);
  if (!os) throw std::runtime_error("cannot open '" + path + "' for writing");
  return os;
}

void close_checked(std::ofstream& os, const std::string& path) {
  os.close();
  if (os.fail()) throw std::runtime_error("error while writing '" + path + "'");
}

// Terminal columns, not bytes: "±" and non-ASCII key values are multi-byte in UTF-8.
size_t display_width(const std::string& s) {
  size_t w = 0;
  for (unsigned char c : s) {
    if ((c & 0xC0) != 0x80) ++w;
  }
  return w;
}

void pad_to(std::ostream& os, const std::string& s, size_t width, bool right_align) {
  const size_t w = display_width(s);
  const std::string pad(width > w ? width - w : 0, ' ');
  if (right_align) os << pad << s;
  else os << s << pad;
}

// "42s", "1m23s", "2h05m": short enough that the bar line stays within a terminal.
std::string format_duration(double seconds) {
  if (!(seconds >= 0)) seconds = 0;
  const long long s = static_cast<long long>(std::llround(seconds));
  char buf[48];
  if (s < 60) std::snprintf(buf, sizeof buf, "%llds", s);
  else if (s < 3600) std::snprintf(buf, sizeof buf, "%lldm%02llds", s / 60, s % 60);
  else std::snprintf(buf, sizeof buf, "%lldh%02lldm", s / 3600, (s % 3600) / 60);
  return buf;
}

constexpr int kBarWidth = 40;
constexpr auto kRedrawInterval = std::chrono::milliseconds(100);

// Seconds left at the rate of this process's own progress: `done` of the work in `seconds` since
// its first update (a resumed run's first update already counts the restored part, done in no time
// here); negative while that is under 1% of the work (no estimate).
double eta_seconds(double fraction, double done, double seconds) {
  return done >= 0.01 ? seconds / done * (1.0 - fraction) : -1.0;
}

void draw_bar(std::ostream& os, const std::string& label, double fraction, double elapsed_s, double eta_s) {
  const int filled = std::min(kBarWidth, static_cast<int>(fraction * kBarWidth));
  std::string eta = "--";
  if (fraction >= 1.0) eta = "0s";
  else if (eta_s >= 0) eta = format_duration(eta_s);
  char pct[16];
  std::snprintf(pct, sizeof pct, "%5.1f%%", fraction * 100.0);
  // Trailing padding overwrites leftovers of a longer previous ETA, since '\r' does not clear the line.
  std::string tail = "ETA " + eta;
  if (tail.size() < 12) tail.append(12 - tail.size(), ' ');
  os << '\r' << label << " [" << std::string(filled, '#') << std::string(kBarWidth - filled, '.') << "] " << pct
     << "  " << tail;
  os.flush();
}

// One self-contained line per call (kLines): readable with tail -f and grep, no '\r'.
void write_progress_line(std::ostream& os, const std::string& label, double fraction, double elapsed_s,
                         double eta_s) {
  char pct[16];
  std::snprintf(pct, sizeof pct, "%.1f%%", fraction * 100.0);
  os << label << ": " << pct << " done after " << format_duration(elapsed_s);
  if (fraction >= 1.0) os << '\n';
  else if (eta_s >= 0) os << ", about " << format_duration(eta_s) << " left\n";
  else os << '\n';
  os.flush();
}

}  // namespace

void write_summary_csv(const std::string& path, const std::vector<PointLabel>& points,
                       const std::vector<std::string>& swept_keys, const std::vector<SummaryRow>& rows) {
  const SweptLookup swept(points, swept_keys);
  std::ofstream os = open_for_write(path);
  std::vector<std::string> fields{"point"};
  fields.insert(fields.end(), swept_keys.begin(), swept_keys.end());
  for (const char* col : {"metric", "mean", "stddev", "ci95_low", "ci95_high", "n"}) fields.emplace_back(col);
  write_row(os, fields);

  for (const SummaryRow& r : rows) {
    fields.clear();
    fields.push_back(std::to_string(r.point));
    const auto& values = swept.values(r.point);
    fields.insert(fields.end(), values.begin(), values.end());
    fields.push_back(r.metric);
    for (double x : {r.mean, r.stddev, r.ci95_low, r.ci95_high}) fields.push_back(csv_number(x));
    fields.push_back(std::to_string(r.n));
    write_row(os, fields);
  }
  close_checked(os, path);
}

namespace {

// Long format shared by trials.csv and series.csv: one row per (record, metric), where each
// record contributes its identifying columns, then the swept values of its point.
template <class Record, class IdColumns>
void write_long_csv(const std::string& path, const std::vector<PointLabel>& points,
                    const std::vector<std::string>& swept_keys, const std::vector<std::string>& id_header,
                    const std::vector<Record>& records, IdColumns id_columns) {
  const SweptLookup swept(points, swept_keys);
  std::ofstream os = open_for_write(path);
  std::vector<std::string> fields = id_header;
  fields.insert(fields.end(), swept_keys.begin(), swept_keys.end());
  fields.emplace_back("metric");
  fields.emplace_back("value");
  write_row(os, fields);
  for (const Record& r : records) {
    // The prefix is shared by every metric of the record; build it once.
    std::vector<std::string> prefix = id_columns(r);
    const auto& values = swept.values(r.point);
    prefix.insert(prefix.end(), values.begin(), values.end());
    for (const MetricValue& m : r.metrics) {
      fields = prefix;
      fields.push_back(m.name);
      fields.push_back(exact_number(m.value));
      write_row(os, fields);
    }
  }
  close_checked(os, path);
}

}  // namespace

void write_trials_csv(const std::string& path, const std::vector<PointLabel>& points,
                      const std::vector<std::string>& swept_keys, const std::vector<TrialResult>& results) {
  write_long_csv(path, points, swept_keys, {"point", "trial", "seed"}, results, [](const TrialResult& t) {
    return std::vector<std::string>{std::to_string(t.point), std::to_string(t.trial), std::to_string(t.seed)};
  });
}

void write_series_csv(const std::string& path, const std::vector<PointLabel>& points,
                      const std::vector<std::string>& swept_keys, const std::vector<SeriesSample>& series) {
  write_long_csv(path, points, swept_keys, {"point", "trial", "time_ns"}, series, [](const SeriesSample& s) {
    return std::vector<std::string>{std::to_string(s.point), std::to_string(s.trial), exact_number(s.time_ns)};
  });
}

void print_summary_table(std::ostream& os, const std::vector<PointLabel>& points,
                         const std::vector<std::string>& swept_keys, const std::vector<SummaryRow>& rows,
                         const std::vector<std::string>& metrics) {
  const SweptLookup swept(points, swept_keys);
  const std::unordered_set<std::string> wanted(metrics.begin(), metrics.end());

  // Build all cells first: column widths depend on every row.
  std::vector<std::string> header{"point"};
  header.insert(header.end(), swept_keys.begin(), swept_keys.end());
  header.emplace_back("metric");
  header.emplace_back("mean ± ci95");
  header.emplace_back("n");
  const size_t ncols = header.size();

  std::vector<std::vector<std::string>> table{header};
  for (const SummaryRow& r : rows) {
    if (!wanted.empty() && !wanted.count(r.metric)) continue;
    std::vector<std::string> cells{std::to_string(r.point)};
    const auto& values = swept.values(r.point);
    cells.insert(cells.end(), values.begin(), values.end());
    cells.push_back(r.metric);
    if (r.n == 0) {
      cells.emplace_back("n/a");
    } else {
      const double half = 0.5 * (r.ci95_high - r.ci95_low);
      cells.push_back(table_number(r.mean) + " ± " + table_number(half));
    }
    cells.push_back(std::to_string(r.n));
    table.push_back(std::move(cells));
  }

  std::vector<size_t> widths(ncols, 0);
  for (const auto& row : table) {
    for (size_t c = 0; c < ncols; ++c) widths[c] = std::max(widths[c], display_width(row[c]));
  }

  // Point index and n are counts: right-aligned so digits line up.
  auto right_aligned = [&](size_t c) { return c == 0 || c == ncols - 1; };
  auto print_row = [&](const std::vector<std::string>& row) {
    for (size_t c = 0; c < ncols; ++c) {
      if (c) os << "  ";
      // No trailing spaces after the last column.
      if (c == ncols - 1 && !right_aligned(c)) os << row[c];
      else pad_to(os, row[c], widths[c], right_aligned(c));
    }
    os << '\n';
  };

  print_row(table[0]);
  size_t total = 2 * (ncols - 1);
  for (size_t w : widths) total += w;
  os << std::string(total, '-') << '\n';
  for (size_t i = 1; i < table.size(); ++i) print_row(table[i]);
}

ProgressBar::ProgressBar(std::ostream& os, ProgressStyle style, std::string label,
                         std::chrono::steady_clock::duration log_interval)
    : os_(os), style_(style), label_(std::move(label)), log_interval_(log_interval),
      start_(std::chrono::steady_clock::now()), last_draw_(start_) {}

void ProgressBar::update(double fraction_done) {
  if (style_ == ProgressStyle::kOff) return;
  const auto now = std::chrono::steady_clock::now();
  if (!(fraction_done >= 0)) fraction_done = 0;  // also catches NaN
  fraction_done = std::min(fraction_done, 1.0);
  if (first_fraction_ < 0) {  // the rate of the estimate is measured from here
    first_fraction_ = fraction_done;
    first_update_ = now;
  }
  if (style_ == ProgressStyle::kLines) {
    // A line at the start says nothing a log needs; one per interval shows the run is alive.
    if (now - last_draw_ < log_interval_) return;
  } else if (drawn_ && now - last_draw_ < kRedrawInterval) {
    // Redrawing on every completed trial would flood a slow terminal; the first call always draws.
    return;
  }
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double eta = eta_seconds(fraction_done, fraction_done - first_fraction_,
                                 std::chrono::duration<double>(now - first_update_).count());
  if (style_ == ProgressStyle::kLines) write_progress_line(os_, label_, fraction_done, elapsed, eta);
  else draw_bar(os_, label_, fraction_done, elapsed, eta);
  last_draw_ = now;
  drawn_ = true;
}

void ProgressBar::finish(bool complete) {
  if (style_ == ProgressStyle::kOff) return;
  const auto now = std::chrono::steady_clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  if (!complete) {
    if (style_ == ProgressStyle::kBar && drawn_) os_ << '\n' << std::flush;
  } else if (style_ == ProgressStyle::kLines) {
    write_progress_line(os_, label_, 1.0, elapsed, 0);
  } else {
    draw_bar(os_, label_, 1.0, elapsed, 0);
    os_ << '\n';
    os_.flush();
  }
  last_draw_ = now;
  drawn_ = true;
  // The run is over; a late update() or a second finish() must not write more.
  style_ = ProgressStyle::kOff;
}

}  // namespace saturn
