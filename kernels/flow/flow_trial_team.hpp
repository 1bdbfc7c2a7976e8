// One trial of the flow engine run by a team of lanes (team.hpp: a CUDA warp, or its CPU form),
// with the same results, bit for bit, as flow_trial() on one thread. Parallel: clearing the link
// columns, the Philox draws of the permutations, sizes and flow order, placing and counting the
// flows of non-adaptive routing (D-mod-K, random: no flow reads another's counts), the per-flow
// contention and every per-trial max/sum, and the SAA rates (fluid_team.hpp). Sequential on one
// lane: the Fisher-Yates swaps (each reads the previous one's result), adaptive routing's writes
// (greedy in the random flow order by definition: flows one by one, only a hop's candidate links
// are read in parallel), the per-link sum of SAA rates, the SAA protocol (a time-stepped
// simulation in flow order) and max-min water-filling (a heap).
#pragma once
#include <cstdint>

#include "kernels/flow/flow_trial.hpp"
#include "kernels/flow/fluid_team.hpp"

namespace saturn {

// A candidate link's quality and its index, ordered by quality then index: the minimum is the
// lowest index among the best, which is what SerialExec::pick's strict-less scan keeps.
template <class Q>
struct QualityPort {
  Q q;
  int c;
  SATURN_INLINE bool operator<(const QualityPort& o) const { return q < o.q || (q == o.q && c < o.c); }
  SATURN_INLINE bool operator>(const QualityPort& o) const { return o < *this; }
};

// route_flow's executor for a team: every lane walks the flow's route with the same values, the
// candidates of a hop are read on different lanes and reduced (a min of (quality, index): exact,
// any order), and the link's flow count, weight and route cache are written on one lane. The
// flows still go one after another in the random order: adaptive routing is greedy.
template <class Team>
struct TeamExec {
  const Team& team;
  template <class Quality, class LinkOf>
  SATURN_INLINE int pick(const FlowView& v, const FlowSlot& s, const Quality& quality, int64_t incumbent_link, int incumbent,
                         int n, const LinkOf& link_of) const {
    using Q = decltype(quality(v, s, incumbent_link));
    const Q inc = quality(v, s, incumbent_link);
    const QualityPort<Q> m = team.reduce_min(n, QualityPort<Q>{inc, n}, [&](int64_t c) {
      return QualityPort<Q>{quality(v, s, link_of(static_cast<int>(c))), static_cast<int>(c)};
    });
    return m.q < inc ? m.c : incumbent;
  }
  template <bool kCount>
  SATURN_INLINE void take(const FlowView& v, const FlowSlot& s, int64_t link, double w, int64_t pos) const {
    team.single([&] { take_link<kCount>(v, s, link, w, pos); });
  }
  SATURN_INLINE void prc_add(const FlowView& v, const FlowSlot& s, int64_t in_link) const {
    team.single([&] { prc_insert(v, s, in_link); });
  }
  SATURN_INLINE bool leader() const { return team.leader(); }
};

// draw_flows() with the Philox draws made in parallel into scratch and the swaps on one lane. The
// permutations' draws go to `order` (F >= N entries, filled only afterwards), the order's draws to
// `path_off` (written only by routing).
template <class Team>
SATURN_HD void draw_flows_team(const Team& team, const FlowView& v, const FlowSlot& s, uint64_t seed) {
  const int32_t F = v.p.num_flows;
  const int P = v.p.permutations;
  if (P > 0) {
    const int32_t N = v.tree.nodes;
    for (int j = 0; j < P; ++j) {
      team.for_each(N, [&](int64_t e) { v.flow_dst[s.ix(e * P + j, F)] = static_cast<uint32_t>(e); });
      // Draw for position i (N-1 down to 1) has counter j (N-1) + (N-1-i): one counter across the P permutations.
      team.for_each(N - 1, [&](int64_t d) {
        const int64_t i = N - 1 - d;
        const uint32_t counter = static_cast<uint32_t>(int64_t{j} * (N - 1) + d);
        v.order[s.ix(i, F)] = stream_below(seed, kSetupLanePermutation, counter, 0u, Stream::kSetup, static_cast<uint32_t>(i + 1));
      });
      team.single([&] {
        for (int32_t i = N - 1; i > 0; --i) {
          const uint32_t r = v.order[s.ix(i, F)];
          uint32_t& a = v.flow_dst[s.ix(int64_t{i} * P + j, F)];
          uint32_t& b = v.flow_dst[s.ix(int64_t{r} * P + j, F)];
          const uint32_t tmp = a;
          a = b;
          b = tmp;
        }
      });
    }
  } else {
    team.for_each(F, [&](int64_t f) { v.flow_dst[s.ix(f, F)] = v.fixed_dst[f]; });
  }
  if (v.size != nullptr)
    team.for_each(F, [&](int64_t f) {
      v.size[s.ix(f, F)] = (static_cast<double>(philox(seed, kFlowLaneSize, static_cast<uint32_t>(f), 0u, Stream::kFlow).v[0]) + 0.5) *
                           (1.0 / 2147483648.0);
    });
  team.for_each(F - 1, [&](int64_t d) {
    const int64_t i = d + 1;
    v.path_off[s.ix(i, F)] = stream_below(seed, kFlowLaneOrder, static_cast<uint32_t>(i), 0u, Stream::kFlow, static_cast<uint32_t>(i + 1));
  });
  team.for_each(F, [&](int64_t i) { v.order[s.ix(i, F)] = static_cast<uint32_t>(i); });
  team.single([&] {
    for (int32_t i = F - 1; i > 0; --i) {
      uint32_t& a = v.order[s.ix(i, F)];
      uint32_t& b = v.order[s.ix(v.path_off[s.ix(i, F)], F)];
      const uint32_t tmp = a;
      a = b;
      b = tmp;
    }
  });
}

// Non-adaptive routing: a flow's links depend only on (src, dst, seed, f), so every flow is routed
// at once into its place in the pool (a scan of the path lengths in the random flow order: the pool
// reads exactly as the sequential one), then the links are counted. False if the pool is too small
// (the sequential engine fails then too: lengths are positive, so some prefix overflows iff the total does).
template <class Team>
SATURN_HD bool route_static_team(const Team& team, const FlowView& v, const FlowSlot& s, uint64_t seed) {
  const int32_t F = v.p.num_flows;
  const int P = v.p.permutations;
  const int64_t L = v.tree.num_links;
  const auto src_of = [&](uint32_t f) { return P > 0 ? f / static_cast<uint32_t>(P) : v.fixed_src[f]; };
  const int64_t total = team.scan(
      F,
      [&](int64_t i) {
        const uint32_t f = v.order[s.ix(i, F)];
        return static_path_len(v.tree, src_of(f), v.flow_dst[s.ix(f, F)]);
      },
      [&](int64_t i, int64_t pos) {
        const uint32_t f = v.order[s.ix(i, F)];
        const uint32_t src = src_of(f), dst = v.flow_dst[s.ix(f, F)];
        int horizontal = 0;
        const int len = route_flow<FlowCountQuality, false>(v, s, seed, f, src, dst, 1.0, pos, &horizontal);
        v.path_off[s.ix(f, F)] = static_cast<uint32_t>(pos);
        v.path_len[s.ix(f, F)] = static_cast<uint16_t>(len < 0 ? 0 : len);
      });
  if (total > v.p.path_slots) return false;
  // Link counts (integers: any order). The weights are read only by adaptive routing: not kept here.
  team.scatter_add(
      F, [&](int64_t f) { return static_cast<int>(v.path_len[s.ix(f, F)]); },
      [&](int64_t f, int h) -> uint16_t& {
        return v.count[s.ix(v.pool[s.ix(int64_t{v.path_off[s.ix(f, F)]} + h, v.p.path_slots)], L)];
      },
      [&](int64_t, int) { return uint16_t{1}; });
  return true;
}

template <class Team>
SATURN_HD void flow_trial_team(const Team& team, const FlowView& v, int trial, const FlowSlot& s) {
  const int T = v.p.trials;
  const int64_t L = v.tree.num_links;
  const int32_t F = v.p.num_flows;
  const uint64_t seed = v.seed[trial];
  team.for_each(L, [&](int64_t l) {
    v.count[s.ix(l, L)] = 0;
    if (v.weight != nullptr) v.weight[s.ix(l, L)] = 0.0;
    if (v.prc != nullptr) v.prc[s.ix(l, L)] = 0;
  });
  draw_flows_team(team, v, s, seed);
  // Horizontal hops taken, or -1 if the path pool overflowed.
  int64_t horizontal = 0;
  if (v.p.routing == FlowRouting::kAdaptive) {
    const TeamExec<Team> exec{team};
    int64_t h = 0;
    const bool routed = v.p.heuristic == FlowHeuristic::kFlowWeight
                            ? route_all<FlowWeightQuality, TeamExec<Team>>(v, s, seed, &h, exec)
                            : route_all<FlowCountQuality, TeamExec<Team>>(v, s, seed, &h, exec);
    team.sync();  // the leader's path offsets and lengths, for every lane
    horizontal = routed ? h : -1;
  } else {
    horizontal = route_static_team(team, v, s, seed) ? 0 : -1;
  }
  const bool ok = horizontal >= 0;
  team.single([&] {
    v.overflow[trial] = ok ? 0 : 1;
    for (int m = 0; m < kFmCount; ++m) v.out[at(m, trial, T)] = 0.0;
  });
  if (!ok) return;

  // Contention of a flow: the largest flow count on its links (M42).
  const auto contention = [&](int64_t f) {
    const int64_t off = v.path_off[s.ix(f, F)];
    uint32_t c = 0;
    for (int i = 0, len = v.path_len[s.ix(f, F)]; i < len; ++i) {
      const uint32_t cnt = v.count[s.ix(v.pool[s.ix(off + i, v.p.path_slots)], L)];
      c = cnt > c ? cnt : c;
    }
    return c;
  };
  const uint32_t cmax = team.reduce_max(F, uint32_t{0}, contention);
  const uint64_t csum = team.template reduce_sum<uint64_t>(F, [&](int64_t f) { return uint64_t{contention(f)}; });
  const uint64_t hops = team.template reduce_sum<uint64_t>(F, [&](int64_t f) { return uint64_t{v.path_len[s.ix(f, F)]}; });
  const uint32_t lmax = team.reduce_max(L, uint32_t{0}, [&](int64_t l) { return uint32_t{v.count[s.ix(l, L)]}; });
  TrialFluid fluid{v, s};
  const SaaResult saa = saa_rates_team(team, fluid);
  team.single([&] {
    const double nf = F > 0 ? static_cast<double>(F) : 1.0;
    v.out[at(kFmContentionMax, trial, T)] = cmax;
    v.out[at(kFmContentionMean, trial, T)] = static_cast<double>(csum) / nf;
    v.out[at(kFmLinkLoadMax, trial, T)] = lmax;
    v.out[at(kFmHopsMean, trial, T)] = static_cast<double>(hops) / nf;
    v.out[at(kFmHorizontalHopsMean, trial, T)] = static_cast<double>(horizontal) / nf;
    v.out[at(kFmCompletionLowerBound, trial, T)] = saa.max_link_weight;
    v.out[at(kFmSaaCompletion, trial, T)] = saa.completion;
    v.out[at(kFmSaaRateMin, trial, T)] = saa.min_rate;
    v.out[at(kFmSaaLinkUtilMax, trial, T)] = saa.max_link_util;
  });
  if (v.p.saa_protocol) team.single([&] { flow_trial_saa_protocol(v, trial, s); });
  if (v.p.maxmin) team.single([&] { flow_trial_maxmin(v, trial, s); });
}

}  // namespace saturn
