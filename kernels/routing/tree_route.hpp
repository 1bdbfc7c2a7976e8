// D-mod-K routes of a k-ary n-tree in closed form, for k a power of two: the same ports as the
// host's tables (host/topology/routing_tables.cpp, fill_tree) from the digits of the switch and of
// the destination, without the per (switch, destination) table. That table is switches x
// endpoints bytes (3 MB at 4096 nodes, and quadratic in the network), and its random row per
// arriving packet was a cache miss on the critical path of every enqueue (bench/RESULTS.md).
//
// Switch s = <w, l>: level l = s / S (0 = the roots, n - 1 = the leaves), w = s mod S, S = k^(n-1).
// It is above destination q iff the first l digits of w equal q's: q / k^(n-l) == w / k^(n-1-l);
// then it goes down on port q_l = (q / k^(n-1-l)) mod k, else up on port k + q_l (D-mod-K). Going
// up every up port is minimal (routing.algorithm = "random" draws among them), going down one.
#pragma once
#include <cstdint>

#include "kernels/common/macros.hpp"

namespace saturn {

struct TreeRoute {
  int port;      // the deterministic (D-mod-K) output port
  bool up;       // the minimal set is every up port k..2k-1, else {port}
};

// lg = log2 k (>= 1), n levels; lg * n <= 31 (the model checks).
SATURN_INLINE TreeRoute tree_route(int sw, uint32_t dst, int lg, int n) {
  const int s_bits = lg * (n - 1);
  const uint32_t s = static_cast<uint32_t>(sw);
  const int l = static_cast<int>(s >> s_bits);
  const uint32_t w = s & ((1u << s_bits) - 1u);
  const int sa = lg * (n - 1 - l);  // digit q_l of the destination sits at bit sa
  const int q_l = static_cast<int>((dst >> sa) & ((1u << lg) - 1u));
  const bool above = (dst >> (sa + lg)) == (w >> sa);
  return above ? TreeRoute{q_l, false} : TreeRoute{(1 << lg) + q_l, true};
}

// The minimal output ports of tree_route's answer: bit p = port p.
SATURN_INLINE uint64_t tree_route_mask(const TreeRoute& r, int lg) {
  const int k = 1 << lg;
  return r.up ? ((1ull << k) - 1ull) << k : 1ull << r.port;
}

}  // namespace saturn
