// Credits of one sender (a switch output port or an endpoint) for the input buffer beyond it, with
// the buffer split statically among the VCs or shared (switch.vc_buffer, docs/model/switch.md).
//
// Static split: each VC has vc_flits of its own and the counter is the VC's free flits.
// Shared pool with a per-VC minimum (Rocher-Gonzalez et al. 2021, section 4.1's option; the
// input-buffer organisation of InfiniBand's shared-buffer switches): each data VC keeps
// vc_min_flits of its own and the rest of the port's buffer, pool_flits, goes to whichever VC needs
// it. The sender keeps the books: owed[vc], the flits VC vc holds in the peer's buffer or on the
// wire (sent, not yet credited back). A VC's flits beyond its minimum come from the pool, so the
// pool holds used = sum over VCs of max(0, owed - min), and a packet of n flits fits if
//     max(0, owed + n - min) - max(0, owed - min) <= pool - used,
// that is n <= max(0, min - owed) + pool - used. The counter the kernels read (out_credits,
// ep_credits) is kept equal to that right side for every VC of the port, recomputed whenever one
// VC's books change; every reader's test "credits >= size" is then exact, and a reader needs no
// knowledge of the pool. (It never exceeds vc_flits - owed, the most one VC may hold: vc_flits =
// min + pool, and used >= owed - min.)
//
// Rare per packet, so scalar: the phases' lane code calls these per lane under a mask.
#pragma once

#include <cstdint>

#include "kernels/common/index.hpp"
#include "kernels/common/macros.hpp"
#include "kernels/state/engine_view.hpp"

namespace saturn {

SATURN_INLINE bool pool_on(const ModelParams& m) { return m.pool_flits > 0; }

// A sender's books: its V counters and (pool only) the flits each VC owes; `owner` is the output
// port's global id or the endpoint's id.
struct CreditBooks {
  int32_t* credits;
  int32_t* owed;
};
SATURN_INLINE CreditBooks out_books(const StateView& s) { return {s.out_credits, s.out_owed}; }
SATURN_INLINE CreditBooks ep_books(const StateView& s) { return {s.ep_credits, s.ep_owed}; }

// Flits of the pool the owner's VCs use (each VC's owed flits above its minimum).
SATURN_INLINE int32_t pool_used(const ModelParams& m, const CreditBooks& b, int64_t owner, int t) {
  const int V = m.vcs, T = m.trials;
  int32_t used = 0;
  for (int vc = 0; vc < V; ++vc) {
    const int32_t over = b.owed[at(owner * V + vc, t, T)] - m.vc_min_flits;
    used += over > 0 ? over : 0;
  }
  return used;
}

// The flits VC vc may still send: its own minimum not yet used, and the pool's free flits.
SATURN_INLINE int32_t pool_credits(const ModelParams& m, int32_t owed, int32_t used) {
  const int32_t own = m.vc_min_flits - owed;
  return (own > 0 ? own : 0) + m.pool_flits - used;
}

// Every VC's counter from the books (after one VC's owed flits changed).
SATURN_INLINE void pool_refresh(const ModelParams& m, const CreditBooks& b, int64_t owner, int t) {
  const int V = m.vcs, T = m.trials;
  const int32_t used = pool_used(m, b, owner, t);
  for (int vc = 0; vc < V; ++vc) {
    const int64_t i = at(owner * V + vc, t, T);
    b.credits[i] = pool_credits(m, b.owed[i], used);
  }
}

// A packet of n flits sent on VC vc (its credits were checked: credits >= n).
SATURN_INLINE void credits_take(const ModelParams& m, const CreditBooks& b, int64_t owner, int vc, int t, int32_t n) {
  const int64_t i = at(owner * m.vcs + vc, t, m.trials);
  if (!pool_on(m)) {
    b.credits[i] -= n;
    return;
  }
  b.owed[i] += n;
  pool_refresh(m, b, owner, t);
}

// n flits of VC vc credited back by the peer.
SATURN_INLINE void credits_return(const ModelParams& m, const CreditBooks& b, int64_t owner, int vc, int t,
                                  int32_t n) {
  const int64_t i = at(owner * m.vcs + vc, t, m.trials);
  if (!pool_on(m)) {
    b.credits[i] += n;
    return;
  }
  b.owed[i] -= n;
  pool_refresh(m, b, owner, t);
}

}  // namespace saturn
