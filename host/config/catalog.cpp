// `saturn list`: what Saturn models, family by family, printed from the parameter table (the
// choices, keys and defaults) and the metric catalog below, so it cannot drift from the code.
#include "host/config/catalog.hpp"

#include <algorithm>
#include <iomanip>
#include <sstream>

#include "host/config/config_error.hpp"
#include "host/config/params.hpp"

namespace saturn {
namespace {

struct Family {
  const char* name;
  const char* what;
  std::vector<std::string> selectors;  // choice keys whose values are the family's members
  std::vector<std::string> prefixes;   // every key starting with one of these belongs here
  const char* doc;                     // reference page, relative to the repository root
};

const std::vector<Family>& families() {
  static const std::vector<Family> list = {
      {"simulation", "engines, trials, seeds and time", {"simulation.mode"}, {"simulation."}, "docs/user-guide.md"},
      {"topologies", "networks", {"topology.kind"}, {"topology."}, "docs/model/topologies.md"},
      {"switches", "switch and link models",
       {"switch.arbitration", "switch.vc_arbitration", "switch.speedup", "switch.input_queue", "switch.allocator",
        "switch.vc_allocation", "switch.bypass_reading"},
       {"switch.", "link."}, "docs/model/switch.md"},
      {"routing", "routing functions (adaptive: flow engine only)", {"routing.algorithm", "routing.ugal_queue", "routing.heuristic"},
       {"routing."}, "docs/model/routing.md"},
      {"congestion-control", "marking, source response, window, InfiniBand CCA",
       {"cc.marking", "cc.response", "cc.rates", "cc.output_trigger", "cc.protocol"}, {"cc.", "cca."},
       "docs/model/congestion-control.md"},
      {"traffic", "traffic patterns, endpoints and their injection schedulers",
       {"traffic.pattern", "traffic.background", "injection.scheduler", "injection.rates"},
       {"traffic.", "endpoint.", "injection."}, "docs/model/traffic.md"},
      {"isolation", "congestion isolation in fat trees: ARN, AFI, queuing schemes (Rocher-Gonzalez 2021)",
       {"isolation.technique", "isolation.queue_scheme", "isolation.incast_reading", "isolation.arn_full",
        "isolation.adapted_arns", "isolation.detector_vcs"}, {"isolation."},
       "docs/model/isolation.md"},
      {"flow-engine", "flow-level engine: fluid rates and distributed SAA", {"flow.sizes"}, {"flow."},
       "docs/model/flow-engine.md"},
      {"metrics", "what a run reports per trial (mean and 95% CI per point)", {}, {"stats."},
       "docs/user-guide.md"},
  };
  return list;
}

// Every metric a run can report; bracketed names stand for one metric per link or flow.
const std::vector<MetricInfo>& metric_list() {
  static const std::vector<MetricInfo> list = {
      {"throughput_per_node", "packet", "flits delivered per node per cycle (fraction of link bandwidth)"},
      {"injected_per_node", "packet", "flits injected per node per cycle"},
      {"net_latency_mean_ns", "packet", "head leaving the source NIC to tail arrival, mean"},
      {"net_latency_p99_ns", "packet", "the same, 99th percentile"},
      {"msg_latency_mean_ns", "packet", "message creation to arrival of its last packet, mean"},
      {"msg_latency_p99_ns", "packet", "the same, 99th percentile"},
      {"link_util_max", "packet", "highest busy fraction of any switch output link"},
      {"packets_injected", "packet", "packets injected in the window"},
      {"packets_delivered", "packet", "packets delivered in the window"},
      {"packets_in_flight", "packet", "packets in the network at the end of the run"},
      {"messages_refused", "packet", "messages generated while the source queue was full"},
      {"completion_time_ns", "packet", "finite flows: arrival of the last byte (nan past the time limit)"},
      {"packets_out_of_order", "packet", "flows: packets delivered after a later-injected one of their flow (whole run)"},
      {"deadlocked", "packet", "1 if packets were in flight and nothing was delivered for 100 000 cycles"},
      {"invariant_violations", "packet", "with simulation.check_invariants: must be 0"},
      {"marked_fraction", "packet", "with ACKs or CCA: marked data packets / delivered"},
      {"ecn_echo_fraction", "packet", "cc.protocol = ecn: ACKs received by the sources that echoed a mark / ACKs received"},
      {"hot_ecn_echo_fraction", "packet", "cc.protocol = ecn with stats.victim_latency: ecn_echo_fraction of the hot sources"},
      {"victim_ecn_echo_fraction", "packet", "cc.protocol = ecn with stats.victim_latency: ecn_echo_fraction of the victims"},
      {"control_packets", "packet", "with ACKs or CCA: ACKs and BECNs received"},
      {"acks_dropped", "packet", "with ACKs: ACKs lost to a full ACK queue"},
      {"victim_messages", "packet", "traffic.pattern = hotspot_window: messages of the open-loop (victim) sources delivered"},
      {"victim_msg_latency_mean_ns", "packet", "traffic.pattern = hotspot_window: their message latency, mean (a series shows it over time)"},
      {"small_messages", "packet", "stats.size_split_bytes > 0: messages below the split received in the window"},
      {"small_msg_latency_mean_ns", "packet", "the same: their mean message latency"},
      {"small_throughput_per_node", "packet", "the same: their flits, at their tail's arrival"},
      {"large_messages", "packet", "stats.size_split_bytes > 0: messages at or above the split received in the window"},
      {"large_msg_latency_mean_ns", "packet", "the same: their mean message latency"},
      {"large_throughput_per_node", "packet", "the same: their flits, at their tail's arrival"},
      {"dropped_packets", "packet", "cc.protocol other than baseline: speculative packets dropped"},
      {"nack_packets", "packet", "the same: NACKs received by the sources (also in control_packets)"},
      {"retransmitted_packets", "packet", "the same: packets resent (also in packets_injected)"},
      {"reservation_packets", "packet", "smsrp, srp: reservations received by destination NICs (also in control_packets); comprehensive: answered by last-hop switches"},
      {"grant_packets", "packet", "smsrp, srp, comprehensive: grants received by the sources (also in control_packets)"},
      {"rate_ratio_min", "packet",
       "injection.rates = saa or saa_probes: min over flows of size / (done - start) over the smallest SAA rate (M42, nan if unfinished)"},
      {"saa_completion_bound_ns", "packet", "injection.rates = saa: W, the SAA (fluid) phase completion, in ns"},
      {"saa_rate_changes", "packet", "injection.rates = saa_probes: probes that changed a sending flow's W_f (whole run)"},
      {"saa_flows_never_central", "packet",
       "injection.rates = saa_probes: flows that ended without ever sending at their central SAA rate (0 when the probes work)"},
      {"saa_flows_above_central", "packet",
       "injection.rates = saa_probes: flows given a rate above their central one before they first had it (an "
       "infeasible start: their AnnounceStart or first probe saw only part of their bottleneck's flows)"},
      {"saa_settled_ns", "packet", "injection.rates = saa_probes: when a flow's W_f last changed (its AnnounceStart's included)"},
      {"saa_link_weight_left", "packet",
       "injection.rates = saa_probes: the largest link weight register at the end (0 once every AnnounceEnd is back)"},
      {"route_setups", "packet", "routing.route_setup = packets: connections set up (setup packets back at their sources, whole run)"},
      {"route_setup_ns", "packet",
       "routing.route_setup = packets: mean round trip of a setup packet, from its source's control queue back to it"},
      {"route_teardowns", "packet", "routing.route_setup = packets: teardown packets back at their sources (whole run)"},
      {"route_cache_full", "packet",
       "routing.route_setup = packets: setup hops that found the input's route cache full with an alternate port on offer "
       "(0 when an unlimited cache was large enough)"},
      {"route_state_left", "packet",
       "routing.route_setup = packets: route cache entries plus output flow counts left at the end (0 once every teardown is back)"},
      {"flow_rate[SRC->DST]", "packet", "explicit flows: delivered rate in the window"},
      {"flow_done_ns[SRC->DST]", "packet", "explicit flows: completion time"},
      {"execution_time_ns", "packet", "trace replay: when the last event of the trace completed (nan past the time limit)"},
      {"execution_time_cycles", "packet", "trace replay: the same in cycles"},
      {"trace_unfinished_nodes", "packet", "trace replay: nodes with events left at the end of the run"},
      {"node_finish_ns[NODE]", "packet", "trace replay with stats.trace_node_times: when each node's last event completed"},
      {"link_util[A->B]", "packet", "with stats.per_link: every link's busy fraction"},
      {"buffer_full[A->B]", "packet", "with stats.per_link and ACKs: fraction of the window the buffer fed by A->B was full"},
      {"net_latency_hist[UPPER_NS]", "packet",
       "with stats.latency_histogram: packets of the window whose network latency fell in the bin ending at UPPER_NS"},
      {"msg_latency_hist[UPPER_NS]", "packet",
       "with stats.latency_histogram: messages of the window whose latency fell in the bin ending at UPPER_NS"},
      {"arn_sent", "packet", "isolation.technique = arn / arn_afi: ARNs sent upstream in the window"},
      {"arn_refused", "packet", "isolation.technique = arn / arn_afi: ARN entries refused by a full table"},
      {"voq_packets[VC]", "packet",
       "isolation.technique = arn / arn_afi: packets in the switches' VOQs for VC at the end of the window (the AFC, "
       "the last VC, includes packets adapted at that hop and still in their arrival buffer)"},
      {"adapted_packets", "packet", "isolation.technique: packets re-routed (adapted) in the window"},
      {"contention_max", "flow", "largest flow count over a flow's links, max over flows"},
      {"contention_mean", "flow", "the same, mean over flows"},
      {"link_load_max", "flow", "largest flow count on any link"},
      {"hops_mean", "flow", "links per flow, injection and ejection included"},
      {"horizontal_hops_mean", "flow", "horizontal hops per flow"},
      {"completion_lower_bound", "flow", "W, the lower bound on the phase completion time (flow-times)"},
      {"saa_completion", "flow", "SAA phase completion (= W)"},
      {"saa_rate_min", "flow", "smallest SAA rate"},
      {"saa_link_util_max", "flow", "largest sum of SAA rates over a link's capacity (<= 1)"},
      {"maxmin_completion", "flow", "max-min fair rates: completion (flow.maxmin)"},
      {"maxmin_rate_min", "flow", "max-min fair rates: smallest rate"},
      {"saa_protocol_mismatches", "flow", "distributed SAA: flows whose rate after one probe is not the central one (must be 0)"},
      {"saa_protocol_announce_mismatches", "flow", "distributed SAA: flows whose AnnounceStart value alone was not the central one"},
      {"saa_protocol_late_changes", "flow", "distributed SAA: rate changes after convergence (must be 0)"},
      {"saa_protocol_probes_to_final", "flow", "distributed SAA: most probes until a flow's rate last changed"},
      {"saa_protocol_converged_steps", "flow", "distributed SAA: steps from the last start to convergence"},
      {"saa_protocol_residual", "flow", "distributed SAA: largest link weight left after every end (must be 0)"},
      {"saa_protocol_acks", "flow", "distributed SAA: weight ACKs of the piggy-back variant"},
      {"saa_protocol_steps", "flow", "distributed SAA: steps simulated"},
      {"flows", "flow", "flows per trial"},
      {"switch_ports", "flow", "connected switch ports of the network"},
      {"switch_ports_added_pct", "flow", "% ports added over the same tree with width 0"},
  };
  return list;
}

bool in_family(const Family& f, const std::string& key) {
  return std::any_of(f.prefixes.begin(), f.prefixes.end(),
                     [&](const std::string& p) { return key.compare(0, p.size(), p) == 0; });
}

void print_family(std::ostream& os, const Family& f) {
  os << f.name << ": " << f.what << "  (" << f.doc << ")\n";
  for (const std::string& key : f.selectors) {
    const ParamSpec* p = find_param(key);
    if (p == nullptr) continue;
    os << "  " << key << ":";
    for (const std::string& c : p->choices) os << ' ' << c;
    os << "  (default " << format_default(*p) << ")\n";
  }
  if (std::string(f.name) == "metrics")
    for (const MetricInfo& m : metric_list())
      os << "  " << std::left << std::setw(34) << m.name << std::setw(7) << m.engine << m.meaning << "\n";
  os << "  keys:\n";
  for (const ParamSpec& p : param_table()) {
    if (!in_family(f, p.key)) continue;
    const std::string value = p.key + " = " + format_default(p);
    os << "    " << std::left << std::setw(44) << value << (p.unit.empty() ? "" : "[" + p.unit + "] ") << p.help
       << "\n";
  }
}

}  // namespace

std::vector<std::string> catalog_families() {
  std::vector<std::string> names;
  for (const Family& f : families()) names.push_back(f.name);
  return names;
}

std::vector<std::string> catalog_family_keys(const std::string& family) {
  std::vector<std::string> keys;
  for (const Family& f : families())
    if (f.name == family)
      for (const ParamSpec& p : param_table())
        if (in_family(f, p.key)) keys.push_back(p.key);
  return keys;
}

const std::vector<MetricInfo>& catalog_metrics() { return metric_list(); }

std::string catalog_text(const std::string& family) {
  std::ostringstream os;
  bool found = false;
  for (const Family& f : families()) {
    if (!family.empty() && family != f.name) continue;
    if (found) os << "\n";
    print_family(os, f);
    found = true;
  }
  if (!found) {
    std::string names;
    for (const Family& f : families()) names += (names.empty() ? "" : ", ") + std::string(f.name);
    throw ConfigError("list: unknown family '" + clip_for_message(family) + "' (expected one of " + names + ")");
  }
  return os.str();
}

}  // namespace saturn
