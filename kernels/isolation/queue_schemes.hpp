// Static queuing schemes of Rocher-Gonzalez et al. 2021 §2.3 / §4.1 (PAPERS-SPEC M40, U19): the
// VC a packet takes under 1Q, DBBM, vFtree or Flow2SL, the AFC reserved beyond them under AFI;
// and the two per-hop routing choices of §4.1, Adaptive-Th (M16) and oblivious random (M15).
//
// Every scheme maps a packet a priori, from its source and destination only, so the VC is chosen
// once at injection (the HCA's SL) and is the same at every hop (SL-to-VC tables that do not
// depend on the port). The formulas are the M40 suggestions, since 003 gives none:
//   1Q      vc = 0 (1 VC);
//   DBBM    vc = dst mod n (Nachiondo et al.: destination modulo, the same at every port);
//   vFtree  vc = (dst_leaf + src_leaf) mod n: packets to consecutive destination leaves are
//           shuffled over the queues (Guay et al.); vftree_source = false gives dst_leaf mod n;
//   Flow2SL dst_group = floor(dst * n / N): n groups of consecutive destinations (Escudero-
//           Sahuquillo et al.); flow2sl_source = true maps (src_group + dst_group) mod n instead.
// n = 3 regular VCs for the SQSs [003 §4.1]; under AFI the AFC is VC n (the last one, §3.2).
#pragma once
#include <cstdint>

#include "kernels/common/bits.hpp"
#include "kernels/common/macros.hpp"

namespace saturn {

enum class QueueScheme : uint8_t { k1Q = 0, kDbbm, kVftree, kFlow2sl, kCount };

struct SchemeGeometry {
  uint32_t endpoints = 0;           // N
  uint32_t endpoints_per_leaf = 1;  // K in an RLFT (leaf = endpoint / K, M3 numbering)
  int sqs_vcs = 3;                  // regular VCs of DBBM / vFtree / Flow2SL [003 §4.1]
  bool vftree_source = true;
  bool flow2sl_source = false;
};

// VCs the scheme uses for regular (non-adapted) traffic.
SATURN_INLINE int scheme_regular_vcs(QueueScheme s, const SchemeGeometry& g) {
  return s == QueueScheme::k1Q ? 1 : g.sqs_vcs;
}

// VCs per port in all: the regular ones plus the AFC under AFI (1Q + AFC = 2, SQS + AFC = 4).
SATURN_INLINE int scheme_total_vcs(QueueScheme s, const SchemeGeometry& g, bool afi) {
  return scheme_regular_vcs(s, g) + (afi ? 1 : 0);
}

// The regular VC of a packet from src to dst (never the AFC).
SATURN_INLINE int scheme_vc(QueueScheme s, uint32_t src, uint32_t dst, const SchemeGeometry& g) {
  const uint32_t n = static_cast<uint32_t>(scheme_regular_vcs(s, g));
  switch (s) {
    case QueueScheme::kDbbm:
      return static_cast<int>(dst % n);
    case QueueScheme::kVftree: {
      const uint32_t dl = dst / g.endpoints_per_leaf, sl = src / g.endpoints_per_leaf;
      return static_cast<int>((g.vftree_source ? dl + sl : dl) % n);
    }
    case QueueScheme::kFlow2sl: {
      const uint32_t dg = static_cast<uint32_t>(static_cast<uint64_t>(dst) * n / g.endpoints);
      const uint32_t sg = static_cast<uint32_t>(static_cast<uint64_t>(src) * n / g.endpoints);
      return static_cast<int>(g.flow2sl_source ? (sg + dg) % n : dg);
    }
    default:
      return 0;
  }
}

// Oblivious routing (M15): uniform among the minimal outputs in `minimal` (non-empty), per packet.
SATURN_INLINE int oblivious_port(uint64_t minimal, uint32_t draw) {
  const int n = popcount64(minimal);
  const uint32_t k = static_cast<uint32_t>((static_cast<uint64_t>(draw) * static_cast<uint32_t>(n)) >> 32);
  return nth_set_bit(minimal, static_cast<int>(k));
}

struct AdaptiveChoice {
  int port;
  bool adapted;  // re-routed away from the deterministic port (AFI: sets the adapted bit)
};

// Adaptive-Th (M16, U9): stay on the deterministic output unless its next-hop VC is more than
// threshold_pct full (det_free of capacity free credits: used * 100 > threshold_pct * capacity);
// then take the output of `minimal` (det included) with the most free credits in choice_credits
// [p * stride] (the AFC's under AFI, else the packet's VC), ties by tie_draw (the deterministic port wins a tie it is in). An adapted packet
// under AFI never adapts again (§2.4): deterministic.
// The same with the candidates' credits and the tie draw as callables (credit_of(p), tie_draw()),
// evaluated only where the choice needs them: the engine reads other ports' credits only past the
// threshold and draws its Philox number only for a tie that leaves the deterministic port (the
// draw is counter-based, so drawing it or not changes no other number).
template <class CreditOf, class TieDraw>
SATURN_INLINE AdaptiveChoice adaptive_th_pick(int det_port, uint64_t minimal, int32_t det_free, int32_t capacity,
                                              uint32_t threshold_pct, const CreditOf& credit_of,
                                              const TieDraw& tie_draw, bool already_adapted, bool afi) {
  if ((already_adapted && afi) || popcount64(minimal) < 2) return AdaptiveChoice{det_port, false};
  const int64_t used = static_cast<int64_t>(capacity) - det_free;
  if (used * 100 <= static_cast<int64_t>(threshold_pct) * capacity) return AdaptiveChoice{det_port, false};
  int32_t best = INT32_MIN;
  uint64_t ties = 0;
  for (uint64_t r = minimal; r != 0; r &= r - 1) {
    const int p = lowest_bit(r);
    const int32_t c = credit_of(p);
    if (c > best) {
      best = c;
      ties = 0;
    }
    if (c == best) ties |= 1ull << p;
  }
  if (ties & (1ull << det_port)) return AdaptiveChoice{det_port, false};  // as good as any: no re-route
  const uint32_t draw = tie_draw();
  const int port = nth_set_bit(ties, static_cast<int>(draw % static_cast<uint32_t>(popcount64(ties))));
  return AdaptiveChoice{port, port != det_port};
}

SATURN_INLINE AdaptiveChoice adaptive_th_route(int det_port, uint64_t minimal, int32_t det_free, int32_t capacity,
                                               uint32_t threshold_pct, const int32_t* choice_credits, int64_t stride,
                                               uint32_t tie_draw, bool already_adapted, bool afi) {
  return adaptive_th_pick(
      det_port, minimal, det_free, capacity, threshold_pct, [&](int p) { return choice_credits[p * stride]; },
      [&] { return tie_draw; }, already_adapted, afi);
}

}  // namespace saturn
