// Topology accessors and the structural sanity check every builder's result must pass.
#include "host/topology/topology.hpp"

#include <algorithm>
#include <stdexcept>

namespace saturn {

int Topology::max_radix() const {
  int best = 0;
  for (const auto& sw : ports) best = std::max(best, static_cast<int>(sw.size()));
  return best;
}

int Topology::total_ports() const {
  int total = 0;
  for (const auto& sw : ports) total += static_cast<int>(sw.size());
  return total;
}

int Topology::connected_ports() const {
  int total = 0;
  for (const auto& sw : ports)
    for (const PortPeer& peer : sw)
      if (peer.kind != PeerKind::kNone) ++total;
  return total;
}

std::string Topology::link_name(int s, int p) const {
  if (s < 0 || s >= num_switches() || p < 0 || p >= radix(s)) return "";
  const PortPeer& peer = ports[s][p];
  switch (peer.kind) {
    case PeerKind::kSwitch: return switch_names[s] + "->" + switch_names[peer.index];
    case PeerKind::kEndpoint: return switch_names[s] + "->" + endpoint_names[peer.index];
    default: return "";
  }
}

namespace {

[[noreturn]] void fail(const std::string& what) {
  throw std::logic_error("topology check: " + what);
}

std::string port_str(const Topology& t, int s, int p) {
  return "switch " + std::to_string(s) + " ('" + t.switch_names[s] + "') port " + std::to_string(p);
}

}  // namespace

void check_topology(const Topology& topo) {
  const int ns = topo.num_switches();
  const int ne = topo.num_endpoints;
  // Every per-switch and per-endpoint vector must agree, or later indexing goes out of bounds.
  if (static_cast<int>(topo.switch_names.size()) != ns) fail("switch_names size != switch count");
  if (static_cast<int>(topo.up_port_first.size()) != ns) fail("up_port_first size != switch count");
  if (static_cast<int>(topo.up_port_count.size()) != ns) fail("up_port_count size != switch count");
  if (ne < 0) fail("negative endpoint count");
  if (static_cast<int>(topo.endpoint_switch.size()) != ne) fail("endpoint_switch size != endpoint count");
  if (static_cast<int>(topo.endpoint_port.size()) != ne) fail("endpoint_port size != endpoint count");
  if (static_cast<int>(topo.endpoint_names.size()) != ne) fail("endpoint_names size != endpoint count");

  for (int s = 0; s < ns; ++s) {
    // Port sets are 64-bit masks in the routing tables.
    if (topo.radix(s) > 64) fail(port_str(topo, s, topo.radix(s)) + ": radix over 64");
    if (topo.up_port_count[s] < 0 || topo.up_port_first[s] < 0 ||
        (topo.up_port_count[s] > 0 && topo.up_port_first[s] + topo.up_port_count[s] > topo.radix(s)))
      fail("switch " + std::to_string(s) + ": up ports outside the switch's ports");
    for (int p = 0; p < topo.radix(s); ++p) {
      const PortPeer& peer = topo.ports[s][p];
      if (peer.kind == PeerKind::kSwitch) {
        if (peer.index < 0 || peer.index >= ns) fail(port_str(topo, s, p) + ": peer switch out of range");
        if (peer.index == s) fail(port_str(topo, s, p) + ": link from a switch to itself");
        if (peer.port < 0 || peer.port >= topo.radix(peer.index))
          fail(port_str(topo, s, p) + ": peer port out of range");
        const PortPeer& back = topo.ports[peer.index][peer.port];
        if (back.kind != PeerKind::kSwitch || back.index != s || back.port != p)
          fail(port_str(topo, s, p) + ": link not symmetric");
      } else if (peer.kind == PeerKind::kEndpoint) {
        if (peer.index < 0 || peer.index >= ne) fail(port_str(topo, s, p) + ": endpoint out of range");
        // The endpoint's own record must point back here; this also rules out double attachment.
        if (topo.endpoint_switch[peer.index] != s || topo.endpoint_port[peer.index] != p)
          fail(port_str(topo, s, p) + ": endpoint " + std::to_string(peer.index) +
               " attached somewhere else too");
      } else if (peer.kind != PeerKind::kNone) {
        fail(port_str(topo, s, p) + ": bad peer kind");
      }
    }
  }
  // Link classes, where recorded: one per port, endpoint ports kEndpoint, both ends of a link alike.
  if (!topo.port_class.empty()) {
    if (static_cast<int>(topo.port_class.size()) != ns) fail("port_class size != switch count");
    for (int s = 0; s < ns; ++s) {
      if (static_cast<int>(topo.port_class[s].size()) != topo.radix(s))
        fail("switch " + std::to_string(s) + ": port_class size != radix");
      for (int p = 0; p < topo.radix(s); ++p) {
        const PortPeer& peer = topo.ports[s][p];
        const LinkClass c = topo.port_class[s][p];
        if (peer.kind == PeerKind::kEndpoint && c != LinkClass::kEndpoint)
          fail(port_str(topo, s, p) + ": endpoint link not of class endpoint");
        if (peer.kind == PeerKind::kSwitch && c != topo.port_class[peer.index][peer.port])
          fail(port_str(topo, s, p) + ": link classes differ at its two ends");
      }
    }
  }
  for (int e = 0; e < ne; ++e) {
    const int s = topo.endpoint_switch[e];
    const int p = topo.endpoint_port[e];
    if (s < 0 || s >= ns || p < 0 || p >= topo.radix(s))
      fail("endpoint " + std::to_string(e) + ": attachment out of range");
    const PortPeer& peer = topo.ports[s][p];
    if (peer.kind != PeerKind::kEndpoint || peer.index != e)
      fail("endpoint " + std::to_string(e) + ": its port does not lead back to it");
  }
}

void attach_endpoints_in_order(Topology& topo, int first_switch, int per_switch) {
  topo.endpoint_switch.resize(topo.num_endpoints);
  topo.endpoint_port.resize(topo.num_endpoints);
  topo.endpoint_names.resize(topo.num_endpoints);
  for (int e = 0; e < topo.num_endpoints; ++e) {
    const int sw = first_switch + e / per_switch, port = e % per_switch;
    topo.endpoint_switch[e] = sw;
    topo.endpoint_port[e] = port;
    topo.endpoint_names[e] = "n" + std::to_string(e);
    topo.ports[sw][port] = PortPeer{PeerKind::kEndpoint, e, -1};
  }
}

}  // namespace saturn
