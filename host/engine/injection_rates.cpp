// Per-flow rates of the injection schedulers: SAA on the packet engine's routes (injection_rates.hpp).
#include "host/engine/injection_rates.hpp"

#include <stdexcept>
#include <string>

#include "host/config/config_error.hpp"
#include "host/engine/adaptive_routes.hpp"
#include "host/engine/model_setup.hpp"
#include "kernels/common/index.hpp"
#include "kernels/flow/fluid.hpp"
#include "kernels/injection/injection_common.hpp"

namespace saturn {

namespace {

// One trial's flows as a fluid instance (fluid.hpp's accessor interface); all capacities 1.
struct RouteInstance {
  std::vector<std::vector<int64_t>> paths;
  std::vector<double> sizes, fluid_, rates;
  int64_t links = 0;
  int32_t num_flows() const { return static_cast<int32_t>(paths.size()); }
  int64_t num_links() const { return links; }
  int path_len(int32_t f) const { return static_cast<int>(paths[f].size()); }
  int64_t link(int32_t f, int i) const { return paths[f][i]; }
  double size(int32_t f) const { return sizes[f]; }
  double capacity(int64_t) const { return 1.0; }
  double& fluid(int64_t l) { return fluid_[l]; }
  double& rate(int32_t f) { return rates[f]; }
};

// injection.rates = "saa_probes" (kernels/cc/saa_probes.hpp): a send queue per flow of a source (a
// queue's protocol state is its flow's from AnnounceStart to AnnounceEnd), and link weights that fit
// the packet's 32-bit fields.
void check_saa_probe_limits(const ModelParams& m, const FlowPlan& plan) {
  if (m.flows_per_source > m.active_queues)
    throw ConfigError("key 'endpoint.active_queues': injection.rates = \"saa_probes\" needs a send queue per flow of "
                      "a source (" + std::to_string(m.flows_per_source) + " flows, " + std::to_string(m.active_queues) +
                      " queues)");
  double total = 0;
  for (int f = 0; f < plan.num_flows(); ++f) total += static_cast<double>(plan.flits[f]);
  if (total >= 2147483648.0)
    throw ConfigError("key 'injection.rates': \"saa_probes\" carries link weights in 31 bits: the flows' flits add "
                      "up to " + std::to_string(total) + " (use fewer or smaller flows)");
}

// routing.route_setup = "packets": the owner of a connection keeps its send queue until the
// teardown is back, so every flow of a source needs a queue of its own.
void check_route_packet_limits(const ModelParams& m) {
  if (m.flows_per_source > m.active_queues)
    throw ConfigError("key 'endpoint.active_queues': routing.route_setup = \"packets\" needs a send queue per flow of "
                      "a source (" + std::to_string(m.flows_per_source) + " flows, " + std::to_string(m.active_queues) +
                      " queues)");
}

}  // namespace

std::vector<int64_t> packet_route_links(const Topology& topo, const RoutingTables& routes, int src, int dst) {
  std::vector<int64_t> port_base(topo.num_switches() + 1, 0);
  for (int s = 0; s < topo.num_switches(); ++s) port_base[s + 1] = port_base[s] + topo.radix(s);
  const int64_t ports = port_base.back();
  const int N = topo.num_endpoints;
  std::vector<int64_t> links{ports + src};
  int s = topo.endpoint_switch[src];
  for (int hops = 0; hops <= topo.num_switches(); ++hops) {
    const int p = routes.det_port[static_cast<int64_t>(s) * N + dst];
    links.push_back(port_base[s] + p);
    const PortPeer& peer = topo.ports[s][p];
    if (peer.kind == PeerKind::kEndpoint) {
      if (peer.index != dst) break;
      return links;
    }
    if (peer.kind != PeerKind::kSwitch) break;
    s = peer.index;
  }
  throw std::runtime_error("injection.rates: the route from endpoint " + std::to_string(src) + " to " +
                           std::to_string(dst) + " does not reach it");
}

void fill_injection_rates(const ModelSetup& setup, EngineSpec& spec) {
  const ModelParams& m = spec.model;
  FlowPlan& plan = spec.flows;
  const int F = plan.num_flows();
  const int T = m.trials;
  const bool adaptive = m.route_mode == RouteMode::kFlowAdaptive;
  if (F == 0) return;
  if (m.cc.saa_probes) check_saa_probe_limits(m, plan);
  const bool sched = injection_scheduled(m);
  if (sched) plan.sched_gap_q16.assign(static_cast<size_t>(F) * T, 0);
  if (!setup.saa_rates && sched) {  // the flows' own rates: flow_gap_q16 is per flit
    for (int f = 0; f < F; ++f) {
      const double gap = static_cast<double>(plan.gap_q16[f]) * m.mtu_flits;
      const uint32_t g = gap >= 4294967295.0 ? 0xFFFFFFFFu : static_cast<uint32_t>(gap);
      for (int t = 0; t < T; ++t) plan.sched_gap_q16[at(f, t, T)] = g;
    }
  }
  if (setup.saa_rates) plan.calc_rate.assign(static_cast<size_t>(F) * T, 0.0);
  const int64_t ports = setup.topology.total_ports();
  // SAA on one trial's routes (paths[f]: flow f's links, empty = no flow).
  const auto rates_of_trial = [&](int t, const std::vector<std::vector<int64_t>>& paths) {
    if (!setup.saa_rates) return;
    RouteInstance in;
    in.links = ports + setup.topology.num_endpoints;
    std::vector<int> id;  // instance flow -> flow
    for (int f = 0; f < F; ++f) {
      if (paths[f].empty()) continue;
      in.paths.push_back(paths[f]);
      in.sizes.push_back(static_cast<double>(plan.flits[f]));
      id.push_back(f);
    }
    in.fluid_.assign(static_cast<size_t>(in.links), 0.0);
    in.rates.assign(in.paths.size(), 0.0);
    saa_rates(in);
    for (size_t i = 0; i < id.size(); ++i) {
      const int64_t k = at(id[i], t, T);
      plan.calc_rate[k] = in.rates[i];
      if (sched) plan.sched_gap_q16[k] = gap_q16_for_rate(static_cast<double>(m.mtu_flits), in.rates[i]);
    }
  };
  if (adaptive && m.cc.route_setup) {  // the packets set the routes up (kernels/routing/route_setup.hpp)
    check_route_packet_limits(m);
    // The routes set up at t = 0 give only injection.rates = saa's reference bound, and size the
    // caches: an "unlimited" cache gets twice the entries that setup needs at most (at least k);
    // setups that still find one full are counted (route_cache_full).
    const int most = set_up_adaptive_routes(setup, spec, rates_of_trial);
    spec.model.prc_slots = setup.route_cache_entries > 0 ? setup.route_cache_entries : std::max(m.tree.k, 2 * most);
    spec.prc_gcid.clear();
    spec.prc_port.clear();
    return;
  }
  if (adaptive) {  // the routes are the ones the setup picks (adaptive_routes.cpp)
    set_up_adaptive_routes(setup, spec, rates_of_trial);
    return;
  }
  if (!setup.saa_rates) return;
  if (setup.routes.det_port.empty()) throw std::runtime_error("injection.rates = \"saa\": no routing tables built");
  const std::vector<int> source = plan.sources();
  for (int t = 0; t < T; ++t) {
    std::vector<std::vector<int64_t>> paths(F);
    for (int f = 0; f < F; ++f) {
      const uint32_t dst = plan.dst[at(f, t, T)];
      if (dst == kUnlimited || source[f] < 0) continue;
      paths[f] = packet_route_links(setup.topology, setup.routes, source[f], static_cast<int>(dst));
    }
    rates_of_trial(t, paths);
  }
}

}  // namespace saturn
