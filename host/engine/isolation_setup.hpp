// Congestion isolation set-up (docs/model/isolation.md): the isolation.* keys into
// ModelParams::iso, and the fat-tree stage tables the engine uploads (sw_stage, port_up).
#pragma once
#include <cstdint>
#include <vector>

#include "host/config/config.hpp"
#include "host/engine/model_setup.hpp"
#include "host/topology/topology.hpp"

namespace saturn {

// Reads and checks the isolation.* keys (after the buffers, VCs and the switch allocation are set).
void setup_isolation(const Config& cfg, ModelSetup& s);

// Stage of every switch: 1 where endpoints attach, then 1 + the lowest stage among its neighbours
// (breadth first); 0 for a switch no endpoint reaches. [s]
std::vector<uint8_t> isolation_switch_stages(const Topology& topo);
// 1 for every port that leads towards the roots (the up ports of a fat tree), per global port id. [gp]
std::vector<uint8_t> isolation_port_up(const Topology& topo);

}  // namespace saturn
