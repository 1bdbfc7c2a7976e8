// FIFO input queues (switch.input_queue = fifo) on top of the VOQ FIFOs: per (input, VC), the ready
// cycle of its oldest VOQ head, the only head of that (input, VC) that may request an output.
//
// Why that head is the FIFO's head: one header arrives per input per cycle and every packet waits
// the same router delay, so the ready cycles of the packets at one input are all distinct and
// increase in arrival order; each VOQ is FIFO-ordered, so the oldest of the VOQ heads of an
// (input, VC) is the oldest packet of that (input, VC), the head of one FIFO that held them all.
// A VOQ head requests iff its ready cycle equals this value (and is <= the cycle): no other head
// of the input has that ready cycle, and once the head departs the next one is younger, so at most
// one packet leaves a FIFO per cycle. The head may not be bypassed: a head short of credits blocks
// the packets behind it (no voq_find_fit), which is head-of-line blocking.
#pragma once
#include <cstdint>

#include "kernels/common/bits.hpp"
#include "kernels/common/index.hpp"
#include "kernels/state/engine_view.hpp"
#include "kernels/state/voq.hpp"

namespace saturn {

// head_ready[i * V + vc] = the smallest voq_ready over the VOQs (i, o, vc) of local input i, per
// lane (kEmptyReady when the FIFO is empty); wants[i] = the outputs any lane of input i has
// packets for (other VOQs are empty in every lane).
template <class L, int kVcs>
SATURN_INLINE void fifo_head_ready(const EngineView& v, int base, int radix, int t0, const uint64_t* wants,
                                   typename L::U32* head_ready) {
  using U32 = typename L::U32;
  const ModelParams& m = v.model;
  const int V = kVcs > 0 ? kVcs : m.vcs;
  for (int i = 0; i < radix; ++i) {
    for (int vc = 0; vc < V; ++vc) head_ready[i * V + vc] = L::u32(kEmptyReady);
    for (uint64_t b = wants[i]; b != 0; b &= b - 1) {
      const int64_t q0 = voq_index(m, base + i, lowest_bit(b), 0);
      for (int vc = 0; vc < V; ++vc) {
        const U32 r = L::load(v.state.voq_ready + at(q0 + vc, t0, m.trials));
        U32& h = head_ready[i * V + vc];
        h = L::sel(r < h, r, h);
      }
    }
  }
}

// Lanes of `ok` whose head of non-empty VOQ q0 + vc of input gpi fits the output's credits
// (credits for the largest packet fit any head; below that the head's size is read lane by lane).
template <class L>
SATURN_INLINE typename L::M head_fits_credits(const EngineView& v, int gpi, int64_t q, int t0, typename L::M ok,
                                              typename L::I32 credits) {
  typename L::M fits = credits >= max_packet_flits(v.model);
  for (uint32_t b = L::bits(ok & L::mnot(fits)); b != 0; b &= b - 1) {
    const int l = lowest_bit(b);
    if (voq_head_size(v, gpi, q, t0 + l) <= L::get(credits, l)) L::set_mask(fits, l, true);
  }
  return ok & fits;
}

}  // namespace saturn
