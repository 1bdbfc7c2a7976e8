// Config -> model in cycles and flits: build_model runs the set-up of each family in the order
// their keys depend on one another (topology_setup.cpp, switch_setup.cpp, endpoint_setup.cpp,
// protocol_setup.cpp, routing_setup.cpp, fabric_setup.cpp, isolation_setup.cpp), each with the
// cross-key checks a single key cannot express; and the shape queries of a ModelSetup.
#include "host/engine/model_setup.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "host/engine/endpoint_setup.hpp"
#include "host/engine/fabric_setup.hpp"
#include "host/engine/isolation_setup.hpp"
#include "host/engine/protocol_setup.hpp"
#include "host/engine/routing_setup.hpp"
#include "host/engine/setup_checks.hpp"
#include "host/engine/switch_setup.hpp"

namespace saturn {

using namespace setup;  // fail, num, to_cycles, checked_cycles, host_routing_bytes (setup_checks.hpp)

namespace {

// Time (simulation.*) and what the statistics sample (stats.*), in cycles; then the flow names.
void setup_time_and_stats(const Config& cfg, ModelSetup& s) {
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
  s.config_source = cfg.source;
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
  setup_links(cfg, s);  // link.latency_ns, the dragonfly's link classes, switch.router_delay_ns

  // Endpoints: what they send.
  uint32_t min_packet = static_cast<uint32_t>(m.mtu_flits);
  setup_traffic(cfg, config_dir, s, &min_packet);

  // Buffers: whole packets, split equally among VCs; credits count flits.
  m.vcs = static_cast<int>(cfg.get_int("switch.vcs"));
  bool ack_vc_shared = setup_cc_answers(cfg, s, flit_bytes);
  if (dragonfly_ack_class(cfg, s)) ack_vc_shared = true;  // ACK VCs sized as data VCs (fabric_setup.hpp)
  const uint32_t data_min_packet = min_packet;
  // (route teardowns are 1-flit control packets on the data's VC: routing.route_setup = packets)
  if (ack_vc_shared || m.cc.route_setup) min_packet = std::min(min_packet, static_cast<uint32_t>(m.cc.ack_flits));
  setup_buffers(cfg, s, ack_vc_shared, min_packet);
  setup_arbitration(cfg, s);  // speedup, output and VC arbitration, output queues
  setup_cc_rest(cfg, s);      // bounded bypass, marking, CCA, dynamic flows
  setup_routing(cfg, s);
  setup_switch_allocation(cfg, s);
  setup_isolation(cfg, s);
  setup_include_self(cfg, s);
  setup_dragonfly_routing(cfg, s);  // routing.algorithm = minimal | valiant | ugal | par
  setup_entry_pools(cfg, s, data_min_packet, min_packet);

  // Endpoints: their send queues, how they inject, and the protocol over it.
  m.active_queues = static_cast<int>(cfg.get_int("endpoint.active_queues"));
  m.queue_capacity = static_cast<int>(cfg.get_int("endpoint.queue_messages"));
  setup_injection(cfg, s);
  setup_cc_protocol(cfg, s);
  setup_queue_per_flow(cfg, s);
  setup_vc_allocation(cfg, s);  // switch.vc_allocation: refuses the models it does not run with

  setup_time_and_stats(cfg, s);
  // Memory of the tables and of one trial, before the routing tables (switches x endpoints) exist.
  shape_memory(s).check(cfg.source, memory);
  if (how.routes) build_setup_routes(s);
  return s;
}

}  // namespace saturn
