// Per (switch, destination) routing tables: D-mod-K and minimal up sets on k-ary n-trees and RLFTs (M14, M15),
// minimal local-global-local routes on dragonflies (M4), BFS minimal sets elsewhere.
#include <algorithm>
#include <cstdint>
#include <deque>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "host/config/config_error.hpp"
#include "host/topology/dragonfly.hpp"
#include "host/topology/topology.hpp"

namespace saturn {

namespace {

// Hands out one id per distinct port mask; many (switch, destination) pairs share a mask, and
// the kernels index the small mask array instead of storing 64 bits per pair.
class MaskIds {
 public:
  explicit MaskIds(std::vector<uint64_t>& masks) : masks_(masks) {}
  uint16_t id(uint64_t mask) {
    auto it = ids_.find(mask);
    if (it != ids_.end()) return it->second;
    if (masks_.size() >= 65535) throw std::runtime_error("routing: more than 65535 distinct port masks");
    const auto next = static_cast<uint16_t>(masks_.size());
    ids_.emplace(mask, next);
    masks_.push_back(mask);
    return next;
  }

 private:
  std::map<uint64_t, uint16_t> ids_;
  std::vector<uint64_t>& masks_;
};

int popcount(uint64_t mask) { return __builtin_popcountll(mask); }

int lowest_bit(uint64_t mask) {
  if (mask == 0) throw std::logic_error("routing: empty minimal port set");
  int p = 0;
  while (!(mask & 1)) {
    mask >>= 1;
    ++p;
  }
  return p;
}

// Tree routes from the k-ary n-tree digit structure (PAPERS-SPEC M1, M14). A switch <w,l> is
// above destination q iff w_i == q_i for i < l; then it goes down on port q_l (at the leaf that
// is the endpoint port q_{n-1}). Otherwise it goes up on port k + q_l, which rewrites digit l-1
// of w to q_l: this is D-mod-K (leaf: k + d mod k), and it gives every down link exactly one
// destination. The minimal set going up is all k up ports; going down it is the one port.
void fill_tree(const Topology& topo, RoutingTables& rt, MaskIds& ids) {
  const int k = topo.tree_k;
  const int n = topo.tree_n;
  if (n < 1 || k > 32) throw std::logic_error("routing: bad k-ary n-tree parameters in '" + topo.name + "'");
  std::vector<long long> pow_k(n + 1, 1);
  for (int i = 1; i <= n; ++i) pow_k[i] = pow_k[i - 1] * k;
  const long long per_level = pow_k[n - 1];
  // The digit arithmetic below assumes build_kary_ntree's numbering; refuse anything else.
  if (topo.num_endpoints != pow_k[n] || topo.num_switches() != n * per_level)
    throw std::logic_error("routing: topology '" + topo.name + "' claims to be a k-ary n-tree but is not laid out as one");

  uint64_t up_mask = 0;
  for (int j = 0; j < k; ++j) up_mask |= 1ULL << (k + j);
  std::vector<uint16_t> single_id(2 * k);
  for (int p = 0; p < 2 * k; ++p) single_id[p] = ids.id(1ULL << p);
  const uint16_t up_id = n > 1 ? ids.id(up_mask) : 0;

  const int ne = topo.num_endpoints;
  for (int s = 0; s < topo.num_switches(); ++s) {
    const int l = static_cast<int>(s / per_level);
    const long long w = s % per_level;
    // First l digits of w (n-1 digits) and of q (n digits) decide "above".
    const long long w_prefix = w / pow_k[n - 1 - l];
    const size_t row = static_cast<size_t>(s) * ne;
    for (int d = 0; d < ne; ++d) {
      const int q_l = static_cast<int>((d / pow_k[n - 1 - l]) % k);
      if (d / pow_k[n - l] == w_prefix) {
        rt.det_port[row + d] = static_cast<uint8_t>(q_l);
        rt.choice_id[row + d] = single_id[q_l];
      } else {
        rt.det_port[row + d] = static_cast<uint8_t>(k + q_l);
        rt.choice_id[row + d] = up_id;
      }
    }
  }
}

// Shortest-path routes by BFS over the switch graph, one BFS per switch that hosts endpoints.
// Minimal ports at s for a destination on switch t != s: ports to a switch one hop closer to t.
// At t itself the only choice is the destination's own port. The deterministic port spreads
// destinations over the n minimal ports: the (d mod n)-th (D-mod-K's rule, for any graph).
void fill_bfs(const Topology& topo, RoutingTables& rt, MaskIds& ids) {
  const int ns = topo.num_switches();
  const int ne = topo.num_endpoints;
  std::vector<std::vector<int>> hosted(ns);
  for (int d = 0; d < ne; ++d) hosted[topo.endpoint_switch[d]].push_back(d);

  std::vector<int> dist(ns);
  std::vector<uint64_t> mask(ns);
  for (int t = 0; t < ns; ++t) {
    if (hosted[t].empty()) continue;
    std::fill(dist.begin(), dist.end(), -1);
    std::deque<int> queue{t};
    dist[t] = 0;
    while (!queue.empty()) {
      const int s = queue.front();
      queue.pop_front();
      for (const PortPeer& peer : topo.ports[s])
        if (peer.kind == PeerKind::kSwitch && dist[peer.index] < 0) {
          dist[peer.index] = dist[s] + 1;
          queue.push_back(peer.index);
        }
    }
    for (int s = 0; s < ns; ++s) {
      if (s == t) continue;
      if (dist[s] < 0)
        throw ConfigError("topology '" + topo.name + "': switch '" + topo.switch_names[s] +
                          "' cannot reach endpoint '" + topo.endpoint_names[hosted[t][0]] + "'");
      uint64_t m = 0;
      for (int p = 0; p < topo.radix(s); ++p) {
        const PortPeer& peer = topo.ports[s][p];
        if (peer.kind == PeerKind::kSwitch && dist[peer.index] == dist[s] - 1) m |= 1ULL << p;
      }
      mask[s] = m;
    }
    for (int s = 0; s < ns; ++s) {
      const size_t row = static_cast<size_t>(s) * ne;
      if (s == t) {
        for (int d : hosted[t]) {
          rt.det_port[row + d] = static_cast<uint8_t>(topo.endpoint_port[d]);
          rt.choice_id[row + d] = ids.id(1ULL << topo.endpoint_port[d]);
        }
      } else {
        const uint16_t id = ids.id(mask[s]);
        const int n = popcount(mask[s]);
        for (int d : hosted[t]) {
          uint64_t m = mask[s];
          for (int skip = d % n; skip > 0; --skip) m &= m - 1;
          rt.det_port[row + d] = static_cast<uint8_t>(lowest_bit(m));
          rt.choice_id[row + d] = id;
        }
      }
    }
  }
}

// Real-life fat tree (M3, M14). Going up, the minimal set is all K up ports and D-mod-K picks
// up port K + (D mod K) at a leaf and K + (floor(D/K) mod K) at stage 2: with D = pod*K^2 + i*K +
// port, a packet for D climbs to stage-2 switch `port` of its pod, then to top switch (port, i),
// which serves exactly one destination per pod. Going down the port is unique.
void fill_rlft(const Topology& topo, RoutingTables& rt, MaskIds& ids) {
  const int k = topo.rlft_k;
  const int leaves = 2 * k * k;
  const int ne = topo.num_endpoints;
  if (ne != 2 * k * k * k || topo.num_switches() != 5 * k * k)
    throw std::logic_error("routing: topology '" + topo.name + "' claims to be an RLFT but is not laid out as one");
  uint64_t up_mask = 0;
  for (int j = 0; j < k; ++j) up_mask |= 1ULL << (k + j);
  const uint16_t up_id = ids.id(up_mask);
  std::vector<uint16_t> single_id(2 * k);
  for (int p = 0; p < 2 * k; ++p) single_id[p] = ids.id(1ULL << p);
  auto set = [&](size_t i, int port, uint16_t id) {
    rt.det_port[i] = static_cast<uint8_t>(port);
    rt.choice_id[i] = id;
  };
  for (int s = 0; s < topo.num_switches(); ++s) {
    const size_t row = static_cast<size_t>(s) * ne;
    for (int d = 0; d < ne; ++d) {
      const int leaf_d = d / k, pod_d = d / (k * k);
      if (s < leaves) {
        if (leaf_d == s) set(row + d, d % k, single_id[d % k]);
        else set(row + d, k + d % k, up_id);
      } else if (s < 2 * leaves) {
        if (pod_d == (s - leaves) / k) set(row + d, leaf_d % k, single_id[leaf_d % k]);
        else set(row + d, k + leaf_d % k, up_id);
      } else {
        set(row + d, pod_d, single_id[pod_d]);
      }
    }
  }
}

// Dragonfly (M4): the minimal local-global-local first hops (dragonfly.hpp); the deterministic
// port is the (d mod n)-th of the n minimal ports, as in fill_bfs (n = 1 when g = a*h + 1).
void fill_dragonfly(const Topology& topo, RoutingTables& rt, MaskIds& ids) {
  const DragonflyParams& df = topo.dragonfly;
  const int ns = topo.num_switches(), ne = topo.num_endpoints;
  if (ns != df.a * df.g || ne != ns * df.p)
    throw std::logic_error("routing: topology '" + topo.name + "' claims to be a dragonfly but is not laid out as one");
  for (int s = 0; s < ns; ++s) {
    const size_t row = static_cast<size_t>(s) * ne;
    for (int t = 0; t < ns; ++t) {
      const uint64_t mask = df_min_port_mask(df, s, t);
      const uint16_t id = mask ? ids.id(mask) : 0;
      const int n = popcount(mask);
      for (int d = t * df.p; d < (t + 1) * df.p; ++d) {
        if (s == t) {
          rt.det_port[row + d] = static_cast<uint8_t>(topo.endpoint_port[d]);
          rt.choice_id[row + d] = ids.id(1ULL << topo.endpoint_port[d]);
          continue;
        }
        uint64_t m = mask;
        for (int skip = d % n; skip > 0; --skip) m &= m - 1;
        rt.det_port[row + d] = static_cast<uint8_t>(lowest_bit(m));
        rt.choice_id[row + d] = id;
      }
    }
  }
}

}  // namespace

RoutingTables build_routes(const Topology& topo, RoutingAlgorithm algo) {
  if (algo != RoutingAlgorithm::kDmodK && algo != RoutingAlgorithm::kRandom && algo != RoutingAlgorithm::kTable)
    throw std::logic_error("routing: unknown algorithm");
  if (algo == RoutingAlgorithm::kDmodK && topo.tree_k <= 0 && topo.rlft_k <= 0)
    throw ConfigError("routing.algorithm = \"dmodk\" needs a k-ary n-tree or an RLFT; use \"table\" for this topology");
  // Port sets are 64-bit masks and det ports are bytes.
  if (topo.max_radix() > 64) throw std::logic_error("routing: topology '" + topo.name + "' has a radix over 64");

  RoutingTables rt;
  rt.num_switches = topo.num_switches();
  rt.num_endpoints = topo.num_endpoints;
  const size_t entries = static_cast<size_t>(rt.num_switches) * rt.num_endpoints;
  rt.det_port.assign(entries, 0);
  rt.choice_id.assign(entries, 0);
  MaskIds ids(rt.choice_masks);
  // kRandom shares D-mod-K's det ports on trees (its deterministic fallback, e.g. for AFC
  // packets) and its minimal sets equal the BFS ones there; kTable always uses plain BFS.
  if (topo.dragonfly.a > 0) {
    fill_dragonfly(topo, rt, ids);  // every algorithm: BFS would leave the minimal route set
  } else if (algo != RoutingAlgorithm::kTable && topo.rlft_k > 0) {
    fill_rlft(topo, rt, ids);
  } else if (algo != RoutingAlgorithm::kTable && topo.tree_k > 0) {
    fill_tree(topo, rt, ids);
  } else {
    fill_bfs(topo, rt, ids);
  }
  return rt;
}

}  // namespace saturn
