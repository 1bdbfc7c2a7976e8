// Congestion-root detector of ARN+AFI (Rocher-Gonzalez et al. 2021 §3.3; PAPERS-SPEC M38, U17),
// one instance per switch output port of one trial: HCDTh / LCDTh hysteresis over the VOQs that
// feed the output, the FCTh root-or-branch test on the next switch's free credits, and the CRT.
//
// Occupancies and credits are in packets (or flits, as long as both sides of a test use one unit)
// against the capacity they are a share of; every test is an integer product, so the same bits
// come out on every backend. Whole percentages because 003 states whole percentages.
//
// Semantics (our reading, recorded in docs/model/isolation.md):
//   * a VOQ is "over" when occupancy * 100 > hcd_pct * capacity (">", U17) and stays counted in
//     over_mask until occupancy * 100 < lcd_pct * capacity (hysteresis);
//   * the output is a candidate root while some VOQ is over HCDTh *now* and the next switch's VC
//     of the responsible packet has free * 100 > fc_pct * capacity (otherwise it is a branch);
//   * the CRT starts when the candidate condition first holds; with restart_on_failure (U17
//     default) it restarts whenever either condition fails before expiry; when it has run for
//     crt_cycles and both conditions hold (fc_at_expiry), the output is declared a root;
//   * a root is released only when every VOQ counted in over_mask is below LCDTh (mask empty).
// No allocation, no std:: containers: the state is three plain words per output (columns listed in
// docs/model/isolation.md); the functions are scalar and compile for a GPU thread.
#pragma once
#include <cstdint>

#include "kernels/common/bits.hpp"
#include "kernels/common/macros.hpp"

namespace saturn {

constexpr uint32_t kNoTimer = 0xFFFFFFFFu;

struct DetectorParams {
  uint32_t hcd_pct = 81;           // HCDTh [003 §4.1]
  uint32_t lcd_pct = 63;           // LCDTh
  uint32_t fc_pct = 78;            // FCTh: free credits above this share of the next VC = root
  uint32_t crt_cycles = 0;         // CRT: 5 ms in 003, converted to cycles by the caller
  bool restart_on_failure = true;  // U17: the CRT restarts when a condition fails during the wait
  bool fc_at_expiry = true;        // 003: FCTh re-tested at expiry; false = only when the CRT starts (R2)
};

// Per output port (one trial). over_mask bit i: input i's VOQ to this output passed HCDTh and has
// not yet fallen below LCDTh. crt_start: the cycle the CRT started, kNoTimer when not running.
struct DetectorState {
  uint64_t over_mask = 0;
  uint32_t crt_start = kNoTimer;
  uint8_t root = 0;
  uint8_t pad[3] = {0, 0, 0};  // no padding bytes in a column (ArnInfo's note, arn_table.hpp)
};

enum class DetectorEvent : uint8_t { kNone = 0, kRootDeclared, kRootReleased, kCount };

SATURN_INLINE bool detector_over_hcd(uint32_t occupancy, uint32_t capacity, const DetectorParams& p) {
  return static_cast<uint64_t>(occupancy) * 100u > static_cast<uint64_t>(p.hcd_pct) * capacity;
}

SATURN_INLINE bool detector_below_lcd(uint32_t occupancy, uint32_t capacity, const DetectorParams& p) {
  return static_cast<uint64_t>(occupancy) * 100u < static_cast<uint64_t>(p.lcd_pct) * capacity;
}

// Root (true) or branch (false): free credits of the next switch's VC above FCTh.
SATURN_INLINE bool detector_root_credits(uint32_t free_credits, uint32_t capacity, const DetectorParams& p) {
  return static_cast<uint64_t>(free_credits) * 100u > static_cast<uint64_t>(p.fc_pct) * capacity;
}

// Input `input`'s VOQ toward this output now holds `occupancy` of `capacity`: update the hysteresis
// mask. Returns true when this VOQ is over HCDTh now (the caller ORs these into `hcd_now` for
// detector_step, and remembers the head packet of one such VOQ as the responsible packet).
SATURN_INLINE bool detector_observe_voq(DetectorState& s, int input, uint32_t occupancy, uint32_t capacity,
                                        const DetectorParams& p) {
  const uint64_t bit = 1ull << input;
  const bool over = detector_over_hcd(occupancy, capacity, p);
  if (over) s.over_mask |= bit;
  else if (detector_below_lcd(occupancy, capacity, p)) s.over_mask &= ~bit;
  return over;
}

// Once per evaluation of the output (every cycle, or whenever its VOQs change), after every input's
// detector_observe_voq: hcd_now = some VOQ over HCDTh now; free_credits / next_capacity = the
// next switch's VC where the responsible packet would go (the AFC for an adapted one).
SATURN_INLINE DetectorEvent detector_step(DetectorState& s, bool hcd_now, uint32_t free_credits, uint32_t next_capacity,
                                          uint32_t now, const DetectorParams& p) {
  if (s.root) {
    if (s.over_mask != 0) return DetectorEvent::kNone;
    s.root = 0;
    return DetectorEvent::kRootReleased;
  }
  const bool root_credits = detector_root_credits(free_credits, next_capacity, p);
  if (s.crt_start == kNoTimer) {
    if (!hcd_now || !root_credits) return DetectorEvent::kNone;
    s.crt_start = now;
  } else if (p.restart_on_failure && (!hcd_now || (p.fc_at_expiry && !root_credits))) {
    s.crt_start = kNoTimer;  // restart: the next evaluation where both hold starts it afresh
    return DetectorEvent::kNone;
  }
  if (now - s.crt_start < p.crt_cycles) return DetectorEvent::kNone;
  // Expiry: both conditions must still hold (FCTh only if re-tested at expiry).
  const bool holds = hcd_now && (!p.fc_at_expiry || root_credits);
  s.crt_start = kNoTimer;
  if (!holds) return DetectorEvent::kNone;
  s.root = 1;
  return DetectorEvent::kRootDeclared;
}

// The VOQ the detector watches for one input toward one output: the fullest over the VCs it
// watches, every VC or all but the AFC (the last VC; isolation.detector_vcs = "regular"), the
// lowest VC on a tie. count(vc) gives a VOQ's packets; returns the occupancy and sets *vc.
template <class CountOfVc>
SATURN_INLINE uint32_t detector_fullest_voq(CountOfVc count, int vcs, bool skip_afc, int* vc) {
  const int watched = skip_afc ? vcs - 1 : vcs;
  uint32_t occ = 0;
  *vc = 0;
  for (int c = 0; c < watched; ++c) {
    const uint32_t n = count(c);
    if (n > occ) {
      occ = n;
      *vc = c;
    }
  }
  return occ;
}

// How many VOQs keep a root alive (the count 003 §3.3 keeps).
SATURN_INLINE int detector_over_count(const DetectorState& s) { return popcount64(s.over_mask); }

}  // namespace saturn
