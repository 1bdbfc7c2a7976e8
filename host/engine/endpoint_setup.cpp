// Config -> model for the endpoints: traffic, start jitter and injection (endpoint_setup.hpp).
#include "host/engine/endpoint_setup.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "host/engine/host_patterns.hpp"
#include "host/engine/setup_checks.hpp"
#include "kernels/injection/injection_common.hpp"

namespace saturn {

using namespace setup;  // fail, checked_cycles, checked_flits, ... (setup_checks.hpp)

namespace {

TrafficPattern pattern_of(const std::string& name) {
  if (name == "permutation") return TrafficPattern::kPermutation;
  if (name == "hotspot") return TrafficPattern::kHotspot;
  if (name == "all_to_one") return TrafficPattern::kAllToOne;
  if (name == "flows") return TrafficPattern::kFlows;
  return TrafficPattern::kUniform;
}

void setup_messages(const Config& cfg, ModelSetup& s, int flit_bytes, uint32_t* min_packet) {
  ModelParams& m = s.model;
  const auto& sizes = cfg.get_list("traffic.message_bytes");
  const auto& weights = cfg.get_list("traffic.message_weights");
  if (sizes.empty()) fail(cfg.source, "traffic.message_bytes", "needs at least one size");
  if (sizes.size() > static_cast<size_t>(kMaxSizes))
    fail(cfg.source, "traffic.message_bytes", "at most " + std::to_string(kMaxSizes) + " sizes are allowed");
  if (!weights.empty() && weights.size() != sizes.size())
    fail(cfg.source, "traffic.message_weights", "has " + std::to_string(weights.size()) + " entries for " +
                                                    std::to_string(sizes.size()) + " message sizes");
  double total = 0;
  for (size_t i = 0; i < sizes.size(); ++i) total += weights.empty() ? 1.0 : weights[i];
  if (!(total > 0)) fail(cfg.source, "traffic.message_weights", "must not all be zero");
  m.num_sizes = static_cast<int>(sizes.size());
  double cumulative = 0, mean = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    const uint32_t flits = checked_flits(cfg, "traffic.message_bytes", sizes[i], flit_bytes, "a message");
    m.size_flits[i] = flits;
    const double w = (weights.empty() ? 1.0 : weights[i]) / total;
    cumulative += w;
    mean += w * flits;
    const double threshold = std::min(cumulative, 1.0) * 4294967296.0;
    m.size_threshold[i] = threshold >= 4294967295.0 ? 0xFFFFFFFFu : static_cast<uint32_t>(threshold);
    *min_packet = std::min(*min_packet, last_packet_flits(m.size_flits[i], m.mtu_flits));
  }
  s.mean_message_flits = mean;
}

void setup_flows(const Config& cfg, ModelSetup& s, int flit_bytes, int num_endpoints, uint32_t* min_packet) {
  if (cfg.flows.empty()) fail(cfg.source, "traffic.flows", "traffic.pattern = \"flows\" needs [[traffic.flows]] entries");
  std::set<std::pair<int64_t, int64_t>> pairs;
  std::map<int64_t, int> per_source;
  for (size_t i = 0; i < cfg.flows.size(); ++i) {
    const FlowSpec& f = cfg.flows[i];
    const std::string key = "traffic.flows[" + std::to_string(i) + "]";
    if (f.src >= num_endpoints || f.dst >= num_endpoints)
      fail(cfg.source, key, "endpoint ids must be below " + std::to_string(num_endpoints) + " for this topology");
    if (f.src == f.dst) fail(cfg.source, key, "src and dst are the same endpoint");
    if (++per_source[f.src] > 255)  // the NIC's flow cursor is one byte
      fail(cfg.source, key, "endpoint " + std::to_string(f.src) + " is the source of more than 255 flows");
    if (!pairs.insert({f.src, f.dst}).second)
      fail(cfg.source, key, "a second flow from " + std::to_string(f.src) + " to " + std::to_string(f.dst) +
                                " (each (src, dst) pair may have one flow)");
    if (f.stop_ns != 0 && f.stop_ns <= f.start_ns) fail(cfg.source, key, "stop_ns must be after start_ns");
    checked_cycles(cfg, key + ".start_ns", f.start_ns, s.cycle_ns);
    checked_cycles(cfg, key + ".stop_ns", f.stop_ns, s.cycle_ns);
    // The engine paces a flow by a 16.16 fixed-point gap of 65536 / rate in a uint32.
    if (!(std::round(65536.0 / f.rate) <= static_cast<double>(kUnlimited)))
      fail(cfg.source, key + ".rate", num(f.rate) + " is below the smallest rate the engine paces, " +
                                          num(65536.0 / kUnlimited));
    if (f.bytes > 0) {
      const uint32_t flits = checked_flits(cfg, key + ".bytes", static_cast<double>(f.bytes), flit_bytes);
      *min_packet = std::min(*min_packet, last_packet_flits(flits, s.model.mtu_flits));
    }
  }
  s.flows = cfg.flows;
}

// traffic.start_jitter_ns (issue 13): a per-trial offset of every flow's start, so flows only.
void setup_start_jitter(const Config& cfg, ModelSetup& s) {
  const std::string key = "traffic.start_jitter_ns";
  const double jitter_ns = cfg.get_float(key);
  s.model.start_jitter = checked_cycles(cfg, key, jitter_ns, s.cycle_ns);
  if (s.model.start_jitter == 0) return;
  if (s.model.open_loop) fail(cfg.source, key, "applies to flows (traffic.pattern = \"flows\" or traffic.phase_bytes > 0)");
  for (size_t i = 0; i < s.flows.size(); ++i)  // a flow that may start at its stop would never run
    if (s.flows[i].stop_ns != 0 && jitter_ns >= s.flows[i].stop_ns - s.flows[i].start_ns)
      fail(cfg.source, key, num(jitter_ns) + " is not below traffic.flows[" + std::to_string(i) + "]'s stop_ns - start_ns");
}

// injection.rates = "saa_probes" (kernels/cc/saa_probes.hpp): SAA's control packets are the
// endpoints' 1-flit control packets, alone on the congestion-control paths (setup_injection has
// refused the rest); its flag bits are ECN's and LHRP's, its route the data's.
void setup_saa_probes(const Config& cfg, ModelSetup& s) {
  ModelParams& m = s.model;
  const double interval_ns = cfg.get_float("injection.saa_probe_interval_ns");
  // Its keys where no point of the study probes: refused by check_keys_apply (key_scope.cpp); at a
  // point that gives the rates (a figure's given-rates curve beside its probe curves) they are unread.
  if (!m.cc.saa_probes) return;
  const auto need = [&](bool ok, const char* key, const std::string& what) {
    if (!ok) fail(cfg.source, key, what + " with injection.rates = \"saa_probes\"");
  };
  need(injection_scheduled(m), "injection.scheduler", "must be \"ipd\", \"svc\" or \"ps\" (the rates are theirs)");
  need(!m.df.on, "topology.kind", "must not be \"dragonfly\" (the probes follow fixed fat-tree or edge-list routes)");
  need(m.cc.ack_flits == 1, "cc.ack_bytes", "must fit in one flit (an SAA packet acts as its header arrives)");
  need(m.cc.ack_queue >= 2, "cc.ack_queue", "must be at least 2 (one place is kept for packets turned back)");
  need(!iso_on(m.iso), "isolation.technique", "must be \"none\" (its flag bits are the probes')");
  need(!m.trace, "traffic.pattern", "must not be \"trace\"");
  m.cc.saa_probe_interval = checked_cycles(cfg, "injection.saa_probe_interval_ns", interval_ns, s.cycle_ns);
  m.cc.saa_rate_after_probe = cfg.get_string("injection.saa_first_rate") == "probe";
}

}  // namespace

// The traffic keys (traffic.*, stats.victim_latency, stats.size_split_bytes), after the links.
void setup_traffic(const Config& cfg, const std::string& config_dir, ModelSetup& s, uint32_t* min_packet_out) {
  ModelParams& m = s.model;
  const int N = s.topology.num_endpoints;
  const int flit_bytes = s.flit_bytes;
  m.pattern = pattern_of(cfg.get_string("traffic.pattern"));
  const int64_t phase_bytes = cfg.get_int("traffic.phase_bytes");
  uint32_t min_packet = *min_packet_out;
  setup_messages(cfg, s, flit_bytes, &min_packet);
  m.permutations = static_cast<int>(cfg.get_int("traffic.permutations"));
  m.hot_destinations = static_cast<int>(cfg.get_int("traffic.hotspot_destinations"));
  m.root = static_cast<int>(cfg.get_int("traffic.root"));
  m.background_uniform = cfg.get_string("traffic.background") == "uniform";
  s.hotspot_sources = static_cast<int>(cfg.get_int("traffic.hotspot_sources"));
  if (m.pattern == TrafficPattern::kHotspot &&
      cfg.get_int("traffic.hotspot_sources") + cfg.get_int("traffic.hotspot_destinations") > N)
    fail(cfg.source, "traffic.hotspot_sources", "sources + destinations (" +
                                                    std::to_string(cfg.get_int("traffic.hotspot_sources") +
                                                                   cfg.get_int("traffic.hotspot_destinations")) +
                                                    ") exceed the " + std::to_string(N) + " endpoints");
  if (m.pattern == TrafficPattern::kAllToOne && m.root >= N)
    fail(cfg.source, "traffic.root", std::to_string(m.root) + " is not an endpoint (0.." + std::to_string(N - 1) + ")");
  if (cfg.get_string("traffic.pattern") == "trace") {
    setup_trace(cfg, config_dir, s, &min_packet);  // sets m.pattern = kFlows: no open-loop messages
  } else if (m.pattern == TrafficPattern::kFlows) {
    if (phase_bytes > 0) fail(cfg.source, "traffic.phase_bytes", "does not apply to traffic.pattern = \"flows\"");
    setup_flows(cfg, s, flit_bytes, N, &min_packet);
    s.finite = std::all_of(s.flows.begin(), s.flows.end(), [](const FlowSpec& f) { return f.bytes > 0; });
  } else if (phase_bytes > 0) {
    s.phase_flits = checked_flits(cfg, "traffic.phase_bytes", static_cast<double>(phase_bytes), flit_bytes);
    s.finite = true;
    min_packet = std::min(min_packet, last_packet_flits(s.phase_flits, m.mtu_flits));
  }
  setup_host_pattern(cfg, s);  // worst_case, hotspot_window: mapped onto the engine's patterns
  m.victim_stats = cfg.get_bool("stats.victim_latency");
  if (m.victim_stats && s.host_pattern.kind != HostPattern::kHotspotWindow)
    fail(cfg.source, "stats.victim_latency", "applies to traffic.pattern = \"hotspot_window\" (its open-loop sources are the victims)");
  m.open_loop = m.pattern != TrafficPattern::kFlows && phase_bytes == 0;
  const double split_flits = bytes_to_flits(static_cast<double>(cfg.get_int("stats.size_split_bytes")), flit_bytes);
  if (split_flits > 4294967295.0)  // (found by the fuzzer: 1e12 bytes of 4-byte flits)
    fail(cfg.source, "stats.size_split_bytes", "is more than 2^32 - 1 flits of link.flit_bytes");
  m.size_split = static_cast<uint32_t>(split_flits);
  if (m.size_split > 0 && !m.open_loop)
    fail(cfg.source, "stats.size_split_bytes", "applies to open-loop messages (its sizes are drawn again at the destination)");
  setup_start_jitter(cfg, s);
  if (m.open_loop && cfg.get_float("traffic.load") / s.mean_message_flits > 1.0)
    fail(cfg.source, "traffic.load", "asks for more than one message per cycle per source");
  *min_packet_out = min_packet;
}

// injection.scheduler = window is the cc.window mechanism (M13's windowed source).
int injection_window(const Config& cfg, int cc_window) {
  const int window = static_cast<int>(cfg.get_int("injection.window"));
  if (cfg.get_string("injection.scheduler") != "window") {
    if (window != 0) fail(cfg.source, "injection.window", "applies to injection.scheduler = \"window\"");
    return cc_window;
  }
  if (window < 1) fail(cfg.source, "injection.window", "injection.scheduler = \"window\" needs a window >= 1 packet");
  if (cc_window != 0)
    fail(cfg.source, "cc.window", "is the same window as injection.scheduler = \"window\": set only injection.window");
  return window;
}

// traffic.include_self: only where destinations are drawn uniformly by the engine (open-loop
// uniform messages, the hot-spot background); elsewhere it would silently do nothing.
void setup_include_self(const Config& cfg, ModelSetup& s) {
  ModelParams& m = s.model;
  m.include_self = cfg.get_bool("traffic.include_self");
  if (!m.include_self) return;
  const bool uniform = m.pattern == TrafficPattern::kUniform ||
                       (m.pattern == TrafficPattern::kHotspot && m.background_uniform);
  if (!m.open_loop || !uniform)
    fail(cfg.source, "traffic.include_self",
         "applies to open-loop uniform destinations (traffic.pattern = \"uniform\", or \"hotspot\" with "
         "traffic.background = \"uniform\", and traffic.phase_bytes = 0); got traffic.pattern = \"" +
             cfg.get_string("traffic.pattern") + "\"");
}

// injection.scheduler and injection.rates (after the congestion-control setup): ipd, svc and ps have
// their own send-queue choice (kernels/phases/endpoint_injection.hpp) with no source-CC version.
void setup_injection(const Config& cfg, ModelSetup& s) {
  ModelParams& m = s.model;
  const std::string& sched = cfg.get_string("injection.scheduler");
  m.injection = sched == "ipd"      ? InjectionScheduler::kIpd
                : sched == "svc"    ? InjectionScheduler::kSvc
                : sched == "ps"     ? InjectionScheduler::kPs
                : sched == "window" ? InjectionScheduler::kWindow
                                    : InjectionScheduler::kRoundRobin;
  const std::string& rates = cfg.get_string("injection.rates");
  s.saa_rates = rates == "saa" || rates == "saa_probes";
  ModelParams without_probes = m;  // SAA's and the route setup's control packets run on the congestion-control paths
  without_probes.cc.saa_probes = false;
  without_probes.cc.route_setup = false;
  if (m.cc.route_setup) {  // (the rest: setup_route_packets)
    if (m.cc.saa_probes)
      fail(cfg.source, "injection.rates", "\"saa_probes\" with routing.route_setup = \"packets\" is not built yet: "
                                          "SAA's packets would have to wait for the route setup (use \"instant\")");
    if (rates == "saa" && injection_scheduled(m))
      fail(cfg.source, "injection.rates", "\"saa\" gives the schedulers the SAA rates of routes set up at t = 0, "
                                          "which routing.route_setup = \"packets\" does not build: use \"flows\"");
  }
  if (injection_scheduled(m)) {
    if (m.open_loop || s.host_pattern.kind == HostPattern::kHotspotWindow)
      fail(cfg.source, "injection.scheduler", "\"" + sched + "\" schedules flows: it needs traffic.pattern = \"flows\" "
                                              "or traffic.phase_bytes > 0 (got open-loop messages)");
    if (model_uses_cc(without_probes))
      fail(cfg.source, "injection.scheduler", "\"" + sched + "\" has no congestion-control version yet: it needs "
                                              "cc.marking = \"none\", no cc.window or cc.response, cca.enabled = false, "
                                              "static flows, switch.arbitration other than \"fifo_bypass\" and "
                                              "stats.per_link = false");
    if (m.active_queues > kMaxSourceQueues)
      fail(cfg.source, "endpoint.active_queues", "at most " + std::to_string(kMaxSourceQueues) +
                                                     " with injection.scheduler = \"" + sched + "\"");
  }
  setup_saa_probes(cfg, s);
  if (!s.saa_rates) return;
  if (!s.finite || s.host_pattern.kind == HostPattern::kHotspotWindow)
    fail(cfg.source, "injection.rates", "\"saa\" needs finite flows (traffic.flows with bytes > 0, or traffic.phase_bytes > 0)");
  if (m.route_mode == RouteMode::kOblivious)
    fail(cfg.source, "injection.rates", "\"saa\" needs routes fixed per flow (routing.algorithm = \"dmodk\", \"table\" "
                                        "or \"adaptive\")");
  if (m.start_jitter != 0) fail(cfg.source, "injection.rates", "\"saa\" takes the rates at t = 0: traffic.start_jitter_ns must be 0");
}

// injection.rates = "saa_probes" keeps a flow's protocol state in its send queue from AnnounceStart
// to AnnounceEnd, and routing.route_setup = "packets" keeps a connection's queue until its teardown
// is back: so every flow of a source needs a queue of its own (refused here, not first at run time).
void setup_queue_per_flow(const Config& cfg, const ModelSetup& s) {
  const ModelParams& m = s.model;
  const bool route_packets = m.cc.route_setup && m.route_mode == RouteMode::kFlowAdaptive;
  if (!m.cc.saa_probes && !route_packets) return;
  const int flows = s.flows_per_source();
  if (flows <= m.active_queues) return;
  fail(cfg.source, "endpoint.active_queues",
       std::to_string(m.active_queues) + " is below the " + std::to_string(flows) + " flows of a source: " +
           (m.cc.saa_probes ? "injection.rates = \"saa_probes\"" : "routing.route_setup = \"packets\"") +
           " needs a send queue per flow (endpoint.active_queues >= " + std::to_string(flows) + ")");
}

}  // namespace saturn
