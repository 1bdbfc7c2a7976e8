// Per-flow rates for the explicit-rate injection schedulers (injection.rates; PAPERS-SPEC M29, M31,
// U15): the fluid SAA rates of each trial's flows on their routes at t = 0, computed by the flow
// engine's own rule (kernels/flow/fluid.hpp, saa_rates), or the flows' configured rates.
#pragma once
#include <cstdint>
#include <vector>

#include "host/engine/engine.hpp"

namespace saturn {

struct ModelSetup;

// The links (global output-port ids; the injection link of source e is num_ports + e) of the
// deterministic route from endpoint src to dst in the routing tables.
std::vector<int64_t> packet_route_links(const Topology& topo, const RoutingTables& routes, int src, int dst);

// Fills spec.flows.calc_rate (injection.rates = "saa") and spec.flows.sched_gap_q16 (injection
// schedulers ipd, svc, ps), after the flow table of build_engine_spec. With routing.algorithm =
// "adaptive" it is also where the flows' routes are set up (set_up_adaptive_routes: the PRC columns
// of spec), since the SAA rates are those of the routes the setup picks, trial by trial.
void fill_injection_rates(const ModelSetup& setup, EngineSpec& spec);

}  // namespace saturn
