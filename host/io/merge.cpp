// `saturn merge DIR`: the shards of a sharded run (manifest.shard-I-of-N.json and
// trials.shard-I-of-N.csv) become the trials.csv, summary.csv and manifest.json an unsharded
// run writes. Per-trial values are stored exactly, so the merged files match it byte for byte.
#include "host/io/merge.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "host/io/manifest.hpp"

namespace saturn {

namespace {

[[noreturn]] void fail(const std::string& message) { throw std::runtime_error("merge: " + message); }

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

void read_trials(const std::string& path, size_t swept, std::vector<TrialResult>& out) {
  std::ifstream in(path);
  if (!in) fail("cannot read '" + path + "'");
  std::string line;
  std::getline(in, line);  // header
  const size_t width = 3 + swept + 2;
  int line_no = 1;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty()) continue;
    const std::string where = path + " line " + std::to_string(line_no);
    const std::vector<std::string> f = split_csv(line);
    if (f.size() != width) fail(where + ": expected " + std::to_string(width) + " fields");
    const int point = parse_int<int>(f[0], where), trial = parse_int<int>(f[1], where);
    if (out.empty() || out.back().point != point || out.back().trial != trial)
      out.push_back(TrialResult{point, trial, parse_int<uint64_t>(f[2], where), {}});
    out.back().metrics.push_back({f[3 + swept], parse_value(f[4 + swept], where)});
  }
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) fail("cannot read '" + path + "'");
  try {
    return nlohmann::json::parse(in);
  } catch (const std::exception& e) {
    fail("'" + path + "' is not valid JSON: " + e.what());
  }
}

}  // namespace

MergedRun merge_shards(const std::string& dir) {
  // Find the shard manifests and how many shards the run had.
  const std::regex name(R"(manifest\.shard-(\d+)-of-(\d+)\.json)");
  std::map<int, std::string> manifests;
  int shards = 0;
  if (!std::filesystem::is_directory(dir)) fail("'" + dir + "' is not a directory");
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::smatch m;
    const std::string file = entry.path().filename().string();
    if (!std::regex_match(file, m, name)) continue;
    const int n = std::stoi(m[2]);
    if (shards != 0 && n != shards) fail("'" + dir + "' holds shards of runs split " + std::to_string(shards) + " and " +
                                         std::to_string(n) + " ways");
    shards = n;
    manifests[std::stoi(m[1])] = entry.path().string();
  }
  if (shards == 0) fail("no manifest.shard-*-of-*.json in '" + dir + "'");
  std::string missing;
  for (int i = 0; i < shards; ++i)
    if (!manifests.count(i)) missing += (missing.empty() ? "" : ", ") + std::to_string(i);
  if (!missing.empty()) fail("shards " + missing + " of " + std::to_string(shards) + " are missing in '" + dir + "'");

  MergedRun run;
  nlohmann::json shard_info = nlohmann::json::array();
  int64_t covered = 0, total = -1;
  double wall = 0;
  uint64_t cycles = 0;
  bool partial = false;
  for (int i = 0; i < shards; ++i) {
    const nlohmann::json m = read_json(manifests[i]);
    if (i == 0) {
      run.manifest = m;
      run.swept_keys = m.at("swept_keys").get<std::vector<std::string>>();
      for (const auto& p : m.at("points")) {
        PointLabel label;
        label.index = p.at("point").get<int>();
        for (const auto& key : run.swept_keys) label.swept.push_back({key, p.at("values").at(key).get<std::string>()});
        run.points.push_back(label);
      }
      total = m.at("total_trials").get<int64_t>();
    }
    const auto slice = m.at("shard_trials").get<std::vector<int64_t>>();
    if (slice.size() != 2 || slice[0] != covered || m.at("total_trials").get<int64_t>() != total)
      fail("shard " + std::to_string(i) + " does not continue the trials of shard " + std::to_string(i - 1) +
           " (were the shards run with the same config?)");
    covered = slice[1];
    wall = std::max(wall, m.at("wall_seconds").get<double>());
    cycles += m.at("simulated_cycles").get<uint64_t>();
    partial = partial || m.at("partial").get<bool>();
    shard_info.push_back({{"shard", i}, {"wall_seconds", m.at("wall_seconds")}, {"partial", m.at("partial")},
                          {"simulated_cycles", m.at("simulated_cycles")}});
    read_trials(dir + "/trials" + shard_suffix(i, shards) + ".csv", run.swept_keys.size(), run.trials);
  }
  if (covered != total) fail("the shards cover " + std::to_string(covered) + " of " + std::to_string(total) + " trials");

  // Time series: each shard's rows are in (point, trial, time) order and the shards are
  // consecutive slices of the trials, so concatenation keeps the order an unsharded run writes.
  for (int i = 0; i < shards; ++i) {
    const std::string path = dir + "/series" + shard_suffix(i, shards) + ".csv";
    if (!std::filesystem::exists(path)) continue;
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    if (run.series_csv.empty()) run.series_csv = line + "\n";
    while (std::getline(in, line)) run.series_csv += line + "\n";
  }

  nlohmann::json seeds = nlohmann::json::array();
  for (const auto& t : run.trials) seeds.push_back({{"point", t.point}, {"trial", t.trial}, {"seed", t.seed}});
  run.manifest["trial_seeds"] = seeds;
  run.manifest["partial"] = partial;
  run.manifest["wall_seconds"] = wall;
  run.manifest["simulated_cycles"] = cycles;
  run.manifest["shard"] = 0;
  run.manifest["shards"] = 1;
  run.manifest["shard_trials"] = {0, total};
  run.manifest["merged_from"] = shard_info;
  run.manifest.erase("batches");
  return run;
}

}  // namespace saturn
