// The parameter table (see params.hpp). Add a key here and it exists everywhere.
#include "host/config/params.hpp"

#include <cmath>
#include <sstream>

namespace saturn {
namespace {

constexpr double kBig = 1e15;

ParamSpec int_param(std::string key, int64_t def, double lo, double hi, std::string unit, std::string help,
                    bool per_trial = false) {
  return ParamSpec{std::move(key), ParamType::kInt, ParamValue{def}, lo, hi, {}, std::move(unit), std::move(help), per_trial};
}
ParamSpec float_param(std::string key, double def, double lo, double hi, std::string unit, std::string help,
                      bool per_trial = false) {
  return ParamSpec{std::move(key), ParamType::kFloat, ParamValue{def}, lo, hi, {}, std::move(unit), std::move(help), per_trial};
}
ParamSpec bool_param(std::string key, bool def, std::string help) {
  return ParamSpec{std::move(key), ParamType::kBool, ParamValue{def}, 0, 0, {}, "", std::move(help), false};
}
ParamSpec choice_param(std::string key, std::string def, std::vector<std::string> choices, std::string help) {
  return ParamSpec{std::move(key), ParamType::kString, ParamValue{std::move(def)}, 0, 0, std::move(choices), "", std::move(help), false};
}
ParamSpec string_param(std::string key, std::string def, std::string help) {
  return ParamSpec{std::move(key), ParamType::kString, ParamValue{std::move(def)}, 0, 0, {}, "", std::move(help), false};
}
ParamSpec list_param(std::string key, std::vector<double> def, double lo, double hi, std::string unit, std::string help,
                     bool per_trial = false) {
  return ParamSpec{std::move(key), ParamType::kFloatList, ParamValue{std::move(def)}, lo, hi, {}, std::move(unit), std::move(help), per_trial};
}

std::vector<ParamSpec> make_table() {
  return {
      // --- simulation ---
      choice_param("simulation.mode", "packet", {"packet", "flow"},
                   "packet = the cycle-stepped packet engine; flow = the flow-level engine (routes, contention, fluid rates)."),
      int_param("simulation.trials", 10, 1, 1e6, "trials", "Independent trials (seeds) per sweep point."),
      int_param("simulation.seed", 1, 0, 9223372036854775807.0, "", "Run seed; trial seeds derive from it and the global point index."),
      choice_param("simulation.seeds", "per_point", {"per_point", "common", "common_across_cases"},
                   "per_point = trial j of sweep point p has seed f(seed, p, j); common = f(seed, 0, j) at every point "
                   "(common random numbers: every point sees the same draws, as a study of one point per config would); "
                   "common_across_cases = f(seed, q, j), q the point's index over the value axes alone: the cases of "
                   "the case axes (a figure's curves) share draws, each as its one-curve config would draw them"),
      float_param("simulation.duration_ns", 100000.0, 1, kBig, "ns",
                  "Length of the measurement window after warm-up (rates, latencies, utilizations)."),
      float_param("simulation.warmup_ns", 10000.0, 0, kBig, "ns", "Time simulated before the measurement window starts."),
      float_param("simulation.time_limit_ns", 1e9, 1, kBig, "ns",
                  "Finite flows run until all complete or this much time has passed (unfinished: completion = nan)."),
      float_param("simulation.sample_interval_ns", 0.0, 0, kBig, "ns",
                  "How often results come back to the host (progress, Ctrl-C, time series); 0 = 1/100 of the run."),
      bool_param("simulation.check_invariants", false,
                 "Check packet conservation, credits and buffer bounds every cycle (slow; debugging)."),
      // --- topology ---
      choice_param("topology.kind", "kary_ntree", {"kary_ntree", "zdornov_fig1", "santos_fig1", "dragonfly", "rlft", "file"},
                   "Network: k-ary n-tree, a paper scenario, a dragonfly, a 3-stage real-life fat tree, or an edge-list file."),
      int_param("topology.k", 4, 2, 32, "", "k of the k-ary n-tree (switch radix 2k)."),
      int_param("topology.n", 3, 1, 8, "", "n (levels) of the k-ary n-tree."),
      int_param("topology.horizontal_width", 0, 0, 16, "links",
                "Modified k-ary n-tree: parallel unit links between chain-adjacent switches of a logical node (0 = unmodified)."),
      int_param("topology.local_flows", 5, 1, 60, "", "santos_fig1: L, local sources on switch B."),
      int_param("topology.remote_flows", 1, 1, 60, "", "santos_fig1: R, remote sources on switch A."),
      int_param("topology.dragonfly_p", 4, 1, 64, "", "dragonfly: endpoints per switch (001: 4)."),
      int_param("topology.dragonfly_a", 8, 1, 64, "", "dragonfly: switches per group (001: 8)."),
      int_param("topology.dragonfly_h", 4, 0, 63, "", "dragonfly: global ports per switch (001: 4)."),
      int_param("topology.dragonfly_g", 33, 1, 4097, "",
                "dragonfly: groups, at most a*h+1 (001: 33 = a*h+1, one global link between every two groups)."),
      int_param("topology.rlft_radix", 12, 4, 64, "ports",
                "rlft: switch radix 2K, even (003 Table 3: 12 = 432 nodes, 24 = 3456 nodes)."),
      string_param("topology.file", "", "Edge-list file (kind = \"file\"), relative to the config file."),
      // --- link ---
      float_param("link.bandwidth_gbps", 100.0, 1e-3, 1e6, "Gb/s", "Bandwidth of every link."),
      int_param("link.flit_bytes", 2048, 1, 1 << 20, "bytes", "Flit size: one cycle = one flit time on a link."),
      float_param("link.latency_ns", 0.0, 0, kBig, "ns",
                  "Propagation delay per link beyond one flit time (credits return with the same delay)."),
      float_param("link.local_latency_ns", -1.0, -1, kBig, "ns",
                  "dragonfly: delay of local (intra-group) links, as link.latency_ns; -1 = link.latency_ns (001: 50)."),
      float_param("link.global_latency_ns", -1.0, -1, kBig, "ns",
                  "dragonfly: delay of global (inter-group) links, as link.latency_ns; -1 = link.latency_ns (001: 1000)."),
      // --- switch ---
      int_param("switch.buffer_bytes", 16384, 1, 1e12, "bytes", "Input buffer per port, shared by its VOQs, split equally among VCs."),
      int_param("switch.vcs", 1, 1, 8, "", "Virtual channels per port."),
      int_param("switch.packet_descriptors", 0, 0, 65535, "packets",
                "Packets one input port may hold at once over all its VCs (each takes a descriptor from its "
                "header's arrival until it leaves). 0 = as many as its buffers hold in packets of the smallest "
                "size. Lower saves memory where tiny packets could fill large buffers (the dragonfly's ACKs); a "
                "port that runs out stops the run with an error naming this key (docs/model/switch.md)."),
      choice_param("switch.vc_buffer", "split", {"split", "shared"},
                   "How an input port's buffer is divided among its VCs: split (equal static shares) or shared "
                   "(each VC keeps switch.vc_min_bytes, the rest is a pool any VC may use; docs/model/switch.md)."),
      int_param("switch.vc_min_bytes", 0, 0, 1e12, "bytes",
                "vc_buffer = shared: the buffer each VC keeps for itself (at least one MTU packet); 0 = one MTU."),
      int_param("switch.global_buffer_bytes", 0, 0, 1e12, "bytes",
                "dragonfly: input buffer of a port on a global link, split among VCs as switch.buffer_bytes (which "
                "then sizes local and endpoint ports); 0 = switch.buffer_bytes. 001: 2048 flits per VC, local 128."),
      choice_param("switch.vc_arbitration", "priority", {"priority", "round_robin"},
                   "Among VCs at an output: strict priority (higher VC first: control above data) or round-robin."),
      choice_param("switch.arbitration", "fcfs", {"fcfs", "round_robin", "fifo_bypass"},
                   "Output arbitration among inputs: oldest packet first, round-robin among input ports, or FIFO "
                   "per output whose head, when its input is busy, may be bypassed switch.bypass_limit times."),
      int_param("switch.bypass_limit", 4, 0, 255, "bypasses",
                "fifo_bypass: newer packets that may overtake a head packet whose input is busy."),
      choice_param("switch.bypass_reading", "reserve", {"reserve", "wait", "eager"},
                   "fifo_bypass: a head bypassed bypass_limit times makes its output wait and reserves its input "
                   "(reserve), makes its output wait only (wait), or reserves its input from its first bypass (eager); "
                   "docs/santos2002.md compares them."),
      choice_param("switch.speedup", "unlimited", {"1", "2", "unlimited"},
                   "Packets one input buffer may send at once (to different outputs). With output queues "
                   "(switch.output_queue_packets > 0): flits the crossbar moves per cycle and port (1 or 2), "
                   "one packet at a time per input and per output."),
      int_param("switch.output_queue_packets", 0, 0, 4096, "packets",
                "CIOQ switch: a queue of this many packets per output port and VC between the crossbar and the "
                "link (001: 16); downstream credits are taken at the crossbar. 0 = no output queues: an output "
                "sends straight from the input buffer."),
      float_param("switch.router_delay_ns", 0.0, 0, kBig, "ns", "Delay from header arrival to eligibility for forwarding."),
      choice_param("switch.input_queue", "voq", {"voq", "fifo"},
                   "Input buffer discipline: VOQs (any packet at the head of its output's queue may go) or one FIFO "
                   "per input and VC (only the oldest packet may go: head-of-line blocking). No congestion control with fifo."),
      choice_param("switch.allocator", "greedy", {"greedy", "separable_input_first"},
                   "Matching of inputs to outputs each cycle: greedy (outputs in rotating order each take their best "
                   "eligible packet, a maximal matching) or separable input-first (each input requests one output, "
                   "round-robin; each output grants one request by switch.arbitration; iSLIP-style pointers)."),
      int_param("switch.allocator_iterations", 1, 1, 16, "iterations",
                "separable_input_first: request-grant rounds per cycle over the still unmatched inputs and outputs."),
      choice_param("switch.vc_allocation", "fixed", {"fixed", "per_hop"},
                   "Which VC a packet takes on each link: fixed (the VC it was injected on, the InfiniBand SL-to-VL "
                   "reading) or per_hop (BookSim2's VC allocation: at the source and at every switch the packet takes "
                   "a free VC of the next link with credits for it, round-robin from the last one taken; "
                   "docs/model/switch.md). per_hop: fat trees and other tables, without congestion control, "
                   "isolation, output queues or a shared VC buffer."),
      bool_param("switch.wait_for_tail_credit", false,
                 "per_hop: a VC is free for the next packet only once the credits of the last one's tail are back "
                 "(BookSim2's wait_for_tail_credit), so a downstream VC buffer holds one packet at a time."),
      // --- routing ---
      choice_param("routing.algorithm", "dmodk", {"dmodk", "random", "table", "adaptive", "minimal", "valiant", "ugal", "par"},
                   "D-mod-K up/down, oblivious random up-port (per packet; per flow in flow mode), shortest-path table, "
                   "or flow-level adaptive (flow mode; and the packet engine on a k-ary n-tree with flows set up at "
                   "t = 0, docs/zdornov2009.md); on a dragonfly in the packet engine, minimal, Valiant, "
                   "UGAL or PAR with VCs by hop (docs/model/dragonfly-protocols.md; switch.vcs = the VCs they need)."),
      int_param("routing.ugal_threshold", 0, 0, 1e9, "flits x hops",
                "ugal, par: bias towards the minimal path (minimal when q_min x H_min <= q_nonmin x H_nonmin + this)."),
      choice_param("routing.ugal_queue", "credits", {"credits", "credits_less_rtt"},
                   "ugal, par: queue estimate of an output, the flits of credit in use over its VCs (credits), or that "
                   "less twice the link's latency in cycles, floored at 0 (credits_less_rtt: what a busy long link holds "
                   "on the wire and in the credit return is not queue; docs/model/dragonfly-protocols.md)."),
      choice_param("routing.heuristic", "flow_count", {"flow_count", "flow_weight"},
                   "adaptive: link quality = flows already on the link, or the sum of their sizes (lower is better; ties go to the default port; the packet engine counts flows)."),
      int_param("routing.route_cache_entries", 0, 0, 65535, "entries",
                "adaptive: port routing cache (PRC) entries per input port; 0 = unlimited. A flow finding it full takes the default port."),
      choice_param("routing.route_setup", "instant", {"instant", "packets"},
                   "adaptive, packet engine: how connections are set up (M17). instant = every flow at t = 0, one at a "
                   "time in a random order, on the host (U4); packets = a setup packet per connection on the control "
                   "class (cc.ack_vc) that the source waits for before sending, and a teardown packet behind its last "
                   "data packet that erases its cache entries and flow counts (docs/zdornov2009.md)."),
      // --- endpoint ---
      int_param("endpoint.mtu_bytes", 2048, 1, 1 << 20, "bytes", "Messages are segmented into packets of at most this size."),
      int_param("endpoint.active_queues", 4, 1, 16, "",
                "Per-destination send queues a NIC serves at once, round-robin per packet."),
      int_param("endpoint.queue_messages", 64, 1, 4096, "messages",
                "Source message queue capacity; messages generated when it is full are counted as refused."),
      // --- traffic ---
      choice_param("traffic.pattern", "uniform",
                   {"uniform", "permutation", "complement", "hotspot", "all_to_one", "worst_case", "hotspot_window", "flows",
                    "trace"},
                   "Destination pattern (complement: endpoint s sends to N - 1 - s, the bit complement where N is a power "
                   "of two; flows = the [[traffic.flows]] list; worst_case and hotspot_window: docs/model/traffic.md; "
                   "trace = replay traffic.trace_file: docs/traces.md)."),
      string_param("traffic.trace_file", "",
                   "trace: the trace to replay (docs/traces.md; relative to the config file). The run ends when every "
                   "node has completed its events, or at simulation.time_limit_ns (execution_time_ns = nan)."),
      bool_param("traffic.trace_streams", true,
                 "trace: run the trace's 'stream' lines (e.g. the incast of gen_traces.py --incast); false replays the "
                 "events alone, so one trace file serves runs with and without the incast."),
      float_param("traffic.load", 0.5, 0, 1, "fraction of link bandwidth", "Offered load per active source.", true),
      list_param("traffic.message_bytes", {2048.0}, 1, 1e12, "bytes", "Message sizes."),
      list_param("traffic.message_weights", {}, 0, kBig, "",
                 "Relative frequency of each message size (by count); empty = equal."),
      int_param("traffic.phase_bytes", 0, 0, 1e15, "bytes",
                "0 = open-loop messages; > 0 = each source sends finite flows of this size at t = 0 (phase)."),
      int_param("traffic.permutations", 1, 1, 64, "", "permutation: number of superposed random permutations."),
      int_param("traffic.hotspot_sources", 8, 1, 1 << 24, "", "hotspot: N random sources.", true),
      int_param("traffic.hotspot_destinations", 1, 1, 1 << 24, "", "hotspot: M random destinations."),
      choice_param("traffic.background", "idle", {"idle", "uniform"}, "hotspot: what the other nodes do."),
      float_param("traffic.background_load", 0.0, 0, 1, "fraction of link bandwidth", "hotspot: uniform background load.", true),
      int_param("traffic.wc_offset", 1, 1, 4096, "groups",
                "worst_case (dragonfly): every node of group i sends to group (i + offset) mod g (001 WCn)."),
      int_param("traffic.wc_hot_nodes", 0, 0, 4096, "",
                "worst_case: 0 = uniform over the target group (WCn); m > 0 = the same m nodes of it, drawn per trial (WC-Hot m)."),
      list_param("traffic.hotspot_nodes", {}, 0, 1 << 24, "",
                 "hotspot_window: the hot-spot endpoint ids (003: [4], or [4, 120, 244, 431] on 432 nodes); "
                 "per trial among sets of the same size.", true),
      float_param("traffic.hotspot_fraction", 0.1, 0, 1, "fraction of endpoints",
                  "hotspot_window: hot sources as a share of all endpoints, drawn per trial among the non-hot ones (003: 0.1, 0.25); "
                  "per trial except under hotspot_background = \"victims\" (it sets the victims' row width).", true),
      float_param("traffic.hotspot_start_ns", 0.0, 0, kBig, "ns", "hotspot_window: when the hot sources start (003: 3 ms)."),
      float_param("traffic.hotspot_stop_ns", 0.0, 0, kBig, "ns",
                  "hotspot_window: when they stop, 0 = never (003: 93 ms); they are idle outside the window."),
      choice_param("traffic.hotspot_background", "all", {"all", "victims"},
                   "hotspot_window: all = every node but the hot sources sends uniform traffic to any other node (003); "
                   "victims = only nodes that are neither hot spots nor hot sources send, uniformly among themselves (001 Fig. 6)."),
      float_param("traffic.hotspot_rate", 1.0, 1e-6, 1, "fraction of link bandwidth",
                  "hotspot_window: injection rate of each hot source, split evenly over the hot spots."),
      int_param("traffic.root", 0, 0, 1 << 24, "", "all_to_one: the destination endpoint."),
      int_param("traffic.vc", 0, 0, 7, "", "VC (traffic class) of open-loop messages and phase flows; < switch.vcs."),
      float_param("traffic.on_off_mean_ns", 1e6, 1e-3, kBig, "ns",
                  "Flows with dynamic = true alternate exponential ON and OFF periods of this mean each."),
      float_param("traffic.start_jitter_ns", 0.0, 0, kBig, "ns",
                  "Flows start a random time in [0, this) after their start_ns, drawn from the trial seed and the "
                  "flow id, so trials of a flow scenario differ; 0 = exactly at start_ns."),
      bool_param("traffic.include_self", false,
                 "Uniform destinations (traffic.pattern = uniform, the hotspot background) include the source itself, "
                 "1/N of its traffic, as in the textbook and BookSim2; false = the N - 1 other endpoints."),
      // --- congestion control: ECN marking and source response (Santos et al.) ---
      choice_param("cc.marking", "none", {"none", "naive", "input", "input_output"},
                   "Switch ECN marking: packets in a full input buffer, input-triggered (cnt1/cnt2), or input- "
                   "and output-triggered."),
      int_param("cc.output_threshold", 4, 0, 65535, "packets",
                "input_output: packets waiting for an output above which it is congested; 0 = input trigger only "
                "(per trial among values above 0).", true),
      choice_param("cc.output_trigger", "level", {"level", "edge"},
                   "input_output: fire on every arrival that leaves the output above the threshold, or only on "
                   "the arrival that crosses it."),
      int_param("cc.window", 0, 0, 65535, "packets", "Data packets a send queue may have unacknowledged; 0 = no window."),
      bool_param("cc.acks", false,
                 "Destinations ACK every data packet (cc.ack_bytes, on cc.ack_vc) even without cc.window or "
                 "cc.response: the baseline of 001 (ACKs share the ejection channel)."),
      choice_param("cc.response", "none", {"none", "aimd", "fimd", "lipd"},
                   "Source rate response to marked (decrease) and unmarked (increase) ACKs."),
      choice_param("cc.rates", "continuous", {"continuous", "discrete", "discrete_nearest"},
                   "Rate of the response: continuous, or the 256 InfiniBand IPD rates 1/(1+ipd): discrete sends "
                   "at the grid rate at or below the computed one, discrete_nearest at the nearest."),
      int_param("cc.ipd_steps", 1, 1, 256, "",
                "Discrete rates: IPD steps per packet time. 1 is 002's and InfiniBand's integer IPD (rates "
                "1/(1+ipd)); a power of two s gives the finer grid 1/(1+ipd/s) down to the same lowest rate, an "
                "experiment on how much the grid's coarseness matters."),
      bool_param("cc.persistent", false,
                 "Keep a send queue's rate state for the next flow to the same destination (else restart at line rate)."),
      int_param("cc.ack_bytes", 20, 1, 4096, "bytes", "Size of ACK and BECN packets."),
      int_param("cc.ack_vc", -1, -1, 7, "", "VC of ACK and BECN packets; -1 = the highest VC (priority class)."),
      int_param("cc.ack_buffer_packets", 8, 1, 64, "packets",
                "Input buffer of the ACK VC when no data uses it (else ACKs share the data buffer)."),
      int_param("cc.ack_queue", 64, 1, 4096, "packets",
                "Control packets a NIC can hold before sending; more are dropped (counted as acks_dropped)."),
      // --- endpoint protocols of Jiang, Dennison & Dally 2015 (docs/model/dragonfly-protocols.md) ---
      choice_param("cc.protocol", "baseline", {"baseline", "ecn", "lhrp", "lhrp_fabric_drop", "smsrp", "srp", "comprehensive"},
                   "Endpoint protocol on the dragonfly: baseline (every data packet ACKed, cc.acks); ecn (001's "
                   "InfiniBand-style ECN: packets leaving an input VC buffer above cca.threshold are marked, the ACK "
                   "echoes the mark, each source-destination pair's inter-packet delay rises cca.ipd_step_flits per "
                   "mark and falls a step per cca.timer_flits without one); lhrp (Last-"
                   "Hop Reservation: data leaves speculatively, the last-hop switch drops it above "
                   "cc.lhrp_threshold_flits and NACKs it with a reserved time for its retransmission); "
                   "lhrp_fabric_drop (lhrp, and speculative packets older than cc.spec_timeout_ns are dropped before "
                   "the last hop, NACKed without a time and resent speculatively); smsrp (Small-Message SRP: "
                   "speculative packets older than cc.spec_timeout_ns are dropped anywhere; on the NACK the source "
                   "reserves at the destination NIC and resends at the granted time); srp (Speculative Reservation: "
                   "each message sends a reservation to the destination NIC as it starts and speculates until the "
                   "grant or a NACK, then sends the rest and the NACKed packets non-speculatively from the granted "
                   "time; drops as smsrp); comprehensive (lhrp for messages below cc.comprehensive_split_flits, srp "
                   "above, both on the last-hop switch's scheduler and its drop)."),
      choice_param("cc.ecn_scope", "pair", {"pair", "source"},
                   "ecn: the sources' congestion state: one index and timer per destination (pair; PAPERS-SPEC "
                   "M22's suggestion, 001 silent) or one per source for all its destinations (source)."),
      choice_param("cc.ecn_marking", "input_vc", {"input_vc", "output_queue"},
                   "ecn: the buffer whose occupancy (above cca.threshold of it) marks a leaving data packet: input_vc, "
                   "the input VC buffer it leaves (PAPERS-SPEC M22's suggestion for 001), or output_queue, the CIOQ "
                   "output queue of its output and VC as it enters it (000's switches watch the packets waiting at "
                   "each output port; needs switch.output_queue_packets > 0)."),
      int_param("cc.srp_messages", 4096, 1, 65535, "messages",
                "srp, comprehensive: SRP messages a source may have unsettled (sent or in service, waiting for "
                "their grant or the answers to their speculative packets); at the limit it takes no new message "
                "(001's sources are unbounded)."),
      int_param("cc.comprehensive_split_flits", 48, 1, 1 << 30, "flits",
                "comprehensive: messages of at least this many flits run srp, smaller ones lhrp (001 6.4: 48)."),
      float_param("cc.spec_timeout_ns", 1000.0, 1, 1e9, "ns",
                  "lhrp_fabric_drop, smsrp, srp: a speculative packet whose time in the network since injection exceeds "
                  "this when its header reaches a switch is dropped there (001 Table 1: 1 us)."),
      int_param("cc.lhrp_threshold_flits", 1000, 1, 1 << 30, "flits",
                "lhrp, lhrp_fabric_drop, comprehensive: a speculative packet is dropped at its last hop when that switch holds at least this many "
                "flits for its destination (001 Table 1).", true),
      int_param("cc.lhrp_outstanding", 1024, 1, 65535, "packets",
                "Speculative protocols: speculative packets a source may have unanswered or NACKed and waiting; at the limit it "
                "sends no new data (001's sources are unbounded)."),
      // --- InfiniBand congestion control (CCA) ---
      bool_param("cca.enabled", false, "InfiniBand CCA: FECN at congestion roots, BECN, CCT index at the source."),
      float_param("cca.threshold", 0.5, 0, 64, "input buffers",
                  "A port with more packets waiting than this fraction of an input VC buffer is congested."),
      int_param("cca.marking_period", 1, 1, 65535, "packets", "A congestion root FECN-marks one packet in this many."),
      int_param("cca.ipd_step_flits", 24, 0, 1 << 20, "flit times", "CCT: inter-packet delay added per index step."),
      int_param("cca.timer_flits", 96, 1, 1 << 30, "flit times", "Time without a BECN that lowers the CCT index by one."),
      int_param("cca.max_index", 127, 1, 65535, "", "Largest CCT index."),
      // --- source injection schedulers (Zdornov & Birk: M30, M31; docs/zdornov2009.md) ---
      choice_param("injection.scheduler", "round_robin", {"round_robin", "ipd", "svc", "ps", "window"},
                   "How a source picks the send queue (flow) of its next packet: round robin per packet (M13); "
                   "ipd = each flow paced at d_p / r(f), round robin among the due ones; svc = Shaped Virtual Clock "
                   "(M30); ps = Periodic Selection (M31); window = round robin with injection.window packets per "
                   "flow unacknowledged (the cc.window mechanism, with ACKs). ipd, svc and ps need flows."),
      int_param("injection.window", 0, 0, 65535, "packets",
                "injection.scheduler = window: data packets a flow may have unacknowledged (>= 1)."),
      choice_param("injection.rates", "flows", {"flows", "saa", "saa_probes"},
                   "Rates r(f) of ipd, svc and ps: each flow's own rate (traffic.flows[].rate; phase flows 1), or "
                   "saa = the fluid SAA rates w_f / W_f of the trial's flows on their routes at t = 0 (M29, U15; "
                   "needs finite flows and deterministic routing), or saa_probes = the same rule found by SAA's "
                   "control packets in the network (Algorithm 1: AnnounceStart, ProbeLinks, AnnounceEnd; link "
                   "weight registers in the switches; docs/zdornov2009.md). saa and saa_probes also report "
                   "rate_ratio_min (M42)."),
      float_param("injection.saa_probe_interval_ns", 0.0, 0, 1e9, "ns",
                  "injection.rates = saa_probes: time from a flow's probe (ProbeLinks) coming back to its next "
                  "one; 0 = back to back (Algorithm 1's \"periodically\", U15)."),
      choice_param("injection.saa_first_rate", "announce", {"announce", "probe"},
                   "injection.rates = saa_probes: a flow's first rate is the one its AnnounceStart brings back "
                   "(announce, Algorithm 1 as written: infeasible while other flows on its bottleneck have not "
                   "announced yet), or it waits for one ProbeLinks sent as soon as the AnnounceStart is back "
                   "(probe: one more round trip before data; docs/zdornov2009.md)."),
      // --- flow mode ---
      choice_param("flow.sizes", "equal", {"equal", "uniform"},
                   "Flow sizes w_f in flow-times: all 1, or uniform on (0, 2) per flow and trial."),
      bool_param("flow.maxmin", true, "Also compute max-min fair rates (water-filling) and their completion time."),
      bool_param("flow.saa_protocol", false,
                 "Also simulate the distributed SAA protocol (Algorithm 1: AnnounceStart, ProbeLinks, AnnounceEnd "
                 "control packets, one link per time step) and check it against the central SAA rates."),
      int_param("flow.saa_stagger_steps", 2, 0, 1 << 20, "time steps",
                "Distributed SAA: one flow starts every this many steps, in the trial's random flow order."),
      int_param("flow.saa_flow_time_steps", 256, 1, 1 << 24, "time steps",
                "Distributed SAA: steps per flow-time; flow f ends W_f flow-times after the last flow starts."),
      // --- congestion isolation (Rocher-Gonzalez et al. 2021; docs/model/isolation.md) ---
      choice_param("isolation.technique", "none", {"none", "dmodk", "oblivious", "adaptive_th", "adaptive_th_afi", "arn", "arn_afi"},
                   "Congestion isolation (fat trees): none = off (routing.algorithm routes); otherwise the routing of 003 "
                   "section 4.1: D-mod-K, oblivious, Adaptive-Th, Adaptive-Th + AFI, ARN or ARN + AFI (AFI: adapted packets "
                   "use the last VC, the AFC). Needs switch.vcs = the scheme's VCs (+1 with AFI)."),
      choice_param("isolation.queue_scheme", "1q", {"1q", "dbbm", "vftree", "flow2sl"},
                   "Static queuing scheme: the VC a message takes at injection (1q: 1 VC; the others 3 VCs)."),
      bool_param("isolation.vftree_source", true,
                 "vftree: VC = (destination leaf + source leaf) mod 3 (the shuffle of Guay et al.); false = destination "
                 "leaf mod 3 (kernels/isolation/queue_schemes.hpp)."),
      bool_param("isolation.flow2sl_source", false,
                 "flow2sl: VC = (source group + destination group) mod 3; false = the destination's group of N / 3 "
                 "consecutive nodes (PAPERS-SPEC M40's suggestion)."),
      int_param("isolation.hcd_pct", 81, 1, 100, "%", "Detector HCDTh: a VOQ above this share of its VC buffer is over."),
      int_param("isolation.lcd_pct", 63, 0, 100, "%", "Detector LCDTh: an over VOQ below this share stops counting."),
      int_param("isolation.fc_pct", 78, 0, 100, "%",
                "Detector FCTh: free credits at the next switch above this share of its VC buffer = root, else branch."),
      float_param("isolation.crt_ns", 5e6, 0, kBig, "ns", "Congestion root timer (CRT): how long a root must persist."),
      float_param("isolation.arn_ttl_ns", 1e6, 1, kBig, "ns", "ARN table entry time-to-live (refreshed by each ARN)."),
      float_param("isolation.arn_gap_ns", 1000.0, 0, kBig, "ns",
                  "At most one ARN per (table entry, input port) per this interval (0 = one per matching packet)."),
      int_param("isolation.arn_table_entries", 32, 1, 4096, "entries", "ARN table entries per switch."),
      choice_param("isolation.arn_full", "drop_new", {"drop_new", "evict_oldest"},
                   "A full ARN table refuses the new entry (counted as arn_refused) or overwrites the one closest to expiry."),
      choice_param("isolation.incast_reading", "r1", {"r1", "r2", "r3"},
                   "How ARNs act on a pure incast (M39 open point): r1 literal pseudo-code, r2 FCTh tested only when the "
                   "CRT starts, r3 incast ARNs consumed at the first upward switch with an alternative."),
      choice_param("isolation.adapted_arns", "pseudo_code", {"pseudo_code", "text"},
                   "What an adapted packet (in the AFC) does to the ARN tables (003 section 3.4 against Pseudo-code 2, "
                   "PAPERS-SPEC P1.9-6): pseudo_code = it refreshes the entry of its original VC at a root it is "
                   "responsible for, and creates none; text = it also creates entries there and sends ARNs upstream "
                   "for the stored entries it matches."),
      choice_param("isolation.detector_vcs", "all", {"all", "regular"},
                   "ARN + AFI: which VOQs the congestion detector watches. all = every VC, the AFC's included (the "
                   "fullest VOQ toward an output is the responsible one); regular = not the AFC's, so an output that is "
                   "a branch of the isolated tree in the AFC can still be a root in a regular VC (003 section 3.3 does "
                   "not say; docs/model/isolation.md)."),
      int_param("isolation.adaptive_th_pct", 75, 0, 100, "%",
                "Adaptive-Th: re-route when the deterministic next-hop VC is fuller than this."),
      int_param("isolation.detector_period_cycles", 16, 1, 1 << 20, "cycles", "Cycles between detector evaluations."),
      // --- statistics ---
      bool_param("stats.per_link", false, "Report the utilization of every link as link_util[A->B]."),
      int_param("stats.size_split_bytes", 0, 0, 1e12, "bytes",
                "> 0: messages below this size and at or above it are counted apart: small_ and large_messages, "
                "_msg_latency_mean_ns, _throughput_per_node (001 Fig. 12: 4800, i.e. 48 flits). Open-loop messages."),
      bool_param("stats.victim_latency", false,
                 "traffic.pattern = hotspot_window: also report the message latency of the open-loop sources (the "
                 "victims) as victim_msg_latency_mean_ns, per interval with stats.series_interval_ns (001 Fig. 6)."),
      bool_param("stats.latency_histogram", false,
                 "Report each trial's latency histograms as net_latency_hist[UPPER_NS] and msg_latency_hist[UPPER_NS] "
                 "(packets or messages per bin of the window; saturn plot draws their CDF)."),
      float_param("stats.series_interval_ns", 0.0, 0, kBig, "ns",
                  "Write series.csv: every windowed metric over each interval of this length (0 = off)."),
      bool_param("stats.trace_node_times", false,
                 "trace: report every node's finish time as node_finish_ns[NODE] (the cycle its last event completed)."),
      list_param("stats.state_dump_ns", {}, 0, kBig, "ns",
                 "Packet engine: at each of these times write a snapshot of one trial per point under OUT/state/ "
                 "(every buffered packet; per port and VC the VOQs, credits, output and detector; endpoints; ARN "
                 "tables). For debugging congestion: see docs/user-guide.md, State dumps."),
      int_param("stats.state_dump_trial", 0, 0, 1e6, "",
                "stats.state_dump_ns: which trial of each point to dump (0-based, below simulation.trials)."),
  };
}

}  // namespace

const std::vector<ParamSpec>& param_table() {
  static const std::vector<ParamSpec> table = make_table();
  return table;
}

const ParamSpec* find_param(const std::string& key) {
  for (const auto& p : param_table())
    if (p.key == key) return &p;
  return nullptr;
}

std::string format_default(const ParamSpec& p) {
  std::ostringstream os;
  switch (p.type) {
    case ParamType::kInt: os << std::get<int64_t>(p.default_value); break;
    case ParamType::kFloat: os << std::get<double>(p.default_value); break;
    case ParamType::kBool: os << (std::get<bool>(p.default_value) ? "true" : "false"); break;
    case ParamType::kString: os << '"' << std::get<std::string>(p.default_value) << '"'; break;
    case ParamType::kFloatList: {
      os << '[';
      const auto& v = std::get<std::vector<double>>(p.default_value);
      for (size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
      os << ']';
      break;
    }
  }
  return os.str();
}

std::string params_markdown() {
  std::ostringstream os;
  os << "| key | type | default | allowed | unit | per trial | meaning |\n|---|---|---|---|---|---|---|\n";
  for (const auto& p : param_table()) {
    const char* type = p.type == ParamType::kInt      ? "int"
                       : p.type == ParamType::kFloat  ? "float"
                       : p.type == ParamType::kBool   ? "bool"
                       : p.type == ParamType::kString ? "string"
                                                      : "list of numbers";
    std::string allowed;
    if (!p.choices.empty()) {
      for (size_t i = 0; i < p.choices.size(); ++i) allowed += (i ? ", " : "") + p.choices[i];
    } else if (p.type == ParamType::kInt || p.type == ParamType::kFloat || p.type == ParamType::kFloatList) {
      std::ostringstream r;
      r << '[' << p.min << ", " << p.max << ']';
      allowed = r.str();
    }
    os << "| `" << p.key << "` | " << type << " | `" << format_default(p) << "` | " << allowed << " | " << p.unit
       << " | " << (p.per_trial ? "yes" : "") << " | " << p.help << " |\n";
  }
  return os.str();
}

}  // namespace saturn
