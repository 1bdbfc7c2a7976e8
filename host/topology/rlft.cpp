// Builder for the 3-stage real-life fat tree of Rocher-Gonzalez et al. (PAPERS-SPEC M3, 003 Table 3)
// with the wiring and node numbering documented at build_rlft in topology.hpp.
#include <string>
#include <vector>

#include "host/config/config_error.hpp"
#include "host/topology/dragonfly.hpp"
#include "host/topology/topology.hpp"

namespace saturn {

void validate_rlft_radix(int radix) {
  // M3: K = P/2 ports up and K down at every stage, so the radix must be even; radix 2 would give
  // single-port stages that connect nothing. 64 ports is the engine's mask width.
  if (radix < 4 || radix > 64 || radix % 2 != 0)
    throw ConfigError("key 'topology.rlft_radix': " + std::to_string(radix) +
                      " is not allowed (an even switch radix from 4 to 64; 003 uses 12 and 24)");
}

Topology build_rlft(int radix) {
  validate_rlft_radix(radix);
  const int k = radix / 2;
  const int leaves = 2 * k * k, pods = 2 * k, tops = k * k;
  const int ns = 2 * leaves + tops;
  Topology topo;
  topo.name = "3-stage RLFT (radix " + std::to_string(radix) + ")";
  topo.rlft_k = k;
  topo.num_endpoints = 2 * k * k * k;
  topo.ports.assign(ns, std::vector<PortPeer>(radix));
  topo.switch_names.resize(ns);
  topo.up_port_first.assign(ns, k);
  topo.up_port_count.assign(ns, 0);
  for (int pod = 0; pod < pods; ++pod)
    for (int i = 0; i < k; ++i) {
      const int leaf = pod * k + i, mid = leaves + pod * k + i;
      topo.switch_names[leaf] = "S1.P" + std::to_string(pod) + "." + std::to_string(i);
      topo.switch_names[mid] = "S2.P" + std::to_string(pod) + "." + std::to_string(i);
      topo.up_port_count[leaf] = k;
      topo.up_port_count[mid] = k;
    }
  for (int j = 0; j < k; ++j)
    for (int u = 0; u < k; ++u) topo.switch_names[2 * leaves + j * k + u] = "S3." + std::to_string(j) + "." + std::to_string(u);

  for (int pod = 0; pod < pods; ++pod) {
    for (int i = 0; i < k; ++i)  // leaf (pod, i) up port k + j <-> stage-2 (pod, j) down port i
      for (int j = 0; j < k; ++j) {
        const int leaf = pod * k + i, mid = leaves + pod * k + j;
        topo.ports[leaf][k + j] = PortPeer{PeerKind::kSwitch, mid, i};
        topo.ports[mid][i] = PortPeer{PeerKind::kSwitch, leaf, k + j};
      }
    for (int j = 0; j < k; ++j)  // stage-2 (pod, j) up port k + u <-> top (j, u) port pod
      for (int u = 0; u < k; ++u) {
        const int mid = leaves + pod * k + j, top = 2 * leaves + j * k + u;
        topo.ports[mid][k + u] = PortPeer{PeerKind::kSwitch, top, pod};
        topo.ports[top][pod] = PortPeer{PeerKind::kSwitch, mid, k + u};
      }
  }
  attach_endpoints_in_order(topo, 0, k);  // e = pod*K^2 + i*K + port on leaf pod*K + i
  return topo;
}

}  // namespace saturn
