// Fluid rate models for fixed routes (Zdornov & Birk 2009 §5, PAPERS-SPEC M29): SAA explicit
// rates r_f = w_f / W_f with completion W (Theorem 1), and max-min fair rates by water-filling.
// Written once over an "instance" accessor so the flow kernel and the property tests run the same
// code. An instance I provides:
//   int32_t num_flows(); int64_t num_links(); int path_len(f); int64_t link(f, i);
//   double size(f); double capacity(l); double& fluid(l); uint16_t& live(l); double& rate(f).
// All loops are sequential and in index order: the same bits on every backend and thread count.
#pragma once
#include <cstdint>

#include "kernels/common/macros.hpp"

namespace saturn {

struct SaaResult {
  double max_link_weight = 0;  // W = max_l W_l, W_l = sum_{f on l} w_f / c_l: the lower bound
  double completion = 0;       // max_f w_f / r_f with the SAA rates
  double min_rate = 0;
  double max_link_util = 0;    // max_l sum_{f on l} r_f / c_l (feasible: <= 1)
};

// SAA rates into rate(f). Uses fluid(l) as scratch.
template <class I>
SATURN_HD SaaResult saa_rates(I& in) {
  SaaResult res;
  const int64_t L = in.num_links();
  const int32_t F = in.num_flows();
  for (int64_t l = 0; l < L; ++l) in.fluid(l) = 0.0;
  for (int32_t f = 0; f < F; ++f) {
    const double w = in.size(f);
    for (int i = 0, n = in.path_len(f); i < n; ++i) in.fluid(in.link(f, i)) += w;
  }
  for (int64_t l = 0; l < L; ++l) {
    in.fluid(l) = in.fluid(l) / in.capacity(l);
    if (in.fluid(l) > res.max_link_weight) res.max_link_weight = in.fluid(l);
  }
  res.min_rate = F > 0 ? 1e300 : 0.0;
  for (int32_t f = 0; f < F; ++f) {
    double wf = 0;  // W_f = max over the flow's links of W_l
    for (int i = 0, n = in.path_len(f); i < n; ++i) {
      const double wl = in.fluid(in.link(f, i));
      if (wl > wf) wf = wl;
    }
    const double r = in.size(f) / wf;
    in.rate(f) = r;
    if (r < res.min_rate) res.min_rate = r;
    const double done = in.size(f) / r;
    if (done > res.completion) res.completion = done;
  }
  for (int64_t l = 0; l < L; ++l) in.fluid(l) = 0.0;
  for (int32_t f = 0; f < F; ++f)
    for (int i = 0, n = in.path_len(f); i < n; ++i) in.fluid(in.link(f, i)) += in.rate(f);
  for (int64_t l = 0; l < L; ++l) {
    const double u = in.fluid(l) / in.capacity(l);
    if (u > res.max_link_util) res.max_link_util = u;
  }
  return res;
}

struct MaxminResult {
  double completion = 0;  // max_f w_f / r_f with the rates fixed from t = 0
  double min_rate = 0;
  int rounds = 0;         // water-filling levels
};

// Max-min fair rates into rate(f) by progressive filling: raise every unfrozen flow's rate
// together; when a link saturates, freeze the flows crossing it at the current level. Each round
// finds the smallest fair share c_l' / n_l over links with unfrozen flows (c_l' = capacity left,
// n_l = unfrozen flows) and freezes every unfrozen flow on a link with that share. Uses fluid(l)
// (residual capacity) and live(l) as scratch; rate(f) < 0 marks an unfrozen flow.
template <class I>
SATURN_HD MaxminResult maxmin_rates(I& in) {
  MaxminResult res;
  const int64_t L = in.num_links();
  const int32_t F = in.num_flows();
  for (int64_t l = 0; l < L; ++l) {
    in.fluid(l) = in.capacity(l);
    in.live(l) = 0;
  }
  for (int32_t f = 0; f < F; ++f) {
    in.rate(f) = -1.0;
    for (int i = 0, n = in.path_len(f); i < n; ++i) ++in.live(in.link(f, i));
  }
  int32_t remaining = F;
  while (remaining > 0) {
    double share = 1e300;
    for (int64_t l = 0; l < L; ++l)
      if (in.live(l) > 0) {
        const double s = in.fluid(l) / in.live(l);
        if (s < share) share = s;
      }
    // Mark first (rate = -2), then freeze: every decision sees this round's shares.
    for (int32_t f = 0; f < F; ++f) {
      if (in.rate(f) != -1.0) continue;
      for (int i = 0, n = in.path_len(f); i < n; ++i) {
        const int64_t l = in.link(f, i);
        if (in.fluid(l) / in.live(l) <= share) {
          in.rate(f) = -2.0;
          break;
        }
      }
    }
    for (int32_t f = 0; f < F; ++f) {
      if (in.rate(f) != -2.0) continue;
      in.rate(f) = share;
      --remaining;
      for (int i = 0, n = in.path_len(f); i < n; ++i) {
        const int64_t l = in.link(f, i);
        const double left = in.fluid(l) - share;
        in.fluid(l) = left > 0 ? left : 0.0;
        --in.live(l);
      }
    }
    ++res.rounds;
  }
  res.min_rate = F > 0 ? 1e300 : 0.0;
  for (int32_t f = 0; f < F; ++f) {
    if (in.rate(f) < res.min_rate) res.min_rate = in.rate(f);
    const double done = in.size(f) / in.rate(f);
    if (done > res.completion) res.completion = done;
  }
  return res;
}

}  // namespace saturn
