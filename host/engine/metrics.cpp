// Per-trial metrics (PAPERS-SPEC M42): throughput, latencies with p99 from merged histograms,
// link utilization, packet counts, phase completion time, per-flow rates.
#include "host/engine/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "kernels/common/index.hpp"
#include "kernels/stats/latency_histogram.hpp"
#include "kernels/traffic/destination.hpp"

namespace saturn {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Counters holds per-trial sums over endpoints (Engine::read_counters reduces them where they live).
double sum_over(const std::vector<uint64_t>& end, const std::vector<uint64_t>& start, int t) {
  return static_cast<double>(end[t] - start[t]);
}

std::vector<uint64_t> merged_histogram(const std::vector<uint64_t>& end, const std::vector<uint64_t>& start, int t,
                                       int T) {
  std::vector<uint64_t> bins(kHistBins, 0);
  for (int b = 0; b < kHistBins; ++b) bins[b] = end[at(b, t, T)] - start[at(b, t, T)];
  return bins;
}

// Speculative packets dropped by the end of the run (0 unless LHRP).
double cc_lhrp_dropped(const ModelParams& m, const Counters& final, int t) {
  return m.cc.speculative ? static_cast<double>(final.drops[t]) : 0.0;
}

}  // namespace

uint64_t link_busy_sent(const Counters& c, int64_t i) {
  const uint64_t busy = c.busy_cycles[i];
  if (c.busy_until.empty() || c.busy_until[i] <= c.cycle) return busy;
  // The switch adds a packet's whole length when it starts: the flits still to cross after this
  // snapshot belong to the next window, so a window never reads above 1 and windows still add up.
  const uint64_t still_to_send = c.busy_until[i] - c.cycle;
  return busy >= still_to_send ? busy - still_to_send : 0;
}

double histogram_percentile(const std::vector<uint64_t>& bins, double q) {
  uint64_t total = 0;
  for (uint64_t c : bins) total += c;
  if (total == 0) return kNaN;
  const double target = q * static_cast<double>(total);
  double below = 0;
  for (size_t b = 0; b < bins.size(); ++b) {
    if (bins[b] == 0) continue;
    if (below + static_cast<double>(bins[b]) >= target) {
      double low, high;
      latency_bin_range(static_cast<int>(b), &low, &high);
      if (high - low <= 1.0) return low;  // exact bins
      return low + (high - low) * (target - below) / static_cast<double>(bins[b]);
    }
    below += static_cast<double>(bins[b]);
  }
  return kNaN;
}

uint64_t flits_outstanding(const EngineSpec& spec, const std::vector<uint64_t>& delivered_flits, int t) {
  const int T = spec.model.trials;
  const FlowPlan& plan = spec.flows;
  uint64_t want = 0;
  for (int f = 0; f < plan.num_flows(); ++f)
    if (plan.dst[at(f, t, T)] != kUnlimited && plan.flits[f] != kUnlimited) want += plan.flits[f];
  uint64_t got = 0;
  for (int e = 0; e < spec.topology->num_endpoints; ++e) got += delivered_flits[at(e, t, T)];
  return got >= want ? 0 : want - got;
}

bool trace_finished(const ModelSetup& setup, const std::vector<uint32_t>& done, int t, int T) {
  const TraceTables& tr = *setup.trace;
  for (int e = 0; e < setup.topology.num_endpoints; ++e)
    if (done[at(e, t, T)] != tr.node_events(e)) return false;
  return true;
}

uint32_t trace_execution_cycles(const Counters& c, int t, int N) {
  uint32_t last = 0;
  for (int e = 0; e < N; ++e) last = std::max(last, c.trace_finish[at(e, t, c.trials)]);
  return last;
}

uint32_t trial_end_cycle(const ModelSetup& setup, const EngineSpec& spec, const Counters& c, int t) {
  if (!setup.finite) return c.cycle;
  if (setup.trace) {  // the cycle after the last event completed
    if (!trace_finished(setup, c.trace_done, t, c.trials)) return c.cycle;
    return trace_execution_cycles(c, t, setup.topology.num_endpoints) + 1;
  }
  const int T = spec.model.trials;
  uint32_t last = 0;
  bool any = false;
  for (int f = 0; f < spec.flows.num_flows(); ++f) {
    if (spec.flows.dst[at(f, t, T)] == kUnlimited) continue;
    const uint32_t done = c.flow_done[at(f, t, T)];
    if (done == kUnlimited) return c.cycle;
    last = std::max(last, done);
    any = true;
  }
  return any ? last + 1 : c.cycle;  // flow_done is the cycle the tail arrived: the trial ends after it
}

std::vector<MetricValue> trial_metrics(const ModelSetup& setup, const EngineSpec& spec, const Counters& start,
                                       const Counters& end, const Counters& final, int t,
                                       int64_t window_end_cycle) {
  const int T = spec.model.trials;
  const Topology& topo = setup.topology;
  const int N = topo.num_endpoints;
  if (window_end_cycle < 0) window_end_cycle = end.cycle;
  // Negative when a finite trial completed before the warm-up ended: an empty window (NaN rates).
  const double window = static_cast<double>(std::max<int64_t>(0, window_end_cycle - static_cast<int64_t>(start.cycle)));
  const double ns = setup.cycle_ns;
  std::vector<MetricValue> out;
  auto add = [&](const std::string& name, double value) { out.push_back({name, value}); };

  const double del_flits = sum_over(end.del_flits, start.del_flits, t);
  const double inj_flits = sum_over(end.inj_flits, start.inj_flits, t);
  const double del_packets = sum_over(end.del_packets, start.del_packets, t);
  const double inj_packets = sum_over(end.inj_packets, start.inj_packets, t);
  const double msgs = sum_over(end.msg_done, start.msg_done, t);
  add("throughput_per_node", window > 0 ? del_flits / (N * window) : kNaN);
  add("injected_per_node", window > 0 ? inj_flits / (N * window) : kNaN);
  add("net_latency_mean_ns", del_packets > 0 ? sum_over(end.net_lat_sum, start.net_lat_sum, t) / del_packets * ns : kNaN);
  const std::vector<uint64_t> net_hist = merged_histogram(end.net_hist, start.net_hist, t, T);
  const std::vector<uint64_t> msg_hist = merged_histogram(end.msg_hist, start.msg_hist, t, T);
  add("net_latency_p99_ns", histogram_percentile(net_hist, 0.99) * ns);
  add("msg_latency_mean_ns", msgs > 0 ? sum_over(end.msg_lat_sum, start.msg_lat_sum, t) / msgs * ns : kNaN);
  if (spec.model.victim_stats) {  // hotspot_window: the open-loop sources' messages (the victims)
    const double victim_msgs = sum_over(end.victim_msg_done, start.victim_msg_done, t);
    add("victim_messages", victim_msgs);
    add("victim_msg_latency_mean_ns",
        victim_msgs > 0 ? sum_over(end.victim_msg_lat_sum, start.victim_msg_lat_sum, t) / victim_msgs * ns : kNaN);
  }
  add("msg_latency_p99_ns", histogram_percentile(msg_hist, 0.99) * ns);
  if (spec.model.size_split > 0) {  // stats.size_split_flits: small (k = 0) and large (k = 1) messages apart
    for (int k = 0; k < 2; ++k) {
      const std::string size = k == 0 ? "small" : "large";
      const auto diff = [&](const std::vector<uint64_t>& e, const std::vector<uint64_t>& s) {
        return static_cast<double>(e[at(k, t, T)] - s[at(k, t, T)]);
      };
      const double done = diff(end.split_msg_done, start.split_msg_done);
      add(size + "_messages", done);
      add(size + "_msg_latency_mean_ns", done > 0 ? diff(end.split_msg_lat_sum, start.split_msg_lat_sum) / done * ns : kNaN);
      add(size + "_throughput_per_node", window > 0 ? diff(end.split_msg_flits, start.split_msg_flits) / (N * window) : kNaN);
    }
  }
  if (setup.latency_histogram) {
    // Every bin, named by its upper edge in ns, so every trial reports the same metrics (they merge
    // and resume like any other) and the CDF can be drawn from summary.csv's means.
    for (int b = 0; b < kHistBins; ++b) {
      double low = 0, high = 0;
      latency_bin_range(b, &low, &high);
      char edge[32];
      std::snprintf(edge, sizeof edge, "%.6g", high * ns);
      add(std::string("net_latency_hist[") + edge + "]", static_cast<double>(net_hist[static_cast<size_t>(b)]));
      add(std::string("msg_latency_hist[") + edge + "]", static_cast<double>(msg_hist[static_cast<size_t>(b)]));
    }
  }

  // Link utilization: cycles each connected switch output spent sending within the window.
  std::vector<int> port_base(topo.num_switches() + 1, 0);
  for (int s = 0; s < topo.num_switches(); ++s) port_base[s + 1] = port_base[s] + topo.radix(s);
  double max_util = 0;
  std::vector<MetricValue> per_link;
  int gp = 0;
  for (int s = 0; s < topo.num_switches(); ++s)
    for (int p = 0; p < topo.radix(s); ++p, ++gp) {
      if (topo.ports[s][p].kind == PeerKind::kNone) continue;
      const int64_t i = at(gp, t, T);
      const double util = window > 0 ? static_cast<double>(link_busy_sent(end, i) - link_busy_sent(start, i)) / window : kNaN;
      max_util = std::max(max_util, util);
      if (setup.per_link_stats) {
        per_link.push_back({"link_util[" + topo.link_name(s, p) + "]", util});
        // Fraction of the window the input buffer fed by this link could not take one more MTU packet.
        const PortPeer& peer = topo.ports[s][p];
        if (peer.kind == PeerKind::kSwitch) {
          const int64_t j = at(static_cast<int64_t>(port_base[peer.index] + peer.port), t, T);
          per_link.push_back({"buffer_full[" + topo.link_name(s, p) + "]",
                              window > 0 ? static_cast<double>(end.full_cycles[j] - start.full_cycles[j]) / window : kNaN});
        }
      }
    }
  add("link_util_max", window > 0 ? max_util : kNaN);

  const double injected_total = static_cast<double>(final.inj_packets[t]);
  const double delivered_total = static_cast<double>(final.del_packets[t]);
  add("packets_injected", inj_packets);
  add("packets_delivered", del_packets);
  // LHRP: a dropped packet left the network (its retransmission is injected again).
  const double dropped_total = cc_lhrp_dropped(spec.model, final, t);
  add("packets_in_flight", injected_total - delivered_total - dropped_total);
  if (spec.model.open_loop) add("messages_refused", sum_over(end.refused, start.refused, t));
  // Congestion isolation diagnostics, in the window (docs/model/isolation.md).
  if (iso_arn(spec.model.iso)) {
    add("arn_sent", sum_over(end.arn_sent, start.arn_sent, t));
    add("arn_refused", sum_over(end.arn_refused, start.arn_refused, t));
    for (int vc = 0; vc < spec.model.vcs; ++vc)  // a snapshot at the end of the window
      add("voq_packets[" + std::to_string(vc) + "]", static_cast<double>(end.voq_vc[at(vc, t, T)]));
  }
  if (iso_on(spec.model.iso)) add("adapted_packets", sum_over(end.adapted, start.adapted, t));
  const CcParams& cc = spec.model.cc;
  if (cc.control_packets()) {
    add("marked_fraction", del_packets > 0 ? sum_over(end.marked, start.marked, t) / del_packets : kNaN);
    add("control_packets", sum_over(end.ctrl_delivered, start.ctrl_delivered, t));
    add("acks_dropped", sum_over(end.acks_dropped, start.acks_dropped, t));
  }
  if (cc.ecn) {  // 001's ECN: the share of the ACKs the sources received that echoed a mark
    // (docs/model/dragonfly-protocols.md); under stats.victim_latency also for the hot sources (they
    // send flows: role idle) and the victims apart
    double acks[2] = {0, 0}, echoes[2] = {0, 0};  // [0] victims (and every source elsewhere), [1] hot sources
    for (int e = 0; e < N; ++e) {
      const int64_t i = at(e, t, T);
      const int k = spec.model.victim_stats && spec.role[i] == kRoleIdle ? 1 : 0;
      acks[k] += static_cast<double>(end.ecn_acks[i] - start.ecn_acks[i]);
      echoes[k] += static_cast<double>(end.ecn_echoes[i] - start.ecn_echoes[i]);
    }
    const auto share = [](double n, double d) { return d > 0 ? n / d : kNaN; };
    add("ecn_echo_fraction", share(echoes[0] + echoes[1], acks[0] + acks[1]));
    if (spec.model.victim_stats) {
      add("hot_ecn_echo_fraction", share(echoes[1], acks[1]));
      add("victim_ecn_echo_fraction", share(echoes[0], acks[0]));
    }
  }
  if (cc.speculative) {  // in the window (docs/model/dragonfly-protocols.md)
    add("dropped_packets", sum_over(end.drops, start.drops, t));
    add("nack_packets", sum_over(end.nacks, start.nacks, t));
    add("retransmitted_packets", sum_over(end.retx, start.retx, t));
    if (cc.nic_grants || cc.srp_on()) {
      add("reservation_packets", sum_over(end.res, start.res, t));
      add("grant_packets", sum_over(end.gnt, start.gnt, t));
    }
  }

  if (cc.saa_probes) {  // SAA by control packets (kernels/cc/saa_probes.hpp), whole run
    add("saa_rate_changes", static_cast<double>(final.saa_changes[t]));
    add("saa_flows_never_central", static_cast<double>(final.saa_off[t]));
    add("saa_flows_above_central", static_cast<double>(final.saa_above[t]));
    add("saa_settled_ns", static_cast<double>(final.saa_settled[t]) * ns);
    add("saa_link_weight_left", static_cast<double>(final.saa_residual[t]));
  }
  if (cc.route_setup) {  // route setup and teardown packets (kernels/routing/route_setup.hpp), whole run
    const double setups = static_cast<double>(final.route_setups[t]);
    add("route_setups", setups);
    add("route_setup_ns", setups > 0 ? static_cast<double>(final.route_setup_cycles[t]) / setups * ns : kNaN);
    add("route_teardowns", static_cast<double>(final.route_teardowns[t]));
    add("route_cache_full", static_cast<double>(final.route_full[t]));
    add("route_state_left", static_cast<double>(final.route_left[t]));
  }
  // Trace replay: execution time = the cycle the last event of the trace completed (nan when some
  // node had not finished by the time limit); per-node finish times on request.
  if (setup.trace) {
    const TraceTables& tr = *setup.trace;
    int unfinished = 0;
    for (int e = 0; e < N; ++e) unfinished += final.trace_done[at(e, t, T)] != tr.node_events(e) ? 1 : 0;
    const double cycles = static_cast<double>(trace_execution_cycles(final, t, N));
    add("execution_time_cycles", unfinished == 0 ? cycles : kNaN);
    add("execution_time_ns", unfinished == 0 ? cycles * ns : kNaN);
    add("trace_unfinished_nodes", unfinished);
    if (setup.trace_node_times)
      for (int e = 0; e < N; ++e) {
        const int64_t i = at(e, t, T);
        add("node_finish_ns[" + topo.endpoint_names[e] + "]",
            final.trace_done[i] == tr.node_events(e) ? final.trace_finish[i] * ns : kNaN);
      }
  }
  // Finite flows: completion time = the cycle the last byte of the last flow arrived.
  if (setup.finite && !setup.trace) {
    double done = 0;
    bool all = true;
    for (int f = 0; f < spec.flows.num_flows(); ++f) {
      if (spec.flows.dst[at(f, t, T)] == kUnlimited) continue;
      const uint32_t c = final.flow_done[at(f, t, T)];
      if (c == kUnlimited) all = false;
      else done = std::max(done, static_cast<double>(c));  // the tail has been received by cycle c
    }
    add("completion_time_ns", all ? done * ns : kNaN);
  }
  // Flows: packets delivered out of their injection order (0 with routes fixed per flow).
  if (spec.flows.num_flows() > 0 && !setup.trace) {
    uint64_t reordered = 0;
    for (int f = 0; f < spec.flows.num_flows(); ++f) reordered += final.flow_reordered[at(f, t, T)];
    add("packets_out_of_order", static_cast<double>(reordered));
  }
  // injection.rates = "saa" (Zdornov Table 1, M42): the ratio of the minima, and W.
  if (!spec.flows.calc_rate.empty()) {
    double measured = 1e300, calculated = 1e300, bound = 0;
    bool all = true;
    for (int f = 0; f < spec.flows.num_flows(); ++f) {
      const int64_t i = at(static_cast<int64_t>(f), t, T);
      if (spec.flows.dst[i] == kUnlimited) continue;
      const double flits = spec.flows.flits[f], r = spec.flows.calc_rate[i];
      calculated = std::min(calculated, r);
      bound = std::max(bound, flits / r);
      const uint32_t c = final.flow_done[i];
      if (c == kUnlimited) {
        all = false;
        continue;
      }  // the tail arrived at cycle c: the flow took c + 1 - start cycles
      measured = std::min(measured, flits / (static_cast<double>(c) + 1.0 - spec.flows.start[f]));
    }
    add("rate_ratio_min", all && calculated < 1e300 ? measured / calculated : kNaN);
    add("saa_completion_bound_ns", bound * ns);
  }
  // Explicit flows: delivered rate in the window and completion time.
  for (size_t f = 0; f < setup.flows.size(); ++f) {
    const int64_t i = at(static_cast<int64_t>(f), t, T);
    add("flow_rate[" + setup.flow_names[f] + "]",
        window > 0 ? static_cast<double>(end.flow_flits[i] - start.flow_flits[i]) / window : kNaN);
    if (setup.flows[f].bytes > 0)
      add("flow_done_ns[" + setup.flow_names[f] + "]", final.flow_done[i] == kUnlimited ? kNaN : final.flow_done[i] * ns);
  }
  for (auto& m : per_link) out.push_back(m);
  if (setup.check_invariants) add("invariant_violations", static_cast<double>(final.violations[t]));
  return out;
}

}  // namespace saturn
