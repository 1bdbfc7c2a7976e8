// Shared helpers for the integration and paper tests: run a study from TOML text or a file
// in-process, and pick metrics out of the result. Header-only.
#pragma once
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "host/config/config.hpp"
#include "host/study/study.hpp"

namespace saturn {
namespace test {

inline std::string source_path(const std::string& relative) { return std::string(SATURN_SOURCE_DIR) + "/" + relative; }

// Every config shipped under configs/ (*.toml, recursively), sorted.
inline std::vector<std::string> shipped_configs() {
  std::vector<std::string> paths;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(source_path("configs")))
    if (entry.is_regular_file() && entry.path().extension() == ".toml") paths.push_back(entry.path().string());
  std::sort(paths.begin(), paths.end());
  return paths;
}

// The shipped configs that the run-every-config tests (AllConfigs, DeterminismEachConfig) run.
// Every config is still parsed and validated by Cli.ValidateEveryShippedConfig; what is sampled is
// the generated 5 x 4 x 6 grid of configs/papers/rocher2021/fig6_{traffic}_{scheme}_{technique}
// (scripts/rocher2021_configs.py, 432 nodes each): 20 of its 120 configs, the i-th taking traffic
// i mod 5, scheme i mod 4 and technique i mod 6, so that every (traffic, scheme) pair and every
// technique runs (each at least three times) and the suite stays within CI's time.
inline std::vector<std::string> run_tested_configs() {
  static const char* traffic[5] = {"rnd", "h10", "h25", "h10_4", "h25_4"};
  static const char* scheme[4] = {"1q", "dbbm", "vftree", "flow2sl"};
  static const char* technique[6] = {"dmodk", "oblivious", "adaptive_th", "adaptive_th_afi", "arn", "arn_afi"};
  auto name = [&](int tr, int sc, int te) {
    return std::string("fig6_") + traffic[tr] + "_" + scheme[sc] + "_" + technique[te] + ".toml";
  };
  std::vector<std::string> grid, sampled;
  for (int tr = 0; tr < 5; ++tr)
    for (int sc = 0; sc < 4; ++sc)
      for (int te = 0; te < 6; ++te) grid.push_back(name(tr, sc, te));
  for (int i = 0; i < 20; ++i) sampled.push_back(name(i % 5, i % 4, i % 6));
  auto has = [](const std::vector<std::string>& v, const std::string& x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  };
  std::vector<std::string> paths;
  size_t kept = 0;
  for (const std::string& path : shipped_configs()) {
    const std::string file = std::filesystem::path(path).filename().string();
    const bool in_grid = path.find("papers/rocher2021/") != std::string::npos && has(grid, file);
    if (in_grid && !has(sampled, file)) continue;
    if (in_grid) ++kept;
    paths.push_back(path);
  }
  // The grid's file names are part of the sample: a renamed grid must fail here, not shrink the test.
  if (kept != sampled.size())
    throw std::runtime_error("run_tested_configs: " + std::to_string(kept) + " of the 20 sampled rocher2021 fig6 "
                             "configs found (the grid's names changed?)");
  return paths;
}

// The run-every-config tests are split into kConfigShards test cases each, so that ctest runs
// them side by side (one case for all ~190 configs was the suite's longest, ~4 min on CI's 2
// cores): shard s runs the configs at positions s, s + kConfigShards, ... of run_tested_configs().
constexpr int kConfigShards = 8;
inline std::vector<std::string> run_tested_configs_shard(int shard) {
  const std::vector<std::string> all = run_tested_configs();
  std::vector<std::string> mine;
  for (size_t i = static_cast<size_t>(shard); i < all.size(); i += kConfigShards) mine.push_back(all[i]);
  return mine;
}

// Overrides that bring a shipped config to test size where its network or its work is large:
//   * the 1056-node dragonfly studies of configs/papers/jiang2015 run on 5 groups (160 nodes) with
//     100 ns global links, at one load point, for 3 us (a 100 ns global link fills the network
//     within 1 us; the checked run's every-cycle invariants walk every ring, and these were three
//     quarters of the all-configs tests' time at 5 us); the transients for 5 us, their hot spot
//     from 2 us (ids of the small network);
//   * the Zdornov packet-level phases (finite flows, which run to completion whatever the window)
//     carry 20 packets per flow instead of 200, on the 4-ary tree, not the paper's 16-ary, at
//     P (n) = 1 and 3, Table 1 at b = 2 and 16 only (its 20 points were the slowest configs);
//   * Santos et al.'s buffer grids run two buffer sizes.
inline std::vector<std::string> small_size_overrides(const std::string& path) {
  if (path.find("papers/jiang2015/transient_") != std::string::npos)  // its hot spots, one per group
    return {"topology.dragonfly_g=5", "link.global_latency_ns=100", "simulation.duration_ns=5000",
            "traffic.hotspot_start_ns=2000", "traffic.hotspot_nodes=[13, 45, 77, 109]"};
  if (path.find("papers/jiang2015/lhrp_threshold_") != std::string::npos)  // two of its thresholds
    return {"topology.dragonfly_g=5", "link.global_latency_ns=100", "sweep.traffic.load=[0.5]",
            "simulation.duration_ns=3000", "sweep.cc.lhrp_threshold_flits=[250, 1073741824]"};
  if (path.find("papers/jiang2015/lhrp_wc_hot") != std::string::npos)  // two of its WC-Hot n
    return {"topology.dragonfly_g=5", "link.global_latency_ns=100", "sweep.traffic.load=[0.5]",
            "simulation.duration_ns=3000", "sweep.traffic.wc_hot_nodes=[1, 8]"};
  if (path.find("papers/jiang2015") != std::string::npos)
    return {"topology.dragonfly_g=5", "link.global_latency_ns=100", "sweep.traffic.load=[0.5]",
            "simulation.duration_ns=3000"};
  const bool zdornov_packet_phases = path.find("papers/zdornov2009/table1_") != std::string::npos ||
                                     path.find("papers/zdornov2009/fig6_packet") != std::string::npos;
  if (zdornov_packet_phases) {  // the paper's 16-ary tree: 4-ary; two of the P (n) and of Table 1's b swept
    std::vector<std::string> o{"traffic.phase_bytes=40960", "topology.k=4", "sweep.traffic.permutations=[1, 3]"};
    if (path.find("table1_") != std::string::npos) o.push_back("sweep.switch.buffer_bytes=[4096, 32768]");
    return o;
  }
  // Santos et al.'s buffer x threshold and buffer x response grids (9 buffer sizes each): two of
  // the buffer sizes every one of them sweeps, every threshold or response kept.
  const bool santos_buffer_grid = path.find("papers/santos2002/fig5") != std::string::npos ||
                                  path.find("papers/santos2002/fig7.toml") != std::string::npos;
  if (santos_buffer_grid) return {"sweep.switch.buffer_bytes=[8272, 33088]"};
  // Rocher Fig. 8 as one study: its four trace runs (they run to completion, whatever the window)
  // with four of the 24 curves, one per queuing scheme, four techniques (96 points took 5 min here).
  if (path.find("papers/rocher2021/fig8.toml") != std::string::npos)
    return {"sweep.curve=[{name = \"1q/dmodk\", switch.vcs = 1, isolation.queue_scheme = \"1q\", isolation.technique = \"dmodk\"}, "
            "{name = \"dbbm/oblivious\", switch.vcs = 3, isolation.queue_scheme = \"dbbm\", isolation.technique = \"oblivious\"}, "
            "{name = \"vftree/adaptive_th_afi\", switch.vcs = 4, isolation.queue_scheme = \"vftree\", "
            "isolation.technique = \"adaptive_th_afi\"}, {name = \"flow2sl/arn_afi\", switch.vcs = 4, "
            "isolation.queue_scheme = \"flow2sl\", isolation.technique = \"arn_afi\", isolation.crt_ns = 5e6, "
            "isolation.incast_reading = \"r2\"}]"};
  return {};
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read '" + path + "'");
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

inline void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  if (!out) throw std::runtime_error("cannot write '" + path + "'");
  out << text;
}

// A fresh directory under $TMPDIR (or /tmp); the caller may leave it behind.
inline std::string make_temp_dir(const std::string& tag = "saturn_test") {
  const char* base = std::getenv("TMPDIR");
  std::string templ = std::string(base && *base ? base : "/tmp") + "/" + tag + "_XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  if (mkdtemp(buf.data()) == nullptr) throw std::runtime_error("mkdtemp failed for " + templ);
  return std::string(buf.data());
}

inline StudyResult run_config(const Config& config, int threads = 1, const std::string& config_dir = "") {
  StudyOptions options;
  options.threads = threads;
  options.config_dir = config_dir;
  return run_study(config, options);
}

inline StudyResult run_toml(const std::string& toml, const std::vector<std::string>& overrides = {}, int threads = 1) {
  return run_config(load_config_string(toml, "test", overrides), threads);
}

inline StudyResult run_file(const std::string& path, const std::vector<std::string>& overrides = {}, int threads = 1) {
  const Config config = load_config_file(path, overrides);
  const std::string dir = path.find('/') == std::string::npos ? "." : path.substr(0, path.rfind('/'));
  return run_config(config, threads, dir);
}

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

inline bool has_metric(const TrialResult& trial, const std::string& name) {
  for (const auto& m : trial.metrics)
    if (m.name == name) return true;
  return false;
}

inline double metric_of(const TrialResult& trial, const std::string& name) {
  for (const auto& m : trial.metrics)
    if (m.name == name) return m.value;
  throw std::runtime_error("no metric '" + name + "'");
}

// Values of one metric over the trials of a point (NaN included).
inline std::vector<double> metric_values(const StudyResult& r, const std::string& name, int point = 0) {
  std::vector<double> out;
  for (const auto& t : r.trials)
    if (t.point == point) out.push_back(metric_of(t, name));
  if (out.empty()) throw std::runtime_error("no trials for point " + std::to_string(point));
  return out;
}

// Mean over the trials of a point, NaN values excluded (NaN if all are NaN).
inline double metric_mean(const StudyResult& r, const std::string& name, int point = 0) {
  double sum = 0;
  int n = 0;
  for (double v : metric_values(r, name, point))
    if (!std::isnan(v)) sum += v, ++n;
  return n > 0 ? sum / n : kNaN;
}

// Names of the metrics of the first trial that start with `prefix`.
inline std::vector<std::string> metric_names(const StudyResult& r, const std::string& prefix = "") {
  std::vector<std::string> out;
  if (r.trials.empty()) return out;
  for (const auto& m : r.trials.front().metrics)
    if (m.name.compare(0, prefix.size(), prefix) == 0) out.push_back(m.name);
  return out;
}

}  // namespace test
}  // namespace saturn
