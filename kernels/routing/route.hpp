// Route lookup at a switch input: deterministic table (D-mod-K or shortest path), an oblivious
// uniform draw among the minimal output ports (PAPERS-SPEC M14, M15: per packet, per hop), or the
// connection's PRC entry at this input, else the default port (flow-level adaptive routing, M17;
// with routing.route_setup = "packets" the entries are the ones setup packets wrote, route_setup.hpp).
#pragma once
#include <cstdint>

#include "kernels/common/bits.hpp"
#include "kernels/common/rng.hpp"
#include "kernels/routing/route_cache.hpp"
#include "kernels/routing/route_setup.hpp"
#include "kernels/routing/tree_route.hpp"
#include "kernels/state/engine_view.hpp"

namespace saturn {

// in_port: the input's port number at sw (in_gp - in_port is sw's first global port); flags: the
// packet's (route setup and teardown packets act on the route caches).
SATURN_INLINE int route_output(const EngineView& v, int sw, uint32_t src, uint32_t dst, uint32_t flags, int trial,
                               int in_gp, int in_port, uint32_t cycle) {
  const int lg = v.model.tree_route_lg;  // > 0 only for kDeterministic and kOblivious (routing_setup.cpp)
  uint64_t mask;
  if (lg > 0) {  // the tables' ports, computed (tree_route.hpp)
    const TreeRoute r = tree_route(sw, dst, lg, v.model.tree_route_n);
    if (v.model.route_mode == RouteMode::kDeterministic || !r.up) return r.port;
    mask = tree_route_mask(r, lg);
  } else {
    const int64_t entry = static_cast<int64_t>(sw) * v.net.num_endpoints + dst;
    if (v.model.route_mode == RouteMode::kDeterministic) return v.net.route_det[entry];
    if (v.model.route_mode == RouteMode::kFlowAdaptive) {
      if (v.model.cc.route_setup) return route_setup_hop(v, sw, in_gp - in_port, in_port, src, dst, flags, trial);
      const PrcTable prc{v.trial.prc_gcid, v.trial.prc_port, v.model.prc_slots, v.model.trials};
      const uint32_t gcid = connection_gcid(src, dst, static_cast<uint32_t>(v.net.num_endpoints));
      return data_hop(v.model.tree, prc, sw, in_gp - in_port, in_port, dst, gcid, trial);
    }
    mask = v.net.choice_masks[v.net.route_choice[entry]];
  }
  const int n = popcount64(mask);
  if (n == 1) return lowest_bit(mask);
  const Draw4 d = philox(v.trial.seed[trial], 0u, static_cast<uint32_t>(in_gp), cycle, Stream::kRoute);
  return nth_set_bit(mask, static_cast<int>(uniform_below(d.v[0], static_cast<uint32_t>(n))));
}

}  // namespace saturn
