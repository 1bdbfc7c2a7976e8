// Dragonfly geometry (PAPERS-SPEC M4) and the host-side path helpers that minimal, Valiant, UGAL and
// PAR routing (M19) build on: groups, channels between groups, minimal port sets, hop counts.
//
// Deadlock freedom (M19; assigning VCs is the engine's job, not done here): minimal routes
// (local, global, local) need 2 VC classes, one for hops before the global hop and one after,
// because a local channel is the first hop of some packets and the last hop of others, which closes
// a cycle local(X) -> global(X,Y) -> local(Y) -> global(Y,X) -> local(X). Valiant routes (l g l g l)
// need 3 local and 2 global classes, the VC index rising at each global hop. PAR may add one more
// local hop in the source group after its re-evaluation: 4 local classes (001 names "PAR6/2";
// whether that means 6 local and 2 global VCs is unverified, see M19). With one VC, as the engine
// has today, minimal dragonfly routing can deadlock at high load.
#pragma once
#include <cstdint>
#include <vector>

#include "host/topology/topology.hpp"

namespace saturn {

inline int df_group_of_switch(const DragonflyParams& d, int sw) { return sw / d.a; }
inline int df_switch_of_endpoint(const DragonflyParams& d, int e) { return e / d.p; }
inline int df_group_of_endpoint(const DragonflyParams& d, int e) { return e / (d.a * d.p); }
inline int df_endpoints_per_group(const DragonflyParams& d) { return d.a * d.p; }
inline int df_radix(const DragonflyParams& d) { return d.p + d.a - 1 + d.h; }

// Port of switch `from` (index in its group) leading to switch `to` of the same group.
inline int df_local_port(const DragonflyParams& d, int from, int to) { return d.p + (to < from ? to : to - 1); }
// Port of global channel j (0..h-1) of a switch.
inline int df_global_port(const DragonflyParams& d, int j) { return d.p + d.a - 1 + j; }

// Group reached by channel c (0..a*h-1) of group `group`, or -1 where c is unconnected.
int df_channel_target(const DragonflyParams& d, int group, int c);
// The channel of the target group on which channel c lands (its own index there).
int df_channel_landing(const DragonflyParams& d, int c);
// Channels of from_group that lead to to_group, ascending (one for g = a*h+1).
std::vector<int> df_channels_between(const DragonflyParams& d, int from_group, int to_group);

// Switch-to-switch hops of a minimal (local, global, local) path; 0 for the same switch.
int df_min_hops(const DragonflyParams& d, int src_switch, int dst_switch);
// Ports of src_switch that start a minimal path to dst_switch (bit p = port p); 0 when equal.
uint64_t df_min_port_mask(const DragonflyParams& d, int src_switch, int dst_switch);
// Hops of a Valiant path: minimal to mid_group (through the channel that makes the whole path
// shortest), then minimal from the landing switch to dst_switch. mid_group must differ from the
// source group.
int df_valiant_hops(const DragonflyParams& d, int src_switch, int mid_group, int dst_switch);
// Valiant's intermediate group from one random word: uniform over the groups that are neither the
// source nor the destination group (g >= 3, or g >= 2 when they are the same group).
int df_intermediate_group(uint32_t word, int src_group, int dst_group, int g);
// UGAL's choice (M19, suggested cost = queue occupancy x hops): true = take the minimal path.
// threshold biases towards minimal; ties go to minimal.
inline bool ugal_prefers_minimal(int64_t queue_min, int hops_min, int64_t queue_nonmin, int hops_nonmin,
                                 int64_t threshold) {
  return queue_min * hops_min <= queue_nonmin * hops_nonmin + threshold;
}

// Shape of a dragonfly before building it, for the closed-form memory estimate
// (host/engine/memory_estimate.cpp): switches a*g, ports (p+a-1+h)*a*g, endpoints p*a*g.
struct TopologyCounts {
  double switches = 0, ports = 0, endpoints = 0;
};
TopologyCounts dragonfly_counts(const DragonflyParams& d);
// Throws ConfigError naming the topology.dragonfly_* key a bad parameter set breaks (the builder
// checks the same, so the memory estimate can check before building).
void validate_dragonfly(const DragonflyParams& d);
// Same for the 3-stage RLFT of radix 2K: 5K^2 switches of 2K ports, 2K^3 endpoints.
TopologyCounts rlft_counts(int radix);
void validate_rlft_radix(int radix);  // ConfigError naming topology.rlft_radix, as build_rlft

}  // namespace saturn
