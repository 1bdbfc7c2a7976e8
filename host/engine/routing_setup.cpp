// Config -> model for the packet engine's routing (routing_setup.hpp).
#include "host/engine/routing_setup.hpp"

#include "host/engine/setup_checks.hpp"
#include "host/flow/flow_engine.hpp"

namespace saturn {

using namespace setup;  // fail (setup_checks.hpp)

namespace {

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
  const bool host_rows = s.host_pattern.kind != HostPattern::kNone && s.host_pattern.kind != HostPattern::kComplement;
  if (!s.finite || host_rows || m.trace)
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

}  // namespace

RoutingAlgorithm routing_algorithm(const std::string& name) {
  if (name == "dmodk") return RoutingAlgorithm::kDmodK;
  if (name == "random") return RoutingAlgorithm::kRandom;
  return RoutingAlgorithm::kTable;
}

void setup_routing(const Config& cfg, ModelSetup& s) {
  ModelParams& m = s.model;
  m.route_mode = cfg.get_string("routing.algorithm") == "random" ? RouteMode::kOblivious : RouteMode::kDeterministic;
  setup_flow_adaptive(cfg, s);
  setup_tree_routes(s);
}

}  // namespace saturn
