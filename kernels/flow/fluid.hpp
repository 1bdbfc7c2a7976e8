// Fluid rate models for fixed routes (Zdornov & Birk 2009 §5, PAPERS-SPEC M29): SAA explicit
// rates r_f = w_f / W_f with completion W (Theorem 1), and max-min fair rates by water-filling.
// Written once over an "instance" accessor so the flow kernel and the property tests run the same
// code. An instance I provides:
//   int32_t num_flows(); int64_t num_links(); int path_len(f); int64_t link(f, i);
//   double size(f); double capacity(l); double& fluid(l); uint16_t& live(l); double& rate(f);
//   and for max-min: uint32_t& csr_begin(l), uint32_t& csr_flow(i), uint32_t& heap(i), int32_t& heap_pos(l).
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
  int rounds = 0;         // bottleneck links saturated
};

// Max-min fair rates into rate(f) by progressive filling: raise every unfrozen flow's rate
// together; when a link saturates, freeze the flows crossing it at the current level. The next link
// to saturate is the one with the smallest fair share c_l' / n_l (c_l' = capacity left, n_l =
// unfrozen flows), kept in an indexed min-heap; freezing a flow at the global minimum share never
// lowers another link's share, so each update is a sift. A link -> flows index (CSR) finds the
// flows to freeze. O(sum of path lengths x log links). Scratch: fluid(l) = capacity left,
// live(l) = n_l, csr_begin(l) [L + 1], csr_flow(i) [sum of path lengths], heap(i) [L],
// heap_pos(l) [L]; rate(f) < 0 marks an unfrozen flow.
template <class I>
SATURN_HD double maxmin_share(I& in, int64_t l) {
  return in.fluid(l) / in.live(l);
}

template <class I>
SATURN_HD bool maxmin_less(I& in, int64_t a, int64_t b) {
  const double sa = maxmin_share(in, a), sb = maxmin_share(in, b);
  return sa < sb || (sa == sb && a < b);
}

template <class I>
SATURN_HD void maxmin_place(I& in, int64_t pos, int64_t l) {
  in.heap(pos) = static_cast<uint32_t>(l);
  in.heap_pos(l) = static_cast<int32_t>(pos);
}

template <class I>
SATURN_HD void maxmin_sift_down(I& in, int64_t pos, int64_t n) {
  const int64_t l = in.heap(pos);
  for (;;) {
    int64_t child = 2 * pos + 1;
    if (child >= n) break;
    if (child + 1 < n && maxmin_less(in, in.heap(child + 1), in.heap(child))) ++child;
    if (!maxmin_less(in, in.heap(child), l)) break;
    maxmin_place(in, pos, in.heap(child));
    pos = child;
  }
  maxmin_place(in, pos, l);
}

// Restores the heap property around position pos of a valid heap (the key there went either way).
template <class I>
SATURN_HD void maxmin_fix(I& in, int64_t pos, int64_t n) {
  const int64_t l = in.heap(pos);
  while (pos > 0) {
    const int64_t parent = (pos - 1) / 2;
    if (!maxmin_less(in, l, in.heap(parent))) break;
    maxmin_place(in, pos, in.heap(parent));
    pos = parent;
  }
  maxmin_place(in, pos, l);
  maxmin_sift_down(in, pos, n);
}

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
  // Link -> flows (counting sort; heap_pos is the fill cursor meanwhile).
  in.csr_begin(0) = 0;
  for (int64_t l = 0; l < L; ++l) {
    in.csr_begin(l + 1) = in.csr_begin(l) + in.live(l);
    in.heap_pos(l) = static_cast<int32_t>(in.csr_begin(l));
  }
  for (int32_t f = 0; f < F; ++f)
    for (int i = 0, n = in.path_len(f); i < n; ++i) {
      const int64_t l = in.link(f, i);
      in.csr_flow(in.heap_pos(l)) = static_cast<uint32_t>(f);
      in.heap_pos(l) = in.heap_pos(l) + 1;
    }
  int64_t n = 0;
  for (int64_t l = 0; l < L; ++l) {
    in.heap_pos(l) = -1;
    if (in.live(l) > 0) maxmin_place(in, n++, l);
  }
  for (int64_t pos = n / 2 - 1; pos >= 0; --pos) maxmin_sift_down(in, pos, n);
  while (n > 0) {
    const int64_t bottleneck = in.heap(0);
    const double share = maxmin_share(in, bottleneck);
    for (uint32_t i = in.csr_begin(bottleneck), e = in.csr_begin(bottleneck + 1); i < e; ++i) {
      const int32_t f = static_cast<int32_t>(in.csr_flow(i));
      if (in.rate(f) >= 0) continue;
      in.rate(f) = share;
      for (int j = 0, len = in.path_len(f); j < len; ++j) {
        const int64_t l = in.link(f, j);
        const double left = in.fluid(l) - share;
        in.fluid(l) = left > 0 ? left : 0.0;
        --in.live(l);
        const int64_t pos = in.heap_pos(l);
        if (in.live(l) == 0) {  // leaves the heap: the last entry takes its place
          in.heap_pos(l) = -1;
          --n;
          if (pos < n) {
            maxmin_place(in, pos, in.heap(n));
            maxmin_fix(in, pos, n);
          }
        } else {
          maxmin_fix(in, pos, n);
        }
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
