// Plain views of the batched engine state: raw pointers + extents, passed by value to kernels.
// Their pointer fields come from the one column list, kernels/state/state_columns.def.
// Every per-trial array is indexed at(element, trial, T) (kernels/common/index.hpp).
#pragma once
#include <cstdint>

#include "kernels/common/packet.hpp"
#include "kernels/flow/flow_view.hpp"
#include "kernels/reservation/protocol.hpp"
#include "kernels/isolation/iso_params.hpp"
#include "kernels/routing/dragonfly_route.hpp"

namespace saturn {

// kFifoBypass (PAPERS-SPEC M8): FCFS per output, and a head packet whose input is busy may be
// bypassed by newer packets at most ModelParams::cc.bypass_limit times.
enum class Arbitration : uint8_t { kFcfs = 0, kRoundRobin = 1, kFifoBypass = 2 };
// kFifoBypass: what a head at the limit does to its input (kernels/arbiters/fifo_bypass.hpp).
enum class BypassReading : uint8_t { kReserve = 0, kWait = 1, kEager = 2 };
enum class VcArbitration : uint8_t { kPriority = 0, kRoundRobin = 1 };
// kFlowAdaptive: flow-level adaptive routing on the (modified) k-ary n-tree (Zdornov & Birk, M17,
// M18): a packet follows its connection's PRC entry at each input, else the default port
// (kernels/routing/route_cache.hpp; the entries are set up on the host, host/engine/adaptive_routes.cpp,
// or by setup packets in flight, kernels/routing/route_setup.hpp).
enum class RouteMode : uint8_t { kDeterministic = 0, kOblivious = 1, kFlowAdaptive = 2 };
enum class TrafficPattern : uint8_t { kUniform = 0, kPermutation, kHotspot, kAllToOne, kFlows, kCount };
enum class PeerType : uint8_t { kNone = 0, kSwitch = 1, kEndpoint = 2 };
// Switch input queues (docs/model/switch.md): shared VOQs (any VOQ head may request), or one FIFO
// per (input, VC) (only the oldest head of the input's VC requests: head-of-line blocking).
enum class InputQueue : uint8_t { kVoq = 0, kFifo = 1 };
// Switch allocation: greedy (outputs in rotating order each take their best eligible head, a
// maximal matching), or separable input-first with round-robin pointers and several iterations
// (kernels/arbiters/separable_input_first.hpp).
enum class Allocator : uint8_t { kGreedy = 0, kSeparableInputFirst = 1 };
// Source injection scheduler (PAPERS-SPEC M30, M31; kernels/phases/endpoint_injection.hpp): round
// robin per packet (M13), per-flow inter-packet delay, Shaped Virtual Clock, Periodic Selection, or
// a fixed window (the congestion-control window with ACKs: CcParams::window).
enum class InjectionScheduler : uint8_t { kRoundRobin = 0, kIpd = 1, kSvc = 2, kPs = 3, kWindow = 4 };

constexpr uint32_t kUnlimited = 0xFFFFFFFFu;  // flits left of a flow that never ends; "never" as a cycle
constexpr int kMaxSizes = 8;                  // message size choices
constexpr int kHistBins = 124;                // latency histogram bins (stats/latency_histogram.hpp)

// Switch input buffers (kernels/state/voq.hpp): entry indices are 16-bit, 0xFFFF ends a list.
constexpr uint16_t kNoEntry = 0xFFFFu;
constexpr int kMaxPortPackets = 65535;        // packet entries one input port may have
constexpr uint32_t kNoSource = 0xFFFFFFFFu;   // out_src of an output that is not sending
constexpr uint32_t kNoEnds = 0xFFFFFFFFu;     // voq_ends of an empty VOQ (no head, no tail)
constexpr uint32_t kEmptyReady = 0xFFFFFFFFu; // voq_ready of an empty VOQ: never <= a cycle (< 2^31)

// Congestion control (PAPERS-SPEC M22-M28).
enum class Marking : uint8_t { kNone = 0, kNaive = 1, kInput = 2, kInputOutput = 3 };  // M23, M24, M25
enum class Response : uint8_t { kNone = 0, kAimd = 1, kFimd = 2, kLipd = 3 };           // M27
enum class RateGrid : uint8_t { kContinuous = 0, kDiscrete = 1, kDiscreteNearest = 2 };  // M26, U14

struct CcParams {
  int bypass_limit;        // kFifoBypass: bypasses a head packet may suffer
  BypassReading bypass_reading;  // kFifoBypass: which reading of M8's rule (fifo_bypass.hpp)
  Marking marking;
  int output_threshold;    // kInputOutput: packets waiting for an output that fire the output trigger
                           // (a per-trial key: the kernels read TrialView::output_threshold)
  bool output_level;       // output trigger on every arrival above the threshold (else on crossing it)
  bool track_occupancy;    // keep in_flits / out_cnt1 (marking, CCA, buffer-full statistics)
  bool full_stats;         // count cycles each input buffer is full (stats.per_link)
  bool acks;               // destinations ACK every data packet (window or rate response)
  int ack_flits, ack_vc, ack_queue;
  bool ack_vc_separate;    // the ACK class has a VC of its own, with ack_vc_flits of buffer
  int ack_vc_flits;
  int window;              // packets in flight per send queue, 0 = unlimited
  Response response;
  RateGrid rates;          // continuous, or rate = 1 / (1 + ipd), ipd in 0..255 (cc/response.hpp)
  int ipd_steps = 1;       // cc.ipd_steps: IPD steps per packet time on the discrete grid (cc/response.hpp)
  bool persistent;         // keep the CC state when a send queue starts a new flow to the same destination
  bool cca;                // InfiniBand CCA (M22): FECN at roots, BECN, CCT index and timer
  int cca_threshold_packets;  // a port with more packets than this waiting is congested
  int cca_marking_period;  // a root marks one packet in this many
  int cca_ipd_step;        // CCT: IPD = index * step cycles
  int cca_max_index;
  int cca_timer;           // cycles without a BECN that lower the index by one
  uint32_t on_off_mean;    // dynamic flows: mean ON and OFF time, cycles
  bool dynamic_flows;      // some flow is dynamic
  bool endpoint_state;     // per-send-queue state allocated (source_cc() or dynamic flows)
  // The speculative protocols of 001 (cc.protocol = lhrp, lhrp_fabric_drop, smsrp;
  // kernels/reservation/lhrp_engine.hpp): data leaves speculatively, may be dropped and NACKed, and
  // is resent non-speculatively at a reserved time. lhrp_params: the threshold, the scheduler's lead
  // and overhead.
  bool speculative;        // any of them
  bool last_hop_drop;      // LHRP: drop at the last hop above the threshold; the NACK carries the booked time
  bool fabric_drop;        // LHRP with fabric drop, SMSRP: drop where the in-network time exceeds spec_timeout; a NACK without time
  bool nic_grants;         // SMSRP, SRP: the destination NIC answers a Res with a Gnt from its register
  // SRP (M32) and the comprehensive protocol (M36): a message of at least srp_from_flits flits sends a
  // Res n as it enters service, speculates until its grant or first NACK, and sends the rest (and
  // its NACKed packets) non-speculatively from the granted time; kUnlimited = no message does.
  uint32_t srp_from_flits = 0xFFFFFFFFu;
  bool last_hop_grants = false;  // comprehensive: the last-hop switch answers the Res from its register (M36)
  // 001's InfiniBand-style ECN (cc.protocol = ecn; kernels/cc/ib_ecn.hpp): marks above ecn_threshold
  // of an input VC buffer (or of the CIOQ output queue it joins: ecn_at_output), per-pair index and timer at the sources (cca_ipd_step, cca_timer, cca_max_index).
  bool ecn = false;
  double ecn_threshold = 0.5;
  bool ecn_per_source = false;  // cc.ecn_scope = "source": one index per source, not per pair
  bool ecn_at_output = false;   // cc.ecn_marking = "output_queue": marked by the CIOQ output queue it joins
  int srp_messages = 0;    // SRP messages a source can have unsettled (sent, or waiting for grant or answers)
  uint32_t spec_timeout;   // cycles (001 Table 1: 1 us)
  int lhrp_outstanding;    // speculative packets unanswered plus NACKed ones waiting, per source
  ProtocolParams lhrp_params;  // its last_hop_threshold_flits is a per-trial key (TrialView::lhrp_threshold_flits)
  // injection.rates = "saa_probes" (kernels/cc/saa_probes.hpp): SAA's rates found by Algorithm 1's
  // control packets (AnnounceStart, ProbeLinks, AnnounceEnd) and the switches' link weight registers.
  bool saa_probes = false;
  uint32_t saa_probe_interval = 0;  // cycles from a probe's return to the flow's next probe
  bool saa_rate_after_probe = false;  // injection.saa_first_rate = probe: no data before one probe is back
  // routing.route_setup = "packets" (kernels/routing/route_setup.hpp): the adaptive routes are set up
  // and torn down by control packets in flight (M17's p_s and p_t), not on the host at t = 0.
  bool route_setup = false;
  SATURN_HD bool srp_on() const { return srp_from_flits != 0xFFFFFFFFu; }
  bool source_cc() const { return window > 0 || response != Response::kNone || cca; }
  // A send queue keeps its slot until its packets are ACKed (the source CC needs the ACKs).
  SATURN_HD bool acks_hold_queue() const { return window > 0 || response != Response::kNone; }
  // Destinations send control packets (ACKs, or BECNs for CCA alone).
  SATURN_HD bool answers() const { return acks || cca; }
  // Endpoints send control packets of any kind (answers, SAA's probes, route setup and teardown).
  SATURN_HD bool control_packets() const { return answers() || saa_probes || route_setup; }
  // Control packets carry an argument through the control FIFO (control_queue.hpp: ackq_arg).
  SATURN_HD bool control_arg() const { return speculative || saa_probes || route_setup; }
};

// Shared, read-only network description (same for all trials). The pointer fields of this and
// the other views below are generated from the one column list, kernels/state/state_columns.def,
// which also documents each of them.
struct NetView {
  int num_switches, num_ports, num_endpoints;
#define SATURN_NET_COLUMN(name, type, extent) const type* name;
#include "kernels/state/state_columns.def"
};

// Scalar model parameters (in cycles and flits).
struct ModelParams {
  int trials;
  int link_depth;          // ring depth of links and credit channels = latency + 1
  int link_latency;        // cycles from a flit's transmission start to its arrival (>= 1)
  int router_delay;        // cycles from header arrival to eligibility
  int vcs;
  int vc_flits;            // input buffer per data VC, flits (vc_capacity() for any VC); with a
                           // shared pool the most one VC may hold: vc_min_flits + pool_flits
  // switch.vc_buffer = "shared" (kernels/state/credit_pool.hpp): each data VC keeps vc_min_flits
  // of its own and the port's other pool_flits are shared; pool_flits = 0: a static split.
  int vc_min_flits;
  int pool_flits;
  int entries;             // packet entries per input port (<= kMaxPortPackets)
  int max_radix;           // largest switch radix: VOQs per input port per VC
  bool mixed_sizes;        // packets of one VC may differ in size (a VOQ head short of credits
                           // does not stop a smaller packet behind it)
  int speedup;             // packets an input may send at once; 0 = unlimited (1 with output queues)
  // Output queues (CIOQ, PAPERS-SPEC M9; kernels/state/output_queue.hpp): packets per output VC
  // queue (0 = none, the input-queued switch) and the flits the crossbar moves per cycle and port.
  int oq_packets;
  int xbar_flits;
  Arbitration arbitration;
  VcArbitration vc_arbitration;
  RouteMode route_mode;
  TrafficPattern pattern;
  int data_vc;
  int mtu_flits;
  int num_sizes;
  uint32_t size_flits[kMaxSizes];
  uint32_t size_threshold[kMaxSizes];  // cumulative probability * 2^32 (last = 2^32 - 1 saturating)
  int permutations;
  int hot_destinations;
  int root;
  bool background_uniform;
  bool open_loop;          // Bernoulli message generation on
  int active_queues;
  int queue_capacity;
  int flows_per_source;    // per-source flow table width (explicit or phase flows), 0 = none
  CcParams cc;
  uint32_t start_jitter;    // flows start up to this many cycles late, per trial (0 = at start_ns)
  // Zero-initialized = today's switch: VOQs, greedy allocation, uniform traffic never to itself.
  InputQueue input_queue;
  Allocator allocator;
  int allocator_iterations;  // kSeparableInputFirst: rounds of request and grant per cycle (>= 1)
  // switch.vc_allocation = per_hop (kernels/arbiters/vc_allocation.hpp): a packet takes a free VC of
  // each link it enters, at the source and at every switch (BookSim2's VC allocation); false = the
  // VC it was injected on (fixed). wait_tail_credit: a VC is free only with all its credits back.
  bool vc_per_hop;
  bool wait_tail_credit;
  bool include_self;         // uniform destinations include the source itself (textbook, BookSim2)
  // Trace replay (traffic.pattern = "trace", kernels/traffic/trace_replay.hpp; phases only).
  // stats.victim_latency (traffic.pattern = hotspot_window): message latency of the open-loop
  // sources (the victims; the hot sources send flows and have role kRoleIdle) also counted apart.
  bool victim_stats;
  uint32_t size_split;  // stats.size_split_flits: messages below / at or above it counted apart (0 = off)
  bool trace;
  uint32_t trace_events;     // events of the trace
  uint32_t trace_succ;       // entries of the dependents lists (tr_succ)
  InjectionScheduler injection;  // injection.scheduler (zero = round robin)
  IsolationParams iso;       // congestion isolation (docs/model/isolation.md); technique kNone = off
  // Links of different delays and VC buffers per link class (the dragonfly of 001; zero = every
  // link link_latency and every VC vc_capacity()): kernels/state/link_ring.hpp.
  bool per_port_links;       // link and credit rings per port at ring_base / ring_depth
  int class_latency[3];      // per_port_links: latency in cycles (>= 1) per link class (host LinkClass:
                             // endpoint, local, global); ring depth = latency + 1
  bool per_port_buffers;     // VC buffer of input gp = in_vc_flits[gp] (every VC)
  int class_vc_flits[3];     // per_port_buffers: VC buffer in flits per link class of the input port
  int class_entries[3];      // per_port_buffers: packet entries of an input port per link class (its pool)
  DfEngine df;               // dragonfly routing in the engine (kernels/routing/dragonfly_engine.hpp)
  FlowTree tree;             // route_mode kFlowAdaptive: the closed-form tree (its ERT and hop rule)
  int tree_route_lg;         // > 0: a k-ary n-tree's D-mod-K routes in closed form, k = 2^tree_route_lg
  int tree_route_n;          //     and n levels (kernels/routing/tree_route.hpp); 0: the route tables
  int prc_slots;             // route_mode kFlowAdaptive: PRC entries per input port (prc_gcid, prc_port)
};

// Congestion-control state (allocated with one element where the feature is off).
struct CcState {
#define SATURN_CC_COLUMN(name, type, extent, group, init) type* name;
#include "kernels/state/state_columns.def"
};

// Whether any congestion-control path runs (else the launch layer compiles them out).
SATURN_INLINE bool model_uses_cc(const ModelParams& m) {
  return m.arbitration == Arbitration::kFifoBypass || m.cc.track_occupancy || m.cc.endpoint_state || m.cc.acks ||
         m.cc.cca || m.cc.saa_probes || m.cc.route_setup;
}

// The explicit-rate schedulers (ipd, svc, ps) have their own send-queue choice in the endpoint phase
// (endpoint_injection.hpp).
SATURN_INLINE bool injection_scheduled(const ModelParams& m) {
  return m.injection == InjectionScheduler::kIpd || m.injection == InjectionScheduler::kSvc ||
         m.injection == InjectionScheduler::kPs;
}

// Whether the model needs the phase step (switch_inputs.hpp, switch_grant.hpp, endpoint_lanes.hpp):
// FIFO inputs, the separable allocator, trace replay, the injection schedulers, congestion
// isolation, per-class links and buffers, dragonfly routing, output queues, route setup packets,
// shared VC buffers and per-hop VC allocation have no fused-step version (its endpoint, endpoint_step.hpp, was never
// built or tested for them); engine_launch.cu routes them.
SATURN_INLINE bool model_needs_phases(const ModelParams& m) {
  return m.input_queue != InputQueue::kVoq || m.allocator != Allocator::kGreedy || m.trace || injection_scheduled(m) ||
         iso_on(m.iso) || m.per_port_links || m.per_port_buffers || m.df.on || m.oq_packets > 0 || m.cc.route_setup ||
         m.pool_flits > 0 || m.vc_per_hop;
}

// Input buffer of one VC in flits (= the upstream's credits for it).
SATURN_INLINE int vc_capacity(const ModelParams& m, int vc) {
  return m.cc.ack_vc_separate && vc == m.cc.ack_vc ? m.cc.ack_vc_flits : m.vc_flits;
}

// Mutable batched state.
struct StateView {
#define SATURN_STATE_COLUMN(name, type, extent, group, init) type* name;
#include "kernels/state/state_columns.def"
  CcState cc;
};

// Per-trial inputs prepared by the host, and the flow table shared by all trials.
struct TrialView {
#define SATURN_TRIAL_COLUMN(name, type, extent, init) const type* name;
#define SATURN_SHARED_COLUMN(name, type, extent, init) const type* name;
#include "kernels/state/state_columns.def"
  int dest_width;                // W
  int num_flows;                 // total flows
};

struct EngineView {
  NetView net;
  ModelParams model;
  StateView state;
  TrialView trial;
};

}  // namespace saturn
