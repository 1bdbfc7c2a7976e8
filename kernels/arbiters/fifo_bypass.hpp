// FIFO with bounded bypass (PAPERS-SPEC M8) as two scalar decisions per (output, trial), the one
// place the phases (kernels/phases/switch_grant_cc.hpp) take the rule from:
//   - fifo_bypass_reserved_input: an output whose head packet has been bypassed bypass_limit
//     times waits for it, and the head's input serves no other output first;
//   - fifo_bypass_grant: may the output send its best candidate now? Yes if it is the head (the
//     oldest packet waiting for the output); otherwise the head's input is busy and the candidate
//     bypasses it, at most bypass_limit times per head.
// The state is per output: out_head (the head's input << 16 | entry, plus one; 0 = none) and
// out_bypass (bypasses the head has suffered). The fused step (switch_step.hpp) keeps its own copy
// of the same rule in fifo_bypass_allows until it is retired.
#pragma once
#include <cstdint>

#include "kernels/common/index.hpp"
#include "kernels/state/engine_view.hpp"

namespace saturn {

// The local input output port go must serve next in trial t, or -1.
SATURN_INLINE int fifo_bypass_reserved_input(const EngineView& v, int go, int t) {
  const CcState& s = v.state.cc;
  const int64_t oi = at(go, t, v.model.trials);
  if (s.out_bypass[oi] < v.model.cc.bypass_limit || s.out_head[oi] == 0) return -1;
  return static_cast<int>((s.out_head[oi] - 1u) >> 16);
}

// Output go's decision for its best candidate `candidate` (input << 16 | entry) when the oldest
// packet waiting for it is `head` (same form; -1 = none found). Updates the output's head record.
SATURN_INLINE bool fifo_bypass_grant(const EngineView& v, int go, int t, int32_t head, int32_t candidate) {
  const CcState& s = v.state.cc;
  const int64_t oi = at(go, t, v.model.trials);
  if (head == candidate) {
    s.out_head[oi] = 0;  // the head leaves
    s.out_bypass[oi] = 0;
    return true;
  }
  const uint32_t tag = static_cast<uint32_t>(head) + 1u;  // an entry id is unique while its packet waits
  if (s.out_head[oi] != tag) {  // a new head: its count starts now
    s.out_head[oi] = tag;
    s.out_bypass[oi] = 0;
  }
  if (s.out_bypass[oi] >= v.model.cc.bypass_limit) return false;
  s.out_bypass[oi] += 1;
  return true;
}

}  // namespace saturn
