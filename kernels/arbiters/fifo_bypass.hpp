// FIFO per output with bounded bypass (PAPERS-SPEC M8, Santos et al. 2002): the readings of the
// rule as two scalar decisions per output and trial, on the columns out_head / out_bypass.
//
// The paper: "packets at the head of the FIFO for a particular output port can be bypassed by
// newer packets when their input buffer is busy transmitting a packet to another output port.
// The number of times the packet at the head of the FIFO may be bypassed is limited [to 4]."
// What the text leaves open, and how each reading (switch.bypass_reading) settles it:
//   kReserve ("reserve"): a head bypassed bypass_limit times makes its output wait for it, and
//     reserves its input: the input starts no packet for another output before the head.
//   kWait ("wait"): the output waits for a head at the limit, but its input is not reserved: it
//     may start packets for other outputs meanwhile (oldest first, so the head wins a tie).
//   kEager ("eager"): a head reserves its input from its first bypass, so bypasses happen only
//     while the input finishes the packet it is sending; the limit still bounds them.
// All three count bypasses per head packet (a new head starts at 0). Counting per output instead
// is the same rule here: under FIFO order a head changes only by leaving, which resets the count.
// Whether cut-through sends count as "busy" and whether flows share a read port are the speedup
// (switch.speedup = "2": two packets at once per input), not a reading of this header.
//
// The switch grant's FIFO-with-bypass policy (kernels/phases/switch_grant_cc.hpp) calls both
// functions; they read and write only the output's own two columns.
#pragma once
#include <cstdint>

#include "kernels/state/engine_view.hpp"

namespace saturn {

// Output oi may send its best candidate `cand` now? head / cand: input << 16 | entry of the oldest
// packet waiting for the output and of the candidate (head < 0: none found). Updates the columns:
// the head leaving resets the count; a bypass of a new head starts its count.
SATURN_INLINE bool fifo_bypass_grant(const ModelParams& m, const CcState& s, int64_t oi, int32_t head, int32_t cand) {
  if (head == cand) {
    s.out_head[oi] = 0;  // the head leaves
    s.out_bypass[oi] = 0;
    return true;
  }
  const uint32_t tag = static_cast<uint32_t>(head) + 1u;  // an entry id is unique while its packet waits
  if (s.out_head[oi] != tag) {  // a new head: its count starts now
    s.out_head[oi] = tag;
    s.out_bypass[oi] = 0;
  }
  if (s.out_bypass[oi] >= m.cc.bypass_limit) return false;
  s.out_bypass[oi] += 1;
  return true;
}

// The input whose next send must be output oi's head (-1: none), read at the start of a cycle.
// kWait never reserves; kReserve from the limit on; kEager from the first bypass (or at once
// with limit 0, where a head that cannot go is never bypassed).
SATURN_INLINE int fifo_bypass_reserved_input(const ModelParams& m, const CcState& s, int64_t oi) {
  const uint32_t head = s.out_head[oi];
  if (head == 0 || m.cc.bypass_reading == BypassReading::kWait) return -1;
  const int need = m.cc.bypass_reading == BypassReading::kEager && m.cc.bypass_limit > 1 ? 1 : m.cc.bypass_limit;
  return s.out_bypass[oi] >= need ? static_cast<int>((head - 1u) >> 16) : -1;
}

}  // namespace saturn
