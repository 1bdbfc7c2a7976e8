// Engine implementation: the columns of kernels/state/state_columns.def in backend memory (RAII
// through Thrust; generated in state_columns.hpp), the contents that are not one constant, and
// the view the kernels receive.
#include "host/engine/engine.hpp"

#include "host/engine/column.hpp"
#include "host/engine/isolation_setup.hpp"
#include "host/engine/state_columns.hpp"

#include "kernels/common/index.hpp"
#include "kernels/launch/segmented_reduce.hpp"
#include "kernels/routing/route_cache.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <type_traits>

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

// Uploads a table the host built into its column; an empty table keeps the list's initial value.
template <class T>
void upload_if_given(Column<T>& column, const std::vector<T>& host, const char* name) {
  if (!host.empty()) column.upload(host, name);
}

}  // namespace

struct Engine::Impl {
  EngineView view{};
  uint32_t cycle = 0;
  int T = 0;

  ColumnStagger stagger;  // every column, tables included, starts at its own page offset
  EngineColumns c;        // one per row of kernels/state/state_columns.def
  TrialStage stage{};     // the rows one trial stages (GpuStep::kSharedTrial)

  void build(const EngineSpec& spec);
  void upload_trace(const EngineSpec& spec, const Extents& x);
};

// Trace replay: the shared event tables, and every trial's copy of the initial replay state.
void Engine::Impl::upload_trace(const EngineSpec& spec, const Extents& x) {
  if (spec.trace == nullptr) throw std::logic_error("model.trace without trace tables");
  const TraceTables& tr = *spec.trace;
  check_trace_tables(tr, static_cast<int>(x.endpoints));
  c.tr_node_first.upload(tr.node_first, "tr_node_first");
  c.tr_fifo_base.upload(tr.fifo_base, "tr_fifo_base");
  upload_if_given(c.tr_ev_op, tr.op, "tr_ev_op");
  upload_if_given(c.tr_ev_arg, tr.arg, "tr_ev_arg");
  upload_if_given(c.tr_ev_peer, tr.peer, "tr_ev_peer");
  upload_if_given(c.tr_ev_match, tr.match, "tr_ev_match");
  upload_if_given(c.tr_succ_first, tr.succ_first, "tr_succ_first");
  upload_if_given(c.tr_succ, tr.succ, "tr_succ");
  const auto per_trial = [&](const auto& one) {
    std::vector<typename std::decay_t<decltype(one)>::value_type> all(one.size() * static_cast<size_t>(T));
    for (size_t i = 0; i < one.size(); ++i)
      for (int t = 0; t < T; ++t) all[at(static_cast<int64_t>(i), t, T)] = one[i];
    return all;
  };
  upload_if_given(c.tr_wait, per_trial(tr.wait), "tr_wait");
  upload_if_given(c.tr_slots, per_trial(tr.slots), "tr_slots");
  c.tr_heap_n.upload(per_trial(tr.heap_n), "tr_heap_n");
  c.tr_fifo_tail.upload(per_trial(tr.fifo_tail), "tr_fifo_tail");
  c.tr_wake.upload(per_trial(tr.wake), "tr_wake");
}

void Engine::Impl::build(const EngineSpec& spec) {
  const Topology& topo = *spec.topology;
  const RoutingTables& routes = *spec.routes;
  const ModelParams& m = spec.model;
  T = m.trials;
  const Extents x(topo, m, spec.dest_width, spec.flows.num_flows(), &routes);
  c.allocate(x, m, stagger);

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
  c.sw_port_base.upload(h_base, "sw_port_base");
  c.peer.upload(h_peer, "peer");
  c.peer_type.upload(h_peer_type, "peer_type");
  c.ep_port.upload(h_ep_port, "ep_port");
  c.sw_stage.upload(isolation_switch_stages(topo), "sw_stage");  // congestion isolation (fat trees)
  c.port_up.upload(isolation_port_up(topo), "port_up");
  upload_if_given(c.route_det, routes.det_port, "route_det");
  upload_if_given(c.route_choice, routes.choice_id, "route_choice");
  upload_if_given(c.choice_masks, routes.choice_masks, "choice_masks");

  // Per-port rings and VC buffers (kernels/state/link_ring.hpp).
  std::vector<int32_t> h_in_vc_flits;
  if (m.per_port_links) {
    const PortRings rings = port_rings(topo, m);
    c.ring_base.upload(rings.base, "ring_base");
    c.ring_depth.upload(rings.depth, "ring_depth");
    c.inj_ring_base.upload(rings.inj_base, "inj_ring_base");
  }
  if (m.per_port_buffers) {
    const PortPools pools = port_pools(topo, m);
    h_in_vc_flits = pools.vc_flits;
    c.in_vc_flits.upload(h_in_vc_flits, "in_vc_flits");
    c.in_entry_base.upload(pools.base, "in_entry_base");
    c.in_entries.upload(pools.entries, "in_entries");
  }
  const auto capacity = [&](int64_t gp, int vc) { return m.per_port_buffers ? h_in_vc_flits[gp] : vc_capacity(m, vc); };

  // Credits: full buffers downstream (switch-peer ports and every endpoint's injection link).
  std::vector<int32_t> h_credits(c.out_credits.size(), 0);
  for (int64_t gp = 0; gp < x.ports; ++gp)
    if (h_peer_type[gp] == static_cast<uint8_t>(PeerType::kSwitch))
      for (int vc = 0; vc < m.vcs; ++vc)
        for (int t = 0; t < T; ++t) h_credits[at(gp * m.vcs + vc, t, T)] = capacity(h_peer[gp], vc);
  c.out_credits.upload(h_credits, "out_credits");
  std::vector<int32_t> h_ep_credits(c.ep_credits.size(), 0);
  for (int64_t e = 0; e < x.endpoints; ++e)
    for (int vc = 0; vc < m.vcs; ++vc)
      for (int t = 0; t < T; ++t) h_ep_credits[at(e * m.vcs + vc, t, T)] = capacity(h_ep_port[e], vc);
  c.ep_credits.upload(h_ep_credits, "ep_credits");

  // Per-trial inputs and the flow table from the spec.
  c.seed.upload(spec.seed, "seed");
  c.log1m_p_msg.upload(spec.log1m_p_msg, "log1m_p_msg");
  c.log1m_p_background.upload(spec.log1m_p_background, "log1m_p_background");
  c.output_threshold.upload(spec.output_threshold, "output_threshold");
  c.lhrp_threshold_flits.upload(spec.lhrp_threshold_flits, "lhrp_threshold_flits");
  upload_if_given(c.ep_next_message, spec.first_message, "ep_next_message");
  upload_if_given(c.dest_table, spec.dest_table, "dest_table");
  upload_if_given(c.role, spec.role, "role");
  upload_if_given(c.flow_index, spec.flows.index, "flow_index");
  upload_if_given(c.flow_dst, spec.flows.dst, "flow_dst");
  upload_if_given(c.flow_flits, spec.flows.flits, "flow_flits");
  upload_if_given(c.flow_start, spec.flows.start, "flow_start");
  upload_if_given(c.flow_stop, spec.flows.stop, "flow_stop");
  upload_if_given(c.flow_gap_q16, spec.flows.gap_q16, "flow_gap_q16");
  upload_if_given(c.flow_vc, spec.flows.vc, "flow_vc");
  upload_if_given(c.flow_dynamic, spec.flows.dynamic, "flow_dynamic");
  upload_if_given(c.flow_sched_gap_q16, spec.flows.sched_gap_q16, "flow_sched_gap_q16");
  upload_if_given(c.prc_gcid, spec.prc_gcid, "prc_gcid");
  upload_if_given(c.prc_port, spec.prc_port, "prc_port");

  if (m.trace) upload_trace(spec, x);

  NetView& n = view.net;
  n.num_switches = topo.num_switches();
  n.num_ports = static_cast<int>(x.ports);
  n.num_endpoints = topo.num_endpoints;
  view.model = m;
  view.trial.dest_width = spec.dest_width;
  view.trial.num_flows = spec.flows.num_flows();
  c.wire(view);
  stage = c.trial_stage(T);
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
  } catch (const std::logic_error&) {
    throw;  // a host table disagrees with the column list: a bug, not a missing GPU
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
  LaunchOptions with_stage = options;
  with_stage.stage = &impl_->stage;
  run_cycles(impl_->view, impl_->cycle, impl_->cycle + cycles, with_stage);
  impl_->cycle += cycles;
}

uint32_t Engine::cycle() const { return impl_->cycle; }

const EngineView& Engine::view_for_tests() const { return impl_->view; }

int64_t Engine::trial_stage_bytes() const { return impl_->stage.bytes; }

namespace {
// Host copies of every column, generated from the same list as the device columns.
struct HostColumns {
#define SATURN_NET_COLUMN(name, type, extent) std::vector<type> name;
#define SATURN_STATE_COLUMN(name, type, extent, group, init) std::vector<type> name;
#define SATURN_CC_COLUMN(name, type, extent, group, init) std::vector<type> name;
#define SATURN_TRIAL_COLUMN(name, type, extent, init) std::vector<type> name;
#define SATURN_SHARED_COLUMN(name, type, extent, init) std::vector<type> name;
#include "kernels/state/state_columns.def"
};
}  // namespace

StateSnapshot Engine::snapshot() const {
  auto host = std::make_shared<HostColumns>();
  StateSnapshot snap;
  snap.view = impl_->view;  // the model and the scalars; every pointer is replaced below
  snap.cycle = impl_->cycle;
  EngineView& v = snap.view;
#define SATURN_NET_COLUMN(name, type, extent) \
  host->name = impl_->c.name.to_host();       \
  v.net.name = host->name.data();
#define SATURN_STATE_COLUMN(name, type, extent, group, init) \
  host->name = impl_->c.name.to_host();                      \
  v.state.name = host->name.data();
#define SATURN_CC_COLUMN(name, type, extent, group, init) \
  host->name = impl_->c.name.to_host();                   \
  v.state.cc.name = host->name.data();
#define SATURN_TRIAL_COLUMN(name, type, extent, init) \
  host->name = impl_->c.name.to_host();               \
  v.trial.name = host->name.data();
#define SATURN_SHARED_COLUMN(name, type, extent, init) \
  host->name = impl_->c.name.to_host();                \
  v.trial.name = host->name.data();
#include "kernels/state/state_columns.def"
  snap.storage = std::move(host);
  return snap;
}

namespace {
template <class T>
void save_column(BinaryWriter& out, const char* name, Column<T>& column, const T& init) {
  out.put_string(name);
  out.put<uint32_t>(sizeof(T));
  out.put<uint64_t>(column.size());
  if constexpr (kCpuBackend) {
    put_sparse(out, column.data(), column.size(), init);  // host memory: no copy
  } else {
    const std::vector<T> host = column.to_host();
    put_sparse(out, host.data(), host.size(), init);
  }
}

template <class T>
void load_column(BinaryReader& in, const char* name, Column<T>& column, const T& init, bool dense) {
  const std::string saved = in.get_string();
  const uint32_t element = in.get<uint32_t>();
  const uint64_t n = in.get<uint64_t>();
  if (saved != name || element != sizeof(T) || n != column.size())
    in.fail("column '" + saved + "' (" + std::to_string(n) + " x " + std::to_string(element) +
            " bytes) where this engine has '" + name + "' (" + std::to_string(column.size()) + " x " +
            std::to_string(sizeof(T)) + " bytes): saved by another build or model");
  const auto read = [&](T* data) {
    if (dense) in.bytes(data, column.size() * sizeof(T));
    else get_sparse(in, data, column.size(), init);
  };
  if constexpr (kCpuBackend) {
    read(column.data());
  } else {
    std::vector<T> host(column.size());
    read(host.data());
    column.upload(host, name);
  }
}
}  // namespace

void Engine::save_state(BinaryWriter& out) const {
  out.put<uint32_t>(impl_->cycle);
  out.put<int32_t>(impl_->T);
#define SATURN_STATE_COLUMN(name, type, extent, group, init) save_column(out, #name, impl_->c.name, static_cast<type>(init));
#define SATURN_CC_COLUMN(name, type, extent, group, init) save_column(out, #name, impl_->c.name, static_cast<type>(init));
#include "kernels/state/state_columns.def"
}

void Engine::load_state(BinaryReader& in, bool dense) {
  const uint32_t cycle = in.get<uint32_t>();
  const int32_t T = in.get<int32_t>();
  if (T != impl_->T)
    in.fail("saved with " + std::to_string(T) + " trials where this engine has " + std::to_string(impl_->T));
#define SATURN_STATE_COLUMN(name, type, extent, group, init) load_column(in, #name, impl_->c.name, static_cast<type>(init), dense);
#define SATURN_CC_COLUMN(name, type, extent, group, init) load_column(in, #name, impl_->c.name, static_cast<type>(init), dense);
#include "kernels/state/state_columns.def"
  impl_->cycle = cycle;
}

Counters Engine::read_counters() const {
  EngineColumns& d = impl_->c;
  const int T = impl_->T;
  const int64_t N = impl_->view.net.num_endpoints;
  const int64_t ports = impl_->view.net.num_ports;
  // Per-trial sums over endpoints, reduced where the columns live (exact: integer sums).
  const auto per_trial = [&](auto& column) { return reduce_over_elements(column.data(), N, 1, T, ReduceOp::kSum); };
  const auto histogram = [&](auto& column) {
    return reduce_over_elements(column.data(), N, kHistBins, T, ReduceOp::kSum, GroupLayout::kGroupMajor);
  };
  Counters c;
  c.trials = T;
  c.cycle = impl_->cycle;
  c.generated = per_trial(d.st_generated);
  c.refused = per_trial(d.st_refused);
  c.inj_packets = per_trial(d.st_inj_packets);
  c.inj_flits = per_trial(d.st_inj_flits);
  c.del_packets = per_trial(d.st_del_packets);
  c.del_flits = per_trial(d.st_del_flits);
  c.net_lat_sum = per_trial(d.st_net_lat_sum);
  c.msg_done = per_trial(d.st_msg_done);
  c.msg_lat_sum = per_trial(d.st_msg_lat_sum);
  c.net_hist = histogram(d.st_net_hist);
  c.msg_hist = histogram(d.st_msg_hist);
  c.busy_cycles = d.out_busy_cycles.to_host();
  c.busy_until = d.out_busy_until.to_host();  // metrics keep the unsent part of a packet for the next window
  c.flow_flits = d.st_flow_flits.to_host();
  c.flow_done = d.st_flow_done.to_host();
  c.flow_reordered = d.st_flow_reordered.to_host();
  // Each switch counts at its own input ports (no shared per-trial counter in a step): LHRP's
  // NACKs that could not carry a reservation, arrivals that found no packet entry;
  // check_invariants, once per trial, owns st_violations.
  c.violations = d.st_violations.to_host();
  const std::vector<uint64_t> port_violations =
      reduce_over_elements(d.st_port_violations.data(), ports, 1, T, ReduceOp::kSum);
  c.no_descriptor = read_no_descriptor();
  for (int t = 0; t < T; ++t) c.violations[t] += port_violations[t] + c.no_descriptor[t];
  c.ctrl_injected = per_trial(d.st_ctrl_injected);
  c.ctrl_delivered = per_trial(d.st_ctrl_delivered);
  c.acks_dropped = per_trial(d.st_acks_dropped);
  c.marked = per_trial(d.st_marked);
  if (impl_->view.model.cc.ecn) {  // per endpoint: the metrics split them by role (host/engine/metrics.cpp)
    c.ecn_acks = d.st_ecn_acks.to_host();
    c.ecn_echoes = d.st_ecn_echoes.to_host();
  }
  c.full_cycles = d.st_full_cycles.to_host();
  if (impl_->view.model.trace) {
    c.trace_done = d.tr_done.to_host();
    c.trace_finish = d.tr_finish.to_host();
  }
  // Congestion isolation (only where the columns are allocated full size).
  const IsolationParams& iso = impl_->view.model.iso;
  if (iso_arn(iso)) {
    c.arn_sent = reduce_over_elements(d.st_arn_sent.data(), ports, 1, T, ReduceOp::kSum);
    c.arn_refused = reduce_over_elements(d.st_arn_refused.data(), impl_->view.net.num_switches, 1, T, ReduceOp::kSum);
    const int V = impl_->view.model.vcs;
    c.voq_vc = reduce_over_elements(d.voq_packets.data(), static_cast<int64_t>(d.voq_packets.size()) / (T * V), V, T,
                                    ReduceOp::kSum);
  }
  if (iso_on(iso)) c.adapted = reduce_over_elements(d.st_adapted.data(), ports, 1, T, ReduceOp::kSum);
  if (impl_->view.model.victim_stats) {
    c.victim_msg_done = per_trial(d.st_victim_msg_done);
    c.victim_msg_lat_sum = per_trial(d.st_victim_msg_lat_sum);
  }
  if (impl_->view.model.size_split > 0) {
    const auto per_class = [&](auto& column) { return reduce_over_elements(column.data(), N, 2, T, ReduceOp::kSum); };
    c.split_msg_done = per_class(d.st_split_msg_done);
    c.split_msg_lat_sum = per_class(d.st_split_msg_lat_sum);
    c.split_msg_flits = per_class(d.st_split_msg_flits);
  }
  if (impl_->view.model.cc.speculative) {
    c.drops = reduce_over_elements(d.st_drops.data(), ports, 1, T, ReduceOp::kSum);
    c.nacks = per_trial(d.st_nacks);
    c.retx = per_trial(d.st_retx);
    c.res = per_trial(d.st_res);
    c.gnt = per_trial(d.st_gnt);
  }
  if (impl_->view.model.cc.saa_probes) {
    c.saa_changes = per_trial(d.st_saa_changes);
    c.saa_off = per_trial(d.st_saa_off);
    c.saa_above = per_trial(d.st_saa_above);
    c.saa_settled = reduce_over_elements(d.st_saa_settled.data(), N, 1, T, ReduceOp::kMax);
    c.saa_residual = reduce_over_elements(d.saa_link_w.data(), ports, 1, T, ReduceOp::kMax);
    const std::vector<uint64_t> nic = reduce_over_elements(d.saa_inj_w.data(), N, 1, T, ReduceOp::kMax);
    for (int t = 0; t < T; ++t) c.saa_residual[t] = std::max(c.saa_residual[t], nic[t]);
  }
  if (impl_->view.model.cc.route_setup) {
    c.route_setups = per_trial(d.st_route_setups);
    c.route_setup_cycles = per_trial(d.st_route_setup_cycles);
    c.route_teardowns = per_trial(d.st_route_teardowns);
    c.route_full = reduce_over_elements(d.st_route_full.data(), ports, 1, T, ReduceOp::kSum);
    // Counted where the tables live: at 4096 nodes x 50 trials they are tens of MB, read at
    // every window edge and series sample.
    c.route_left = count_present(d.rc_gcid.data(), static_cast<int64_t>(d.rc_gcid.size()) / T, T, kNoGcid);
    const std::vector<uint64_t> flows =
        reduce_over_elements(d.rc_flows.data(), static_cast<int64_t>(d.rc_flows.size()) / T, 1, T, ReduceOp::kSum);
    for (int t = 0; t < T; ++t) c.route_left[t] += flows[t];
  }
  return c;
}

std::vector<uint64_t> Engine::read_delivered_flits() const { return impl_->c.st_del_flits.to_host(); }

std::vector<uint64_t> Engine::read_injected_flits() const { return impl_->c.st_inj_flits.to_host(); }

std::vector<uint64_t> Engine::read_no_descriptor() const {
  return reduce_over_elements(impl_->c.st_no_descriptor.data(), impl_->view.net.num_ports, 1,
                              impl_->view.model.trials, ReduceOp::kSum);
}

std::vector<uint32_t> Engine::read_trace_done() const { return impl_->c.tr_done.to_host(); }

std::vector<uint8_t> Engine::read_saa_state() const { return impl_->c.act_saa_state.to_host(); }

std::vector<uint8_t> Engine::read_route_state() const { return impl_->c.act_route.to_host(); }

std::vector<ColumnBytes> Engine::column_bytes() const { return impl_->c.allocated(); }

size_t Engine::bytes_per_trial(const Topology& topo, const ModelParams& model, int dest_width, int num_flows) {
  return estimate_bytes_per_trial(Extents(topo, model, dest_width, num_flows), model);
}

std::vector<ColumnBytes> Engine::columns_per_trial(const Topology& topo, const ModelParams& model, int dest_width,
                                                   int num_flows) {
  return estimate_columns_per_trial(Extents(topo, model, dest_width, num_flows), model);
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
