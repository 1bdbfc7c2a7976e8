// switch.vc_allocation = "per_hop": BookSim2's VC allocation in Saturn's one-stage grant
// (docs/model/switch.md, "VC allocation per hop").
//
// Under "fixed" (the default, the InfiniBand SL-to-VL reading) a packet keeps the VC it was
// injected on, so with uniform traffic every input is one FIFO however many VCs there are. Under
// "per_hop" the packet takes, on each link it enters (the source's, and every switch output's
// toward another switch), any VC of the link that is free for it:
//   - free: the VC has credits for the whole packet (virtual cut-through), and with
//     switch.wait_for_tail_credit every credit is back, so that the last packet sent on it has left
//     the downstream buffer (BookSim2's wait_for_tail_credit: a downstream VC holds one packet);
//   - which one: round-robin over the link's VCs from the one after the last taken (out_vc_next,
//     ep_vc_next), as BookSim2's sources pick an injection VC and its input-first VC allocator's
//     arbiters move.
// At the next switch the packet queues by the VC it arrived on (its VOQ or FIFO), and its credits go
// back on that VC as its tail leaves (switch_depart.hpp). The grant's choice among inputs is
// unchanged: a head is eligible where some VC of the output is free for it. Saturn allocates the VC
// in the same cycle as the crossbar; BookSim2 runs VC allocation one stage before switch
// allocation, which the matched router delay accounts for (docs/model/switch.md).
// Every VC forms one class here: build_model refuses per_hop where VCs carry classes (dragonfly
// routing, congestion control's ACKs and reservations, isolation).
#pragma once
#include <cstdint>

#include "kernels/common/index.hpp"
#include "kernels/state/engine_view.hpp"

namespace saturn {

// Is VC w of a link, with `credits` flits of credit, free for a packet of `size` flits?
SATURN_INLINE bool vc_free_for(const ModelParams& m, int w, int32_t credits, int32_t size) {
  return credits >= size && (!m.wait_tail_credit || credits == vc_capacity(m, w));
}

// Per lane, the credits a head sees at a link under per_hop: the most credits of a VC that is free
// for a packet (with wait_for_tail_credit, one whose credits are all back), -1 where none is.
// credits[w]: the link's V counters.
template <class L>
SATURN_INLINE typename L::I32 per_hop_credits(const ModelParams& m, const typename L::I32* credits, int V) {
  using I32 = typename L::I32;
  I32 best = L::i32(-1);
  for (int w = 0; w < V; ++w) {
    I32 c = credits[w];
    if (m.wait_tail_credit) c = L::sel(c == vc_capacity(m, w), c, L::i32(-1));
    best = L::sel(c > best, c, best);
  }
  return best;
}

// Per lane, the credits output go offers a head of VOQ VC vc: its VC's counter, or under per_hop
// per_hop_credits of all the link's VCs.
template <class L>
SATURN_INLINE typename L::I32 head_credits(const ModelParams& m, const int32_t* out_credits, int go, int vc, int t0,
                                           int V) {
  using I32 = typename L::I32;
  if (!m.vc_per_hop) return L::load_i32(out_credits + at(static_cast<int64_t>(go) * V + vc, t0, m.trials));
  I32 credits[kMaxVcs];
  for (int w = 0; w < V; ++w) credits[w] = L::load_i32(out_credits + at(static_cast<int64_t>(go) * V + w, t0, m.trials));
  return per_hop_credits<L>(m, credits, V);
}

// The VC a packet of `size` flits takes on owner's link for trial t: the first free one from
// *next on, whose successor becomes *next. credits: the link's counters (out_credits or ep_credits,
// [owner * V + w]). -1 where none is free (per_hop_credits said one was: never).
SATURN_INLINE int per_hop_take(const ModelParams& m, const int32_t* credits, int64_t owner, int t, int V,
                               uint8_t* next, int32_t size) {
  for (int k = 0; k < V; ++k) {
    const int w = (*next + k) % V;
    if (vc_free_for(m, w, credits[at(owner * V + w, t, m.trials)], size)) {
      *next = static_cast<uint8_t>(w + 1 == V ? 0 : w + 1);
      return w;
    }
  }
  return -1;
}

}  // namespace saturn
