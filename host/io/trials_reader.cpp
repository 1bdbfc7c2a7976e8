// Strict readers of the long-format result CSVs written by results_io (RFC 4180 quoting, exact
// numbers), shared by merge and resume.
#include "host/io/trials_reader.hpp"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include "host/config/config_error.hpp"
#include "host/io/regular_file.hpp"

namespace saturn {

namespace {

[[noreturn]] void fail(const std::string& message) { throw ConfigError(message); }

// One CSV record (RFC 4180 quoting, as results_io writes it).
std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        fields.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

double parse_value(const std::string& text, const std::string& where) {
  if (text == "nan") return std::numeric_limits<double>::quiet_NaN();
  if (text == "inf") return std::numeric_limits<double>::infinity();
  if (text == "-inf") return -std::numeric_limits<double>::infinity();
  double x = 0;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), x);
  if (r.ec != std::errc() || r.ptr != text.data() + text.size()) fail(where + ": '" + text + "' is not a number");
  return x;
}

template <class Int>
Int parse_int(const std::string& text, const std::string& where) {
  Int x = 0;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), x);
  if (r.ec != std::errc() || r.ptr != text.data() + text.size()) fail(where + ": '" + text + "' is not an integer");
  return x;
}

// Calls row(fields, where) for every data row; the whole file is read first so that a last line
// without its newline (a write cut short) is caught before anything is used.
template <class Row>
void read_rows(const std::string& path, size_t width, Row row) {
  require_regular_file(path, "results file");
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("cannot read '" + path + "'");
  std::ostringstream buf;
  buf << in.rdbuf();
  const std::string text = buf.str();
  if (text.empty()) fail(path + " is empty (not even a header)");
  if (text.back() != '\n') {
    const size_t lines = static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
    fail(path + " line " + std::to_string(lines + 1) + " is cut mid-line (no line end): the file is incomplete");
  }
  size_t pos = text.find('\n') + 1;  // skip the header
  int line_no = 1;
  while (pos < text.size()) {
    const size_t nl = text.find('\n', pos);
    const std::string line = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    if (line.empty()) continue;
    const std::string where = path + " line " + std::to_string(line_no);
    const std::vector<std::string> f = split_csv(line);
    if (f.size() != width)
      fail(where + ": " + std::to_string(f.size()) + " fields, expected " + std::to_string(width));
    row(f, where);
  }
}

}  // namespace

std::vector<TrialResult> read_trials_csv(const std::string& path, size_t swept) {
  std::vector<TrialResult> out;
  std::set<std::pair<int, int>> seen;
  read_rows(path, 3 + swept + 2, [&](const std::vector<std::string>& f, const std::string& where) {
    const int point = parse_int<int>(f[0], where), trial = parse_int<int>(f[1], where);
    if (out.empty() || out.back().point != point || out.back().trial != trial) {
      if (!seen.insert({point, trial}).second)
        fail(where + ": (point " + std::to_string(point) + ", trial " + std::to_string(trial) + ") appears twice");
      out.push_back(TrialResult{point, trial, parse_int<uint64_t>(f[2], where), {}});
    }
    out.back().metrics.push_back({f[3 + swept], parse_value(f[4 + swept], where)});
  });
  return out;
}

std::vector<SeriesSample> read_series_csv(const std::string& path, size_t swept) {
  std::vector<SeriesSample> out;
  read_rows(path, 3 + swept + 2, [&](const std::vector<std::string>& f, const std::string& where) {
    const int point = parse_int<int>(f[0], where), trial = parse_int<int>(f[1], where);
    const double time_ns = parse_value(f[2], where);
    if (out.empty() || out.back().point != point || out.back().trial != trial || !(out.back().time_ns == time_ns))
      out.push_back(SeriesSample{point, trial, time_ns, {}});
    out.back().metrics.push_back({f[3 + swept], parse_value(f[4 + swept], where)});
  });
  return out;
}

void check_trial_order(const std::vector<TrialResult>& trials, const std::string& where) {
  std::set<std::pair<int, int>> seen;
  for (size_t i = 0; i < trials.size(); ++i) {
    const TrialResult& b = trials[i];
    const std::string id = "(point " + std::to_string(b.point) + ", trial " + std::to_string(b.trial) + ")";
    if (!seen.insert({b.point, b.trial}).second) fail(where + ": " + id + " appears twice");
    if (i > 0) {
      const TrialResult& a = trials[i - 1];
      if (a.point > b.point || (a.point == b.point && a.trial > b.trial)) fail(where + ": " + id + " is out of order");
    }
  }
}

}  // namespace saturn
