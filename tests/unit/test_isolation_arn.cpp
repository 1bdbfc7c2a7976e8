// Unit tests for the ARN table (kernels/isolation/arn_table.hpp; PAPERS-SPEC M39, item 44):
// insert, time-to-live, refresh, removal of a moved root, matching, the rate limit, a full table.
#include <gtest/gtest.h>

#include <vector>

#include "kernels/isolation/afi.hpp"
#include "kernels/isolation/arn_table.hpp"

namespace saturn {
namespace {

struct Table {
  std::vector<ArnEntry> store;
  explicit Table(int capacity) : store(capacity) {}
  ArnTable view() { return ArnTable{store.data(), 1, static_cast<int>(store.size())}; }
};

ArnInfo info(uint32_t dst, uint8_t port, uint8_t vc, uint32_t id, uint8_t root_info = 2) {
  ArnInfo i;
  i.destination = dst;
  i.port = port;
  i.vc = vc;
  i.arn_id = id;
  i.root_info = root_info;
  return i;
}

TEST(IsolationArnTable, Table2FieldWidthsAre73Bits) {
  EXPECT_EQ(kArnBitsDestination + kArnBitsPort + kArnBitsVc + kArnBitsArnId + kArnBitsRootInfo + kArnBitsConsumed, 73);
  EXPECT_EQ(kArnBitsDestination, 16);
  EXPECT_EQ(kArnBitsArnId, 32);
  EXPECT_EQ(sizeof(ArnEntry), 40u);  // the per-entry memory docs/model/isolation.md budgets
  // ARNid = (switch, port, counter): distinct roots get distinct ids.
  EXPECT_NE(arn_make_id(150, 0, 0), arn_make_id(150, 1, 0));
  EXPECT_NE(arn_make_id(150, 0, 0), arn_make_id(151, 0, 0));
  EXPECT_NE(arn_make_id(150, 0, 0), arn_make_id(150, 0, 1));
}

TEST(IsolationArnTable, InsertFindAndTimeToLive) {
  Table tb(4);
  const ArnTable t = tb.view();
  int slot = -1;
  EXPECT_EQ(arn_add(t, info(1, 2, 0, 77), kNoPort, 100, 50, ArnFullPolicy::kDropNew, &slot), ArnInsert::kInserted);
  EXPECT_EQ(arn_find(t, info(1, 2, 0, 77), 100), slot);
  EXPECT_EQ(arn_find(t, info(1, 2, 0, 78), 100), -1);  // another ARNid is another entry
  EXPECT_EQ(arn_find(t, info(1, 2, 0, 77), 149), slot);
  EXPECT_EQ(arn_find(t, info(1, 2, 0, 77), 150), -1);  // TTL 50 from cycle 100: gone at 150
  EXPECT_EQ(arn_live_count(t, 150), 0);
  // Refresh (resetARNTableEntryTimer) extends the life from the refresh time.
  arn_add(t, info(1, 2, 0, 77), kNoPort, 200, 50, ArnFullPolicy::kDropNew, &slot);
  arn_refresh(t, slot, 240, 50);
  EXPECT_EQ(arn_find(t, info(1, 2, 0, 77), 289), slot);
  EXPECT_EQ(arn_find(t, info(1, 2, 0, 77), 290), -1);
}

TEST(IsolationArnTable, TimeToLiveSurvivesCycleCounterWrap) {
  Table tb(1);
  const ArnTable t = tb.view();
  int slot = -1;
  arn_add(t, info(1, 2, 0, 7), kNoPort, 0xFFFFFFF0u, 0x40, ArnFullPolicy::kDropNew, &slot);
  EXPECT_EQ(arn_find(t, info(1, 2, 0, 7), 0x10u), 0);  // 0x20 cycles later, past the wrap
  EXPECT_EQ(arn_find(t, info(1, 2, 0, 7), 0x30u), -1);
}

TEST(IsolationArnTable, RemoveDropsAMovedRootWhateverItsArnId) {
  Table tb(4);
  const ArnTable t = tb.view();
  int slot = -1;
  arn_add(t, info(1, 2, 0, 77), kNoPort, 0, 1000, ArnFullPolicy::kDropNew, &slot);
  arn_add(t, info(1, 3, 0, 78), kNoPort, 0, 1000, ArnFullPolicy::kDropNew, &slot);
  EXPECT_EQ(arn_remove(t, 1, 2, 0), 1);
  EXPECT_EQ(arn_live_count(t, 1), 1);
  // processARN with a new ARNid for the same (Destination, Port, VC) replaces the old entry.
  arn_add(t, info(5, 4, 1, 90), kNoPort, 0, 1000, ArnFullPolicy::kDropNew, &slot);
  ArnParams p;
  p.ttl_cycles = 1000;
  const ArnProcessResult r = process_arn(t, info(5, 4, 1, 91, 3), false, 2, 0, nullptr, 1, 0, 10, p);
  EXPECT_EQ(r.outcome, ArnOutcome::kStored);
  EXPECT_EQ(arn_find(t, info(5, 4, 1, 90), 10), -1);
  EXPECT_EQ(arn_find(t, info(5, 4, 1, 91), 10), r.slot);
  EXPECT_EQ(arn_live_count(t, 10), 2);
}

TEST(IsolationArnTable, MatchPrefersAConsumedEntryOnDestinationAndVc) {
  Table tb(4);
  const ArnTable t = tb.view();
  int slot = -1;
  arn_add(t, info(1, 2, 0, 77), kNoPort, 0, 1000, ArnFullPolicy::kDropNew, &slot);
  ArnInfo c = info(1, 9, 0, 80);
  c.consumed = 1;
  arn_add(t, c, 9, 0, 1000, ArnFullPolicy::kDropNew, &slot);
  bool consumed = false;
  EXPECT_EQ(arn_match(t, 1, 0, 5, &consumed), slot);
  EXPECT_TRUE(consumed);
  EXPECT_EQ(arn_match(t, 1, 1, 5, &consumed), -1);  // other VC: no match (any port)
  EXPECT_EQ(arn_match(t, 2, 0, 5, &consumed), -1);
}

TEST(IsolationArnTable, FullTableDropsTheNewEntryOrEvictsTheOldest) {
  Table tb(2);
  const ArnTable t = tb.view();
  int slot = -1;
  arn_add(t, info(1, 0, 0, 1), kNoPort, 0, 100, ArnFullPolicy::kDropNew, &slot);
  arn_add(t, info(2, 0, 0, 2), kNoPort, 10, 100, ArnFullPolicy::kDropNew, &slot);
  EXPECT_EQ(arn_add(t, info(3, 0, 0, 3), kNoPort, 20, 100, ArnFullPolicy::kDropNew, &slot), ArnInsert::kDropped);
  EXPECT_EQ(slot, -1);
  EXPECT_EQ(arn_find(t, info(1, 0, 0, 1), 20), 0);  // the table is unchanged
  // process_arn reports the drop.
  ArnParams p;
  p.ttl_cycles = 100;
  EXPECT_EQ(process_arn(t, info(3, 0, 0, 3), false, 1, 0, nullptr, 1, 0, 20, p).outcome, ArnOutcome::kDropped);
  // An expired entry is a free slot again.
  EXPECT_EQ(arn_add(t, info(3, 0, 0, 3), kNoPort, 100, 100, ArnFullPolicy::kDropNew, &slot), ArnInsert::kInserted);
  EXPECT_EQ(slot, 0);
  // Evict: the entry closest to expiry (entry 1, refreshed at 10) goes.
  EXPECT_EQ(arn_add(t, info(4, 0, 0, 4), kNoPort, 105, 100, ArnFullPolicy::kEvictOldest, &slot), ArnInsert::kEvicted);
  EXPECT_EQ(slot, 1);
  EXPECT_EQ(arn_find(t, info(2, 0, 0, 2), 105), -1);
  EXPECT_EQ(arn_find(t, info(3, 0, 0, 3), 105), 0);
}

TEST(IsolationArnTable, RateLimitOnePerEntryAndInputPerWindow) {
  Table tb(1);
  const ArnTable t = tb.view();
  int slot = -1;
  arn_add(t, info(1, 2, 0, 7), kNoPort, 0, 100000, ArnFullPolicy::kDropNew, &slot);
  EXPECT_TRUE(arn_rate_ok(t, slot, 3, 0, 0));  // gap 0: every matching packet
  EXPECT_TRUE(arn_rate_ok(t, slot, 3, 0, 0));
  EXPECT_TRUE(arn_rate_ok(t, slot, 3, 10, 100));
  EXPECT_FALSE(arn_rate_ok(t, slot, 3, 50, 100));
  EXPECT_TRUE(arn_rate_ok(t, slot, 4, 50, 100));  // another input port has its own budget
  EXPECT_TRUE(arn_rate_ok(t, slot, 3, 110, 100));
}

TEST(IsolationArnTable, AdaptedPacketsCreateNoEntryUnlessTheTextReadingIsOn) {
  Table tb(2);
  const ArnTable t = tb.view();
  ArnParams p;
  p.ttl_cycles = 100;
  EXPECT_EQ(congestion_root_detected(t, 1, 0, true, 2, false, 3, 9, 0, nullptr, 1, 0, 0, p).outcome,
            ArnOutcome::kIgnoredAdapted);
  EXPECT_EQ(arn_live_count(t, 0), 0);
  p.adapted_creates_entries = true;  // §P1.9-6: the text's reading, with the original VC
  const ArnProcessResult r = congestion_root_detected(t, 1, 0, true, 2, false, 3, 9, 0, nullptr, 1, 0, 0, p);
  EXPECT_EQ(r.outcome, ArnOutcome::kStored);
  EXPECT_EQ(t[r.slot].info.vc, 0);
  EXPECT_EQ(t[r.slot].info.root_info, 2);
}

TEST(IsolationArnTable, AnAdaptedResponsiblePacketRefreshesTheRootsEntryUnderEitherReading) {
  // Pseudo-code 2 resets the timer of an existing entry before it looks at AdaptedBit: a root that
  // keeps detecting while its head packet is adapted (in the AFC, original VC 0) stays alive.
  Table tb(2);
  const ArnTable t = tb.view();
  ArnParams p;
  p.ttl_cycles = 100;
  const ArnProcessResult first = congestion_root_detected(t, 1, 0, false, 2, false, 3, 9, 0, nullptr, 1, 0, 0, p);
  ASSERT_EQ(first.outcome, ArnOutcome::kStored);
  const ArnProcessResult again = congestion_root_detected(t, 1, 0, true, 2, false, 3, 9, 90, nullptr, 1, 0, 90, p);
  EXPECT_EQ(again.outcome, ArnOutcome::kRefreshed);
  EXPECT_EQ(t[first.slot].expires_at, 190u);
}

TEST(IsolationArnTable, AdaptedPacketsPropagateStoredEntriesOnlyUnderTheTextReading) {
  Table tb(3);
  const ArnTable t = tb.view();
  ArnParams p;
  p.ttl_cycles = 1000;
  p.arn_gap_cycles = 0;
  int stored = -1, consumed = -1;
  arn_add(t, info(5, 1, 0, 7), kNoPort, 0, p.ttl_cycles, ArnFullPolicy::kDropNew, &stored);
  ArnInfo c = info(6, 1, 0, 8);
  c.consumed = 1;
  arn_add(t, c, 3, 0, p.ttl_cycles, ArnFullPolicy::kDropNew, &consumed);
  // The pseudo-code: an adapted packet neither re-routes nor sends an ARN.
  ArnRoute r = arn_route_packet(t, 5, 0, true, 2, 10, p);
  EXPECT_EQ(r.send_arn, -1);
  EXPECT_EQ(r.port, kNoPort);
  p.adapted_creates_entries = true;
  r = arn_route_packet(t, 5, 0, true, 2, 10, p);  // matches the stored entry: ARN upstream
  EXPECT_EQ(r.send_arn, stored);
  EXPECT_EQ(r.port, kNoPort);  // still routed deterministically
  EXPECT_FALSE(r.set_adapted);
  r = arn_route_packet(t, 6, 0, true, 2, 10, p);  // a consumed entry adapts; it does not propagate
  EXPECT_EQ(r.send_arn, -1);
  EXPECT_EQ(r.port, kNoPort);
  r = arn_route_packet(t, 5, 1, true, 2, 10, p);  // another original VC: no match
  EXPECT_EQ(r.send_arn, -1);
  EXPECT_EQ(arn_match_stored(t, 5, 0, 1001), -1);  // expired
}

}  // namespace
}  // namespace saturn
