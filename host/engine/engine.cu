// Engine implementation: device vectors for every column of the batched state (RAII through
// Thrust), the shared network tables, and the view the kernels receive.
#include "host/engine/engine.hpp"

#include "host/engine/cc_columns.hpp"
#include "host/engine/column.hpp"

#include "kernels/common/index.hpp"

#include <stdexcept>
#include <string>

#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/fill.h>

#if defined(SATURN_BACKEND_CUDA)
#include <cuda_runtime.h>
#else
#include <unistd.h>
#endif

namespace saturn {

namespace {

[[maybe_unused]] constexpr const char* kNoGpuHint =
    "; this is a cuda build: use a cpu build (-DSATURN_BACKEND=cpu) on machines without a GPU";

// Per-trial element counts of every state column (one place, used for allocation and sizing).
struct Extents {
  int64_t ports, endpoints, slots_total, links, credits, queue, active, hist, flows;
  Extents(const Topology& topo, const ModelParams& m, int num_flows) {
    ports = topo.total_ports();
    endpoints = topo.num_endpoints;
    slots_total = ports * m.slots;
    links = ports * m.link_depth;
    credits = links * m.vcs;
    queue = endpoints * m.queue_capacity;
    active = endpoints * m.active_queues;
    hist = endpoints * kHistBins;
    flows = num_flows;
  }
  // Mirrors the allocations in Impl::build (per trial).
  size_t bytes(const ModelParams& m, int dest_width) const {
    size_t b = 0;
    b += links * sizeof(Packet) + credits * sizeof(uint16_t);                          // links, credit channels
    b += static_cast<size_t>(endpoints) * m.link_depth * sizeof(Packet);              // injection links
    b += ports * (4 + 1 + 1 + 8 + 8 + 8) + ports * m.vcs * 4;                          // port state
    b += slots_total * (sizeof(Packet) + 4 + 4 + 1 + 2);                                  // buffer slots
    b += queue * 12 + active * (4 * 4 + 8 + 4 + 1);                                    // source queues
    b += endpoints * (1 + 4 + 1 + 4 + 4 + 4) + endpoints * m.vcs * 4;                  // NIC state
    b += endpoints * 9 * 8 + hist * 2 * 4 + (flows > 0 ? flows : 1) * (8 + 4) + 8;  // statistics
    b += 3 * 8 + endpoints * 1 + static_cast<size_t>(endpoints) * dest_width * 4 + flows * 4;  // trial inputs
    b += CcColumns::bytes(m, ports, endpoints);
    return b;
  }
};

}  // namespace

struct Engine::Impl {
  EngineView view{};
  uint32_t cycle = 0;
  int T = 0;

  ColumnStagger stagger;  // every column, tables included, starts at its own page offset

  // shared network tables
  Column<int32_t> sw_port_base, peer, ep_port;
  Column<uint8_t> peer_type, route_det;
  Column<uint16_t> route_choice;
  Column<uint64_t> choice_masks;

  // state and per-trial inputs
  Column<Packet> link, inj_link, slot_pkt;
  Column<uint16_t> credit, slot_fv;
  Column<uint32_t> out_busy_until, slot_time, slot_tie, q_head, q_count, q_dst, q_flits, q_birth,
      act_dst, act_left, act_birth, act_stop, act_gap_q16, ep_busy_until, st_net_hist, st_msg_hist,
      st_flow_done;
  Column<int32_t> out_credits, ep_credits;
  Column<uint8_t> out_rr, out_vc_rr, slot_out, ep_rr, ep_flow_next, act_vc;
  Column<uint64_t> out_busy_cycles, in_occupied, in_departing, act_next_q16, st_generated, st_refused,
      st_inj_packets, st_inj_flits, st_del_packets, st_del_flits, st_net_lat_sum, st_msg_done, st_msg_lat_sum,
      st_flow_flits, st_violations;

  // per-trial inputs
  Column<uint64_t> seed;
  Column<double> log1m_p_msg, log1m_p_background;
  Column<uint32_t> ep_next_message;
  Column<uint32_t> dest_table, flow_dst, flow_flits, flow_start, flow_stop, flow_gap_q16;
  Column<uint8_t> role, flow_vc, flow_dynamic;
  CcColumns cc;
  Column<int32_t> flow_index;

  void build(const EngineSpec& spec);
};

void Engine::Impl::build(const EngineSpec& spec) {
  const Topology& topo = *spec.topology;
  const RoutingTables& routes = *spec.routes;
  const ModelParams& m = spec.model;
  T = m.trials;
  const Extents x(topo, m, spec.flows.num_flows());

  // Network tables: global port ids switch by switch.
  std::vector<int32_t> h_base(topo.num_switches() + 1, 0), h_peer(x.ports, -1), h_ep_port(x.endpoints, -1);
  std::vector<uint8_t> h_peer_type(x.ports, 0);
  for (int s = 0; s < topo.num_switches(); ++s) h_base[s + 1] = h_base[s] + topo.radix(s);
  for (int s = 0; s < topo.num_switches(); ++s)
    for (int p = 0; p < topo.radix(s); ++p) {
      const PortPeer& pp = topo.ports[s][p];
      const int gp = h_base[s] + p;
      if (pp.kind == PeerKind::kSwitch) {
        h_peer_type[gp] = static_cast<uint8_t>(PeerType::kSwitch);
        h_peer[gp] = h_base[pp.index] + pp.port;
      } else if (pp.kind == PeerKind::kEndpoint) {
        h_peer_type[gp] = static_cast<uint8_t>(PeerType::kEndpoint);
        h_peer[gp] = pp.index;
      }
    }
  for (int e = 0; e < topo.num_endpoints; ++e) h_ep_port[e] = h_base[topo.endpoint_switch[e]] + topo.endpoint_port[e];
  sw_port_base.assign(h_base, stagger);
  peer.assign(h_peer, stagger);
  peer_type.assign(h_peer_type, stagger);
  ep_port.assign(h_ep_port, stagger);
  route_det.assign(routes.det_port, stagger);
  route_choice.assign(routes.choice_id, stagger);
  choice_masks.assign(routes.choice_masks, stagger);

  // State, zero-initialized except credits (full buffers downstream) and "not finished" marks.
  link.assign(x.links * T, Packet::empty(), stagger);
  inj_link.assign(static_cast<size_t>(x.endpoints) * m.link_depth * T, Packet::empty(), stagger);
  credit.assign(x.credits * T, 0, stagger);
  out_busy_until.assign(x.ports * T, 0, stagger);
  std::vector<int32_t> h_credits(x.ports * m.vcs * T, 0);
  for (int64_t gp = 0; gp < x.ports; ++gp)
    if (h_peer_type[gp] == static_cast<uint8_t>(PeerType::kSwitch))
      for (int vc = 0; vc < m.vcs; ++vc)
        for (int t = 0; t < T; ++t) h_credits[at(gp * m.vcs + vc, t, T)] = vc_capacity(m, vc);
  out_credits.assign(h_credits, stagger);
  out_rr.assign(x.ports * T, 0, stagger);
  out_vc_rr.assign(x.ports * T, 0, stagger);
  out_busy_cycles.assign(x.ports * T, 0, stagger);
  in_occupied.assign(x.ports * T, 0, stagger);
  in_departing.assign(x.ports * T, 0, stagger);
  slot_pkt.assign(x.slots_total * T, Packet::empty(), stagger);
  slot_time.assign(x.slots_total * T, 0, stagger);
  slot_tie.assign(x.slots_total * T, 0, stagger);
  slot_out.assign(x.slots_total * T, 0, stagger);
  slot_fv.assign(x.slots_total * T, 0, stagger);
  q_head.assign(x.endpoints * T, 0, stagger);
  q_count.assign(x.endpoints * T, 0, stagger);
  q_dst.assign(x.queue * T, 0, stagger);
  q_flits.assign(x.queue * T, 0, stagger);
  q_birth.assign(x.queue * T, 0, stagger);
  act_dst.assign(x.active * T, kUnlimited, stagger);  // no destination yet: matches no ACK or BECN
  act_left.assign(x.active * T, 0, stagger);
  act_birth.assign(x.active * T, 0, stagger);
  act_stop.assign(x.active * T, kUnlimited, stagger);
  act_next_q16.assign(x.active * T, 0, stagger);
  act_gap_q16.assign(x.active * T, 1u << 16, stagger);
  act_vc.assign(x.active * T, 0, stagger);
  ep_rr.assign(x.endpoints * T, 0, stagger);
  ep_busy_until.assign(x.endpoints * T, 0, stagger);
  std::vector<int32_t> h_ep_credits(x.endpoints * m.vcs * T);
  for (int64_t e = 0; e < x.endpoints; ++e)
    for (int vc = 0; vc < m.vcs; ++vc)
      for (int t = 0; t < T; ++t) h_ep_credits[at(e * m.vcs + vc, t, T)] = vc_capacity(m, vc);
  ep_credits.assign(h_ep_credits, stagger);
  ep_flow_next.assign(x.endpoints * T, 0, stagger);
  for (auto* v : {&st_generated, &st_refused, &st_inj_packets, &st_inj_flits, &st_del_packets, &st_del_flits,
                  &st_net_lat_sum, &st_msg_done, &st_msg_lat_sum})
    v->assign(x.endpoints * T, 0, stagger);
  st_net_hist.assign(x.hist * T, 0, stagger);
  st_msg_hist.assign(x.hist * T, 0, stagger);
  st_flow_flits.assign(std::max<int64_t>(1, x.flows) * T, 0, stagger);
  st_flow_done.assign(std::max<int64_t>(1, x.flows) * T, kUnlimited, stagger);
  st_violations.assign(T, 0, stagger);
  cc.build(m, x.ports, x.endpoints, stagger);

  // Per-trial inputs (never empty, so data() is always a valid pointer).
  auto nonempty32 = [](const std::vector<uint32_t>& v) { return v.empty() ? std::vector<uint32_t>(1, 0) : v; };
  seed.assign(spec.seed, stagger);
  log1m_p_msg.assign(spec.log1m_p_msg, stagger);
  log1m_p_background.assign(spec.log1m_p_background, stagger);
  ep_next_message.assign(spec.first_message.empty() ? std::vector<uint32_t>(x.endpoints * T, kUnlimited) : spec.first_message, stagger);
  dest_table.assign(nonempty32(spec.dest_table), stagger);
  role.assign(spec.role.empty() ? std::vector<uint8_t>(1, 0) : spec.role, stagger);
  flow_index.assign(spec.flows.index.empty() ? std::vector<int32_t>(1, -1) : spec.flows.index, stagger);
  flow_dst.assign(nonempty32(spec.flows.dst), stagger);
  flow_flits.assign(nonempty32(spec.flows.flits), stagger);
  flow_start.assign(nonempty32(spec.flows.start), stagger);
  flow_stop.assign(nonempty32(spec.flows.stop), stagger);
  flow_gap_q16.assign(nonempty32(spec.flows.gap_q16), stagger);
  flow_vc.assign(spec.flows.vc.empty() ? std::vector<uint8_t>(1, 0) : spec.flows.vc, stagger);
  flow_dynamic.assign(spec.flows.dynamic.empty() ? std::vector<uint8_t>(1, 0) : spec.flows.dynamic, stagger);

  NetView& n = view.net;
  n.num_switches = topo.num_switches();
  n.num_ports = static_cast<int>(x.ports);
  n.num_endpoints = topo.num_endpoints;
  n.sw_port_base = sw_port_base.data();
  n.peer_type = peer_type.data();
  n.peer = peer.data();
  n.ep_port = ep_port.data();
  n.route_det = route_det.data();
  n.route_choice = route_choice.data();
  n.choice_masks = choice_masks.data();
  view.model = m;

  StateView& s = view.state;
  s.link = link.data();
  s.inj_link = inj_link.data();
  s.credit = credit.data();
  s.out_busy_until = out_busy_until.data();
  s.out_credits = out_credits.data();
  s.out_rr = out_rr.data();
  s.out_vc_rr = out_vc_rr.data();
  s.out_busy_cycles = out_busy_cycles.data();
  s.in_occupied = in_occupied.data();
  s.in_departing = in_departing.data();
  s.slot_pkt = slot_pkt.data();
  s.slot_time = slot_time.data();
  s.slot_tie = slot_tie.data();
  s.slot_out = slot_out.data();
  s.slot_fv = slot_fv.data();
  s.q_head = q_head.data();
  s.q_count = q_count.data();
  s.q_dst = q_dst.data();
  s.q_flits = q_flits.data();
  s.q_birth = q_birth.data();
  s.act_dst = act_dst.data();
  s.act_left = act_left.data();
  s.act_birth = act_birth.data();
  s.act_stop = act_stop.data();
  s.act_next_q16 = act_next_q16.data();
  s.act_gap_q16 = act_gap_q16.data();
  s.act_vc = act_vc.data();
  s.ep_rr = ep_rr.data();
  s.ep_busy_until = ep_busy_until.data();
  s.ep_credits = ep_credits.data();
  s.ep_flow_next = ep_flow_next.data();
  s.ep_next_message = ep_next_message.data();
  s.st_generated = st_generated.data();
  s.st_refused = st_refused.data();
  s.st_inj_packets = st_inj_packets.data();
  s.st_inj_flits = st_inj_flits.data();
  s.st_del_packets = st_del_packets.data();
  s.st_del_flits = st_del_flits.data();
  s.st_net_lat_sum = st_net_lat_sum.data();
  s.st_msg_done = st_msg_done.data();
  s.st_msg_lat_sum = st_msg_lat_sum.data();
  s.st_net_hist = st_net_hist.data();
  s.st_msg_hist = st_msg_hist.data();
  s.st_flow_flits = st_flow_flits.data();
  s.st_flow_done = st_flow_done.data();
  s.st_violations = st_violations.data();
  s.cc = cc.view();

  TrialView& tv = view.trial;
  tv.seed = seed.data();
  tv.log1m_p_msg = log1m_p_msg.data();
  tv.log1m_p_background = log1m_p_background.data();
  tv.dest_table = dest_table.data();
  tv.role = role.data();
  tv.flow_index = flow_index.data();
  tv.flow_dst = flow_dst.data();
  tv.flow_flits = flow_flits.data();
  tv.flow_start = flow_start.data();
  tv.flow_stop = flow_stop.data();
  tv.flow_gap_q16 = flow_gap_q16.data();
  tv.flow_vc = flow_vc.data();
  tv.flow_dynamic = flow_dynamic.data();
  tv.dest_width = spec.dest_width;
  tv.num_flows = spec.flows.num_flows();
}

Engine::Engine(const EngineSpec& spec) : impl_(new Impl) {
  try {
    impl_->build(spec);
  } catch (const std::bad_alloc&) {
#if defined(SATURN_BACKEND_CUDA)
    throw std::runtime_error(std::string("no usable GPU (or not enough device memory)") + kNoGpuHint);
#else
    throw std::runtime_error("not enough memory for this batch; use fewer trials per point");
#endif
  } catch (const std::exception& e) {
#if defined(SATURN_BACKEND_CUDA)
    throw std::runtime_error(std::string("no usable GPU: ") + e.what() + kNoGpuHint);
#else
    throw;
#endif
  }
}

Engine::~Engine() = default;

void Engine::advance(uint32_t cycles, const LaunchOptions& options) {
  run_cycles(impl_->view, impl_->cycle, impl_->cycle + cycles, options);
  impl_->cycle += cycles;
}

uint32_t Engine::cycle() const { return impl_->cycle; }

Counters Engine::read_counters() const {
  Impl& d = *impl_;
  Counters c;
  c.trials = d.T;
  c.cycle = d.cycle;
  c.generated = d.st_generated.to_host();
  c.refused = d.st_refused.to_host();
  c.inj_packets = d.st_inj_packets.to_host();
  c.inj_flits = d.st_inj_flits.to_host();
  c.del_packets = d.st_del_packets.to_host();
  c.del_flits = d.st_del_flits.to_host();
  c.net_lat_sum = d.st_net_lat_sum.to_host();
  c.msg_done = d.st_msg_done.to_host();
  c.msg_lat_sum = d.st_msg_lat_sum.to_host();
  c.net_hist = d.st_net_hist.to_host();
  c.msg_hist = d.st_msg_hist.to_host();
  c.busy_cycles = d.out_busy_cycles.to_host();
  c.flow_flits = d.st_flow_flits.to_host();
  c.flow_done = d.st_flow_done.to_host();
  c.violations = d.st_violations.to_host();
  c.ctrl_injected = d.cc.st_ctrl_injected.to_host();
  c.ctrl_delivered = d.cc.st_ctrl_delivered.to_host();
  c.acks_dropped = d.cc.st_acks_dropped.to_host();
  c.marked = d.cc.st_marked.to_host();
  c.full_cycles = d.cc.st_full_cycles.to_host();
  return c;
}

std::vector<uint64_t> Engine::read_delivered_flits() const { return impl_->st_del_flits.to_host(); }

std::vector<uint64_t> Engine::read_injected_flits() const { return impl_->st_inj_flits.to_host(); }

size_t Engine::bytes_per_trial(const Topology& topo, const ModelParams& model, int dest_width, int num_flows) {
  return Extents(topo, model, num_flows).bytes(model, dest_width);
}

size_t Engine::memory_budget() {
#if defined(SATURN_BACKEND_CUDA)
  size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess)
    throw std::runtime_error(std::string("no usable GPU (CUDA reports no device or driver)") + kNoGpuHint);
  return free_bytes / 4 * 3;
#else
  const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return static_cast<size_t>(8) << 30;
  return static_cast<size_t>(pages) * static_cast<size_t>(page) / 4 * 3;
#endif
}

}  // namespace saturn
