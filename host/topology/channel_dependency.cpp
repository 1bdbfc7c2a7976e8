// Channel dependency graph construction and cycle search (channel_dependency.hpp).
#include "host/topology/channel_dependency.hpp"

#include <algorithm>
#include <stdexcept>

namespace saturn {

int64_t ChannelDependencyGraph::edges() const {
  int64_t e = 0;
  for (const auto& n : next) e += static_cast<int64_t>(n.size());
  return e;
}

ChannelDependencyGraph build_channel_dependencies(const Topology& topo, const HopRule& rule) {
  ChannelDependencyGraph g;
  const int S = topo.num_switches();
  g.port_base.resize(S);
  int total = 0;
  for (int s = 0; s < S; ++s) {
    g.port_base[s] = total;
    total += topo.radix(s);
  }
  g.num_channels = total + topo.num_endpoints;
  g.next.assign(g.num_channels, {});
  // The switch and input port a channel leads into (-1: an endpoint, or nothing).
  std::vector<int> into_sw(g.num_channels, -1), into_port(g.num_channels, -1);
  for (int s = 0; s < S; ++s)
    for (int p = 0; p < topo.radix(s); ++p) {
      const PortPeer& peer = topo.ports[s][p];
      if (peer.kind != PeerKind::kSwitch) continue;
      into_sw[g.port_base[s] + p] = peer.index;
      into_port[g.port_base[s] + p] = peer.port;
    }
  for (int e = 0; e < topo.num_endpoints; ++e) {
    into_sw[total + e] = topo.endpoint_switch[e];
    into_port[total + e] = topo.endpoint_port[e];
  }
  // Per destination, only the channels its packets can reach (from every injection link) count:
  // the rule's answer for a state no packet can be in (e.g. at a root, arrived from the leaf that
  // holds the destination) is no dependency.
  std::vector<int> seen(g.num_channels, -1);
  std::vector<int32_t> stack;
  for (int d = 0; d < topo.num_endpoints; ++d) {
    for (int e = 0; e < topo.num_endpoints; ++e) {
      seen[total + e] = d;
      stack.push_back(total + e);
    }
    while (!stack.empty()) {
      const int32_t from = stack.back();
      stack.pop_back();
      const int s = into_sw[from];
      if (s < 0) continue;
      for (uint64_t m = rule(s, into_port[from], d); m != 0; m &= m - 1) {
        const int p = __builtin_ctzll(m);
        if (p >= topo.radix(s) || topo.ports[s][p].kind == PeerKind::kNone)
          throw std::logic_error("hop rule: switch " + topo.switch_names[s] + " input " +
                                 std::to_string(into_port[from]) + " offers unconnected port " + std::to_string(p));
        const int32_t to = g.port_base[s] + p;
        g.next[from].push_back(to);
        if (seen[to] != d) {
          seen[to] = d;
          stack.push_back(to);
        }
      }
    }
  }
  for (auto& n : g.next) {
    std::sort(n.begin(), n.end());
    n.erase(std::unique(n.begin(), n.end()), n.end());
  }
  return g;
}

std::vector<int32_t> find_dependency_cycle(const ChannelDependencyGraph& g) {
  const int C = g.num_channels;
  std::vector<int32_t> indegree(C, 0);
  for (const auto& n : g.next)
    for (int32_t c : n) ++indegree[c];
  std::vector<int32_t> ready;
  for (int c = 0; c < C; ++c)
    if (indegree[c] == 0) ready.push_back(c);
  int peeled = 0;
  while (!ready.empty()) {
    const int32_t c = ready.back();
    ready.pop_back();
    ++peeled;
    for (int32_t d : g.next[c])
      if (--indegree[d] == 0) ready.push_back(d);
  }
  if (peeled == C) return {};
  // Kahn stops with channels that each keep a predecessor among those left (their indegree
  // counts only unpeeled ones), so walking backwards inside the remainder never stops: follow
  // predecessors until a channel repeats, then read the loop forwards.
  std::vector<int32_t> pred(C, -1);
  for (int32_t from = 0; from < C; ++from)
    if (indegree[from] > 0)
      for (int32_t to : g.next[from])
        if (indegree[to] > 0 && pred[to] < 0) pred[to] = from;
  std::vector<int32_t> seen_at(C, -1), path;
  int32_t c = 0;
  while (indegree[c] == 0) ++c;
  while (seen_at[c] < 0) {
    seen_at[c] = static_cast<int32_t>(path.size());
    path.push_back(c);
    c = pred[c];
    if (c < 0) throw std::logic_error("find_dependency_cycle: remainder without a predecessor");
  }
  std::vector<int32_t> cycle(path.begin() + seen_at[c], path.end());
  std::reverse(cycle.begin(), cycle.end());
  return cycle;
}

std::string channel_name(const Topology& topo, const ChannelDependencyGraph& g, int32_t channel) {
  const int S = topo.num_switches();
  if (channel >= (S > 0 ? g.port_base[S - 1] + topo.radix(S - 1) : 0)) {
    const int e = channel - (S > 0 ? g.port_base[S - 1] + topo.radix(S - 1) : 0);
    return topo.endpoint_names[e] + "->" + topo.switch_names[topo.endpoint_switch[e]];
  }
  const int s = static_cast<int>(std::upper_bound(g.port_base.begin(), g.port_base.end(), channel) - g.port_base.begin()) - 1;
  const int p = channel - g.port_base[s];
  const PortPeer& peer = topo.ports[s][p];
  std::string to = peer.kind == PeerKind::kSwitch ? topo.switch_names[peer.index]
                   : peer.kind == PeerKind::kEndpoint ? topo.endpoint_names[peer.index] : "?";
  return topo.switch_names[s] + ":" + std::to_string(p) + "->" + to;
}

}  // namespace saturn
