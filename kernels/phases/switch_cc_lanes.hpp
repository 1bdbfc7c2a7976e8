// Congestion detection in the switch input phase (switch_inputs.hpp, kCc) for a lane of trials:
// occupancy counts, the input and output triggers and ECN marking of kernels/cc/marking.hpp,
// called per lane through its scalar helpers.
// Only one thing needs care: the model counts port by port (port p's departed tails, then its
// arrival: the order of the per-trial switch step these phases replaced, which the golden files
// hold), while the phase frees every departed entry first. An arrival's output trigger depends on
// out_cnt1 just before it, which the departures through inputs after p must not have lowered yet;
// so the phase notes the departures and applies their counts port by port, in that order.
// Everything else here is either per port or a commutative count.
#pragma once
#include <cstdint>

#include "kernels/cc/marking.hpp"
#include "kernels/common/bits.hpp"
#include "kernels/common/index.hpp"
#include "kernels/common/lanes.hpp"
#include "kernels/state/engine_view.hpp"

namespace saturn {

template <class L>
struct SwitchCcLanes {
  uint64_t released;                          // outputs whose packet's tail left in some lane this cycle
  uint32_t released_lanes[kMaxRadix];         // ... in which lanes (valid where `released` has the bit)
  uint32_t released_src[kMaxRadix][L::kWidth];  // ... and which entry (out_src: input << 16 | entry)
  uint64_t input_trigger[L::kWidth];          // outputs made congested this cycle, per lane
  uint64_t output_trigger[L::kWidth];
};

template <class L>
SATURN_INLINE void switch_cc_begin(SwitchCcLanes<L>& w) {
  w.released = 0;
  for (int l = 0; l < L::kWidth; ++l) {
    w.input_trigger[l] = 0;
    w.output_trigger[l] = 0;
  }
}

// Output o's packet from `src` in lane l has left (its entry is being freed): counted at its input's turn.
template <class L>
SATURN_INLINE void switch_cc_note_release(SwitchCcLanes<L>& w, int o, int l, uint32_t src) {
  if (!((w.released >> o) & 1u)) {
    w.released |= 1ull << o;
    w.released_lanes[o] = 0;
  }
  w.released_lanes[o] |= 1u << l;
  w.released_src[o][l] = src;
}

// Input p's turn, before its arrival: the counts of its packets whose tails have left.
template <class L>
SATURN_INLINE void switch_cc_port_releases(const EngineView& v, const SwitchCcLanes<L>& w, int base, int p, int t0) {
  const int T = v.model.trials;
  for (uint64_t r = w.released; r != 0; r &= r - 1) {
    const int o = lowest_bit(r);
    for (uint32_t b = w.released_lanes[o]; b != 0; b &= b - 1) {
      const int l = lowest_bit(b);
      const uint32_t src = w.released_src[o][l];
      if (static_cast<int>(src >> 16) != p) continue;
      const int e = static_cast<int>(src & 0xFFFFu);
      cc_packet_left(v, base + p, base, o, v.state.ent_pkt[at(entry_index(v, base + p, e), t0 + l, T)], t0 + l);
    }
  }
}

// Port gp after its arrival (cc_tail_check over the lanes): the full-buffer count of every lane,
// then the naive marks or input trigger in the lanes where a tail landed now.
template <class L>
SATURN_INLINE void switch_cc_tail_check(const EngineView& v, SwitchCcLanes<L>& w, int gp, int t0, uint32_t c) {
  const ModelParams& m = v.model;
  const int T = m.trials;
  if (m.cc.full_stats) {
    const typename L::M full =
        L::as_i32(L::load(v.state.cc.in_flits + at(static_cast<int64_t>(gp) * m.vcs + m.data_vc, t0, T))) >
        cc_full_above(m, m.data_vc);
    uint64_t* count = v.state.cc.st_full_cycles + at(gp, t0, T);
    L::store64(count, L::load64(count) + L::widen(L::sel(full, L::u32(1), L::u32(0))));
  }
  if (m.cc.marking == Marking::kNone) return;
  const typename L::M landed = L::load(v.state.cc.in_tail_at + at(gp, t0, T)) == c;
  for (uint32_t b = L::bits(landed); b != 0; b &= b - 1) {
    const int l = lowest_bit(b);
    w.input_trigger[l] |= cc_tail_marks(v, gp, t0 + l, c);
  }
}

// After every port: this cycle's triggers load the outputs' cnt2.
template <class L>
SATURN_INLINE void switch_cc_apply(const EngineView& v, const SwitchCcLanes<L>& w, int base, int t0) {
  for (int l = 0; l < L::kWidth; ++l)
    if ((w.input_trigger[l] | w.output_trigger[l]) != 0)
      cc_apply_triggers(v, base, w.input_trigger[l], w.output_trigger[l], t0 + l);
}

}  // namespace saturn
