// Reservation scheduler of SRP / SMSRP / LHRP (001 §2.2, §3.2, §6.4; PAPERS-SPEC M32, M34, U16): one
// register per destination endpoint, kept at the destination NIC (SRP, SMSRP) or in the last-hop
// switch that owns the endpoint's ejection port (LHRP, its fabric-drop variant, the comprehensive
// protocol). One function grants; the caller owns the register (a column at(endpoint, trial, T)).
//
// The rule (U16; 001 gives none, the suggestion is the original SRP's): a request for n flits at
// cycle `now` gets the slot [t, t + n + overhead) with t = max(now + lead, next_free), and next_free
// moves to the end of that slot. Consequences the tests check:
//   * grants never overlap and, under backlog, follow each other back to back;
//   * an idle endpoint grants "now + lead" at once (no reservation in the past);
//   * the channel is booked at 1 flit per cycle (001 §4: 100-bit flits, 100 Gb/s at 1 GHz).
// `lead_cycles` lets the caller book the slot when the data can first get there (for LHRP the
// NACK's flight back to the source; U16 suggests t = max(now + NACK flight, next_free)); 0 books from
// the request's arrival, as the original SRP does. `overhead_flits` (default 0) widens each slot,
// e.g. by the ACK flit per packet when the scheduler should also book the reverse path; 001 does
// not say, and 0 is what the spec suggests.
//
// The grant time is a source transmission time on a global clock (U16: a global clock). A slot a
// speculative packet made unnecessary is not returned (U16's suggestion: the slot is wasted).
// Cycles are uint32_t like Packet::inject_cycle: 4.29 s of simulated time at 1 GHz.
#pragma once
#include <cstdint>

#include "kernels/common/macros.hpp"

namespace saturn {

struct ReservationGrant {
  uint32_t start = 0;  // transmission time t (cycle) carried by Gnt t or by the LHRP NACK
  uint32_t end = 0;    // first cycle after the booked slot (= the register's new value)
};

// Grants n flits; updates next_free. n = 0 books nothing and returns an empty slot at t.
SATURN_INLINE ReservationGrant reservation_grant(uint32_t& next_free, uint32_t now, uint32_t flits,
                                                 uint32_t lead_cycles = 0, uint32_t overhead_flits = 0) {
  const uint32_t earliest = now + lead_cycles;
  ReservationGrant g;
  g.start = next_free > earliest ? next_free : earliest;
  g.end = flits == 0 ? g.start : g.start + flits + overhead_flits;
  next_free = g.end > next_free ? g.end : next_free;
  return g;
}

// Backlog the register holds at `now`: cycles of booked transmission still ahead (0 when idle).
SATURN_INLINE uint32_t reservation_backlog(uint32_t next_free, uint32_t now) {
  return next_free > now ? next_free - now : 0u;
}

// The register columns of one trial: next_free[at(endpoint, trial, trials)] (kernels/common/index.hpp).
// Which side owns it (NIC or last-hop switch) changes only who calls reservation_grant, not the data.
struct ReservationColumns {
  uint32_t* next_free = nullptr;  // [endpoint] first free cycle of its ejection channel's bookings
};

}  // namespace saturn
