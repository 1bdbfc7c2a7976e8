// One trial of the flow engine, start to finish, on one thread: draw the traffic (P superposed
// permutations or the explicit list) and a uniformly random flow order, route the flows one at a
// time in that order (greedy routing is sequential by definition), then reduce: per-flow
// contention (M42), hops, SAA rates and completion, max-min rates and completion. Parallelism is
// across trials. No allocation: every column was sized by the host.
#pragma once
#include <cstdint>

#include "kernels/common/rng.hpp"
#include "kernels/flow/flow_route.hpp"
#include "kernels/flow/flow_view.hpp"
#include "kernels/flow/fluid.hpp"
#include "kernels/flow/saa_protocol.hpp"

namespace saturn {

// A trial's routed flows seen as a fluid-model instance (kernels/flow/fluid.hpp). Unit capacities.
struct TrialFluid {
  const FlowView& v;
  const FlowSlot& s;
  SATURN_INLINE int32_t num_flows() const { return v.p.num_flows; }
  SATURN_INLINE int64_t num_links() const { return v.tree.num_links; }
  SATURN_INLINE int path_len(int32_t f) const { return v.path_len[s.ix(f, v.p.num_flows)]; }
  SATURN_INLINE int64_t link(int32_t f, int i) const {
    return v.pool[s.ix(int64_t{v.path_off[s.ix(f, v.p.num_flows)]} + i, v.p.path_slots)];
  }
  SATURN_INLINE double size(int32_t f) const { return v.size != nullptr ? v.size[s.ix(f, v.p.num_flows)] : 1.0; }
  SATURN_INLINE double capacity(int64_t) const { return 1.0; }
  SATURN_INLINE double& fluid(int64_t l) const { return v.fluid[s.ix(l, v.tree.num_links)]; }
  SATURN_INLINE uint16_t& live(int64_t l) const { return v.live[s.ix(l, v.tree.num_links)]; }
  SATURN_INLINE double& rate(int32_t f) const { return v.rate[s.ix(f, v.p.num_flows)]; }
  SATURN_INLINE uint32_t& csr_begin(int64_t l) const { return v.csr_begin[s.ix(l, v.tree.num_links + 1)]; }
  SATURN_INLINE uint32_t& csr_flow(int64_t i) const { return v.csr_flow[s.ix(i, v.p.path_slots)]; }
  SATURN_INLINE uint32_t& heap(int64_t i) const { return v.heap[s.ix(i, v.tree.num_links)]; }
  SATURN_INLINE int32_t& heap_pos(int64_t l) const { return v.heap_pos[s.ix(l, v.tree.num_links)]; }
};

// The same trial as an instance of the distributed SAA protocol (kernels/flow/saa_protocol.hpp).
// Weight units: equal sizes are 1 unit; uniform sizes (u + 0.5) / 2^31 are exactly 2u + 1 units of
// 2^-32, so link sums (< 2^49 units) and W_f / scale are exact and match saa_rates bit for bit.
struct TrialSaa : TrialFluid {
  static constexpr int64_t kUniformScale = int64_t{1} << 32;
  SATURN_INLINE int64_t scale() const { return v.size != nullptr ? kUniformScale : 1; }
  SATURN_INLINE int64_t units(int32_t f) const {
    return v.size != nullptr ? static_cast<int64_t>(v.size[s.ix(f, v.p.num_flows)] * static_cast<double>(kUniformScale)) : 1;
  }
  SATURN_INLINE int64_t start(int32_t f) const { return v.saa_start[s.ix(f, v.p.num_flows)]; }
  SATURN_INLINE int64_t flow_time_steps() const { return v.p.saa_flow_time_steps; }
  SATURN_INLINE int64_t& link_w(int64_t l) const { return v.saa_link_w[s.ix(l, v.tree.num_links)]; }
  SATURN_INLINE int64_t& known(int32_t f) const { return v.saa_known[s.ix(f, v.p.num_flows)]; }
  SATURN_INLINE int64_t& carried(int32_t f) const { return v.saa_carried[s.ix(f, v.p.num_flows)]; }
  SATURN_INLINE int64_t& changed_at(int32_t f) const { return v.saa_changed_at[s.ix(f, v.p.num_flows)]; }
  SATURN_INLINE int32_t& hop(int32_t f) const { return v.saa_hop[s.ix(f, v.p.num_flows)]; }
  SATURN_INLINE int32_t& probes(int32_t f) const { return v.saa_probes[s.ix(f, v.p.num_flows)]; }
  SATURN_INLINE int32_t& final_probe(int32_t f) const { return v.saa_final_probe[s.ix(f, v.p.num_flows)]; }
  SATURN_INLINE uint8_t& packet(int32_t f) const { return v.saa_packet[s.ix(f, v.p.num_flows)]; }
  SATURN_INLINE uint8_t& flags(int32_t f) const { return v.saa_flags[s.ix(f, v.p.num_flows)]; }
};

// Uniform draw below n from a sequential stream (counter = draw number).
SATURN_INLINE uint32_t stream_below(uint64_t seed, uint32_t lane, uint32_t counter, uint32_t cycle, Stream purpose,
                                    uint32_t n) {
  return uniform_below(philox(seed, lane, counter, cycle, purpose).v[0], n);
}

// Traffic and order. Permutation j of flow e * P + j is drawn exactly as the packet engine's host
// set-up draws it (trial_inputs.cpp: Fisher-Yates from Stream::kSetup, lane kSetupLanePermutation,
// one counter across the P permutations): the same seed gives both engines the same flows.
SATURN_INLINE void draw_flows(const FlowView& v, const FlowSlot& s, uint64_t seed) {
  const int32_t F = v.p.num_flows;
  const int P = v.p.permutations;
  if (P > 0) {
    const int32_t N = v.tree.nodes;
    uint32_t counter = 0;
    for (int j = 0; j < P; ++j) {
      for (int32_t e = 0; e < N; ++e) v.flow_dst[s.ix(int64_t{e} * P + j, F)] = static_cast<uint32_t>(e);
      for (int32_t i = N - 1; i > 0; --i) {
        const uint32_t r = stream_below(seed, kSetupLanePermutation, counter++, 0u, Stream::kSetup, static_cast<uint32_t>(i + 1));
        uint32_t& a = v.flow_dst[s.ix(int64_t{i} * P + j, F)];
        uint32_t& b = v.flow_dst[s.ix(int64_t{r} * P + j, F)];
        const uint32_t tmp = a;
        a = b;
        b = tmp;
      }
    }
  } else {
    for (int32_t f = 0; f < F; ++f) v.flow_dst[s.ix(f, F)] = v.fixed_dst[f];
  }
  if (v.size != nullptr)  // uniform on (0, 2): (u + 0.5) / 2^31 with u a 32-bit word
    for (int32_t f = 0; f < F; ++f)
      v.size[s.ix(f, F)] = (static_cast<double>(philox(seed, kFlowLaneSize, static_cast<uint32_t>(f), 0u, Stream::kFlow).v[0]) + 0.5) *
                           (1.0 / 2147483648.0);
  for (int32_t i = 0; i < F; ++i) v.order[s.ix(i, F)] = static_cast<uint32_t>(i);
  for (int32_t i = F - 1; i > 0; --i) {
    const uint32_t r = stream_below(seed, kFlowLaneOrder, static_cast<uint32_t>(i), 0u, Stream::kFlow, static_cast<uint32_t>(i + 1));
    uint32_t& a = v.order[s.ix(i, F)];
    uint32_t& b = v.order[s.ix(r, F)];
    const uint32_t tmp = a;
    a = b;
    b = tmp;
  }
}

template <class Quality, class Exec = SerialExec>
SATURN_HD bool route_all(const FlowView& v, const FlowSlot& s, uint64_t seed, int64_t* horizontal_total,
                         const Exec& exec = Exec{}) {
  const int32_t F = v.p.num_flows;
  const int P = v.p.permutations;
  int64_t pos = 0;
  int horizontal = 0;
  for (int32_t i = 0; i < F; ++i) {
    const uint32_t f = v.order[s.ix(i, F)];
    const uint32_t src = P > 0 ? f / static_cast<uint32_t>(P) : v.fixed_src[f];
    const uint32_t dst = v.flow_dst[s.ix(f, F)];
    const double w = v.size != nullptr ? v.size[s.ix(f, F)] : 1.0;
    const int len = route_flow<Quality, true, Exec>(v, s, seed, f, src, dst, w, pos, &horizontal, exec);
    if (len < 0) return false;
    if (exec.leader()) {  // nobody reads these while routing
      v.path_off[s.ix(f, F)] = static_cast<uint32_t>(pos);
      v.path_len[s.ix(f, F)] = static_cast<uint16_t>(len);
    }
    pos += len;
  }
  *horizontal_total = horizontal;
  return true;
}

// The distributed SAA protocol on a routed trial; rate(f) must hold the central SAA rates the
// protocol is checked against. Flows start one every saa_stagger_steps steps, in the random order.
SATURN_HD inline void flow_trial_saa_protocol(const FlowView& v, int trial, const FlowSlot& s) {
  const int T = v.p.trials;
  const int32_t F = v.p.num_flows;
  for (int32_t i = 0; i < F; ++i)
    v.saa_start[s.ix(v.order[s.ix(i, F)], F)] = static_cast<int64_t>(i) * v.p.saa_stagger_steps;
  TrialSaa proto{{v, s}};
  const SaaProtocolResult r = saa_protocol(proto);
  v.out[at(kFmSaaProtocolMismatches, trial, T)] = r.mismatches;
  v.out[at(kFmSaaProtocolAnnounceMismatches, trial, T)] = r.announce_mismatches;
  v.out[at(kFmSaaProtocolLateChanges, trial, T)] = r.late_changes;
  v.out[at(kFmSaaProtocolProbesToFinal, trial, T)] = r.probes_to_final;
  v.out[at(kFmSaaProtocolConvergedSteps, trial, T)] = static_cast<double>(r.converged_steps);
  v.out[at(kFmSaaProtocolResidual, trial, T)] = static_cast<double>(r.residual_units) / static_cast<double>(proto.scale());
  v.out[at(kFmSaaProtocolAcks, trial, T)] = static_cast<double>(r.acks);
  v.out[at(kFmSaaProtocolSteps, trial, T)] = static_cast<double>(r.steps);
}

// Max-min fair rates of a routed trial (overwrites rate(f)).
SATURN_HD inline void flow_trial_maxmin(const FlowView& v, int trial, const FlowSlot& s) {
  const int T = v.p.trials;
  TrialFluid fluid{v, s};
  const MaxminResult mm = maxmin_rates(fluid);
  v.out[at(kFmMaxminCompletion, trial, T)] = mm.completion;
  v.out[at(kFmMaxminRateMin, trial, T)] = mm.min_rate;
}

SATURN_HD inline void flow_trial(const FlowView& v, int trial, const FlowSlot& s) {
  const int T = v.p.trials;
  const int64_t L = v.tree.num_links;
  const int32_t F = v.p.num_flows;
  const uint64_t seed = v.seed[trial];
  for (int64_t l = 0; l < L; ++l) {
    v.count[s.ix(l, L)] = 0;
    if (v.weight != nullptr) v.weight[s.ix(l, L)] = 0.0;
    if (v.prc != nullptr) v.prc[s.ix(l, L)] = 0;
  }
  draw_flows(v, s, seed);
  int64_t horizontal = 0;
  const bool ok = v.p.heuristic == FlowHeuristic::kFlowWeight
                      ? route_all<FlowWeightQuality>(v, s, seed, &horizontal)
                      : route_all<FlowCountQuality>(v, s, seed, &horizontal);
  v.overflow[trial] = ok ? 0 : 1;
  for (int m = 0; m < kFmCount; ++m) v.out[at(m, trial, T)] = 0.0;
  if (!ok) return;

  // Contention of a flow: the largest flow count on its links (M42).
  uint32_t cmax = 0, lmax = 0;
  uint64_t csum = 0, hops = 0;
  for (int32_t f = 0; f < F; ++f) {
    const int64_t off = v.path_off[s.ix(f, F)];
    const int len = v.path_len[s.ix(f, F)];
    uint32_t c = 0;
    for (int i = 0; i < len; ++i) {
      const uint32_t cnt = v.count[s.ix(v.pool[s.ix(off + i, v.p.path_slots)], L)];
      c = cnt > c ? cnt : c;
    }
    cmax = c > cmax ? c : cmax;
    csum += c;
    hops += static_cast<uint64_t>(len);
  }
  for (int64_t l = 0; l < L; ++l) lmax = v.count[s.ix(l, L)] > lmax ? v.count[s.ix(l, L)] : lmax;
  const double nf = F > 0 ? static_cast<double>(F) : 1.0;
  v.out[at(kFmContentionMax, trial, T)] = cmax;
  v.out[at(kFmContentionMean, trial, T)] = static_cast<double>(csum) / nf;
  v.out[at(kFmLinkLoadMax, trial, T)] = lmax;
  v.out[at(kFmHopsMean, trial, T)] = static_cast<double>(hops) / nf;
  v.out[at(kFmHorizontalHopsMean, trial, T)] = static_cast<double>(horizontal) / nf;

  TrialFluid fluid{v, s};
  const SaaResult saa = saa_rates(fluid);
  v.out[at(kFmCompletionLowerBound, trial, T)] = saa.max_link_weight;
  v.out[at(kFmSaaCompletion, trial, T)] = saa.completion;
  v.out[at(kFmSaaRateMin, trial, T)] = saa.min_rate;
  v.out[at(kFmSaaLinkUtilMax, trial, T)] = saa.max_link_util;
  if (v.p.saa_protocol) flow_trial_saa_protocol(v, trial, s);
  if (v.p.maxmin) flow_trial_maxmin(v, trial, s);
}

}  // namespace saturn
