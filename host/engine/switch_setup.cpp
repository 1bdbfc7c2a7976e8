// Config -> model for the switches and links (switch_setup.hpp).
#include "host/engine/switch_setup.hpp"

#include <string>

#include "host/engine/fabric_setup.hpp"
#include "host/engine/setup_checks.hpp"

namespace saturn {

using namespace setup;  // fail, num, checked_cycles (setup_checks.hpp)

namespace {

// switch.output_queue_packets (CIOQ, kernels/state/output_queue.hpp): switch.speedup becomes the
// crossbar's flits per cycle, and each input sends one packet at a time.
void setup_output_queues(const Config& cfg, ModelSetup& s) {
  ModelParams& m = s.model;
  m.oq_packets = static_cast<int>(cfg.get_int("switch.output_queue_packets"));
  m.xbar_flits = 0;
  if (m.oq_packets == 0) return;
  if (m.speedup == 0)
    fail(cfg.source, "switch.speedup",
         "\"unlimited\" has no meaning with output queues (switch.output_queue_packets > 0): use \"1\" or \"2\", the "
         "flits the crossbar moves per cycle");
  if (m.arbitration == Arbitration::kFifoBypass)
    fail(cfg.source, "switch.arbitration", "\"fifo_bypass\" has no output-queue version: use \"fcfs\" or \"round_robin\" "
                                           "with switch.output_queue_packets > 0");
  m.xbar_flits = m.speedup;
  m.speedup = 1;
}

}  // namespace

// Link latency and ring depth, the dragonfly's link classes and the router delay, once the cycle
// (one flit time) is known.
void setup_links(const Config& cfg, ModelSetup& s) {
  ModelParams& m = s.model;
  // Links are rings of link_depth slots per port: their delays stay small.
  m.link_latency = 1 + static_cast<int>(checked_cycles(cfg, "link.latency_ns", cfg.get_float("link.latency_ns"),
                                                       s.cycle_ns, (1 << 16) - 1));
  m.link_depth = m.link_latency + 1;
  setup_link_classes(cfg, s);  // link.local_latency_ns, link.global_latency_ns (dragonfly)
  m.router_delay = static_cast<int>(
      checked_cycles(cfg, "switch.router_delay_ns", cfg.get_float("switch.router_delay_ns"), s.cycle_ns, 1 << 16));
}

// The input buffers: VCs (switch.vcs, traffic.vc), the buffer per VC or the shared pool, and the
// packet entries of an input port (as many packets of min_packet flits as its buffers hold).
// After the congestion-control answers (ack_vc_shared: ACKs share a data VC).
void setup_buffers(const Config& cfg, ModelSetup& s, bool ack_vc_shared, uint32_t min_packet) {
  ModelParams& m = s.model;
  const int flit_bytes = s.flit_bytes;
  const int64_t mtu_bytes = cfg.get_int("endpoint.mtu_bytes");
  const int data_vcs = m.vcs - (m.cc.ack_vc_separate ? 1 : 0);
  m.data_vc = static_cast<int>(cfg.get_int("traffic.vc"));
  if (m.data_vc >= m.vcs)
    fail(cfg.source, "traffic.vc", std::to_string(m.data_vc) + " is not a VC of this network (switch.vcs = " +
                                       std::to_string(m.vcs) + ")");
  for (size_t i = 0; i < s.flows.size(); ++i)
    if (s.flows[i].vc >= m.vcs)
      fail(cfg.source, "traffic.flows[" + std::to_string(i) + "].vc",
           std::to_string(s.flows[i].vc) + " is not a VC of this network (switch.vcs = " + std::to_string(m.vcs) + ")");
  const int64_t buffer_flits = cfg.get_int("switch.buffer_bytes") / flit_bytes;
  if (buffer_flits / data_vcs > 65535) fail(cfg.source, "switch.buffer_bytes", "more than 65535 flits per VC");
  m.vc_flits = static_cast<int>(buffer_flits / data_vcs);
  if (m.vc_flits < m.mtu_flits)
    fail(cfg.source, "switch.buffer_bytes", "each of the " + std::to_string(data_vcs) + " data VCs gets " +
                                                std::to_string(m.vc_flits * flit_bytes) +
                                                " bytes, less than one MTU packet (" + num(mtu_bytes) + " bytes)");
  if (m.vc_flits > 65535) fail(cfg.source, "switch.buffer_bytes", "more than 65535 flits per VC");
  // switch.vc_buffer = "shared": a pool with a per-VC minimum (fabric_setup.hpp).
  const int64_t pool_slots = setup_vc_pool(cfg, s, data_vcs, flit_bytes, buffer_flits, min_packet);
  // switch.global_buffer_bytes (dragonfly): every input port's pool covers the largest VC buffer.
  const int largest_vc_flits = setup_buffer_classes(cfg, s, data_vcs, flit_bytes);
  const int64_t slots = pool_slots > 0 ? pool_slots
                                       : static_cast<int64_t>(data_vcs) * (largest_vc_flits / min_packet) +
                                             (m.cc.ack_vc_separate ? m.cc.ack_vc_flits / m.cc.ack_flits : 0);
  // switch.packet_descriptors: fewer entries than the buffers could fill (docs/model/switch.md).
  s.buffer_packets = slots;
  s.packet_descriptors = cfg.get_int("switch.packet_descriptors");
  const int64_t entries = s.port_entries(slots);
  if (entries > kMaxPortPackets)
    fail(cfg.source, "switch.buffer_bytes", "holds " + std::to_string(slots) +
                                                " packets of the smallest size; an input port holds at most " +
                                                std::to_string(kMaxPortPackets) +
                                                (ack_vc_shared ? " (ACKs share a data VC: give them their own VC with "
                                                                 "switch.vcs one higher)"
                                                               : " (or set switch.packet_descriptors)"));
  m.entries = static_cast<int>(entries);
  m.max_radix = s.topology.max_radix();
  m.mixed_sizes = static_cast<int>(min_packet) < m.mtu_flits || m.cc.ack_vc_separate;
}

// Crossbar speedup, output and VC arbitration, and the output queues (CIOQ): after the buffers.
void setup_arbitration(const Config& cfg, ModelSetup& s) {
  ModelParams& m = s.model;
  const std::string& speedup = cfg.get_string("switch.speedup");
  m.speedup = speedup == "unlimited" ? 0 : std::stoi(speedup);
  const std::string& arbitration = cfg.get_string("switch.arbitration");
  m.arbitration = arbitration == "fcfs"          ? Arbitration::kFcfs
                  : arbitration == "fifo_bypass" ? Arbitration::kFifoBypass
                                                 : Arbitration::kRoundRobin;
  setup_output_queues(cfg, s);
  m.vc_arbitration =
      cfg.get_string("switch.vc_arbitration") == "priority" ? VcArbitration::kPriority : VcArbitration::kRoundRobin;
}

// switch.input_queue, switch.allocator (issue 13 item 8): phases only, and not with congestion
// control, whose grant (switch_grant_cc.hpp) has no FIFO-input or separable version yet (after
// setup_cc_rest and the arbitration).
void setup_switch_allocation(const Config& cfg, ModelSetup& s) {
  ModelParams& m = s.model;
  m.input_queue = cfg.get_string("switch.input_queue") == "fifo" ? InputQueue::kFifo : InputQueue::kVoq;
  const std::string& allocator = cfg.get_string("switch.allocator");
  m.allocator = allocator == "separable_input_first" ? Allocator::kSeparableInputFirst : Allocator::kGreedy;
  m.allocator_iterations = static_cast<int>(cfg.get_int("switch.allocator_iterations"));
  if (m.allocator_iterations != 1 && m.allocator != Allocator::kSeparableInputFirst)
    fail(cfg.source, "switch.allocator_iterations",
         "applies to switch.allocator = \"separable_input_first\" (got \"" + allocator + "\")");
  if ((m.input_queue == InputQueue::kVoq && m.allocator == Allocator::kGreedy) || !model_uses_cc(m)) return;
  const std::string key = m.input_queue == InputQueue::kFifo ? "switch.input_queue" : "switch.allocator";
  fail(cfg.source, key, "\"" + cfg.get_string(key) +
                            "\" has no congestion-control version yet: it needs cc.marking = \"none\", no cc.window or "
                            "cc.response, cca.enabled = false, switch.arbitration other than \"fifo_bypass\" and "
                            "stats.per_link = false");
}

// switch.vc_allocation = per_hop (kernels/arbiters/vc_allocation.hpp) treats every VC as one class,
// free for any packet: refused where VCs carry classes (the dragonfly's routing levels, the ACK and
// reservation VCs of congestion control, isolation's queues) or where its per-hop choice has no
// version yet (output queues, a shared VC buffer, per-class buffers, the injection schedulers).
void setup_vc_allocation(const Config& cfg, ModelSetup& s) {
  ModelParams& m = s.model;
  m.vc_per_hop = cfg.get_string("switch.vc_allocation") == "per_hop";
  if (!m.vc_per_hop) return;
  m.wait_tail_credit = cfg.get_bool("switch.wait_for_tail_credit");
  const auto refuse = [&](const std::string& with) {
    fail(cfg.source, "switch.vc_allocation",
         "\"per_hop\" gives a packet any free VC at each hop, so it runs without " + with + "; use \"fixed\"");
  };
  if (m.df.on) refuse("dragonfly routing (its VCs per hop are its deadlock avoidance)");
  if (model_uses_cc(m))
    refuse("congestion control or the buffer-occupancy tracking it shares with stats.per_link (their grant has no "
           "per-hop version: ACK, reservation and marking classes; switch.arbitration = fifo_bypass too)");
  if (iso_on(m.iso)) refuse("isolation.technique (its queues are VCs)");
  if (m.oq_packets > 0) refuse("output queues (switch.output_queue_packets)");
  if (m.pool_flits > 0) refuse("a shared VC buffer (switch.vc_buffer = \"shared\")");
  if (m.per_port_buffers || m.per_port_links) refuse("per-class links or buffers");
  if (injection_scheduled(m)) refuse("injection.scheduler = ipd, svc or ps");
  if (m.data_vc != 0)
    fail(cfg.source, "traffic.vc", "is chosen per packet under switch.vc_allocation = \"per_hop\": leave it 0");
  for (size_t i = 0; i < s.flows.size(); ++i)
    if (s.flows[i].vc != 0)
      fail(cfg.source, "traffic.flows[" + std::to_string(i) + "].vc",
           "is chosen per packet under switch.vc_allocation = \"per_hop\": leave it 0");
}

}  // namespace saturn
