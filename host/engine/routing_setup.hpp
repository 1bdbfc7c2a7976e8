// Config -> model for the packet engine's routing (docs/model/routing.md): the algorithm, the
// flow-level adaptive routing of Zdornov & Birk with its route caches and setup packets, and the
// closed-form D-mod-K ports of trees. Dragonfly routing is in fabric_setup.hpp, the isolation
// techniques' routing in isolation_setup.hpp. Each failure is one ConfigError naming its key.
#pragma once
#include <string>

#include "host/config/config.hpp"
#include "host/engine/model_setup.hpp"

namespace saturn {

// The tables' algorithm of routing.algorithm = dmodk | random | table (the others: their own set-up).
RoutingAlgorithm routing_algorithm(const std::string& name);

// The route mode (deterministic, oblivious, flow-adaptive: routing.algorithm, routing.route_setup,
// routing.route_cache_entries) and, on trees of k a power of two, the closed-form ports: after the
// congestion-control answers and marking, before the switch allocation.
void setup_routing(const Config& cfg, ModelSetup& s);

}  // namespace saturn
