// Flow-level adaptive routing: the host-side setup of every trial's PRCs (adaptive_routes.hpp).
#include "host/engine/adaptive_routes.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "host/engine/model_setup.hpp"
#include "kernels/common/index.hpp"
#include "kernels/common/rng.hpp"
#include "kernels/routing/route_cache.hpp"

namespace saturn {

namespace {

struct PrcEntry {
  int64_t gp;
  uint32_t gcid;
  uint8_t port;
};

// One trial's caches while its flows are set up (trials = 1 in the RouteCacheView).
struct TrialCaches {
  std::vector<uint32_t> gcid;
  std::vector<uint8_t> port;
  std::vector<uint16_t> flows;
  RouteCacheView view;

  TrialCaches(int64_t ports, int slots)
      : gcid(static_cast<size_t>(ports) * slots, kNoGcid), port(static_cast<size_t>(ports) * slots, 0), flows(ports, 0) {
    view.prc_gcid = gcid.data();
    view.prc_port = port.data();
    view.port_flows = flows.data();
    view.slots = slots;
    view.trials = 1;
  }
  int max_used(int64_t ports) const {
    int most = 0;
    for (int64_t gp = 0; gp < ports; ++gp) most = std::max(most, prc_used(view, gp, 0));
    return most;
  }
};

// The flow engine's order of a trial's F flows (flow_trial.hpp, draw_flows: Fisher-Yates from
// kFlowLaneOrder of the trial seed).
std::vector<int> flow_order(uint64_t seed, int F) {
  std::vector<int> order(F);
  for (int i = 0; i < F; ++i) order[i] = i;
  for (int i = F - 1; i > 0; --i) {
    const Draw4 d = philox(seed, kFlowLaneOrder, static_cast<uint32_t>(i), 0u, Stream::kFlow);
    std::swap(order[i], order[uniform_below(d.v[0], static_cast<uint32_t>(i + 1))]);
  }
  return order;
}

// Walks the setup packet of connection `gcid` (src -> dst) hop by hop; returns its links.
std::vector<int64_t> set_up_one(const Topology& topo, const FlowTree& tr, const std::vector<int64_t>& base,
                                int64_t ports, TrialCaches& caches, int src, int dst, uint32_t gcid) {
  std::vector<int64_t> links{ports + src};
  int sw = topo.endpoint_switch[src], in = topo.endpoint_port[src];
  for (int hops = 0; hops <= topo.num_switches(); ++hops) {
    const int out = setup_hop(tr, caches.view, sw, base[sw], in, dst, gcid, 0);
    links.push_back(base[sw] + out);
    const PortPeer& peer = topo.ports[sw][out];
    if (peer.kind == PeerKind::kEndpoint && peer.index == dst) return links;
    if (peer.kind != PeerKind::kSwitch) break;
    sw = peer.index;
    in = peer.port;
  }
  throw std::logic_error("routing.algorithm = \"adaptive\": the setup from endpoint " + std::to_string(src) + " to " +
                         std::to_string(dst) + " does not reach it");
}

}  // namespace

int set_up_adaptive_routes(const ModelSetup& setup, EngineSpec& spec,
                           const std::function<void(int, const std::vector<std::vector<int64_t>>&)>& each_trial) {
  ModelParams& m = spec.model;
  const Topology& topo = setup.topology;
  const FlowPlan& plan = spec.flows;
  const int T = m.trials, F = plan.num_flows();
  std::vector<int64_t> base(topo.num_switches(), 0);
  int64_t ports = 0;
  for (int s = 0; s < topo.num_switches(); ++s) {
    base[s] = ports;
    ports += topo.radix(s);
  }
  const std::vector<int> source = plan.sources();
  const int limit = static_cast<int>(setup.route_cache_entries);

  std::vector<std::vector<PrcEntry>> kept(T);
  int most = 0;
  for (int t = 0; t < T; ++t) {
    const std::vector<int> order = flow_order(spec.seed[t], F);
    // Unlimited caches: set the trial up again with twice the entries while any port filled up
    // (only a full cache can have refused an entry).
    for (int slots = limit > 0 ? limit : 8;; slots *= 2) {
      TrialCaches caches(ports, slots);
      std::vector<std::vector<int64_t>> paths(F);
      std::unordered_map<uint32_t, int> first_of;  // connection -> its first flow
      for (const int f : order) {
        const uint32_t dst = plan.dst[at(f, t, T)];
        if (dst == kUnlimited || source[f] < 0) continue;
        const uint32_t gcid =
            connection_gcid(static_cast<uint32_t>(source[f]), dst, static_cast<uint32_t>(topo.num_endpoints));
        const auto known = first_of.find(gcid);
        if (known != first_of.end()) {
          paths[f] = paths[known->second];
          continue;
        }
        first_of.emplace(gcid, f);
        paths[f] = set_up_one(topo, m.tree, base, ports, caches, source[f], static_cast<int>(dst), gcid);
      }
      const int used = caches.max_used(ports);
      if (limit == 0 && used == slots) continue;
      most = std::max(most, used);
      for (int64_t gp = 0; gp < ports; ++gp)
        for (int e = 0; e < slots; ++e) {
          const size_t i = static_cast<size_t>(gp) * slots + e;
          if (caches.gcid[i] != kNoGcid) kept[t].push_back({gp, caches.gcid[i], caches.port[i]});
        }
      each_trial(t, paths);
      break;
    }
  }

  // The batch's columns: as many entries per port as any port holds (unused entries change nothing).
  m.prc_slots = std::max(1, most);
  const int S = m.prc_slots;
  spec.prc_gcid.assign(static_cast<size_t>(ports) * S * T, kNoGcid);
  spec.prc_port.assign(static_cast<size_t>(ports) * S * T, 0);
  std::vector<int> fill(ports);
  for (int t = 0; t < T; ++t) {
    std::fill(fill.begin(), fill.end(), 0);
    for (const PrcEntry& e : kept[t]) {
      const int64_t i = at(e.gp * S + fill[e.gp]++, t, T);
      spec.prc_gcid[i] = e.gcid;
      spec.prc_port[i] = e.port;
    }
  }
  return most;
}

}  // namespace saturn
