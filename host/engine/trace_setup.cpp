// traffic.pattern = "trace" (docs/traces.md): the trace file, its events as engine tables and its
// streams as paced flows, with the checks the trace keys need (one ConfigError line each).
#include <cmath>
#include <cstdio>
#include <map>

#include "host/engine/model_setup.hpp"
#include "kernels/common/packet.hpp"

namespace saturn {

namespace {

[[noreturn]] void fail(const Config& cfg, const std::string& key, const std::string& what) {
  throw ConfigError(cfg.source + ": key '" + key + "': " + what);
}

std::string num(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.10g", x);
  return buf;
}

}  // namespace

void setup_trace(const Config& cfg, const std::string& config_dir, ModelSetup& s, uint32_t* min_packet) {
  ModelParams& m = s.model;
  std::string path = cfg.get_string("traffic.trace_file");
  if (path.empty()) fail(cfg, "traffic.trace_file", "is required when traffic.pattern = \"trace\" (a trace file, docs/traces.md)");
  if (path[0] != '/' && !config_dir.empty()) path = config_dir + "/" + path;
  if (cfg.get_int("traffic.phase_bytes") > 0)
    fail(cfg, "traffic.phase_bytes", "does not apply to traffic.pattern = \"trace\" (the trace gives every message)");
  if (!cfg.flows.empty()) fail(cfg, "traffic.flows", "does not apply to traffic.pattern = \"trace\" (streams go in the trace)");
  if (cfg.get_int("cc.window") > 0 || cfg.get_string("cc.response") != "none" || cfg.get_bool("cca.enabled"))
    fail(cfg, "traffic.pattern", "\"trace\" has no source congestion control yet (cc.window = 0, cc.response = \"none\", "
                                 "cca.enabled = false)");
  const Trace trace = load_trace(path);  // ConfigError "FILE:LINE: ..." on bad input
  TraceUnits units;
  units.endpoints = s.topology.num_endpoints;
  units.cycle_ns = s.cycle_ns;
  units.flit_bytes = s.flit_bytes;
  units.mtu_flits = static_cast<uint32_t>(m.mtu_flits);
  auto tables = std::make_shared<TraceTables>(build_trace_tables(trace, units));
  if (tables->min_last_packet_flits > 0) *min_packet = std::min(*min_packet, tables->min_last_packet_flits);
  // Streams (the incast on top of a trace) become paced greedy flows, unless switched off.
  s.flows.clear();
  if (cfg.get_bool("traffic.trace_streams")) {
    std::map<uint32_t, int> per_source;
    for (const TraceStream& st : trace.streams) {
      const std::string where = trace.path + ":" + std::to_string(st.line) + ": ";
      if (++per_source[st.src] > 255)  // the NIC's flow cursor is one byte
        throw ConfigError(where + "node " + std::to_string(st.src) + " is the source of more than 255 streams");
      for (double ns : {static_cast<double>(st.start_ns), static_cast<double>(st.stop_ns)})
        if (!(std::round(ns / s.cycle_ns) <= 2.0e9))
          throw ConfigError(where + "stream time " + num(ns) + " ns is more than 2e9 cycles of " + num(s.cycle_ns) + " ns");
      FlowSpec f;
      f.src = st.src;
      f.dst = st.dst;
      f.bytes = 0;
      f.start_ns = static_cast<double>(st.start_ns);
      f.stop_ns = static_cast<double>(st.stop_ns);
      f.rate = st.rate_pct / 100.0;
      f.vc = cfg.get_int("traffic.vc");
      s.flows.push_back(f);
    }
  }
  m.trace = true;
  m.trace_events = tables->events();
  m.trace_succ = static_cast<uint32_t>(tables->succ.size());
  m.pattern = TrafficPattern::kFlows;  // no open-loop messages; the streams run as explicit flows
  s.finite = true;                    // runs until every node has finished (or simulation.time_limit_ns)
  s.trace = std::move(tables);
  s.trace_node_times = cfg.get_bool("stats.trace_node_times");
}

}  // namespace saturn
