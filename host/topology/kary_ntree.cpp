// Builder for the Petrini-Vanneschi k-ary n-tree (PAPERS-SPEC M1) and its modified form with horizontal
// links (M2), with the wiring documented in topology.hpp.
#include <string>
#include <vector>

#include "host/config/config_error.hpp"
#include "host/topology/topology.hpp"

namespace saturn {

namespace {

// Upper bound on k^n: routing tables hold switches * endpoints entries, so anything bigger
// could not be simulated anyway, and the bound keeps every index comfortably inside int.
constexpr long long kMaxTreeEndpoints = 1LL << 20;

}  // namespace

Topology build_kary_ntree(int k, int n, int horizontal_width) {
  if (k < 1 || n < 1)
    throw ConfigError("k-ary n-tree needs k >= 1 and n >= 1 (got k = " + std::to_string(k) +
                      ", n = " + std::to_string(n) + ")");
  if (2 * k > 64)
    throw ConfigError("k-ary n-tree: k = " + std::to_string(k) +
                      " gives switches of more than 64 ports (k <= 32)");
  if (horizontal_width < 0 || 2 * k + 2 * horizontal_width > 64)
    throw ConfigError("modified k-ary n-tree: 2k + 2 * horizontal width = " + std::to_string(2 * k + 2 * horizontal_width) +
                      " ports per switch is over 64 (horizontal width <= " + std::to_string((64 - 2 * k) / 2) + ")");
  long long endpoints = 1;
  for (int i = 0; i < n; ++i) {
    endpoints *= k;
    if (endpoints > kMaxTreeEndpoints)
      throw ConfigError("k-ary n-tree: k^n is over " + std::to_string(kMaxTreeEndpoints) + " endpoints");
  }
  const int per_level = static_cast<int>(endpoints / k);  // k^(n-1) switches per level
  const int num_switches = n * per_level;

  Topology topo;
  topo.name = std::to_string(k) + "-ary " + std::to_string(n) + "-tree";
  if (horizontal_width > 0) topo.name = "modified " + topo.name + " (horizontal width " + std::to_string(horizontal_width) + ")";
  topo.tree_k = k;
  topo.tree_n = n;
  topo.tree_width = horizontal_width;
  topo.num_endpoints = static_cast<int>(endpoints);
  // A single-level tree is one switch with only its k endpoint ports: there is nothing above it.
  const int radix = n == 1 ? k : 2 * k;
  topo.ports.assign(num_switches, std::vector<PortPeer>(radix));
  // place[i] = k^(n-2-i): the weight of digit i of w (w_0 most significant).
  std::vector<int> place(n > 1 ? n - 1 : 0);
  for (int i = n - 2, v = 1; i >= 0; --i, v *= k) place[i] = v;
  // Levels 0..n-2 hold logical nodes of k^(n-1-l) > 1 switches: they get 2 * width horizontal ports.
  for (int l = 0; l + 1 < n && horizontal_width > 0 && k > 1; ++l)
    for (int w = 0; w < per_level; ++w) topo.ports[l * per_level + w].resize(radix + 2 * horizontal_width);
  topo.switch_names.resize(num_switches);
  topo.up_port_first.assign(num_switches, k);
  topo.up_port_count.assign(num_switches, 0);
  for (int l = 0; l < n; ++l) {
    for (int w = 0; w < per_level; ++w) {
      const int s = l * per_level + w;
      topo.switch_names[s] = "L" + std::to_string(l) + ".S" + std::to_string(w);
      if (l > 0) topo.up_port_count[s] = k;
    }
  }

  // Down port j of <w,l> reaches <w with digit l := j, l+1> on its up port k + w_l.
  for (int l = 0; l + 1 < n; ++l) {
    for (int w = 0; w < per_level; ++w) {
      const int s = l * per_level + w;
      const int w_l = (w / place[l]) % k;
      for (int j = 0; j < k; ++j) {
        const int child_w = w + (j - w_l) * place[l];
        const int child = (l + 1) * per_level + child_w;
        const int child_port = k + w_l;
        topo.ports[s][j] = PortPeer{PeerKind::kSwitch, child, child_port};
        topo.ports[child][child_port] = PortPeer{PeerKind::kSwitch, s, j};
      }
    }
  }

  // Horizontal links (M2): the switches of a level-l logical node (same digits w_0..w_{l-1}) form a
  // chain ordered by the base-k integer of (w_l..w_{n-2}), i.e. by w itself, so neighbours are w and
  // w + 1 within a block of k^(n-1-l). Lane h: right port 2k + width + h of w meets left port 2k + h
  // of w + 1.
  for (int l = 0; l + 1 < n && horizontal_width > 0 && k > 1; ++l) {
    const int size = place[l] * k;
    for (int w = 0; w < per_level; ++w) {
      if (w % size == size - 1) continue;  // chain boundary: no right neighbour
      const int s = l * per_level + w, right = s + 1;
      for (int h = 0; h < horizontal_width; ++h) {
        const int out = 2 * k + horizontal_width + h, in = 2 * k + h;
        topo.ports[s][out] = PortPeer{PeerKind::kSwitch, right, in};
        topo.ports[right][in] = PortPeer{PeerKind::kSwitch, s, out};
      }
    }
  }

  // Endpoint p sits on leaf w = p / k, down port p % k.
  attach_endpoints_in_order(topo, (n - 1) * per_level, k);
  return topo;
}

}  // namespace saturn
