// Channel dependency graphs (Dally & Seitz) of a topology under a per-hop routing rule, and the
// acyclicity check that proves the rule deadlock-free without virtual channels (PAPERS-SPEC M17
// "route choices must be cycle-free", M18, item 4).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "host/topology/topology.hpp"

namespace saturn {

// The output ports (bit p = port p) a packet for endpoint dst that arrived at switch sw on input
// port in_port may leave by. A deterministic rule returns one bit; an adaptive rule every port it
// could choose under some network state.
using HopRule = std::function<uint64_t(int sw, int in_port, int dst)>;

// Channels are directed links: channel port_base[s] + p is the link leaving port p of switch s;
// channel total_ports + e is endpoint e's injection link. Edge c1 -> c2 when some destination's
// packet arriving on c1 may leave on c2 (so c2 must free space before c1 can drain).
struct ChannelDependencyGraph {
  int num_channels = 0;
  std::vector<int> port_base;              // [switch] first channel of its ports
  std::vector<std::vector<int32_t>> next;  // [channel] dependencies, sorted, unique
  int64_t edges() const;
};

// Builds the graph: for every destination, the channels its packets can reach from every
// injection link under the rule, and the rule's ports from each (only connected ones; a rule
// naming an unconnected port is a bug and throws std::logic_error). States no packet can be in
// add nothing, as in Dally & Seitz's and Duato's definitions.
ChannelDependencyGraph build_channel_dependencies(const Topology& topo, const HopRule& rule);

// A dependency cycle (its channels in order), or empty when the graph is acyclic: Kahn's
// topological peel, then a walk inside what remains.
std::vector<int32_t> find_dependency_cycle(const ChannelDependencyGraph& g);

// "L1.S2:5->L0.S3" style name of a channel, for test messages.
std::string channel_name(const Topology& topo, const ChannelDependencyGraph& g, int32_t channel);

}  // namespace saturn
