// The engine's columns, generated from the one list kernels/state/state_columns.def: the extents
// its rows are written in, the groups that decide full-size allocation, the Column<> members,
// their allocation, the wiring of the kernels' view and the memory estimate that sizes batches.
// Included only by engine.cu (it needs Thrust's device system).
#pragma once
#include <climits>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "host/engine/column.hpp"
#include "host/engine/engine.hpp"
#include "host/topology/topology.hpp"
#include "kernels/state/engine_view.hpp"
#include "kernels/state/trial_stage.hpp"

namespace saturn {

template <class T>
constexpr bool kNoPaddingBytes = std::is_floating_point_v<T> || std::has_unique_object_representations_v<T>;

// Per-port ring layout (kernels/state/link_ring.hpp): depth = the link class's latency + 1 (1 for an
// unconnected port), rings laid out port after port; endpoint e's injection ring has the depth of
// the switch port it attaches to.
struct PortRings {
  std::vector<int32_t> base, depth, inj_base;
  int64_t slots = 0, inj_slots = 0;
};
inline PortRings port_rings(const Topology& topo, const ModelParams& m) {
  PortRings r;
  std::vector<int32_t> first(topo.num_switches() + 1, 0);
  for (int s = 0; s < topo.num_switches(); ++s) first[s + 1] = first[s] + topo.radix(s);
  for (int s = 0; s < topo.num_switches(); ++s)
    for (int p = 0; p < topo.radix(s); ++p) {
      const bool linked = topo.ports[s][p].kind != PeerKind::kNone;
      const int cls = topo.port_class.empty() ? 0 : static_cast<int>(topo.port_class[s][p]);
      const int32_t d = linked ? m.class_latency[cls] + 1 : 1;
      r.base.push_back(static_cast<int32_t>(r.slots));
      r.depth.push_back(d);
      r.slots += d;
    }
  for (int e = 0; e < topo.num_endpoints; ++e) {
    r.inj_base.push_back(static_cast<int32_t>(r.inj_slots));
    r.inj_slots += r.depth[first[topo.endpoint_switch[e]] + topo.endpoint_port[e]];
  }
  return r;
}

// Per-port packet pools (kernels/state/voq.hpp, per_port_buffers): each input port has the entries
// of its link class, pools laid out port after port.
struct PortPools {
  std::vector<int32_t> base, entries, vc_flits;
  int64_t slots = 0;
};
inline PortPools port_pools(const Topology& topo, const ModelParams& m) {
  PortPools r;
  for (int s = 0; s < topo.num_switches(); ++s)
    for (int p = 0; p < topo.radix(s); ++p) {
      const int cls = topo.port_class.empty() ? 0 : static_cast<int>(topo.port_class[s][p]);
      const int32_t n = topo.ports[s][p].kind == PeerKind::kNone ? 0 : m.class_entries[cls];
      r.base.push_back(static_cast<int32_t>(r.slots));
      r.entries.push_back(n);
      r.vc_flits.push_back(m.class_vc_flits[cls]);
      r.slots += n;
    }
  return r;
}

// The element counts the extent expressions of the list are written in (`x.` in a row).
struct Extents {
  int64_t switches = 0, ports = 0, endpoints = 0;
  int64_t depth = 0, vcs = 0, entries = 0, radix = 0;  // link ring depth, VCs, packet entries per input, largest radix
  int64_t queue = 0, active = 0, ack_queue = 0;  // per endpoint: source queue, send queues, ACK queue
  int64_t flows = 0, flows_or_1 = 1, flows_per_source = 0;
  int64_t sched_flows = 0;   // flows with a scheduler gap (injection.scheduler = ipd, svc, ps), else 0
  int64_t dest_entries = 0;  // per-trial destination table: N * W (permutations), W (hot spots), else 0
  int64_t choices = 0;       // minimal-port masks of the routing tables (0 when only estimating)
  int64_t trace_nodes = 0, trace_events = 0, trace_succ = 0;  // trace replay: endpoints, events, dependents (0 = off)
  int64_t arn_entries = 0;   // ARN table entries per switch (isolation.arn_table_entries)
  int64_t lhrp_slots = 0;    // LHRP: retransmissions a source can hold (cc.lhrp_outstanding), else 0
  int64_t srp_records = 0;   // SRP: messages a source can have unsettled (cc.srp_messages), else 0
  int64_t ecn_width = 0;     // 001's ECN: states per source (N per pair, 1 per source), else 0
  int64_t prc_entries = 0;   // routing.algorithm = adaptive, set up on the host: ports x PRC entries per port, else 0
  int64_t rc_entries = 0;    // the same, set up by packets in flight (routing.route_setup = packets), else 0
  int64_t oq_ports = 0, oq_packets = 0;  // output queues (switch.output_queue_packets): ports and K, else 0
  bool per_port_links = false, per_port_buffers = false;  // link_ring.hpp
  int64_t ring_slots = 0, inj_ring_slots = 0;  // link ring slots: ports x depth, or the sum of every port's depth
  int64_t entry_slots = 0;   // input packet entries: ports x entries, or the sum of every port's pool

  Extents(const Topology& topo, const ModelParams& m, int dest_width, int num_flows,
          const RoutingTables* routes = nullptr) {
    switches = topo.num_switches();
    ports = topo.total_ports();
    endpoints = topo.num_endpoints;
    depth = m.link_depth;
    vcs = m.vcs;
    entries = m.entries;
    radix = m.max_radix;
    queue = m.queue_capacity;
    active = m.active_queues;
    ack_queue = m.cc.ack_queue;
    flows = num_flows;
    flows_or_1 = num_flows > 0 ? num_flows : 1;
    flows_per_source = m.flows_per_source;
    sched_flows = injection_scheduled(m) ? num_flows : 0;
    arn_entries = m.iso.arn_entries;
    lhrp_slots = m.cc.speculative ? m.cc.lhrp_outstanding : 0;
    srp_records = m.cc.srp_on() ? m.cc.srp_messages : 0;
    ecn_width = m.cc.ecn ? (m.cc.ecn_per_source ? 1 : endpoints) : 0;
    prc_entries = m.route_mode == RouteMode::kFlowAdaptive && !m.cc.route_setup ? ports * m.prc_slots : 0;
    rc_entries = m.route_mode == RouteMode::kFlowAdaptive && m.cc.route_setup ? ports * m.prc_slots : 0;
    oq_ports = m.oq_packets > 0 ? ports : 0;
    oq_packets = m.oq_packets;
    if (m.pattern == TrafficPattern::kPermutation) dest_entries = endpoints * dest_width;
    if (m.pattern == TrafficPattern::kHotspot) dest_entries = dest_width;
    choices = routes ? static_cast<int64_t>(routes->choice_masks.size()) : 0;
    if (m.trace) {
      trace_nodes = endpoints;
      trace_events = m.trace_events;
      trace_succ = m.trace_succ;
    }
    per_port_links = m.per_port_links;
    per_port_buffers = m.per_port_buffers;
    ring_slots = ports * depth;
    inj_ring_slots = endpoints * depth;
    if (per_port_links) {
      const PortRings r = port_rings(topo, m);
      ring_slots = r.slots;
      inj_ring_slots = r.inj_slots;
    }
    entry_slots = ports * entries;
    if (per_port_buffers) entry_slots = port_pools(topo, m).slots;
  }
};

// When a row's column is allocated full size (else one element that no kernel path reads).
enum class ColumnGroup : uint8_t { kAlways, kCcSwitch, kCcBypass, kCcQueue, kCcAnswer, kSeparable, kTrace, kInjection,
                                   kIsolation, kIsolationAny, kLhrp, kEcn, kVictims, kSizeSplit, kCtrlArg,
                                   kSaaProbes, kRouteSetup, kMixedSizes, kCreditPool, kPerHopVc };

inline bool group_allocated(ColumnGroup g, const ModelParams& m) {
  switch (g) {
    case ColumnGroup::kAlways: return true;
    case ColumnGroup::kCcSwitch: return m.cc.track_occupancy;
    case ColumnGroup::kCcBypass: return m.arbitration == Arbitration::kFifoBypass;
    case ColumnGroup::kCcQueue: return m.cc.endpoint_state;
    case ColumnGroup::kCcAnswer: return m.cc.control_packets();
    case ColumnGroup::kSeparable: return m.allocator == Allocator::kSeparableInputFirst;
    case ColumnGroup::kTrace: return m.trace;
    case ColumnGroup::kInjection: return injection_scheduled(m);
    case ColumnGroup::kIsolation: return iso_arn(m.iso);
    case ColumnGroup::kIsolationAny: return iso_on(m.iso);
    case ColumnGroup::kLhrp: return m.cc.speculative;
    case ColumnGroup::kEcn: return m.cc.ecn;
    case ColumnGroup::kVictims: return m.victim_stats;
    case ColumnGroup::kSizeSplit: return m.size_split > 0;
    case ColumnGroup::kCtrlArg: return m.cc.control_arg();
    case ColumnGroup::kSaaProbes: return m.cc.saa_probes;
    case ColumnGroup::kRouteSetup: return m.cc.route_setup;
    case ColumnGroup::kMixedSizes: return m.mixed_sizes;
    case ColumnGroup::kCreditPool: return m.pool_flits > 0;
    case ColumnGroup::kPerHopVc: return m.vc_per_hop;
  }
  return true;
}

// Elements a column gets: extent * copies (T for per-trial rows, 1 for shared ones) where its
// group is on, and never fewer than one, so that data() is always a valid pointer.
inline size_t column_elements(bool on, int64_t extent, int64_t copies) {
  const int64_t n = on ? extent * copies : 0;
  return static_cast<size_t>(n > 0 ? n : 1);
}

// Elements of a column per trial in the memory estimate (0 where its group is off).
inline size_t estimate_elements(bool on, int64_t extent) { return static_cast<size_t>(on && extent > 0 ? extent : 0); }

// One Column per row of the list. Names are unique across all of it (the compiler checks).
struct EngineColumns {
// Every column's type has no padding: its bytes, saved with the state and compared by the tests,
// are all values (kernels/isolation/arn_table.hpp pads its structs explicitly). (A float has no
// padding, though two of its representations may compare equal.)
#define SATURN_COLUMN_MEMBER(name, type)                                             \
  static_assert(kNoPaddingBytes<type>, #name ": a column type with padding bytes"); \
  Column<type> name;
#define SATURN_NET_COLUMN(name, type, extent) SATURN_COLUMN_MEMBER(name, type)
#define SATURN_STATE_COLUMN(name, type, extent, group, init) SATURN_COLUMN_MEMBER(name, type)
#define SATURN_CC_COLUMN(name, type, extent, group, init) SATURN_COLUMN_MEMBER(name, type)
#define SATURN_TRIAL_COLUMN(name, type, extent, init) SATURN_COLUMN_MEMBER(name, type)
#define SATURN_SHARED_COLUMN(name, type, extent, init) SATURN_COLUMN_MEMBER(name, type)
#include "kernels/state/state_columns.def"
#undef SATURN_COLUMN_MEMBER

  // Every column at its size, filled with its initial value, in list order (each at its own
  // stagger offset). Contents that are not one constant are uploaded afterwards (engine.cu).
  void allocate(const Extents& x, const ModelParams& m, ColumnStagger& stagger) {
    const int64_t T = m.trials;
#define SATURN_NET_COLUMN(name, type, extent) name.assign(column_elements(true, (extent), 1), type{}, stagger);
#define SATURN_STATE_COLUMN(name, type, extent, group, init) \
  name.assign(column_elements(group_allocated(ColumnGroup::group, m), (extent), T), static_cast<type>(init), stagger);
#define SATURN_CC_COLUMN(name, type, extent, group, init) \
  name.assign(column_elements(group_allocated(ColumnGroup::group, m), (extent), T), static_cast<type>(init), stagger);
#define SATURN_TRIAL_COLUMN(name, type, extent, init) \
  name.assign(column_elements(true, (extent), T), static_cast<type>(init), stagger);
#define SATURN_SHARED_COLUMN(name, type, extent, init) \
  name.assign(column_elements(true, (extent), 1), static_cast<type>(init), stagger);
#include "kernels/state/state_columns.def"
  }

  // Points every field of the view at its column.
  void wire(EngineView& v) {
#define SATURN_NET_COLUMN(name, type, extent) v.net.name = name.data();
#define SATURN_STATE_COLUMN(name, type, extent, group, init) v.state.name = name.data();
#define SATURN_CC_COLUMN(name, type, extent, group, init) v.state.cc.name = name.data();
#define SATURN_TRIAL_COLUMN(name, type, extent, init) v.trial.name = name.data();
#define SATURN_SHARED_COLUMN(name, type, extent, init) v.trial.name = name.data();
#include "kernels/state/state_columns.def"
  }

  // The per-trial rows one trial stages (kernels/state/trial_stage.hpp): every STATE, CC and TRIAL
  // row allocated per trial, with its elements per trial; a row whose group is off (one element
  // for the whole batch) stays 0. A trial too large for 32-bit counts gets bytes no block can hold.
  TrialStage trial_stage(int64_t T) const {
    TrialStage n{};
    bool too_large = false;
    const auto per_trial = [&](size_t size) {
      const int64_t s = static_cast<int64_t>(size);
      const int64_t e = s % T == 0 && (s > 1 || T == 1) ? s / T : 0;
      too_large = too_large || e > INT32_MAX;
      return static_cast<int32_t>(e > INT32_MAX ? 0 : e);
    };
#define SATURN_STATE_COLUMN(name, type, extent, group, init) n.name = per_trial(name.size());
#define SATURN_CC_COLUMN(name, type, extent, group, init) n.name = per_trial(name.size());
#define SATURN_TRIAL_COLUMN(name, type, extent, init) n.name = per_trial(name.size());
#include "kernels/state/state_columns.def"
    n.bytes = too_large ? INT64_MAX : stage_bytes(n);
    return n;
  }

  // What is allocated, column by column (Engine::column_bytes).
  std::vector<ColumnBytes> allocated() const {
    std::vector<ColumnBytes> out;
#define SATURN_NET_COLUMN(name, type, extent) out.push_back({#name, sizeof(type), name.size(), false});
#define SATURN_STATE_COLUMN(name, type, extent, group, init) out.push_back({#name, sizeof(type), name.size(), true});
#define SATURN_CC_COLUMN(name, type, extent, group, init) out.push_back({#name, sizeof(type), name.size(), true});
#define SATURN_TRIAL_COLUMN(name, type, extent, init) out.push_back({#name, sizeof(type), name.size(), true});
#define SATURN_SHARED_COLUMN(name, type, extent, init) out.push_back({#name, sizeof(type), name.size(), false});
#include "kernels/state/state_columns.def"
    return out;
  }
};

// Every per-trial row (state and per-trial inputs; the shared tables are one copy per batch and
// not listed) with the elements one trial needs: the estimate that sizes batches, column by column
// (rows whose group is off have 0 elements).
inline std::vector<ColumnBytes> estimate_columns_per_trial(const Extents& x, const ModelParams& m) {
  std::vector<ColumnBytes> out;
#define SATURN_STATE_COLUMN(name, type, extent, group, init) \
  out.push_back({#name, sizeof(type), estimate_elements(group_allocated(ColumnGroup::group, m), (extent)), true});
#define SATURN_CC_COLUMN(name, type, extent, group, init) \
  out.push_back({#name, sizeof(type), estimate_elements(group_allocated(ColumnGroup::group, m), (extent)), true});
#define SATURN_TRIAL_COLUMN(name, type, extent, init) \
  out.push_back({#name, sizeof(type), estimate_elements(true, (extent)), true});
#include "kernels/state/state_columns.def"
  return out;
}

// Bytes per trial: the sum over the rows above.
inline size_t estimate_bytes_per_trial(const Extents& x, const ModelParams& m) {
  size_t b = 0;
  for (const ColumnBytes& c : estimate_columns_per_trial(x, m)) b += c.elements * c.element_bytes;
  return b;
}

}  // namespace saturn
