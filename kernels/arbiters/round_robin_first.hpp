// Round-robin output arbitration on one trial, the short way (switch_grant.hpp calls it under
// switch.arbitration = round_robin on ScalarLanes, without CCA or mixed packet sizes): with every
// candidate's key (VC rank, input rank) distinct, the first eligible head in rank order is the
// winner the full key search would pick, so the search can stop there.
#pragma once
#include <cstdint>

#include "kernels/common/bits.hpp"
#include "kernels/common/index.hpp"
#include "kernels/common/lanes.hpp"
#include "kernels/state/engine_view.hpp"
#include "kernels/state/voq.hpp"

namespace saturn {

// Round-robin on one trial (ScalarLanes, switch.arbitration = round_robin, neither CCA nor mixed
// sizes): each candidate's key (VC rank, input rank) is its own, so the first eligible head in rank
// order is the one the full search of switch_grant would pick. This visits the VCs in rank order
// and each VC's inputs in ring order from the VC's pointer, and stops at the first head that is
// ready (and its FIFO's head, with room in the output's queue) and fits the downstream credits; on
// a saturated switch it reads a few heads instead of every input's. Returns the input, -1 = none.
template <int kVcs>
SATURN_INLINE int rr_first_eligible(const EngineView& v, int base, int radix, int o, int t0, uint32_t c,
                                    const uint64_t* wants, const int32_t* read_ports, uint32_t rr_vc,
                                    const uint32_t* rr_in, const int32_t* credits, const bool* queue_room,
                                    const uint32_t* fifo_ready, bool to_switch, int* win_vc) {
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials;
  const int V = kVcs > 0 ? kVcs : m.vcs;
  // Bit i: input i has a packet for o on that VC. Without branches: on a busy switch whether input
  // i wants o is a coin toss per (i, o), and the branch on it was most of this search's time.
  uint64_t by_vc[kVcs > 0 ? kVcs : kMaxVcs] = {};
  for (int i = 0; i < radix; ++i) {
    const uint32_t take = 0u - static_cast<uint32_t>(((wants[i] >> o) & 1u) & static_cast<uint32_t>(read_ports[i] > 0));
    const uint64_t vcs = voq_vcs_any<ScalarLanes>(s, m, base + i, o, t0) & take;
    for (int vc = 0; vc < V; ++vc) by_vc[vc] |= ((vcs >> vc) & 1u) << i;
  }
  for (int r = 0; r < V; ++r) {
    // Strict priority: higher VC first; round-robin: from the pointer on (a compare, not a division).
    int vc = V - 1 - r;
    if (m.vc_arbitration == VcArbitration::kRoundRobin) {
      vc = static_cast<int>(rr_vc) + r;
      if (vc >= V) vc -= V;
    }
    if (queue_room != nullptr && !queue_room[vc]) continue;
    const uint64_t cand = by_vc[vc];
    if (cand == 0) continue;
    // The inputs from the pointer on, then those before it: ring order.
    const int p = static_cast<int>(rr_in[vc]);
    const uint64_t below = p == 0 ? 0 : cand & ((1ull << p) - 1);
    for (int part = 0; part < 2; ++part)
      for (uint64_t left = part == 0 ? cand & ~below : below; left != 0; left &= left - 1) {
        const int i = lowest_bit(left);
        const int gpi = base + i;
        const int64_t q = voq_index(m, gpi, o, vc);
        const uint32_t ready = s.voq_ready[at(q, t0, T)];
        if (ready > c) continue;
        if (fifo_ready != nullptr && ready != fifo_ready[i * V + vc]) continue;
        if (to_switch && !voq_head_fits(v, gpi, q, t0, credits[vc])) continue;
        *win_vc = vc;
        return i;
      }
  }
  return -1;
}

}  // namespace saturn
