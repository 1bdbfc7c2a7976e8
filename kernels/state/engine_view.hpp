// Plain views of the batched engine state: raw pointers + extents, passed by value to kernels.
// Every per-trial array is indexed at(element, trial, T) (kernels/common/index.hpp).
#pragma once
#include <cstdint>

#include "kernels/common/packet.hpp"

namespace saturn {

// kFifoBypass (PAPERS-SPEC M8): FCFS per output, and a head packet whose input is busy may be
// bypassed by newer packets at most ModelParams::cc.bypass_limit times.
enum class Arbitration : uint8_t { kFcfs = 0, kRoundRobin = 1, kFifoBypass = 2 };
enum class VcArbitration : uint8_t { kPriority = 0, kRoundRobin = 1 };
enum class RouteMode : uint8_t { kDeterministic = 0, kOblivious = 1 };
enum class TrafficPattern : uint8_t { kUniform = 0, kPermutation, kHotspot, kAllToOne, kFlows, kCount };
enum class PeerType : uint8_t { kNone = 0, kSwitch = 1, kEndpoint = 2 };

constexpr uint32_t kUnlimited = 0xFFFFFFFFu;  // flits left of a flow that never ends; "never" as a cycle
constexpr int kMaxSizes = 8;                  // message size choices
constexpr int kHistBins = 124;                // latency histogram bins (stats/latency_histogram.hpp)

// Congestion control (PAPERS-SPEC M22-M28).
enum class Marking : uint8_t { kNone = 0, kNaive = 1, kInput = 2, kInputOutput = 3 };  // M23, M24, M25
enum class Response : uint8_t { kNone = 0, kAimd = 1, kFimd = 2, kLipd = 3 };           // M27

struct CcParams {
  int bypass_limit;        // kFifoBypass: bypasses a head packet may suffer
  Marking marking;
  int output_threshold;    // kInputOutput: packets waiting for an output that fire the output trigger
  bool output_level;       // output trigger on every arrival above the threshold (else on crossing it)
  bool track_occupancy;    // keep in_flits / out_cnt1 (marking, CCA, buffer-full statistics)
  bool full_stats;         // count cycles each input buffer is full (stats.per_link)
  bool acks;               // destinations ACK every data packet (window or rate response)
  int ack_flits, ack_vc, ack_queue;
  bool ack_vc_separate;    // the ACK class has a VC of its own, with ack_vc_flits of buffer
  int ack_vc_flits;
  int window;              // packets in flight per send queue, 0 = unlimited
  Response response;
  bool discrete_ipd;       // rate = 1 / (1 + ipd), ipd in 0..255, instead of continuous
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
  bool source_cc() const { return window > 0 || response != Response::kNone || cca; }
  // Destinations send control packets (ACKs, or BECNs for CCA alone).
  SATURN_HD bool answers() const { return acks || cca; }
};

// Shared, read-only network description (same for all trials).
struct NetView {
  int num_switches, num_ports, num_endpoints;
  const int32_t* sw_port_base;   // [S + 1] global port ids of switch s: [base[s], base[s+1])
  const uint8_t* peer_type;      // [P] what is beyond port gp
  const int32_t* peer;           // [P] global port id of the peer port, or endpoint id
  const int32_t* ep_port;        // [N] global port id the endpoint attaches to
  const uint8_t* route_det;      // [S * N] deterministic local output port
  const uint16_t* route_choice;  // [S * N] index into choice_masks
  const uint64_t* choice_masks;  // minimal local output ports
};

// Scalar model parameters (in cycles and flits).
struct ModelParams {
  int trials;
  int link_depth;          // ring depth of links and credit channels = latency + 1
  int link_latency;        // cycles from a flit's transmission start to its arrival (>= 1)
  int router_delay;        // cycles from header arrival to eligibility
  int vcs;
  int vc_flits;            // input buffer per data VC, flits (vc_capacity() for any VC)
  int slots;               // packet slots per input port (<= 64)
  int speedup;             // packets an input may send at once; 0 = unlimited
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
};

// Congestion-control state (allocated with one element where the feature is off).
struct CcState {
  // switch ports
  uint16_t* in_flits;        // [gp * V + vc] flits resident at input gp (header arrival to tail departure)
  uint32_t* in_tail_at;      // [gp] cycle the tail of the packet arriving at gp lands
  uint8_t* in_tail_vc;       // [gp] its VC
  uint16_t* out_cnt1;        // [gp] data packets in the switch for output gp (M24 cnt1)
  uint16_t* out_cnt2;        // [gp] departures still to mark (M24 cnt2)
  uint16_t* out_head;        // [gp] kFifoBypass: 1 + input * 64 + slot of the head being bypassed, 0 = none
  uint8_t* out_bypass;       // [gp] times that head has been bypassed
  uint8_t* out_stalled;      // [gp] CCA: waited for credits since the last departure (a victim, not a root)
  uint16_t* out_mark_count;  // [gp] CCA: root departures since the last FECN
  uint64_t* st_full_cycles;  // [gp] cycles input gp was full (cannot take one more MTU packet)
  // endpoints: per send queue
  uint16_t* act_inflight;    // [e * A + a] data packets not yet ACKed
  double* act_rate;          // rate limit of the response function, 1 = line rate
  uint16_t* act_index;       // CCA: CCT index
  uint32_t* act_timer;       // CCA: cycle of the next index decrement
  uint32_t* act_last_start;  // cycle the last packet started
  uint16_t* act_last_size;   // its flits
  uint32_t* act_phase_end;   // dynamic flows: end of the current ON or OFF period, kUnlimited = static
  uint8_t* act_off;          // dynamic flows: in an OFF period
  // endpoints: ACK / BECN queue
  uint32_t* ackq_word;       // [e * AQ + i] dst | flags << 24
  uint32_t* ackq_ready;      // cycle it may leave
  uint16_t* ackq_head;       // [e]
  uint16_t* ackq_count;      // [e]
  uint32_t* ctrl_word;       // [e] a control packet being received: src | flags << 24, 0 = none
  uint32_t* ctrl_at;         // [e] the cycle its tail arrives (it acts then)
  uint64_t* st_ctrl_injected;   // [e] ACK / BECN packets sent
  uint64_t* st_ctrl_delivered;  // [e] ACK / BECN packets received
  uint64_t* st_acks_dropped;    // [e] ACKs lost to a full ACK queue
  uint64_t* st_marked;          // [e] marked data packets received
};

// Whether any congestion-control path runs (else the launch layer compiles them out).
SATURN_INLINE bool model_uses_cc(const ModelParams& m) {
  return m.arbitration == Arbitration::kFifoBypass || m.cc.track_occupancy || m.cc.endpoint_state || m.cc.acks ||
         m.cc.cca;
}

// Input buffer of one VC in flits (= the upstream's credits for it).
SATURN_INLINE int vc_capacity(const ModelParams& m, int vc) {
  return m.cc.ack_vc_separate && vc == m.cc.ack_vc ? m.cc.ack_vc_flits : m.vc_flits;
}

// Mutable batched state.
struct StateView {
  // links: ring of depth D per switch output port, and per endpoint injection link
  Packet* link;            // [(gp * D + slot)]
  Packet* inj_link;        // [(e * D + slot)]
  uint16_t* credit;        // [((gp * D + slot) * V + vc)] flits freed at input gp, written by its switch

  // switch output ports
  uint32_t* out_busy_until;  // [gp]
  int32_t* out_credits;      // [gp * V + vc]
  uint8_t* out_rr;           // [gp] next input to favour (round-robin)
  uint8_t* out_vc_rr;        // [gp]
  uint64_t* out_busy_cycles; // [gp] utilization counter

  // switch input ports and their slots
  uint64_t* in_occupied;     // [gp] slot mask (resident or departing)
  uint64_t* in_departing;    // [gp] slot mask: sent, tail not yet out
  Packet* slot_pkt;          // [gp * SL + s]
  uint32_t* slot_time;       // ready cycle (resident) or free cycle (departing)
  uint32_t* slot_tie;        // FCFS tie-break among same-cycle arrivals
  uint8_t* slot_out;         // local output port
  uint16_t* slot_fv;         // size_flits << 4 | vc of the packet in the slot (the grant phase's compact copy)

  // endpoints: source queue of messages (ring)
  uint32_t* q_head;          // [e]
  uint32_t* q_count;         // [e]
  uint32_t* q_dst;           // [e * Q + i]
  uint32_t* q_flits;
  uint32_t* q_birth;
  // active send queues
  uint32_t* act_dst;         // [e * A + a]
  uint32_t* act_left;        // flits left, 0 = free, kUnlimited = never ends
  uint32_t* act_birth;
  uint32_t* act_stop;        // cycle the flow stops, kUnlimited = never
  uint64_t* act_next_q16;    // earliest start of the next packet, in 1/65536 cycles (rate limit)
  uint32_t* act_gap_q16;     // cycles per flit * 65536 (65536 = line rate)
  uint8_t* act_vc;           // VC of its packets
  uint8_t* ep_rr;            // [e]
  uint32_t* ep_busy_until;   // [e]
  int32_t* ep_credits;       // [e * V + vc]
  uint8_t* ep_flow_next;     // [e] next entry of the flow table to activate
  uint32_t* ep_next_message; // [e] cycle of the next open-loop message (kUnlimited = never)

  // statistics, owned by endpoints (integers only: bit-identical everywhere)
  uint64_t* st_generated;    // [e] messages generated
  uint64_t* st_refused;      // [e] messages refused (source queue full)
  uint64_t* st_inj_packets;
  uint64_t* st_inj_flits;
  uint64_t* st_del_packets;
  uint64_t* st_del_flits;
  uint64_t* st_net_lat_sum;
  uint64_t* st_msg_done;
  uint64_t* st_msg_lat_sum;
  uint32_t* st_net_hist;     // [e * H + bin]
  uint32_t* st_msg_hist;     // [e * H + bin]
  uint64_t* st_flow_flits;   // [f] delivered flits of explicit/phase flow f (owned by its destination)
  uint32_t* st_flow_done;    // [f] cycle its last flit arrived (kUnlimited = not finished)
  uint64_t* st_violations;   // [trial] invariant violations (debug mode)
  CcState cc;
};

// Per-trial inputs prepared by the host.
struct TrialView {
  const uint64_t* seed;          // [t]
  const double* log1m_p_msg;         // [t] ln(1 - p), p = message probability per cycle (main traffic)
  const double* log1m_p_background;  // [t] the same for hot-spot background sources
  const uint32_t* dest_table;    // [(e * W + j)] per-trial destinations (permutations, hot spots)
  const uint8_t* role;           // [e] per trial: 0 idle, 1 main pattern, 2 background uniform
  // flow table (explicit flows or phase flows), [(e * FPS + j)]; dst per trial for phase flows
  const int32_t* flow_index;     // [e * FPS + j] global flow id, -1 = none (shared)
  const uint32_t* flow_dst;      // [(f)] per trial
  const uint32_t* flow_flits;    // [f] shared, kUnlimited = greedy
  const uint32_t* flow_start;    // [f] shared
  const uint32_t* flow_stop;     // [f] shared
  const uint32_t* flow_gap_q16;  // [f] shared
  const uint8_t* flow_vc;        // [f] shared
  const uint8_t* flow_dynamic;   // [f] shared: 1 = ON/OFF flow (cc.on_off_mean)
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
