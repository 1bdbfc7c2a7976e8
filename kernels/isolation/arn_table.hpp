// ARN table of one switch (one trial), Rocher-Gonzalez et al. 2021 §3.4 Table 2 (PAPERS-SPEC M20,
// M39, U18): fixed-capacity entries with a time-to-live, matched on (Destination, VC) from any
// input port; plus congestionRootInfo, the stage that is to consume an ARN (arn_root_info; the
// consumption test itself, equality per §P1.9-7 with the incast readings, is arn_consumes in afi.hpp).
//
// Storage is strided so the same functions serve a plain array (stride 1, the unit tests) and the
// engine's trial-minor columns (entry i of switch s at at(s * capacity + i, t, T): stride T).
// Time is the engine's 32-bit cycle counter; comparisons use wrap-safe differences.
//
// Full table (capacity is fixed; U18 gives none): ArnFullPolicy::kDropNew (default) leaves the
// table as it is and reports kDropped, the way a hardware table that cannot grow refuses an
// entry (the root keeps detecting and retries at its next detection or matching packet, after an
// entry expires); kEvictOldest overwrites the entry closest to expiry (least recently refreshed).
// Expired entries are free slots: lookups ignore them and an insert reuses them (lazy expiry, so
// no sweep phase is needed).
#pragma once
#include <cstdint>

#include "kernels/common/macros.hpp"

namespace saturn {

// Table 2 field widths (73 bits). Storage keeps wider fields (a destination needs 20 bits in
// Saturn), plus what the simulator needs beside the paper's fields: validity, expiry, the
// alternative port a consumed entry routes to, and the ARN rate limiter.
constexpr int kArnBitsDestination = 16, kArnBitsPort = 8, kArnBitsVc = 8, kArnBitsArnId = 32, kArnBitsRootInfo = 8,
              kArnBitsConsumed = 1;
constexpr uint8_t kNoPort = 0xFF;

// ARNInfo of the pseudo-codes: what an ARN message carries and an entry records.
// The pad members fill what would be padding, so that a column of these (and a saved engine state)
// holds no indeterminate bytes (state_columns.hpp asserts it of every column type).
struct ArnInfo {
  uint32_t destination = 0;
  uint8_t port = 0;       // detecting output port, or the port the ARN arrived on
  uint8_t vc = 0;         // the responsible packet's original VC (never the AFC)
  uint16_t pad0 = 0;
  uint32_t arn_id = 0;    // the congestion root (arn_make_id)
  uint8_t root_info = 0;  // fat trees: the stage that consumes the ARN
  uint8_t consumed = 0;
  uint16_t pad1 = 0;
};

struct ArnEntry {
  ArnInfo info;
  uint8_t valid = 0;
  uint8_t alt_port = kNoPort;  // consumed entries: the output getAlternativeOport returns
  uint16_t pad0 = 0;           // (ArnInfo's note)
  uint32_t expires_at = 0;     // cycle at which the entry stops matching unless refreshed
  uint64_t arn_sent_mask = 0;  // input ports that sent an ARN for it in the current window
  uint32_t arn_window_start = 0;
  uint32_t pad1 = 0;
};

struct ArnTable {
  ArnEntry* e;
  int64_t stride;  // distance between consecutive entries of this table
  int capacity;
  SATURN_INLINE ArnEntry& operator[](int i) const { return e[i * stride]; }
};

enum class ArnFullPolicy : uint8_t { kDropNew = 0, kEvictOldest, kCount };
enum class ArnInsert : uint8_t { kInserted = 0, kEvicted, kDropped, kCount };

// 32-bit ARNid from (switch, output port, per-port counter) (U18): unique per root occurrence for
// up to 65536 switches, 64 ports and 1024 detections per port before the counter wraps.
SATURN_INLINE uint32_t arn_make_id(uint32_t sw, uint32_t port, uint32_t counter) {
  return (sw << 16) | ((port & 0x3Fu) << 10) | (counter & 0x3FFu);
}

// Pseudo-code 1: the stage that consumes an ARN for a root at `stage` (leaves 1, top 3, endnodes 0).
SATURN_INLINE uint8_t arn_root_info(int stage, bool upward_port) {
  return static_cast<uint8_t>(upward_port ? stage : stage - 1);
}

SATURN_INLINE bool arn_live(const ArnEntry& x, uint32_t now) {
  return x.valid && static_cast<int32_t>(x.expires_at - now) > 0;
}

SATURN_INLINE bool arn_same_entry(const ArnInfo& a, const ArnInfo& b) {
  return a.destination == b.destination && a.port == b.port && a.vc == b.vc && a.arn_id == b.arn_id;
}

// existsARNTableEntry(ARNInfo): the live entry with the same (Destination, Port, VC, ARNid), or -1.
SATURN_INLINE int arn_find(const ArnTable& t, const ArnInfo& info, uint32_t now) {
  for (int i = 0; i < t.capacity; ++i)
    if (arn_live(t[i], now) && arn_same_entry(t[i].info, info)) return i;
  return -1;
}

// resetARNTableEntryTimer.
SATURN_INLINE void arn_refresh(const ArnTable& t, int i, uint32_t now, uint32_t ttl_cycles) {
  t[i].expires_at = now + ttl_cycles;
}

// removeARNEntry(Destination, Port, VC): drops every entry of a root that has moved (any ARNid).
SATURN_INLINE int arn_remove(const ArnTable& t, uint32_t destination, uint8_t port, uint8_t vc) {
  int removed = 0;
  for (int i = 0; i < t.capacity; ++i) {
    ArnEntry& x = t[i];
    if (x.valid && x.info.destination == destination && x.info.port == port && x.info.vc == vc) {
      x.valid = 0;
      ++removed;
    }
  }
  return removed;
}

// addARNTableEntry: the first free (invalid or expired) slot; when full, as `policy` says.
// *slot receives the entry index, or -1 when dropped.
SATURN_INLINE ArnInsert arn_add(const ArnTable& t, const ArnInfo& info, uint8_t alt_port, uint32_t now,
                                uint32_t ttl_cycles, ArnFullPolicy policy, int* slot) {
  int victim = -1;
  for (int i = 0; i < t.capacity; ++i)
    if (!arn_live(t[i], now)) {
      victim = i;
      break;
    }
  ArnInsert result = ArnInsert::kInserted;
  if (victim < 0) {
    if (policy == ArnFullPolicy::kDropNew || t.capacity == 0) {
      *slot = -1;
      return ArnInsert::kDropped;
    }
    victim = 0;
    for (int i = 1; i < t.capacity; ++i)
      if (static_cast<int32_t>(t[i].expires_at - t[victim].expires_at) < 0) victim = i;
    result = ArnInsert::kEvicted;
  }
  ArnEntry& x = t[victim];
  x.info = info;
  x.valid = 1;
  x.alt_port = alt_port;
  x.expires_at = now + ttl_cycles;
  x.arn_sent_mask = 0;
  x.arn_window_start = now;
  *slot = victim;
  return result;
}

// Pseudo-code 4 lookups on (Destination, VC): the live consumed entry if any (existsARNTable-
// ConsumedEntry), else any live entry (existsARNTableEntry); -1 when none. *consumed tells which.
SATURN_INLINE int arn_match(const ArnTable& t, uint32_t destination, uint8_t vc, uint32_t now, bool* consumed) {
  int any = -1;
  for (int i = 0; i < t.capacity; ++i) {
    const ArnEntry& x = t[i];
    if (!arn_live(x, now) || x.info.destination != destination || x.info.vc != vc) continue;
    if (x.info.consumed) {
      *consumed = true;
      return i;
    }
    if (any < 0) any = i;
  }
  *consumed = false;
  return any;
}

// The first live unconsumed entry on (Destination, VC), or -1: what an adapted packet propagates
// under the text's reading of §P1.9-6.
SATURN_INLINE int arn_match_stored(const ArnTable& t, uint32_t destination, uint8_t vc, uint32_t now) {
  for (int i = 0; i < t.capacity; ++i) {
    const ArnEntry& x = t[i];
    if (arn_live(x, now) && !x.info.consumed && x.info.destination == destination && x.info.vc == vc) return i;
  }
  return -1;
}

// ARN rate limit (U18): at most one ARN per (entry, input port) per window of `gap_cycles`
// (0 = one per matching packet, the literal pseudo-code). Returns whether to send now.
SATURN_INLINE bool arn_rate_ok(const ArnTable& t, int i, int input, uint32_t now, uint32_t gap_cycles) {
  ArnEntry& x = t[i];
  if (gap_cycles == 0) return true;
  if (now - x.arn_window_start >= gap_cycles) {
    x.arn_window_start = now;
    x.arn_sent_mask = 0;
  }
  const uint64_t bit = 1ull << input;
  if (x.arn_sent_mask & bit) return false;
  x.arn_sent_mask |= bit;
  return true;
}

// Live entries (statistics, tests).
SATURN_INLINE int arn_live_count(const ArnTable& t, uint32_t now) {
  int n = 0;
  for (int i = 0; i < t.capacity; ++i) n += arn_live(t[i], now) ? 1 : 0;
  return n;
}

}  // namespace saturn
