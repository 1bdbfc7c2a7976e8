// State dumps (stats.state_dump_ns): one trial's network as CSV files, for finding where and why
// packets wait (a saturation tree, a blocked chain, a congestion tree's ARN tables).
#pragma once
#include <string>
#include <vector>

#include "host/engine/engine.hpp"
#include "host/topology/topology.hpp"

namespace saturn {

// Writes trial t (index within the batch) of `snap` as PREFIX_ports.csv, PREFIX_packets.csv,
// PREFIX_endpoints.csv and, under ARN isolation, PREFIX_arn.csv. Returns the files written.
// Throws std::runtime_error naming the file that cannot be written.
std::vector<std::string> write_state_dump(const StateSnapshot& snap, int t, const Topology& topo,
                                          const std::string& prefix);

// The prefix of a dump: DIR/p<point>_t<trial>_<time>ns.
std::string state_dump_prefix(const std::string& dir, int point, int trial, double time_ns);

}  // namespace saturn
