// Config -> model for congestion control and the endpoint protocols (protocol_setup.hpp).
#include "host/engine/protocol_setup.hpp"

#include <algorithm>
#include <cmath>

#include "host/engine/endpoint_setup.hpp"
#include "host/engine/setup_checks.hpp"

namespace saturn {

using namespace setup;  // fail, checked_cycles, bytes_to_flits (setup_checks.hpp)

// ACK / BECN packets (PAPERS-SPEC M22, M26): their size and class. Returns true when they share
// a VC with data (then the smallest packet of that buffer is an ACK).
bool setup_cc_answers(const Config& cfg, ModelSetup& s, int flit_bytes) {
  ModelParams& m = s.model;
  CcParams& cc = m.cc;
  cc = CcParams{};
  cc.window = injection_window(cfg, static_cast<int>(cfg.get_int("cc.window")));
  const std::string& response = cfg.get_string("cc.response");
  cc.response = response == "aimd" ? Response::kAimd
                : response == "fimd" ? Response::kFimd
                : response == "lipd" ? Response::kLipd
                                     : Response::kNone;
  cc.cca = cfg.get_bool("cca.enabled");
  cc.acks = cc.window > 0 || cc.response != Response::kNone || cfg.get_bool("cc.acks");
  cc.ack_flits = static_cast<int>(bytes_to_flits(static_cast<double>(cfg.get_int("cc.ack_bytes")), flit_bytes));
  cc.ack_queue = static_cast<int>(cfg.get_int("cc.ack_queue"));
  const int64_t ack_vc = cfg.get_int("cc.ack_vc");
  cc.ack_vc = ack_vc < 0 ? m.vcs - 1 : static_cast<int>(ack_vc);
  if (cc.ack_vc >= m.vcs)
    fail(cfg.source, "cc.ack_vc", std::to_string(ack_vc) + " is not a VC of this network (switch.vcs = " +
                                      std::to_string(m.vcs) + "); -1 = the highest");
  cc.saa_probes = cfg.get_string("injection.rates") == "saa_probes";  // (checked in setup_injection)
  cc.route_setup = cfg.get_string("routing.route_setup") == "packets";  // (checked in setup_flow_adaptive)
  if (!cc.control_packets()) return false;
  bool shared = false;
  if (m.pattern == TrafficPattern::kFlows) {
    for (const FlowSpec& f : s.flows) shared = shared || f.vc == cc.ack_vc;
  } else {
    shared = cfg.get_int("traffic.vc") == cc.ack_vc;
  }
  cc.ack_vc_separate = !shared;
  cc.ack_vc_flits = shared ? 0 : static_cast<int>(cfg.get_int("cc.ack_buffer_packets")) * cc.ack_flits;
  return shared;
}

// Marking, CCA, dynamic flows and the statistics that need buffer occupancy (after the buffers).
void setup_cc_rest(const Config& cfg, ModelSetup& s) {
  ModelParams& m = s.model;
  CcParams& cc = m.cc;
  cc.bypass_limit = static_cast<int>(cfg.get_int("switch.bypass_limit"));
  const std::string& reading = cfg.get_string("switch.bypass_reading");
  cc.bypass_reading = reading == "wait"    ? BypassReading::kWait
                      : reading == "eager" ? BypassReading::kEager
                                           : BypassReading::kReserve;
  const std::string& marking = cfg.get_string("cc.marking");
  cc.output_threshold = static_cast<int>(cfg.get_int("cc.output_threshold"));
  cc.output_level = cfg.get_string("cc.output_trigger") == "level";
  cc.marking = marking == "naive"   ? Marking::kNaive
               : marking == "input" ? Marking::kInput
               : marking == "input_output" ? (cc.output_threshold == 0 ? Marking::kInput : Marking::kInputOutput)
                                           : Marking::kNone;
  const std::string& rates = cfg.get_string("cc.rates");
  cc.rates = rates == "discrete"           ? RateGrid::kDiscrete
             : rates == "discrete_nearest" ? RateGrid::kDiscreteNearest
                                           : RateGrid::kContinuous;
  cc.ipd_steps = static_cast<int>(cfg.get_int("cc.ipd_steps"));
  if ((cc.ipd_steps & (cc.ipd_steps - 1)) != 0)
    fail(cfg.source, "cc.ipd_steps", "must be a power of two (1, 2, 4, ..., 256): the grid's gaps stay exact");
  cc.persistent = cfg.get_bool("cc.persistent");
  const double buffer_packets = static_cast<double>(m.vc_flits) / m.mtu_flits;
  cc.cca_threshold_packets = static_cast<int>(std::floor(cfg.get_float("cca.threshold") * buffer_packets));
  cc.cca_marking_period = static_cast<int>(cfg.get_int("cca.marking_period"));
  cc.cca_ipd_step = static_cast<int>(cfg.get_int("cca.ipd_step_flits"));
  cc.cca_max_index = static_cast<int>(cfg.get_int("cca.max_index"));
  cc.cca_timer = static_cast<int>(cfg.get_int("cca.timer_flits"));
  if (static_cast<double>(cc.cca_ipd_step) * cc.cca_max_index > 1e9)
    fail(cfg.source, "cca.max_index", "times cca.ipd_step_flits must stay below 1e9 cycles");
  cc.on_off_mean = std::max<uint32_t>(1, checked_cycles(cfg, "traffic.on_off_mean_ns",
                                                        cfg.get_float("traffic.on_off_mean_ns"), s.cycle_ns));
  cc.dynamic_flows = std::any_of(s.flows.begin(), s.flows.end(), [](const FlowSpec& f) { return f.dynamic; });
  cc.endpoint_state = cc.source_cc() || cc.dynamic_flows || cc.acks;  // (ACKs find their send queue's count)
  cc.full_stats = cfg.get_bool("stats.per_link");
  cc.track_occupancy = cc.marking != Marking::kNone || cc.cca || cc.full_stats;
}

// cc.protocol: 001's ECN (kernels/cc/ib_ecn.hpp) and the speculative protocols
// (kernels/reservation/lhrp_engine.hpp), after the dragonfly routing and the injection setup: they
// are built for 001's fabric and its baseline (ACKed data on one class, 1-flit control packets on
// another), and for nothing else yet.
void setup_cc_protocol(const Config& cfg, ModelSetup& s) {
  ModelParams& m = s.model;
  CcParams& cc = m.cc;
  const std::string& protocol = cfg.get_string("cc.protocol");
  cc.speculative = protocol != "baseline" && protocol != "ecn";
  cc.ecn = protocol == "ecn";
  cc.ecn_threshold = cfg.get_float("cca.threshold");
  cc.ecn_per_source = cfg.get_string("cc.ecn_scope") == "source";
  cc.ecn_at_output = cfg.get_string("cc.ecn_marking") == "output_queue";
  if (cc.ecn) {  // 001's InfiniBand-style ECN (kernels/cc/ib_ecn.hpp)
    const auto need_ecn = [&](bool ok, const char* key, const std::string& what) {
      if (!ok) fail(cfg.source, key, what + " with cc.protocol = \"ecn\"");
    };
    need_ecn(m.df.on, "topology.kind", "must be \"dragonfly\" (routing.algorithm minimal, valiant, ugal or par)");
    need_ecn(cfg.get_bool("cc.acks"), "cc.acks", "must be true (the ACKs carry the notifications)");
    need_ecn(cc.window == 0 && cc.response == Response::kNone, "cc.response", "must be \"none\" and cc.window 0");
    need_ecn(!cc.cca, "cca.enabled", "must be false (ecn takes cca.threshold, cca.ipd_step_flits, cca.timer_flits and "
                                     "cca.max_index as its own parameters)");
    need_ecn(cc.marking == Marking::kNone, "cc.marking", "must be \"none\"");
    need_ecn(cc.ecn_threshold < 1.0, "cca.threshold", "must be below 1 (a fraction of the buffer cc.ecn_marking names)");
    need_ecn(!cc.ecn_at_output || m.oq_packets > 0, "cc.ecn_marking",
             "\"output_queue\" needs output queues (switch.output_queue_packets > 0)");
    need_ecn(!iso_on(m.iso), "isolation.technique", "must be \"none\"");
    need_ecn(m.injection == InjectionScheduler::kRoundRobin, "injection.scheduler", "must be \"round_robin\"");
    need_ecn(m.arbitration != Arbitration::kFifoBypass, "switch.arbitration", "must not be \"fifo_bypass\"");
  }
  cc.last_hop_drop = protocol == "lhrp" || protocol == "lhrp_fabric_drop" || protocol == "comprehensive";
  cc.fabric_drop = protocol == "lhrp_fabric_drop" || protocol == "smsrp" || protocol == "srp";
  cc.nic_grants = protocol == "smsrp" || protocol == "srp";
  cc.srp_from_flits = protocol == "srp"             ? 0u
                      : protocol == "comprehensive" ? static_cast<uint32_t>(cfg.get_int("cc.comprehensive_split_flits"))
                                                    : kUnlimited;
  cc.last_hop_grants = protocol == "comprehensive";
  cc.srp_messages = static_cast<int>(cfg.get_int("cc.srp_messages"));
  cc.spec_timeout = checked_cycles(cfg, "cc.spec_timeout_ns", cfg.get_float("cc.spec_timeout_ns"), s.cycle_ns);
  cc.lhrp_outstanding = static_cast<int>(cfg.get_int("cc.lhrp_outstanding"));
  cc.lhrp_params = ProtocolParams{};
  cc.lhrp_params.last_hop_threshold_flits = static_cast<uint32_t>(cfg.get_int("cc.lhrp_threshold_flits"));
  if (!cc.speculative) return;
  const auto need = [&](bool ok, const char* key, const std::string& what) {
    if (!ok) fail(cfg.source, key, what + " with cc.protocol = \"" + protocol + "\"");
  };
  need(m.df.on, "topology.kind", "must be \"dragonfly\" (routing.algorithm minimal, valiant, ugal or par)");
  need(cfg.get_bool("cc.acks"), "cc.acks", "must be true (every data packet is ACKed)");
  need(cc.window == 0 && cc.response == Response::kNone, "cc.response", "must be \"none\" and cc.window 0");
  need(!cc.cca, "cca.enabled", "must be false");
  need(cc.marking == Marking::kNone, "cc.marking", "must be \"none\"");
  need(!cc.track_occupancy, "stats.per_link", "must be false (its buffer occupancy does not follow drops)");
  need(cc.ack_flits == 1, "cc.ack_bytes", "must fit in one flit (NACKs take one flit of the dropped packet's space)");
  need(cc.ack_vc / m.df.route_vcs != m.data_vc / m.df.route_vcs, "cc.ack_vc",
       "must be in another class of " + std::to_string(m.df.route_vcs) + " VCs than the data (traffic.vc)");
  need(!iso_on(m.iso), "isolation.technique", "must be \"none\"");
  need(m.injection == InjectionScheduler::kRoundRobin, "injection.scheduler", "must be \"round_robin\"");
  need(m.arbitration != Arbitration::kFifoBypass, "switch.arbitration", "must not be \"fifo_bypass\"");
  need(!m.trace, "traffic.pattern", "must not be \"trace\"");
  if (cc.srp_on())  // SRP's message state lives in the send queue of an open-loop message
    need(m.open_loop && m.flows_per_source == 0, "traffic.pattern",
         "must send open-loop messages (uniform, hotspot, ...; not flows or hotspot_window)");
}

}  // namespace saturn
