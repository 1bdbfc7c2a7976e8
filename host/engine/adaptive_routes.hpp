// Flow-level adaptive routing in the packet engine (routing.algorithm = "adaptive"; Zdornov & Birk,
// PAPERS-SPEC M17, M18, U4, U10): every flow of a trial's flow table is set up at t = 0, one at a
// time in a uniformly random order, by the setup packet's hop rule (kernels/routing/route_cache.hpp,
// setup_hop: flow counts per output link, strictly better alternates only, bounded PRCs). The setup
// is instantaneous (U4's default: no p_s in flight, no wait for its return) and is done here, on the
// host, because greedy setup is sequential by definition; the kernels then only look the entries up
// (route.hpp). The order is the flow engine's (kFlowLaneOrder of the trial seed) and the flows are
// the same (f = source * P + j), so one seed routes a phase the same way in both engines.
//
// One connection per (source, destination) pair (connection_gcid): a second flow of a pair (two
// superposed permutations that map a source alike) follows the first one's route and is not set up
// again, where the flow engine would route it on its own.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "host/engine/engine.hpp"

namespace saturn {

struct ModelSetup;

// Sets up the PRCs of every trial of spec: fills spec.prc_gcid, spec.prc_port and
// spec.model.prc_slots (routing.route_cache_entries, or with 0 = unlimited the most entries any
// input port holds in the batch, at least 1). Calls each_trial(t, paths) once per trial with every
// flow's links (global output ports in order; the injection link of source e is total_ports + e),
// empty for a flow with no destination. Also returns the largest PRC occupancy seen.
int set_up_adaptive_routes(const ModelSetup& setup, EngineSpec& spec,
                           const std::function<void(int, const std::vector<std::vector<int64_t>>&)>& each_trial);

}  // namespace saturn
