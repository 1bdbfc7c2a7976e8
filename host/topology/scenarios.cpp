// Builders for the two fixed two-switch scenarios: Zdornov-Birk Fig. 1 (M6) and Santos et al. Fig. 1 (M5).
#include <string>
#include <utility>
#include <vector>

#include "host/config/config_error.hpp"
#include "host/topology/topology.hpp"

namespace saturn {

namespace {

// Two switches, endpoints given as (name, switch) in endpoint-id order. Endpoints take ports
// 0.. of their switch in id order and the single inter-switch link takes the last port of
// each switch, so port numbers are predictable from the endpoint list alone.
Topology two_switch(const std::string& name, const std::string& sw0, const std::string& sw1,
                    const std::vector<std::pair<std::string, int>>& endpoints) {
  Topology topo;
  topo.name = name;
  topo.switch_names = {sw0, sw1};
  topo.ports.resize(2);
  topo.num_endpoints = static_cast<int>(endpoints.size());
  for (int e = 0; e < topo.num_endpoints; ++e) {
    const int s = endpoints[e].second;
    topo.endpoint_names.push_back(endpoints[e].first);
    topo.endpoint_switch.push_back(s);
    topo.endpoint_port.push_back(static_cast<int>(topo.ports[s].size()));
    topo.ports[s].push_back(PortPeer{PeerKind::kEndpoint, e, -1});
  }
  const int p0 = static_cast<int>(topo.ports[0].size());
  const int p1 = static_cast<int>(topo.ports[1].size());
  topo.ports[0].push_back(PortPeer{PeerKind::kSwitch, 1, p1});
  topo.ports[1].push_back(PortPeer{PeerKind::kSwitch, 0, p0});
  // No up/down structure: these are routed with table routing.
  topo.up_port_first.assign(2, 0);
  topo.up_port_count.assign(2, 0);
  return topo;
}

}  // namespace

Topology build_zdornov_fig1() {
  std::vector<std::pair<std::string, int>> eps;
  for (int i = 1; i <= 4; ++i) eps.emplace_back("s" + std::to_string(i), 0);
  eps.emplace_back("s5", 1);
  eps.emplace_back("s6", 1);
  eps.emplace_back("d1", 1);
  eps.emplace_back("d2", 1);
  return two_switch("Zdornov-Birk Fig. 1", "sw1", "sw2", eps);
}

Topology build_santos_fig1(int local_flows, int remote_flows) {
  // B carries L locals + B_C + B_V + the link, A carries R remotes + A_V + the link.
  if (local_flows < 0 || remote_flows < 0 || local_flows + 3 > 64 || remote_flows + 2 > 64)
    throw ConfigError("Santos Fig. 1 scenario needs 0 <= local flows <= 61 and 0 <= remote flows <= 62 (got L = " +
                      std::to_string(local_flows) + ", R = " + std::to_string(remote_flows) + ")");
  std::vector<std::pair<std::string, int>> eps;
  for (int i = 1; i <= local_flows; ++i) eps.emplace_back("L" + std::to_string(i), 1);
  for (int i = 1; i <= remote_flows; ++i) eps.emplace_back("R" + std::to_string(i), 0);
  eps.emplace_back("A_V", 0);
  eps.emplace_back("B_C", 1);
  eps.emplace_back("B_V", 1);
  return two_switch("Santos Fig. 1 (L = " + std::to_string(local_flows) + ", R = " +
                        std::to_string(remote_flows) + ")",
                    "A", "B", eps);
}

}  // namespace saturn
