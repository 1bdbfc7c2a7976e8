// Engine implementation: device vectors for every column of the batched state (RAII through
// Thrust), the shared network tables, and the view the kernels receive.
#include "host/engine/engine.hpp"

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

template <class T>
T* raw(thrust::device_vector<T>& v) {
  return thrust::raw_pointer_cast(v.data());
}

template <class T>
std::vector<T> to_host(const thrust::device_vector<T>& v) {
  std::vector<T> h(v.size());
  thrust::copy(v.begin(), v.end(), h.begin());
  return h;
}

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
    b += slots_total * (sizeof(Packet) + 4 + 4 + 1);                                   // buffer slots
    b += queue * 12 + active * (4 * 4 + 8 + 4 + 1);                                    // source queues
    b += endpoints * (1 + 4 + 1 + 4 + 4 + 4) + endpoints * m.vcs * 4;                  // NIC state
    b += endpoints * 9 * 8 + hist * 2 * 4 + (flows > 0 ? flows : 1) * (8 + 4) + 8;  // statistics
    b += 3 * 8 + endpoints * 1 + static_cast<size_t>(endpoints) * dest_width * 4 + flows * 4;  // trial inputs
    return b;
  }
};

}  // namespace

struct Engine::Impl {
  EngineView view{};
  uint32_t cycle = 0;
  int T = 0;

  // shared network tables
  thrust::device_vector<int32_t> sw_port_base, peer, ep_port;
  thrust::device_vector<uint8_t> peer_type, route_det;
  thrust::device_vector<uint16_t> route_choice;
  thrust::device_vector<uint64_t> choice_masks;

  // state
  thrust::device_vector<Packet> link, inj_link, slot_pkt;
  thrust::device_vector<uint16_t> credit;
  thrust::device_vector<uint32_t> out_busy_until, slot_time, slot_tie, q_head, q_count, q_dst, q_flits, q_birth,
      act_dst, act_left, act_birth, act_stop, act_gap_q16, ep_busy_until, st_net_hist, st_msg_hist,
      st_flow_done;
  thrust::device_vector<int32_t> out_credits, ep_credits;
  thrust::device_vector<uint8_t> out_rr, out_vc_rr, slot_out, ep_rr, ep_flow_next, act_vc;
  thrust::device_vector<uint64_t> out_busy_cycles, in_occupied, in_departing, act_next_q16, st_generated, st_refused,
      st_inj_packets, st_inj_flits, st_del_packets, st_del_flits, st_net_lat_sum, st_msg_done, st_msg_lat_sum,
      st_flow_flits, st_violations;

  // per-trial inputs
  thrust::device_vector<uint64_t> seed;
  thrust::device_vector<double> log1m_p_msg, log1m_p_background;
  thrust::device_vector<uint32_t> ep_next_message;
  thrust::device_vector<uint32_t> dest_table, flow_dst, flow_flits, flow_start, flow_stop, flow_gap_q16;
  thrust::device_vector<uint8_t> role, flow_vc;
  thrust::device_vector<int32_t> flow_index;

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
  sw_port_base = h_base;
  peer = h_peer;
  peer_type = h_peer_type;
  ep_port = h_ep_port;
  route_det = routes.det_port;
  route_choice = routes.choice_id;
  choice_masks = routes.choice_masks;

  // State, zero-initialized except credits (full buffers downstream) and "not finished" marks.
  link.assign(x.links * T, Packet::empty());
  inj_link.assign(static_cast<size_t>(x.endpoints) * m.link_depth * T, Packet::empty());
  credit.assign(x.credits * T, 0);
  out_busy_until.assign(x.ports * T, 0);
  std::vector<int32_t> h_credits(x.ports * m.vcs * T, 0);
  for (int64_t gp = 0; gp < x.ports; ++gp)
    if (h_peer_type[gp] == static_cast<uint8_t>(PeerType::kSwitch))
      for (int vc = 0; vc < m.vcs; ++vc)
        for (int t = 0; t < T; ++t) h_credits[at(gp * m.vcs + vc, t, T)] = m.vc_flits;
  out_credits = h_credits;
  out_rr.assign(x.ports * T, 0);
  out_vc_rr.assign(x.ports * T, 0);
  out_busy_cycles.assign(x.ports * T, 0);
  in_occupied.assign(x.ports * T, 0);
  in_departing.assign(x.ports * T, 0);
  slot_pkt.assign(x.slots_total * T, Packet::empty());
  slot_time.assign(x.slots_total * T, 0);
  slot_tie.assign(x.slots_total * T, 0);
  slot_out.assign(x.slots_total * T, 0);
  q_head.assign(x.endpoints * T, 0);
  q_count.assign(x.endpoints * T, 0);
  q_dst.assign(x.queue * T, 0);
  q_flits.assign(x.queue * T, 0);
  q_birth.assign(x.queue * T, 0);
  act_dst.assign(x.active * T, 0);
  act_left.assign(x.active * T, 0);
  act_birth.assign(x.active * T, 0);
  act_stop.assign(x.active * T, kUnlimited);
  act_next_q16.assign(x.active * T, 0);
  act_gap_q16.assign(x.active * T, 1u << 16);
  act_vc.assign(x.active * T, 0);
  ep_rr.assign(x.endpoints * T, 0);
  ep_busy_until.assign(x.endpoints * T, 0);
  ep_credits.assign(x.endpoints * m.vcs * T, m.vc_flits);
  ep_flow_next.assign(x.endpoints * T, 0);
  for (auto* v : {&st_generated, &st_refused, &st_inj_packets, &st_inj_flits, &st_del_packets, &st_del_flits,
                  &st_net_lat_sum, &st_msg_done, &st_msg_lat_sum})
    v->assign(x.endpoints * T, 0);
  st_net_hist.assign(x.hist * T, 0);
  st_msg_hist.assign(x.hist * T, 0);
  st_flow_flits.assign(std::max<int64_t>(1, x.flows) * T, 0);
  st_flow_done.assign(std::max<int64_t>(1, x.flows) * T, kUnlimited);
  st_violations.assign(T, 0);

  // Per-trial inputs (vectors never empty so raw() is always a valid pointer).
  auto nonempty32 = [](const std::vector<uint32_t>& v) { return v.empty() ? std::vector<uint32_t>(1, 0) : v; };
  seed = spec.seed;
  log1m_p_msg = spec.log1m_p_msg;
  log1m_p_background = spec.log1m_p_background;
  ep_next_message = spec.first_message.empty() ? std::vector<uint32_t>(x.endpoints * T, kUnlimited) : spec.first_message;
  dest_table = nonempty32(spec.dest_table);
  role = spec.role.empty() ? std::vector<uint8_t>(1, 0) : spec.role;
  flow_index = spec.flows.index.empty() ? std::vector<int32_t>(1, -1) : spec.flows.index;
  flow_dst = nonempty32(spec.flows.dst);
  flow_flits = nonempty32(spec.flows.flits);
  flow_start = nonempty32(spec.flows.start);
  flow_stop = nonempty32(spec.flows.stop);
  flow_gap_q16 = nonempty32(spec.flows.gap_q16);
  flow_vc = spec.flows.vc.empty() ? std::vector<uint8_t>(1, 0) : spec.flows.vc;

  NetView& n = view.net;
  n.num_switches = topo.num_switches();
  n.num_ports = static_cast<int>(x.ports);
  n.num_endpoints = topo.num_endpoints;
  n.sw_port_base = raw(sw_port_base);
  n.peer_type = raw(peer_type);
  n.peer = raw(peer);
  n.ep_port = raw(ep_port);
  n.route_det = raw(route_det);
  n.route_choice = raw(route_choice);
  n.choice_masks = raw(choice_masks);
  view.model = m;

  StateView& s = view.state;
  s.link = raw(link);
  s.inj_link = raw(inj_link);
  s.credit = raw(credit);
  s.out_busy_until = raw(out_busy_until);
  s.out_credits = raw(out_credits);
  s.out_rr = raw(out_rr);
  s.out_vc_rr = raw(out_vc_rr);
  s.out_busy_cycles = raw(out_busy_cycles);
  s.in_occupied = raw(in_occupied);
  s.in_departing = raw(in_departing);
  s.slot_pkt = raw(slot_pkt);
  s.slot_time = raw(slot_time);
  s.slot_tie = raw(slot_tie);
  s.slot_out = raw(slot_out);
  s.q_head = raw(q_head);
  s.q_count = raw(q_count);
  s.q_dst = raw(q_dst);
  s.q_flits = raw(q_flits);
  s.q_birth = raw(q_birth);
  s.act_dst = raw(act_dst);
  s.act_left = raw(act_left);
  s.act_birth = raw(act_birth);
  s.act_stop = raw(act_stop);
  s.act_next_q16 = raw(act_next_q16);
  s.act_gap_q16 = raw(act_gap_q16);
  s.act_vc = raw(act_vc);
  s.ep_rr = raw(ep_rr);
  s.ep_busy_until = raw(ep_busy_until);
  s.ep_credits = raw(ep_credits);
  s.ep_flow_next = raw(ep_flow_next);
  s.ep_next_message = raw(ep_next_message);
  s.st_generated = raw(st_generated);
  s.st_refused = raw(st_refused);
  s.st_inj_packets = raw(st_inj_packets);
  s.st_inj_flits = raw(st_inj_flits);
  s.st_del_packets = raw(st_del_packets);
  s.st_del_flits = raw(st_del_flits);
  s.st_net_lat_sum = raw(st_net_lat_sum);
  s.st_msg_done = raw(st_msg_done);
  s.st_msg_lat_sum = raw(st_msg_lat_sum);
  s.st_net_hist = raw(st_net_hist);
  s.st_msg_hist = raw(st_msg_hist);
  s.st_flow_flits = raw(st_flow_flits);
  s.st_flow_done = raw(st_flow_done);
  s.st_violations = raw(st_violations);

  TrialView& tv = view.trial;
  tv.seed = raw(seed);
  tv.log1m_p_msg = raw(log1m_p_msg);
  tv.log1m_p_background = raw(log1m_p_background);
  tv.dest_table = raw(dest_table);
  tv.role = raw(role);
  tv.flow_index = raw(flow_index);
  tv.flow_dst = raw(flow_dst);
  tv.flow_flits = raw(flow_flits);
  tv.flow_start = raw(flow_start);
  tv.flow_stop = raw(flow_stop);
  tv.flow_gap_q16 = raw(flow_gap_q16);
  tv.flow_vc = raw(flow_vc);
  tv.dest_width = spec.dest_width;
  tv.num_flows = spec.flows.num_flows();
}

Engine::Engine(const EngineSpec& spec) : impl_(new Impl) {
  try {
    impl_->build(spec);
  } catch (const std::bad_alloc&) {
#if defined(SATURN_BACKEND_CUDA)
    throw std::runtime_error("no usable GPU (or not enough device memory); use --backend cpu");
#else
    throw std::runtime_error("not enough memory for this batch; use fewer trials per point");
#endif
  } catch (const std::exception& e) {
#if defined(SATURN_BACKEND_CUDA)
    throw std::runtime_error(std::string("no usable GPU: ") + e.what() + "; use --backend cpu");
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
  c.generated = to_host(d.st_generated);
  c.refused = to_host(d.st_refused);
  c.inj_packets = to_host(d.st_inj_packets);
  c.inj_flits = to_host(d.st_inj_flits);
  c.del_packets = to_host(d.st_del_packets);
  c.del_flits = to_host(d.st_del_flits);
  c.net_lat_sum = to_host(d.st_net_lat_sum);
  c.msg_done = to_host(d.st_msg_done);
  c.msg_lat_sum = to_host(d.st_msg_lat_sum);
  c.net_hist = to_host(d.st_net_hist);
  c.msg_hist = to_host(d.st_msg_hist);
  c.busy_cycles = to_host(d.out_busy_cycles);
  c.flow_flits = to_host(d.st_flow_flits);
  c.flow_done = to_host(d.st_flow_done);
  c.violations = to_host(d.st_violations);
  return c;
}

std::vector<uint64_t> Engine::read_delivered_flits() const { return to_host(impl_->st_del_flits); }

size_t Engine::bytes_per_trial(const Topology& topo, const ModelParams& model, int dest_width, int num_flows) {
  return Extents(topo, model, num_flows).bytes(model, dest_width);
}

size_t Engine::memory_budget() {
#if defined(SATURN_BACKEND_CUDA)
  size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess)
    throw std::runtime_error("no usable GPU (CUDA reports no device or driver); use --backend cpu");
  return free_bytes / 4 * 3;
#else
  const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return static_cast<size_t>(8) << 30;
  return static_cast<size_t>(pages) * static_cast<size_t>(page) / 4 * 3;
#endif
}

}  // namespace saturn
