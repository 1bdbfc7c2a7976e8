// SAA rates (fluid.hpp's saa_rates) run by a team of lanes (team.hpp), bit for bit the sequential
// result. What is parallel, and why the bits cannot change:
//   * link weights W_l = sum of w_f over the link's flows: every w_f the flow engine draws is 1 or
//     (2u + 1) 2^-32 (u < 2^31), so every partial sum is a multiple of 2^-32 below 2^17 (F < 2^16
//     flows of size < 2): exact in a double, hence the same in any order (scatter_add, no atomics);
//   * W_f = max over the flow's links, r_f = w_f / W_f, and the max/min reductions: per flow, or
//     max/min (exact in any order);
//   * the link utilisation sums r_f, which are not exact: kept sequential in flow order (single).
// Callers must guarantee the size property above (the flow engine's sizes have it by construction).
#pragma once
#include <cstdint>

#include "kernels/flow/fluid.hpp"

namespace saturn {

template <class Team, class I>
SATURN_HD SaaResult saa_rates_team(const Team& team, I& in) {
  SaaResult res;
  const int64_t L = in.num_links();
  const int32_t F = in.num_flows();
  team.for_each(L, [&](int64_t l) { in.fluid(l) = 0.0; });
  team.scatter_add(
      F, [&](int64_t f) { return in.path_len(static_cast<int32_t>(f)); },
      [&](int64_t f, int h) -> double& { return in.fluid(in.link(static_cast<int32_t>(f), h)); },
      [&](int64_t f, int) { return in.size(static_cast<int32_t>(f)); });
  team.for_each(L, [&](int64_t l) { in.fluid(l) = in.fluid(l) / in.capacity(l); });
  res.max_link_weight = team.reduce_max(L, 0.0, [&](int64_t l) { return in.fluid(l); });
  team.for_each(F, [&](int64_t fi) {
    const int32_t f = static_cast<int32_t>(fi);
    double wf = 0;  // W_f = max over the flow's links of W_l
    for (int i = 0, n = in.path_len(f); i < n; ++i) {
      const double wl = in.fluid(in.link(f, i));
      if (wl > wf) wf = wl;
    }
    in.rate(f) = in.size(f) / wf;
  });
  res.min_rate = F > 0 ? team.reduce_min(F, 1e300, [&](int64_t f) { return in.rate(static_cast<int32_t>(f)); }) : 0.0;
  res.completion = team.reduce_max(F, 0.0, [&](int64_t fi) {
    const int32_t f = static_cast<int32_t>(fi);
    return in.size(f) / in.rate(f);
  });
  team.for_each(L, [&](int64_t l) { in.fluid(l) = 0.0; });
  team.single([&] {
    for (int32_t f = 0; f < F; ++f)
      for (int i = 0, n = in.path_len(f); i < n; ++i) in.fluid(in.link(f, i)) += in.rate(f);
  });
  res.max_link_util = team.reduce_max(L, 0.0, [&](int64_t l) { return in.fluid(l) / in.capacity(l); });
  return res;
}

}  // namespace saturn
