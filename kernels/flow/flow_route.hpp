// Routing one flow through the (modified) k-ary n-tree in closed form: static D-mod-K, oblivious
// random per-flow up-ports (M14, M15), and Zdornov & Birk's flow-level adaptive routing (000 §4,
// PAPERS-SPEC M17/M18): greedy per hop among the default port (DP) and the alternates by a link
// quality heuristic, with port routing caches (PRC) of bounded size, and descent with horizontal
// hops whose direction is chosen once per level.
#pragma once
#include <cstdint>

#include "kernels/common/rng.hpp"
#include "kernels/flow/flow_view.hpp"

namespace saturn {

// Link quality heuristics (lower is better). The paper's: flows already on the output link.
struct FlowCountQuality {
  SATURN_INLINE uint32_t operator()(const FlowView& v, const FlowSlot& s, int64_t link) const {
    return v.count[s.ix(link, v.tree.num_links)];
  }
};
// The sum of the sizes of those flows (equals the count with equal sizes).
struct FlowWeightQuality {
  SATURN_INLINE double operator()(const FlowView& v, const FlowSlot& s, int64_t link) const {
    return v.weight != nullptr ? v.weight[s.ix(link, v.tree.num_links)]
                               : static_cast<double>(v.count[s.ix(link, v.tree.num_links)]);
  }
};

// Per-hop pieces of the tree routing, shared with the packet-level route caches
// (kernels/routing/route_cache.hpp) and the deadlock check (tests/unit/test_zdornov_cdg.cpp).

// Turnaround level m: the first of the n-1 leaf digits where the two leaves differ; n-1 (no
// up-hop) when they are the same leaf.
SATURN_INLINE int turnaround_level(const FlowTree& tr, int64_t leaf_src, int64_t leaf_dst) {
  for (int i = 0; i < tr.n - 1; ++i)
    if (tr.digit(leaf_src, i) != tr.digit(leaf_dst, i)) return i;
  return tr.n - 1;
}
// Switches in a level-l chain (logical node), l <= n-2: k^(n-1-l).
SATURN_INLINE int64_t chain_size(const FlowTree& tr, int l) { return static_cast<int64_t>(tr.place[l]) * tr.k; }
// D-mod-K default port of the up-hop lvl -> lvl-1: a_l = q_{l+1} with l = lvl-1 (M14).
SATURN_INLINE int dmodk_up_port(const FlowTree& tr, int lvl, int64_t dst) {
  return static_cast<int>((dst / tr.place[lvl - 1]) % tr.k);
}
// The down port toward dst at level l (the unique descent link, M1): q_l.
SATURN_INLINE int descent_port(const FlowTree& tr, int l, int64_t dst) {
  return static_cast<int>((dst / chain_size(tr, l)) % tr.k);
}
// M18's direction rule, evaluated once per level where the flow first arrives: the left half of
// the chain goes right, the right half left, an odd chain's middle right (U1). 1 = right.
SATURN_INLINE int descent_goes_right(const FlowTree& tr, int l, int64_t w) {
  const int64_t size = chain_size(tr, l);
  return 2 * (w % size) < size ? 1 : 0;
}
// The port selector's rule (M17 setup step 3, U10): candidate 0..n-1 replaces the incumbent only
// if strictly better (lower); the lowest index among those of minimum quality.
template <class Q, class QualityOf>
SATURN_INLINE int pick_strictly_better(int incumbent, Q best, int n, const QualityOf& quality_of) {
  int a = incumbent;
  for (int c = 0; c < n; ++c) {
    const Q q = quality_of(c);
    if (q < best) {
      best = q;
      a = c;
    }
  }
  return a;
}

// Puts the flow on a link: path pool entry, flow count and (random sizes) weight. kCount = false
// writes the path only (the GPU counts the links of independently routed flows afterwards).
template <bool kCount>
SATURN_INLINE void take_link(const FlowView& v, const FlowSlot& s, int64_t link, double w, int64_t pos) {
  v.pool[s.ix(pos, v.p.path_slots)] = static_cast<uint32_t>(link);
  if (!kCount) return;
  const int64_t i = s.ix(link, v.tree.num_links);
  v.count[i] = static_cast<uint16_t>(v.count[i] + 1);
  if (v.weight != nullptr) v.weight[i] += w;
}

// PRC at the input port fed by `in_link`: may this flow take an alternate port here? A flow that
// finds no free entry follows the default port (M17 setup step 4).
SATURN_INLINE bool prc_has_room(const FlowView& v, const FlowSlot& s, int64_t in_link) {
  return v.p.route_cache == 0 || v.prc[s.ix(in_link, v.tree.num_links)] < v.p.route_cache;
}
SATURN_INLINE void prc_insert(const FlowView& v, const FlowSlot& s, int64_t in_link) {
  if (v.p.route_cache == 0) return;
  const int64_t i = s.ix(in_link, v.tree.num_links);
  v.prc[i] = static_cast<uint16_t>(v.prc[i] + 1);
}

// How route_flow picks among candidate links and writes its choices. SerialExec is one thread
// (the CPU path, and the reference): it compiles to the plain loops. A team form
// (flow_trial_team.hpp) evaluates the candidates on its lanes and writes on one.
struct SerialExec {
  // The candidate 0..n-1 whose link (link_of(c)) has strictly lower quality than the incumbent's,
  // the lowest such index among those of minimum quality; else the incumbent.
  template <class Quality, class LinkOf>
  SATURN_INLINE int pick(const FlowView& v, const FlowSlot& s, const Quality& quality, int64_t incumbent_link, int incumbent,
                         int n, const LinkOf& link_of) const {
    return pick_strictly_better(incumbent, quality(v, s, incumbent_link), n,
                                [&](int c) { return quality(v, s, link_of(c)); });
  }
  template <bool kCount>
  SATURN_INLINE void take(const FlowView& v, const FlowSlot& s, int64_t link, double w, int64_t pos) const {
    take_link<kCount>(v, s, link, w, pos);
  }
  SATURN_INLINE void prc_add(const FlowView& v, const FlowSlot& s, int64_t in_link) const { prc_insert(v, s, in_link); }
  SATURN_INLINE bool leader() const { return true; }  // the one that stores per-flow results
};

// Routes flow f (src -> dst, size w) and appends its links to the pool from *pos. Returns the
// number of links, or -1 if the pool would overflow (nothing is then trustworthy for this trial).
// *horizontal counts the horizontal hops taken. kCount = false (non-adaptive routing only: it reads
// no counts) leaves the link counts and weights alone.
template <class Quality, bool kCount = true, class Exec = SerialExec>
SATURN_HD int route_flow(const FlowView& v, const FlowSlot& s, uint64_t seed, uint32_t f, uint32_t src, uint32_t dst,
                         double w, int64_t pos, int* horizontal, const Exec& exec = Exec{}) {
  const FlowTree& tr = v.tree;
  const Quality quality;
  const int k = tr.k, n = tr.n;
  const bool adaptive = v.p.routing == FlowRouting::kAdaptive;
  const int64_t end = v.p.path_slots;
  const int64_t start = pos;
  if (pos + 2 > end) return -1;
  exec.template take<kCount>(v, s, tr.inj(src), w, pos++);
  int64_t in_link = tr.inj(src);

  // Turnaround level m: the first digit (of the n-1 leaf digits) where src and dst differ.
  int64_t w_sw = src / k;  // current switch index within its level
  const int64_t leaf_dst = dst / k;
  const int m = turnaround_level(tr, w_sw, leaf_dst);

  // Ascent: level lvl -> lvl-1 rewrites digit lvl-1 of w. DP = D-mod-K: a = q_lvl (= digit lvl-1 of
  // dst / k's successor digit: q_{l+1} with l = lvl-1, weight place[l] in dst).
  for (int lvl = n - 1; lvl > m; --lvl) {
    const int l = lvl - 1;
    const int dp = dmodk_up_port(tr, lvl, dst);
    int a = dp;
    if (v.p.routing == FlowRouting::kRandom) {
      const Draw4 d = philox(seed, kFlowLaneRoute, f, static_cast<uint32_t>(lvl), Stream::kFlow);
      a = static_cast<int>(uniform_below(d.v[0], static_cast<uint32_t>(k)));
    } else if (adaptive && prc_has_room(v, s, in_link)) {
      // Strictly better only: ties keep the DP, then the lowest port.
      a = exec.pick(v, s, quality, tr.up(lvl, w_sw, dp), dp, k, [&](int c) { return tr.up(lvl, w_sw, c); });
      if (a != dp) exec.prc_add(v, s, in_link);
    }
    if (pos + 1 > end) return -1;
    const int64_t link = tr.up(lvl, w_sw, a);
    exec.template take<kCount>(v, s, link, w, pos++);
    in_link = link;
    w_sw += static_cast<int64_t>(a - tr.digit(w_sw, l)) * tr.place[l];
  }

  // Descent from level m: at each level, horizontal hops in one direction (left half of the chain
  // goes right, right half goes left, an odd chain's middle goes right) while a horizontal lane is
  // strictly better than the down link; then down to q_l.
  for (int l = m; l < n - 1; ++l) {
    const int64_t size = chain_size(tr, l);  // switches in the level-l chain
    const int q_l = descent_port(tr, l, dst);
    if (adaptive && tr.width > 0 && size > 1) {
      int64_t i = w_sw % size;
      const int right = descent_goes_right(tr, l, w_sw);
      for (;;) {
        const int64_t j = right ? i + 1 : i - 1;
        if (j < 0 || j >= size) break;  // chain boundary
        if (!prc_has_room(v, s, in_link)) break;
        const int choice =
            exec.pick(v, s, quality, tr.down(l, w_sw, q_l), -1, tr.width, [&](int h) { return tr.hz(l, w_sw, right, h); });
        if (choice < 0) break;
        if (pos + 1 > end) return -1;
        exec.prc_add(v, s, in_link);
        const int64_t link = tr.hz(l, w_sw, right, choice);
        exec.template take<kCount>(v, s, link, w, pos++);
        in_link = link;
        ++*horizontal;
        w_sw += right ? 1 : -1;
        i = j;
      }
    }
    if (pos + 1 > end) return -1;
    const int64_t link = tr.down(l, w_sw, q_l);
    exec.template take<kCount>(v, s, link, w, pos++);
    in_link = link;
    w_sw += static_cast<int64_t>(q_l - tr.digit(w_sw, l)) * tr.place[l];
  }
  if (pos + 1 > end) return -1;
  exec.template take<kCount>(v, s, tr.ej(dst), w, pos++);
  return static_cast<int>(pos - start);
}

// Links of a D-mod-K or random (non-adaptive) route: injection, n-1-m up, n-1-m down, ejection,
// with m the turnaround level route_flow finds. Lets a team place independent flows in the pool.
SATURN_INLINE int static_path_len(const FlowTree& tr, uint32_t src, uint32_t dst) {
  const int m = turnaround_level(tr, src / tr.k, dst / tr.k);
  return 2 + 2 * (tr.n - 1 - m);
}

}  // namespace saturn
