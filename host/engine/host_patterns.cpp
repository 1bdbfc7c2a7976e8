// Checks the worst_case and hotspot_window keys and maps them and complement onto what the engine
// runs today (see host_patterns.hpp); the per-trial tables are drawn in trial_inputs.cpp.
#include "host/engine/host_patterns.hpp"

#include <cmath>
#include <cstdio>
#include <set>

#include "host/engine/model_setup.hpp"
#include "host/topology/dragonfly.hpp"
#include "kernels/common/packet.hpp"

namespace saturn {

namespace {

[[noreturn]] void fail(const Config& cfg, const std::string& key, const std::string& what) {
  throw ConfigError(cfg.source + ": key '" + key + "': " + what);
}

std::string str(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.10g", x);
  return buf;
}

uint32_t window_cycles(const Config& cfg, const std::string& key, double cycle_ns) {
  const double c = std::round(cfg.get_float(key) / cycle_ns);
  if (!(c <= 2.0e9)) fail(cfg, key, str(cfg.get_float(key)) + " ns is more than 2e9 cycles of " + str(cycle_ns) + " ns");
  return static_cast<uint32_t>(c);
}

void setup_worst_case(const Config& cfg, ModelSetup& s, HostPatternSpec& h) {
  const DragonflyParams& d = s.topology.dragonfly;
  if (d.a == 0) fail(cfg, "traffic.pattern", "\"worst_case\" needs topology.kind = \"dragonfly\" (it shifts by groups)");
  if (d.g < 2) fail(cfg, "traffic.pattern", "\"worst_case\" needs at least two dragonfly groups");
  h.wc_offset = static_cast<int>(cfg.get_int("traffic.wc_offset"));
  if (h.wc_offset >= d.g)
    fail(cfg, "traffic.wc_offset", std::to_string(h.wc_offset) + " is not a group shift of this dragonfly (1.." +
                                       std::to_string(d.g - 1) + ")");
  h.group_endpoints = df_endpoints_per_group(d);
  h.wc_hot_nodes = static_cast<int>(cfg.get_int("traffic.wc_hot_nodes"));
  if (h.wc_hot_nodes > h.group_endpoints)
    fail(cfg, "traffic.wc_hot_nodes", std::to_string(h.wc_hot_nodes) + " is more than the " +
                                          std::to_string(h.group_endpoints) + " nodes of a group (0 = all of them)");
  if (cfg.get_int("traffic.phase_bytes") > 0)
    fail(cfg, "traffic.phase_bytes", "does not apply to traffic.pattern = \"worst_case\" (open-loop messages only)");
  s.model.pattern = TrafficPattern::kPermutation;  // per-source destination rows
  s.model.permutations = h.wc_hot_nodes > 0 ? h.wc_hot_nodes : h.group_endpoints;
}

void setup_window(const Config& cfg, ModelSetup& s, HostPatternSpec& h) {
  const int n = s.topology.num_endpoints;
  const std::vector<double>& nodes = cfg.get_list("traffic.hotspot_nodes");
  if (nodes.empty()) fail(cfg, "traffic.hotspot_nodes", "traffic.pattern = \"hotspot_window\" needs at least one hot-spot endpoint");
  std::set<uint32_t> seen;
  for (double x : nodes) {
    if (x != std::floor(x) || x >= n)
      fail(cfg, "traffic.hotspot_nodes", str(x) + " is not an endpoint id of this network (0.." + std::to_string(n - 1) + ")");
    if (!seen.insert(static_cast<uint32_t>(x)).second) fail(cfg, "traffic.hotspot_nodes", str(x) + " is listed twice");
    h.hot_nodes.push_back(static_cast<uint32_t>(x));
  }
  const int m = static_cast<int>(h.hot_nodes.size());
  // Each hot source keeps one flow per hot spot in service for the whole window.
  if (m > cfg.get_int("endpoint.active_queues") || m > 255)
    fail(cfg, "traffic.hotspot_nodes", std::to_string(m) + " hot spots need endpoint.active_queues >= " +
                                           std::to_string(m) + " (got " +
                                           std::to_string(cfg.get_int("endpoint.active_queues")) + ")");
  h.hot_sources = static_cast<int>(std::lround(cfg.get_float("traffic.hotspot_fraction") * n));
  if (h.hot_sources < 1 || h.hot_sources > n - m)
    fail(cfg, "traffic.hotspot_fraction", "gives " + std::to_string(h.hot_sources) + " hot sources; between 1 and " +
                                              std::to_string(n - m) + " (the endpoints that are not hot spots) are allowed");
  h.start_cycle = window_cycles(cfg, "traffic.hotspot_start_ns", s.cycle_ns);
  const bool stops = cfg.get_float("traffic.hotspot_stop_ns") > 0;
  h.stop_cycle = stops ? window_cycles(cfg, "traffic.hotspot_stop_ns", s.cycle_ns) : kUnlimited;
  if (stops && h.stop_cycle <= h.start_cycle)
    fail(cfg, "traffic.hotspot_stop_ns", "must be after traffic.hotspot_start_ns (0 = never stop)");
  const double gap = std::round(65536.0 * m / cfg.get_float("traffic.hotspot_rate"));
  if (!(gap <= static_cast<double>(kUnlimited)))
    fail(cfg, "traffic.hotspot_rate", "is below the smallest rate the engine paces");
  h.gap_q16 = static_cast<uint32_t>(gap);
  if (cfg.get_int("traffic.phase_bytes") > 0)
    fail(cfg, "traffic.phase_bytes", "does not apply to traffic.pattern = \"hotspot_window\" (open-loop messages only)");
  h.victims_only = cfg.get_string("traffic.hotspot_background") == "victims";
  if (h.victims_only) {
    const int victims = n - m - h.hot_sources;
    if (victims < 2)
      fail(cfg, "traffic.hotspot_background", "\"victims\" leaves " + std::to_string(victims) +
                                                  " victim nodes; at least 2 are needed");
    s.model.pattern = TrafficPattern::kPermutation;  // row e: the other victims
    s.model.permutations = victims - 1;
  } else {
    s.model.pattern = TrafficPattern::kUniform;  // everyone else: uniform open-loop messages
  }
}

}  // namespace

void setup_host_pattern(const Config& cfg, ModelSetup& s) {
  HostPatternSpec h;
  const std::string& pattern = cfg.get_string("traffic.pattern");
  if (pattern == "worst_case") {
    h.kind = HostPattern::kWorstCase;
    setup_worst_case(cfg, s, h);
  } else if (pattern == "hotspot_window") {
    h.kind = HostPattern::kHotspotWindow;
    setup_window(cfg, s, h);
  } else if (pattern == "complement") {
    h.kind = HostPattern::kComplement;
    s.model.pattern = TrafficPattern::kPermutation;  // one fixed row per source (trial_inputs.cpp)
    s.model.permutations = 1;
  }
  s.host_pattern = h;
}

}  // namespace saturn
