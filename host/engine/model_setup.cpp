// Config -> model in cycles and flits, with the cross-key checks a single key cannot express.
#include "host/engine/model_setup.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "host/engine/isolation_setup.hpp"
#include "host/engine/fabric_setup.hpp"
#include "host/flow/flow_engine.hpp"
#include "kernels/common/macros.hpp"
#include "kernels/common/packet.hpp"
#include "kernels/injection/injection_common.hpp"

namespace saturn {

namespace {

// Host memory for the routing tables: the CPU backend's engine keeps its own copy beside the host's.
double host_routing_bytes(const NetworkShape& shape) { return routing_table_bytes(shape) * (kCpuBackend ? 2 : 1); }

[[noreturn]] void fail(const std::string& source, const std::string& key, const std::string& what) {
  throw ConfigError(source + ": key '" + key + "': " + what);
}

std::string num(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.10g", x);
  return buf;
}

// The packet engine counts cycles in uint32 and kUnlimited (2^32 - 1) means "never": every time
// converted to cycles must stay below kMaxCycles, checked in double before any cast can wrap.
constexpr double kMaxCycles = 2.0e9;

uint32_t to_cycles(double ns, double cycle_ns) { return static_cast<uint32_t>(std::llround(ns / cycle_ns)); }

// A time key converted to cycles: fails unless it is at most max_cycles cycles.
uint32_t checked_cycles(const Config& cfg, const std::string& key, double ns, double cycle_ns,
                        double max_cycles = kMaxCycles) {
  if (!(std::round(ns / cycle_ns) <= max_cycles))
    fail(cfg.source, key, num(ns) + " ns is more than " + num(max_cycles) + " cycles of " + num(cycle_ns) +
                              " ns (at most " + num(std::floor(max_cycles) * cycle_ns) + " ns)");
  return to_cycles(ns, cycle_ns);
}

// Sizes in flits are uint32 with kUnlimited = "no limit", so a flow or message has at most
// kUnlimited - 1 flits; a larger size would wrap to a small one.
constexpr double kMaxSizeFlits = static_cast<double>(kUnlimited) - 1;

double bytes_to_flits(double bytes, int flit_bytes) { return std::ceil(bytes / flit_bytes); }

std::string whole(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.0f", x);
  return buf;
}

uint32_t checked_flits(const Config& cfg, const std::string& key, double bytes, int flit_bytes,
                       const char* what = "a flow") {
  const double flits = bytes_to_flits(bytes, flit_bytes);
  if (!(flits <= kMaxSizeFlits))
    fail(cfg.source, key, whole(bytes) + " bytes is more than the " + whole(kMaxSizeFlits) + " flits " + what +
                              " may have: at most " + whole(kMaxSizeFlits * flit_bytes) +
                              " bytes with link.flit_bytes = " + std::to_string(flit_bytes));
  return static_cast<uint32_t>(flits);
}

}  // namespace

Topology make_topology(const Config& cfg, const std::string& config_dir, const TopologyBuild& how) {
  const std::string& kind = cfg.get_string("topology.kind");
  const int64_t width = cfg.get_int("topology.horizontal_width");
  if (width > 0 && kind != "kary_ntree")
    fail(cfg.source, "topology.horizontal_width", "applies only to topology.kind = \"kary_ntree\" (got \"" + kind + "\")");
  if (kind == "kary_ntree") {
    const int64_t k = cfg.get_int("topology.k"), n = cfg.get_int("topology.n");
    if (std::pow(static_cast<double>(k), static_cast<double>(n)) > static_cast<double>(kMaxNodes))
      fail(cfg.source, "topology.n", "k^n = " + num(std::pow(k, n)) + " endpoints is over the limit of " +
                                         std::to_string(kMaxNodes));
    if (2 * k + 2 * width > kMaxRadix)
      fail(cfg.source, "topology.horizontal_width", std::to_string(width) + " gives switches of " +
                                                        std::to_string(2 * k + 2 * width) + " ports; at most " +
                                                        std::to_string(kMaxRadix) + " (width <= " +
                                                        std::to_string((kMaxRadix - 2 * k) / 2) + " for k = " +
                                                        std::to_string(k) + ")");
  }
  NetworkShape shape;
  if (closed_form_shape(cfg, &shape)) {
    MemoryNeed need;
    need.add("topology", topology_bytes(shape));
    if (how.with_routes) need.add("routing tables", host_routing_bytes(shape));
    need.check(cfg.source, how.limit);
    // A dragonfly or an RLFT is built even for its shape: its traffic checks read the built
    // topology (groups, K), and the builders are cheap once the memory check has passed.
    if (how.shape_only && kind != "dragonfly" && kind != "rlft") {
      Topology t;
      t.name = kind + " (shape only)";
      t.num_endpoints = static_cast<int>(shape.endpoints);
      if (kind == "kary_ntree") {
        t.tree_k = static_cast<int>(cfg.get_int("topology.k"));
        t.tree_n = static_cast<int>(cfg.get_int("topology.n"));
        t.tree_width = static_cast<int>(width);
      }
      return t;
    }
  }
  if (kind == "kary_ntree") {
    const int64_t k = cfg.get_int("topology.k"), n = cfg.get_int("topology.n");
    return build_kary_ntree(static_cast<int>(k), static_cast<int>(n), static_cast<int>(width));
  }
  if (kind == "zdornov_fig1") return build_zdornov_fig1();
  try {  // the builders name their key; the config file names the source
    if (kind == "dragonfly")
      return build_dragonfly({static_cast<int>(cfg.get_int("topology.dragonfly_p")),
                              static_cast<int>(cfg.get_int("topology.dragonfly_a")),
                              static_cast<int>(cfg.get_int("topology.dragonfly_h")),
                              static_cast<int>(cfg.get_int("topology.dragonfly_g"))});
    if (kind == "rlft") return build_rlft(static_cast<int>(cfg.get_int("topology.rlft_radix")));
  } catch (const ConfigError& e) {
    throw ConfigError(cfg.source + ": " + e.what());
  }
  if (kind == "santos_fig1")
    return build_santos_fig1(static_cast<int>(cfg.get_int("topology.local_flows")),
                             static_cast<int>(cfg.get_int("topology.remote_flows")));
  std::string path = cfg.get_string("topology.file");
  if (path.empty()) fail(cfg.source, "topology.file", "is required when topology.kind = \"file\"");
  if (path[0] != '/' && !config_dir.empty()) path = config_dir + "/" + path;
  return load_edge_list(path);
}

namespace {

RoutingAlgorithm routing_algorithm(const std::string& name) {
  if (name == "dmodk") return RoutingAlgorithm::kDmodK;
  if (name == "random") return RoutingAlgorithm::kRandom;
  return RoutingAlgorithm::kTable;
}

TrafficPattern pattern_of(const std::string& name) {
  if (name == "permutation") return TrafficPattern::kPermutation;
  if (name == "hotspot") return TrafficPattern::kHotspot;
  if (name == "all_to_one") return TrafficPattern::kAllToOne;
  if (name == "flows") return TrafficPattern::kFlows;
  return TrafficPattern::kUniform;
}

// Flits of the last packet of a message (the smallest packet it produces).
uint32_t last_packet_flits(uint32_t message_flits, uint32_t mtu_flits) {
  const uint32_t r = message_flits % mtu_flits;
  return r == 0 ? mtu_flits : r;
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

// routing.route_setup = "packets" (kernels/routing/route_setup.hpp): the setup and teardown packets
// are the endpoints' 1-flit control packets, alone on the congestion-control paths, with flag bits
// of the speculative protocols and of the dragonfly; the sources keep a connection per send queue.
void setup_route_packets(const Config& cfg, ModelSetup& s) {
  ModelParams& m = s.model;
  const auto need = [&](bool ok, const char* key, const std::string& what) {
    if (!ok) fail(cfg.source, key, what + " with routing.route_setup = \"packets\"");
  };
  ModelParams others = m;
  others.cc.route_setup = false;
  others.cc.saa_probes = false;  // (refused with a message of its own: setup_injection)
  if (model_uses_cc(others))
    fail(cfg.source, "routing.route_setup", "\"packets\" has no congestion-control version yet: it needs "
                                            "cc.marking = \"none\", no cc.window, cc.response or cc.acks, "
                                            "cca.enabled = false, static flows, switch.arbitration other than "
                                            "\"fifo_bypass\" and stats.per_link = false");
  need(m.cc.ack_flits == 1, "cc.ack_bytes", "must fit in one flit (a route packet acts as its header arrives)");
  need(m.cc.ack_queue >= 2, "cc.ack_queue", "must be at least 2 (one place is kept for packets turned back)");
}

// routing.algorithm = "adaptive" in the packet engine (Zdornov & Birk, M17, M18): the flows of the
// flow table are set up on the host at t = 0 (host/engine/adaptive_routes.cpp), so the model needs
// a (modified) k-ary n-tree, a flow table that starts at t = 0, and connections that fit a 32-bit GCID.
void setup_flow_adaptive(const Config& cfg, ModelSetup& s) {
  ModelParams& m = s.model;
  if (cfg.get_string("routing.algorithm") != "adaptive") {
    if (m.cc.route_setup) fail(cfg.source, "routing.route_setup", "\"packets\" applies to routing.algorithm = \"adaptive\"");
    return;
  }
  const std::string why = "\"adaptive\" in the packet engine ";
  if (s.topology.tree_k <= 0)
    fail(cfg.source, "routing.algorithm", why + "needs topology.kind = \"kary_ntree\" (the ERT and hop rule of M17, M18)");
  if (s.topology.num_endpoints > 65535)
    fail(cfg.source, "routing.algorithm", why + "allows at most 65535 endpoints (one 32-bit GCID per source-destination pair)");
  if (!s.finite || s.host_pattern.kind != HostPattern::kNone || m.trace)
    fail(cfg.source, "routing.algorithm", why + "routes flows set up at t = 0: it needs traffic.phase_bytes > 0 or "
                                                "traffic.flows with bytes > 0 (or simulation.mode = \"flow\")");
  if (!m.cc.route_setup)
    for (const FlowSpec& f : s.flows)
      if (f.start_ns != 0)
        fail(cfg.source, "traffic.flows", "routing.algorithm = \"adaptive\" with routing.route_setup = \"instant\" sets "
                                          "every flow up at t = 0: start_ns must be 0 (or routing.route_setup = \"packets\")");
  if (cfg.get_string("routing.heuristic") != "flow_count")
    fail(cfg.source, "routing.heuristic", "the packet engine's adaptive routing counts flows (\"flow_count\", M17)");
  if (iso_on(m.iso)) fail(cfg.source, "isolation.technique", "routes by itself: it needs routing.algorithm other than \"adaptive\"");
  m.route_mode = RouteMode::kFlowAdaptive;
  m.tree = make_flow_tree(s.topology.tree_k, s.topology.tree_n, s.topology.tree_width);
  // The memory estimate's PRC size; an unlimited cache is sized to what the setup uses (adaptive_routes.cpp).
  s.route_cache_entries = static_cast<int>(cfg.get_int("routing.route_cache_entries"));
  m.prc_slots = s.route_cache_entries > 0 ? s.route_cache_entries : m.tree.k;
  if (m.cc.route_setup) setup_route_packets(cfg, s);
}

// D-mod-K (and "random"'s minimal up sets) on a k-ary n-tree with k a power of two: the kernels
// compute the route tables' ports (kernels/routing/tree_route.hpp) instead of reading them.
void setup_tree_routes(ModelSetup& s) {
  ModelParams& m = s.model;
  const Topology& t = s.topology;
  const bool tree_tables = t.tree_k > 0 && t.rlft_k == 0 && t.dragonfly.a == 0 && s.routing != RoutingAlgorithm::kTable;
  if (!tree_tables || m.route_mode == RouteMode::kFlowAdaptive) return;
  int lg = 0;
  while ((1 << lg) < t.tree_k) ++lg;
  if ((1 << lg) != t.tree_k || lg * t.tree_n > 31) return;  // other k: the tables
  m.tree_route_lg = lg;
  m.tree_route_n = t.tree_n;
}

// cc.protocol = lhrp (kernels/reservation/lhrp_engine.hpp), after the dragonfly routing and the
// injection setup: it is built for 001's fabric and its baseline (ACKed data on one class, 1-flit
// control packets on another), and for nothing else yet.
void setup_lhrp(const Config& cfg, ModelSetup& s) {
  ModelParams& m = s.model;
  CcParams& cc = m.cc;
  const std::string& protocol = cfg.get_string("cc.protocol");
  cc.speculative = protocol != "baseline" && protocol != "ecn";
  cc.ecn = protocol == "ecn";
  cc.ecn_threshold = cfg.get_float("cca.threshold");
  cc.ecn_per_source = cfg.get_string("cc.ecn_scope") == "source";
  if (cc.ecn) {  // 001's InfiniBand-style ECN (kernels/cc/ib_ecn.hpp)
    const auto need_ecn = [&](bool ok, const char* key, const std::string& what) {
      if (!ok) fail(cfg.source, key, what + " with cc.protocol = \"ecn\"");
    };
    need_ecn(m.df.on, "topology.kind", "must be \"dragonfly\" (routing.algorithm minimal, valiant, ugal or par)");
    need_ecn(cfg.get_bool("cc.acks"), "cc.acks", "must be true (the ACKs carry the notifications)");
    need_ecn(cc.window == 0 && cc.response == Response::kNone, "cc.response", "must be \"none\" and cc.window 0");
    need_ecn(!cc.cca, "cca.enabled", "must be false (ecn takes cca.threshold, cca.ipd_step_flits, cca.timer_flits and "
                                     "cca.max_index as its own parameters)");
    need_ecn(cc.marking == Marking::kNone, "cc.marking", "must be \"none\"");
    need_ecn(cc.ecn_threshold < 1.0, "cca.threshold", "must be below 1 (a fraction of the input VC buffer)");
    need_ecn(!iso_on(m.iso), "isolation.technique", "must be \"none\"");
    need_ecn(m.injection == InjectionScheduler::kRoundRobin, "injection.scheduler", "must be \"round_robin\"");
    need_ecn(m.arbitration != Arbitration::kFifoBypass, "switch.arbitration", "must not be \"fifo_bypass\"");
  }
  cc.last_hop_drop = protocol == "lhrp" || protocol == "lhrp_fabric_drop" || protocol == "comprehensive";
  cc.fabric_drop = protocol == "lhrp_fabric_drop" || protocol == "smsrp" || protocol == "srp";
  cc.nic_grants = protocol == "smsrp" || protocol == "srp";
  cc.srp_from_flits = protocol == "srp"             ? 0u
                      : protocol == "comprehensive" ? static_cast<uint32_t>(cfg.get_int("cc.comprehensive_split_flits"))
                                                    : kUnlimited;
  cc.last_hop_grants = protocol == "comprehensive";
  cc.srp_messages = static_cast<int>(cfg.get_int("cc.srp_messages"));
  cc.spec_timeout = checked_cycles(cfg, "cc.spec_timeout_ns", cfg.get_float("cc.spec_timeout_ns"), s.cycle_ns);
  cc.lhrp_outstanding = static_cast<int>(cfg.get_int("cc.lhrp_outstanding"));
  cc.lhrp_params = ProtocolParams{};
  cc.lhrp_params.last_hop_threshold_flits = static_cast<uint32_t>(cfg.get_int("cc.lhrp_threshold_flits"));
  if (!cc.speculative) return;
  const auto need = [&](bool ok, const char* key, const std::string& what) {
    if (!ok) fail(cfg.source, key, what + " with cc.protocol = \"" + protocol + "\"");
  };
  need(m.df.on, "topology.kind", "must be \"dragonfly\" (routing.algorithm minimal, valiant, ugal or par)");
  need(cfg.get_bool("cc.acks"), "cc.acks", "must be true (every data packet is ACKed)");
  need(cc.window == 0 && cc.response == Response::kNone, "cc.response", "must be \"none\" and cc.window 0");
  need(!cc.cca, "cca.enabled", "must be false");
  need(cc.marking == Marking::kNone, "cc.marking", "must be \"none\"");
  need(!cc.track_occupancy, "stats.per_link", "must be false (its buffer occupancy does not follow drops)");
  need(cc.ack_flits == 1, "cc.ack_bytes", "must fit in one flit (NACKs take one flit of the dropped packet's space)");
  need(cc.ack_vc / m.df.route_vcs != m.data_vc / m.df.route_vcs, "cc.ack_vc",
       "must be in another class of " + std::to_string(m.df.route_vcs) + " VCs than the data (traffic.vc)");
  need(!iso_on(m.iso), "isolation.technique", "must be \"none\"");
  need(m.injection == InjectionScheduler::kRoundRobin, "injection.scheduler", "must be \"round_robin\"");
  need(m.arbitration != Arbitration::kFifoBypass, "switch.arbitration", "must not be \"fifo_bypass\"");
  need(!m.trace, "traffic.pattern", "must not be \"trace\"");
  if (cc.srp_on())  // SRP's message state lives in the send queue of an open-loop message
    need(m.open_loop && m.flows_per_source == 0, "traffic.pattern",
         "must send open-loop messages (uniform, hotspot, ...; not flows or hotspot_window)");
}

// ACK / BECN packets (PAPERS-SPEC M22, M26): their size and class. Returns true when they share
// a VC with data (then the smallest packet of that buffer is an ACK).
bool setup_cc_answers(const Config& cfg, ModelSetup& s, int flit_bytes) {
  ModelParams& m = s.model;
  CcParams& cc = m.cc;
  cc = CcParams{};
  cc.window = injection_window(cfg, static_cast<int>(cfg.get_int("cc.window")));
  const std::string& response = cfg.get_string("cc.response");
  cc.response = response == "aimd" ? Response::kAimd
                : response == "fimd" ? Response::kFimd
                : response == "lipd" ? Response::kLipd
                                     : Response::kNone;
  cc.cca = cfg.get_bool("cca.enabled");
  cc.acks = cc.window > 0 || cc.response != Response::kNone || cfg.get_bool("cc.acks");
  cc.ack_flits = static_cast<int>(bytes_to_flits(static_cast<double>(cfg.get_int("cc.ack_bytes")), flit_bytes));
  cc.ack_queue = static_cast<int>(cfg.get_int("cc.ack_queue"));
  const int64_t ack_vc = cfg.get_int("cc.ack_vc");
  cc.ack_vc = ack_vc < 0 ? m.vcs - 1 : static_cast<int>(ack_vc);
  if (cc.ack_vc >= m.vcs)
    fail(cfg.source, "cc.ack_vc", std::to_string(ack_vc) + " is not a VC of this network (switch.vcs = " +
                                      std::to_string(m.vcs) + "); -1 = the highest");
  cc.saa_probes = cfg.get_string("injection.rates") == "saa_probes";  // (checked in setup_injection)
  cc.route_setup = cfg.get_string("routing.route_setup") == "packets";  // (checked in setup_flow_adaptive)
  if (!cc.control_packets()) return false;
  bool shared = false;
  if (m.pattern == TrafficPattern::kFlows) {
    for (const FlowSpec& f : s.flows) shared = shared || f.vc == cc.ack_vc;
  } else {
    shared = cfg.get_int("traffic.vc") == cc.ack_vc;
  }
  cc.ack_vc_separate = !shared;
  cc.ack_vc_flits = shared ? 0 : static_cast<int>(cfg.get_int("cc.ack_buffer_packets")) * cc.ack_flits;
  return shared;
}

// Marking, CCA, dynamic flows and the statistics that need buffer occupancy (after the buffers).
void setup_cc_rest(const Config& cfg, ModelSetup& s) {
  ModelParams& m = s.model;
  CcParams& cc = m.cc;
  cc.bypass_limit = static_cast<int>(cfg.get_int("switch.bypass_limit"));
  const std::string& reading = cfg.get_string("switch.bypass_reading");
  cc.bypass_reading = reading == "wait"    ? BypassReading::kWait
                      : reading == "eager" ? BypassReading::kEager
                                           : BypassReading::kReserve;
  const std::string& marking = cfg.get_string("cc.marking");
  cc.output_threshold = static_cast<int>(cfg.get_int("cc.output_threshold"));
  cc.output_level = cfg.get_string("cc.output_trigger") == "level";
  cc.marking = marking == "naive"   ? Marking::kNaive
               : marking == "input" ? Marking::kInput
               : marking == "input_output" ? (cc.output_threshold == 0 ? Marking::kInput : Marking::kInputOutput)
                                           : Marking::kNone;
  const std::string& rates = cfg.get_string("cc.rates");
  cc.rates = rates == "discrete"           ? RateGrid::kDiscrete
             : rates == "discrete_nearest" ? RateGrid::kDiscreteNearest
                                           : RateGrid::kContinuous;
  cc.persistent = cfg.get_bool("cc.persistent");
  const double buffer_packets = static_cast<double>(m.vc_flits) / m.mtu_flits;
  cc.cca_threshold_packets = static_cast<int>(std::floor(cfg.get_float("cca.threshold") * buffer_packets));
  cc.cca_marking_period = static_cast<int>(cfg.get_int("cca.marking_period"));
  cc.cca_ipd_step = static_cast<int>(cfg.get_int("cca.ipd_step_flits"));
  cc.cca_max_index = static_cast<int>(cfg.get_int("cca.max_index"));
  cc.cca_timer = static_cast<int>(cfg.get_int("cca.timer_flits"));
  if (static_cast<double>(cc.cca_ipd_step) * cc.cca_max_index > 1e9)
    fail(cfg.source, "cca.max_index", "times cca.ipd_step_flits must stay below 1e9 cycles");
  cc.on_off_mean = std::max<uint32_t>(1, checked_cycles(cfg, "traffic.on_off_mean_ns",
                                                        cfg.get_float("traffic.on_off_mean_ns"), s.cycle_ns));
  cc.dynamic_flows = std::any_of(s.flows.begin(), s.flows.end(), [](const FlowSpec& f) { return f.dynamic; });
  cc.endpoint_state = cc.source_cc() || cc.dynamic_flows || cc.acks;  // (ACKs find their send queue's count)
  cc.full_stats = cfg.get_bool("stats.per_link");
  cc.track_occupancy = cc.marking != Marking::kNone || cc.cca || cc.full_stats;
}

// switch.input_queue, switch.allocator (issue 13 item 8): phases only, so not with congestion
// control, which has no phases yet (after setup_cc_rest and the arbitration).
void setup_switch_allocation(const Config& cfg, ModelSetup& s) {
  ModelParams& m = s.model;
  m.input_queue = cfg.get_string("switch.input_queue") == "fifo" ? InputQueue::kFifo : InputQueue::kVoq;
  const std::string& allocator = cfg.get_string("switch.allocator");
  m.allocator = allocator == "separable_input_first" ? Allocator::kSeparableInputFirst : Allocator::kGreedy;
  m.allocator_iterations = static_cast<int>(cfg.get_int("switch.allocator_iterations"));
  if (m.allocator_iterations != 1 && m.allocator != Allocator::kSeparableInputFirst)
    fail(cfg.source, "switch.allocator_iterations",
         "applies to switch.allocator = \"separable_input_first\" (got \"" + allocator + "\")");
  if ((m.input_queue == InputQueue::kVoq && m.allocator == Allocator::kGreedy) || !model_uses_cc(m)) return;
  const std::string key = m.input_queue == InputQueue::kFifo ? "switch.input_queue" : "switch.allocator";
  fail(cfg.source, key, "\"" + cfg.get_string(key) +
                            "\" has no congestion-control version yet: it needs cc.marking = \"none\", no cc.window or "
                            "cc.response, cca.enabled = false, switch.arbitration other than \"fifo_bypass\" and "
                            "stats.per_link = false");
}

// switch.output_queue_packets (CIOQ, kernels/state/output_queue.hpp): switch.speedup becomes the
// crossbar's flits per cycle, and each input sends one packet at a time.
void setup_output_queues(const Config& cfg, ModelSetup& s) {
  ModelParams& m = s.model;
  m.oq_packets = static_cast<int>(cfg.get_int("switch.output_queue_packets"));
  m.xbar_flits = 0;
  if (m.oq_packets == 0) return;
  if (m.speedup == 0)
    fail(cfg.source, "switch.speedup",
         "\"unlimited\" has no meaning with output queues (switch.output_queue_packets > 0): use \"1\" or \"2\", the "
         "flits the crossbar moves per cycle");
  if (m.arbitration == Arbitration::kFifoBypass)
    fail(cfg.source, "switch.arbitration", "\"fifo_bypass\" has no output-queue version: use \"fcfs\" or \"round_robin\" "
                                           "with switch.output_queue_packets > 0");
  m.xbar_flits = m.speedup;
  m.speedup = 1;
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

}  // namespace

int ModelSetup::dest_width() const {
  if (model.pattern == TrafficPattern::kPermutation) return model.permutations;
  if (model.pattern == TrafficPattern::kHotspot) return model.hot_destinations;
  return 1;
}

int ModelSetup::num_flows() const {
  if (!flows.empty()) return static_cast<int>(flows.size());
  if (host_pattern.kind == HostPattern::kHotspotWindow)
    return topology.num_endpoints * static_cast<int>(host_pattern.hot_nodes.size());
  if (phase_flits == 0) return 0;
  return topology.num_endpoints * (model.pattern == TrafficPattern::kPermutation ? model.permutations : 1);
}

std::string ModelSetup::batch_shape() const {
  // The model's bytes with the per-trial fields cleared (the kernels read those from TrialView).
  // Padding bytes could only make two equal models look different: points then run apart, never
  // together with a difference.
  ModelParams neutral = model;
  neutral.trials = 0;
  neutral.cc.output_threshold = 0;
  neutral.cc.lhrp_params.last_hop_threshold_flits = 0;
  return std::string(reinterpret_cast<const char*>(&neutral), sizeof neutral) +
         ";host=" + std::to_string(static_cast<int>(host_pattern.kind)) +
         ";hot_spots=" + std::to_string(host_pattern.hot_nodes.size()) + ";victims_only=" +
         std::to_string(host_pattern.victims_only) + ";dest_width=" + std::to_string(dest_width()) +
         ";flows=" + std::to_string(num_flows()) + ";bytes=" + std::to_string(bytes_per_trial());
}

// As build_engine_spec lays the flow table out (trial_inputs.cpp), without drawing any trial.
int ModelSetup::flows_per_source() const {
  if (host_pattern.kind == HostPattern::kHotspotWindow) return static_cast<int>(host_pattern.hot_nodes.size());
  if (!flows.empty()) {
    std::map<int64_t, int> per_source;
    int most = 0;
    for (const FlowSpec& f : flows) most = std::max(most, ++per_source[f.src]);
    return most;
  }
  if (phase_flits == 0) return 0;
  return model.pattern == TrafficPattern::kPermutation ? model.permutations : 1;
}

size_t ModelSetup::bytes_per_trial() const { return Engine::bytes_per_trial(topology, model, dest_width(), num_flows()); }

std::vector<ColumnBytes> ModelSetup::columns_per_trial() const {
  return Engine::columns_per_trial(topology, model, dest_width(), num_flows());
}

double ModelSetup::table_bytes() const {
  const NetworkShape shape = shape_of(topology);
  return topology_bytes(shape) + host_routing_bytes(shape);
}

MemoryNeed shape_memory(const ModelSetup& s) {
  const NetworkShape shape = shape_of(s.topology);
  MemoryNeed need;
  need.add("topology", topology_bytes(shape));
  need.add("routing tables", host_routing_bytes(shape));
  if (kCpuBackend) need.add("one trial's engine state", static_cast<double>(s.bytes_per_trial()));
  return need;
}

void build_setup_routes(ModelSetup& s) {
  if (s.has_routes) return;
  s.routes = build_routes(s.topology, s.routing);
  s.has_routes = true;
}

ModelSetup build_model(const Config& cfg, const std::string& config_dir, const ModelBuild& how) {
  ModelSetup s;
  ModelParams& m = s.model;
  const MemoryLimit memory = memory_limit(how.max_memory);
  s.topology = make_topology(cfg, config_dir, TopologyBuild{memory, /*with_routes=*/true, /*shape_only=*/false});
  const int N = s.topology.num_endpoints;
  if (N < 2) fail(cfg.source, "topology.kind", "the network needs at least two endpoints");
  if (s.topology.max_radix() > kMaxRadix) fail(cfg.source, "topology.k", "switch radix is limited to 64 ports");
  // "adaptive" (flow-level, M17): the default ports are D-mod-K's (setup_flow_adaptive checks the rest).
  s.routing = cfg.get_string("routing.algorithm") == "adaptive" ? RoutingAlgorithm::kDmodK
                                                                 : routing_algorithm(cfg.get_string("routing.algorithm"));
  // build_routes says the same, but the tables are built last (after the memory check) or never.
  if (s.routing == RoutingAlgorithm::kDmodK && s.topology.tree_k <= 0 && s.topology.rlft_k <= 0)
    fail(cfg.source, "routing.algorithm", "\"dmodk\" needs a k-ary n-tree or an RLFT; use \"table\" for this topology"
                                          " (on a dragonfly \"table\" and \"random\" are minimal routing)");

  // Units: one cycle is one flit time on a link.
  const int flit_bytes = static_cast<int>(cfg.get_int("link.flit_bytes"));
  s.cycle_ns = flit_bytes * 8.0 / cfg.get_float("link.bandwidth_gbps");
  s.flit_bytes = flit_bytes;
  const int64_t mtu_bytes = cfg.get_int("endpoint.mtu_bytes");
  if (mtu_bytes % flit_bytes != 0)
    fail(cfg.source, "endpoint.mtu_bytes", num(mtu_bytes) + " is not a multiple of link.flit_bytes (" +
                                               std::to_string(flit_bytes) + ")");
  if (mtu_bytes / flit_bytes > static_cast<int64_t>(kMaxPacketFlits))
    fail(cfg.source, "endpoint.mtu_bytes", "a packet may have at most " + std::to_string(kMaxPacketFlits) +
                                               " flits; raise link.flit_bytes");
  m.mtu_flits = static_cast<int>(mtu_bytes / flit_bytes);
  // Links are rings of link_depth slots per port: their delays stay small.
  m.link_latency = 1 + static_cast<int>(checked_cycles(cfg, "link.latency_ns", cfg.get_float("link.latency_ns"),
                                                       s.cycle_ns, (1 << 16) - 1));
  m.link_depth = m.link_latency + 1;
  setup_link_classes(cfg, s);  // link.local_latency_ns, link.global_latency_ns (dragonfly)
  m.router_delay = static_cast<int>(
      checked_cycles(cfg, "switch.router_delay_ns", cfg.get_float("switch.router_delay_ns"), s.cycle_ns, 1 << 16));

  // Traffic.
  m.pattern = pattern_of(cfg.get_string("traffic.pattern"));
  const int64_t phase_bytes = cfg.get_int("traffic.phase_bytes");
  uint32_t min_packet = static_cast<uint32_t>(m.mtu_flits);
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

  // Buffers: whole packets, split equally among VCs; credits count flits.
  m.vcs = static_cast<int>(cfg.get_int("switch.vcs"));
  bool ack_vc_shared = setup_cc_answers(cfg, s, flit_bytes);
  if (dragonfly_ack_class(cfg, s)) ack_vc_shared = true;  // ACK VCs sized as data VCs (fabric_setup.hpp)
  const uint32_t data_min_packet = min_packet;
  // (route teardowns are 1-flit control packets on the data's VC: routing.route_setup = packets)
  if (ack_vc_shared || m.cc.route_setup) min_packet = std::min(min_packet, static_cast<uint32_t>(m.cc.ack_flits));
  const int data_vcs = m.vcs - (m.cc.ack_vc_separate ? 1 : 0);
  m.data_vc = static_cast<int>(cfg.get_int("traffic.vc"));
  if (m.data_vc >= m.vcs)
    fail(cfg.source, "traffic.vc", std::to_string(m.data_vc) + " is not a VC of this network (switch.vcs = " +
                                       std::to_string(m.vcs) + ")");
  for (size_t i = 0; i < s.flows.size(); ++i)
    if (s.flows[i].vc >= m.vcs)
      fail(cfg.source, "traffic.flows[" + std::to_string(i) + "].vc",
           std::to_string(s.flows[i].vc) + " is not a VC of this network (switch.vcs = " + std::to_string(m.vcs) + ")");
  const int64_t buffer_flits = cfg.get_int("switch.buffer_bytes") / flit_bytes;
  if (buffer_flits / data_vcs > 65535) fail(cfg.source, "switch.buffer_bytes", "more than 65535 flits per VC");
  m.vc_flits = static_cast<int>(buffer_flits / data_vcs);
  if (m.vc_flits < m.mtu_flits)
    fail(cfg.source, "switch.buffer_bytes", "each of the " + std::to_string(data_vcs) + " data VCs gets " +
                                                std::to_string(m.vc_flits * flit_bytes) +
                                                " bytes, less than one MTU packet (" + num(mtu_bytes) + " bytes)");
  if (m.vc_flits > 65535) fail(cfg.source, "switch.buffer_bytes", "more than 65535 flits per VC");
  // switch.vc_buffer = "shared": a pool with a per-VC minimum (fabric_setup.hpp).
  const int64_t pool_slots = setup_vc_pool(cfg, s, data_vcs, flit_bytes, buffer_flits, min_packet);
  // switch.global_buffer_bytes (dragonfly): every input port's pool covers the largest VC buffer.
  const int largest_vc_flits = setup_buffer_classes(cfg, s, data_vcs, flit_bytes);
  const int64_t slots = pool_slots > 0 ? pool_slots
                                       : static_cast<int64_t>(data_vcs) * (largest_vc_flits / min_packet) +
                                             (m.cc.ack_vc_separate ? m.cc.ack_vc_flits / m.cc.ack_flits : 0);
  if (slots > kMaxPortPackets)
    fail(cfg.source, "switch.buffer_bytes", "holds " + std::to_string(slots) +
                                                " packets of the smallest size; an input port holds at most " +
                                                std::to_string(kMaxPortPackets) +
                                                (ack_vc_shared ? " (ACKs share a data VC: give them their own VC with "
                                                                 "switch.vcs one higher)"
                                                               : ""));
  m.entries = static_cast<int>(slots);
  m.max_radix = s.topology.max_radix();
  m.mixed_sizes = static_cast<int>(min_packet) < m.mtu_flits || m.cc.ack_vc_separate;
  const std::string& speedup = cfg.get_string("switch.speedup");
  m.speedup = speedup == "unlimited" ? 0 : std::stoi(speedup);
  const std::string& arbitration = cfg.get_string("switch.arbitration");
  m.arbitration = arbitration == "fcfs"          ? Arbitration::kFcfs
                  : arbitration == "fifo_bypass" ? Arbitration::kFifoBypass
                                                 : Arbitration::kRoundRobin;
  setup_output_queues(cfg, s);
  setup_cc_rest(cfg, s);
  m.vc_arbitration =
      cfg.get_string("switch.vc_arbitration") == "priority" ? VcArbitration::kPriority : VcArbitration::kRoundRobin;
  m.route_mode = cfg.get_string("routing.algorithm") == "random" ? RouteMode::kOblivious : RouteMode::kDeterministic;
  setup_flow_adaptive(cfg, s);
  setup_tree_routes(s);
  setup_switch_allocation(cfg, s);
  setup_isolation(cfg, s);
  setup_include_self(cfg, s);
  setup_dragonfly_routing(cfg, s);  // routing.algorithm = minimal | valiant | ugal | par
  setup_entry_pools(cfg, s, data_min_packet, min_packet);
  m.active_queues = static_cast<int>(cfg.get_int("endpoint.active_queues"));
  m.queue_capacity = static_cast<int>(cfg.get_int("endpoint.queue_messages"));
  setup_injection(cfg, s);
  setup_lhrp(cfg, s);
  setup_queue_per_flow(cfg, s);

  // Time.
  const double limit = cfg.get_float("simulation.time_limit_ns") / s.cycle_ns;
  const double warmup = cfg.get_float("simulation.warmup_ns") / s.cycle_ns;
  const double window = cfg.get_float("simulation.duration_ns") / s.cycle_ns;
  if (warmup + window > 2.0e9) fail(cfg.source, "simulation.duration_ns", "the run would take more than 2e9 cycles");
  if (s.finite && limit > 2.0e9) fail(cfg.source, "simulation.time_limit_ns", "is more than 2e9 cycles");
  s.warmup_cycles = to_cycles(cfg.get_float("simulation.warmup_ns"), s.cycle_ns);
  s.measure_cycles = std::max<uint32_t>(1, to_cycles(cfg.get_float("simulation.duration_ns"), s.cycle_ns));
  s.time_limit_cycles = std::max<uint32_t>(1, static_cast<uint32_t>(std::llround(std::min(limit, kMaxCycles))));
  if (s.finite && s.time_limit_cycles < s.warmup_cycles)
    fail(cfg.source, "simulation.time_limit_ns", "ends before the warm-up does");
  const double sample_ns = cfg.get_float("simulation.sample_interval_ns");
  // A sample interval longer than the run samples at its end only.
  const double sample_capped_ns = std::min(sample_ns, kMaxCycles * s.cycle_ns);
  s.sample_cycles = sample_ns > 0 ? std::max<uint32_t>(1, to_cycles(sample_capped_ns, s.cycle_ns))
                                  : std::max<uint32_t>(1, std::min(s.total_cycles(), s.window_end()) / 100);
  s.per_link_stats = cfg.get_bool("stats.per_link");
  s.latency_histogram = cfg.get_bool("stats.latency_histogram");
  const double series_ns = cfg.get_float("stats.series_interval_ns");
  if (series_ns > 0) {
    s.series_cycles = checked_cycles(cfg, "stats.series_interval_ns", series_ns, s.cycle_ns);
    if (s.series_cycles == 0)
      fail(cfg.source, "stats.series_interval_ns", "is shorter than one cycle (" + num(s.cycle_ns) + " ns)");
  }
  for (double ns : cfg.get_list("stats.state_dump_ns")) {
    const uint32_t c = checked_cycles(cfg, "stats.state_dump_ns", ns, s.cycle_ns);
    if (c > s.total_cycles())
      fail(cfg.source, "stats.state_dump_ns", num(ns) + " ns is after the run's end (" +
                                                  num(s.total_cycles() * s.cycle_ns) + " ns)");
    s.dump_cycles.push_back(c);
  }
  std::sort(s.dump_cycles.begin(), s.dump_cycles.end());
  s.dump_cycles.erase(std::unique(s.dump_cycles.begin(), s.dump_cycles.end()), s.dump_cycles.end());
  s.dump_trial = static_cast<int>(cfg.get_int("stats.state_dump_trial"));
  if (s.dump_trial >= cfg.get_int("simulation.trials"))
    fail(cfg.source, "stats.state_dump_trial", "is " + std::to_string(s.dump_trial) +
                                                   ": expected a trial below simulation.trials = " +
                                                   std::to_string(cfg.get_int("simulation.trials")));
  s.check_invariants = cfg.get_bool("simulation.check_invariants");
  for (const FlowSpec& f : s.flows)
    s.flow_names.push_back(s.topology.endpoint_names[f.src] + "->" + s.topology.endpoint_names[f.dst]);

  // Memory of the tables and of one trial, before the routing tables (switches x endpoints) exist.
  shape_memory(s).check(cfg.source, memory);
  if (how.routes) build_setup_routes(s);
  return s;
}

}  // namespace saturn
