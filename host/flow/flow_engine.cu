// Flow engine batches: backend columns (Thrust device vectors) for the per-trial scratch, the view
// the kernel receives, and the pool-overflow retry.
#include "host/flow/flow_engine.hpp"

#include <algorithm>
#include <stdexcept>

#include "host/engine/column.hpp"
#include "host/engine/engine.hpp"
#include "kernels/launch/flow_launch.hpp"

namespace saturn {

namespace {

// Column sizes of one tile of scratch, in the order FlowView lists them.
struct FlowColumns {
  ColumnStagger stagger;
  Column<uint64_t> seed;
  Column<uint32_t> fixed_src, fixed_dst, flow_dst, order, path_off, pool, csr_begin, csr_flow, heap;
  Column<int32_t> heap_pos, saa_hop, saa_probes, saa_final_probe;
  Column<int64_t> saa_link_w, saa_start, saa_known, saa_carried, saa_changed_at;
  Column<uint8_t> saa_packet, saa_flags;
  Column<uint16_t> count, prc, live, path_len;
  Column<double> weight, fluid, size, rate, out;
  Column<uint8_t> overflow;
};

std::vector<double> run_once(const FlowSetup& setup, const std::vector<uint64_t>& seeds, int threads, int slack,
                             std::vector<uint8_t>* overflow) {
  const int T = static_cast<int>(seeds.size());
  const FlowTiling tiling = flow_tiling(T, threads);
  FlowView v{};
  v.tree = setup.tree;
  v.p = setup.params;
  v.p.trials = T;
  v.p.path_slots = static_cast<int64_t>(v.p.num_flows) * (2 * setup.tree.n + slack);
  v.tile = tiling.tile;
  const size_t per_tile = static_cast<size_t>(tiling.tile) * tiling.tiles;  // trials of scratch in flight
  const size_t L = static_cast<size_t>(setup.tree.num_links), F = static_cast<size_t>(v.p.num_flows);
  FlowColumns c;
  c.seed.assign(seeds, c.stagger);
  if (!setup.fixed_src.empty()) {
    c.fixed_src.assign(setup.fixed_src, c.stagger);
    c.fixed_dst.assign(setup.fixed_dst, c.stagger);
    v.fixed_src = c.fixed_src.data();
    v.fixed_dst = c.fixed_dst.data();
  }
  c.count.assign(L * per_tile, 0, c.stagger);
  c.fluid.assign(L * per_tile, 0.0, c.stagger);
  if (v.p.route_cache > 0) {
    c.prc.assign(L * per_tile, 0, c.stagger);
    v.prc = c.prc.data();
  }
  if (v.p.random_sizes) {
    c.weight.assign(L * per_tile, 0.0, c.stagger);
    c.size.assign(F * per_tile, 0.0, c.stagger);
    v.weight = c.weight.data();
    v.size = c.size.data();
  }
  if (v.p.maxmin) {
    c.live.assign(L * per_tile, 0, c.stagger);
    c.csr_begin.assign((L + 1) * per_tile, 0, c.stagger);
    c.csr_flow.assign(static_cast<size_t>(v.p.path_slots) * per_tile, 0, c.stagger);
    c.heap.assign(L * per_tile, 0, c.stagger);
    c.heap_pos.assign(L * per_tile, 0, c.stagger);
    v.live = c.live.data();
    v.csr_begin = c.csr_begin.data();
    v.csr_flow = c.csr_flow.data();
    v.heap = c.heap.data();
    v.heap_pos = c.heap_pos.data();
  }
  if (v.p.saa_protocol) {
    c.saa_link_w.assign(L * per_tile, 0, c.stagger);
    for (Column<int64_t>* col : {&c.saa_start, &c.saa_known, &c.saa_carried, &c.saa_changed_at}) col->assign(F * per_tile, 0, c.stagger);
    for (Column<int32_t>* col : {&c.saa_hop, &c.saa_probes, &c.saa_final_probe}) col->assign(F * per_tile, 0, c.stagger);
    c.saa_packet.assign(F * per_tile, 0, c.stagger);
    c.saa_flags.assign(F * per_tile, 0, c.stagger);
    v.saa_link_w = c.saa_link_w.data();
    v.saa_start = c.saa_start.data();
    v.saa_known = c.saa_known.data();
    v.saa_carried = c.saa_carried.data();
    v.saa_changed_at = c.saa_changed_at.data();
    v.saa_hop = c.saa_hop.data();
    v.saa_probes = c.saa_probes.data();
    v.saa_final_probe = c.saa_final_probe.data();
    v.saa_packet = c.saa_packet.data();
    v.saa_flags = c.saa_flags.data();
  }
  c.flow_dst.assign(F * per_tile, 0, c.stagger);
  c.order.assign(F * per_tile, 0, c.stagger);
  c.path_off.assign(F * per_tile, 0, c.stagger);
  c.path_len.assign(F * per_tile, 0, c.stagger);
  c.rate.assign(F * per_tile, 0.0, c.stagger);
  c.pool.assign(static_cast<size_t>(v.p.path_slots) * per_tile, 0, c.stagger);
  c.out.assign(static_cast<size_t>(kFmCount) * T, 0.0, c.stagger);
  c.overflow.assign(static_cast<size_t>(T), 0, c.stagger);
  v.seed = c.seed.data();
  v.count = c.count.data();
  v.fluid = c.fluid.data();
  v.flow_dst = c.flow_dst.data();
  v.order = c.order.data();
  v.path_off = c.path_off.data();
  v.path_len = c.path_len.data();
  v.rate = c.rate.data();
  v.pool = c.pool.data();
  v.out = c.out.data();
  v.overflow = c.overflow.data();
  run_flow_trials(v, threads, setup.cpu_team_width);
  *overflow = c.overflow.to_host();
  return c.out.to_host();
}

}  // namespace

size_t FlowSetup::bytes_per_trial() const {
  const size_t L = static_cast<size_t>(tree.num_links), F = static_cast<size_t>(params.num_flows);
  size_t b = L * (2 + 8) + F * (4 + 4 + 4 + 2 + 8) + F * (2 * tree.n + path_slack) * 4 + kFmCount * 8 + 8 + 1;
  if (params.route_cache > 0) b += L * 2;
  if (params.random_sizes) b += L * 8 + F * 8;
  if (params.maxmin) b += L * (2 + 4 + 4 + 4) + 4 + F * (2 * tree.n + path_slack) * 4;
  if (params.saa_protocol) b += L * 8 + F * (4 * 8 + 3 * 4 + 2 * 1);
  return b;
}

std::vector<double> run_flow_batch(const FlowSetup& setup, const std::vector<uint64_t>& seeds, int threads) {
  try {
    for (int slack = setup.path_slack;; slack *= 2) {
      std::vector<uint8_t> overflow;
      std::vector<double> out = run_once(setup, seeds, threads, slack, &overflow);
      if (std::none_of(overflow.begin(), overflow.end(), [](uint8_t o) { return o != 0; })) return out;
      if (slack > 1 << 16) throw std::runtime_error("flow engine: path pool still too small at " + std::to_string(slack) +
                                                    " extra links per flow");
    }
  } catch (const std::bad_alloc&) {
#if defined(SATURN_BACKEND_CUDA)
    throw std::runtime_error("flow engine: no usable GPU or out of device memory; use a cpu build (-DSATURN_BACKEND=cpu)");
#else
    throw;
#endif
  }
}

size_t flow_memory_budget() { return Engine::memory_budget(); }

}  // namespace saturn
