// Periodic Selection injection (Zdornov & Birk 000 §6.2, Fig. 7; PAPERS-SPEC M31, item 10): a
// source sends one packet every d_p / R, R = sum of its active flows' rates r(f) (U15); just
// before each send it picks f = argmin D(f,t) / r(f) (ties: lowest queue), with no eligibility
// test, so the aggregate is periodic and no flow bursts. A send held back by back-pressure
// restarts the period from the actual send (no catch-up). Used by sources only; the rates come
// from SAA (M29, saa_gap_q16).
#pragma once
#include <cstdint>

#include "kernels/injection/injection_common.hpp"

namespace saturn {

struct PeriodicSelectionColumns {
  uint32_t* sent = nullptr;           // [queue] D(f,t): packets sent since the flow started
  const uint32_t* gap_q16 = nullptr;  // [queue] d_p / r(f), 1/65536 cycles
  uint64_t* next_q16 = nullptr;       // [source] the next periodic send slot
  uint64_t* period_q16 = nullptr;     // [source] d_p / R
};

// d_p / R over the queues of `active`: 1 / sum(1 / gap). Call at the start of a phase and when a
// flow ends or its rate changes. (IEEE +, / in a fixed order: the same bits on every backend.)
SATURN_INLINE uint64_t aggregate_period_q16(const uint32_t* gap_q16, const SourceQueues& q, uint64_t active) {
  double rate = 0.0;
  for (uint64_t m = active; m != 0; m &= m - 1) rate = rate + 1.0 / static_cast<double>(gap_q16[q.q_ix(lowest_bit(m))]);
  return rate > 0.0 ? static_cast<uint64_t>(1.0 / rate + 0.5) : 0;
}
SATURN_INLINE void ps_set_active(const PeriodicSelectionColumns& c, const SourceQueues& q, uint64_t active) {
  c.period_q16[q.src_ix()] = aggregate_period_q16(c.gap_q16, q, active);
}

// The queue to send now, or kNoQueue before the next slot. Call only when the injection link can
// take a packet this cycle (the choice is made just before sending); `ready` = active queues with
// a packet.
SATURN_INLINE int ps_pick(const PeriodicSelectionColumns& c, const SourceQueues& q, uint64_t ready, uint32_t now) {
  if (!schedule_due(c.next_q16[q.src_ix()], now)) return kNoQueue;
  return argmin_virtual_time(c.sent, c.gap_q16, q, ready);
}

// Queue a's packet started at cycle `start`.
SATURN_INLINE void ps_sent(const PeriodicSelectionColumns& c, const SourceQueues& q, int a, uint32_t start) {
  const int64_t s = q.src_ix();
  c.sent[q.q_ix(a)] += 1;
  c.next_q16[s] = schedule_after(c.next_q16[s], start, c.period_q16[s]);
}

}  // namespace saturn
