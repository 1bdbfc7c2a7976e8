// Switch phase 2 under switch.allocator = separable_input_first, for one switch and a lane of
// trials: the iterative matching of kernels/arbiters/separable_input_first.hpp, then the departures
// (switch_depart.hpp). switch_grant.hpp calls it after its request set-up (wanted outputs, idle
// crossbar ports, read ports, FIFO heads), which both allocators share.
#pragma once
#include <cstdint>

#include "kernels/arbiters/separable_input_first.hpp"
#include "kernels/common/bits.hpp"
#include "kernels/common/index.hpp"
#include "kernels/phases/switch_depart.hpp"
#include "kernels/state/engine_view.hpp"

namespace saturn {

// switch.allocator = separable_input_first: the matching of separable_input_first.hpp, then the
// departures (every connected output's link slot is written, empty where it grants nothing; with
// output queues a grant joins its VC's queue and the link takes a queued head) and
// the pointer moves of first-iteration grants only: the input's past the output it got (in_rr),
// the output's past the input (out_rr, which grant_depart moves on every grant under round-robin
// arbitration: later iterations put it back).
template <class L, int kVcs>
SATURN_INLINE void switch_grant_separable(const EngineView& v, int base, int radix, int t0, uint32_t c, int wslot,
                                          const uint64_t* wants, uint64_t wanted, const typename L::M* idle,
                                          typename L::I32* read_ports, const typename L::U32* fifo_ready) {
  using I32 = typename L::I32;
  using M = typename L::M;
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials;
  const bool cioq = cioq_on(m);
  I32 match_in[kMaxRadix], match_vc[kMaxRadix];
  M match_first[kMaxRadix];
  separable_input_first<L, kVcs>(v, base, radix, t0, c, wants, wanted, idle, read_ports, fifo_ready, match_in,
                                 match_vc, match_first);
  for (int o = 0; o < radix; ++o) {
    const int go = base + o;
    if (v.net.peer_type[go] == static_cast<uint8_t>(PeerType::kNone)) continue;
    const bool to_switch = v.net.peer_type[go] == static_cast<uint8_t>(PeerType::kSwitch);
    PacketLanes<L> sent{};
    for (uint32_t b = (wanted >> o) & 1u ? L::bits(match_in[o] >= 0) : 0u; b != 0; b &= b - 1) {
      const int l = lowest_bit(b);
      const int t = t0 + l;
      const int i = L::get(match_in[o], l);
      const bool first = L::get_mask(match_first[o], l);
      const int vc = L::get(match_vc[o], l);
      const int64_t ri = out_rr_index(m, go, vc, t);
      const uint8_t out_pointer = s.out_rr[ri];
      const Packet pk = grant_depart<L, kVcs>(v, base, radix, o, i, vc, -1, kNoEntry, t, c, wslot, to_switch);
      if (first) s.in_rr[at(base + i, t, T)] = static_cast<uint8_t>(o + 1 == radix ? 0 : o + 1);
      else s.out_rr[ri] = out_pointer;
      if (cioq) oq_push(v, go, vc, pk, t);  // the VC its credits were taken on
      else sent.set_lane(l, pk);
    }
    output_send<L>(v, go, t0, c, wslot, sent);
  }
}

}  // namespace saturn
