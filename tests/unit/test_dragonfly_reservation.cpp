// The reservation scheduler (kernels/reservation/scheduler.hpp), the 001 traffic classes and
// message segmentation (traffic_class.hpp): hand-computed grants, priorities and packet sizes.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "kernels/reservation/protocol.hpp"
#include "kernels/reservation/scheduler.hpp"
#include "kernels/reservation/traffic_class.hpp"

namespace saturn {
namespace {

TEST(DragonflyScheduler, IdleGrantsNowThenBackToBack) {
  uint32_t next_free = 0;
  ReservationGrant g = reservation_grant(next_free, 100, 4);
  EXPECT_EQ(g.start, 100u);  // idle: at once, never in the past
  EXPECT_EQ(g.end, 104u);
  EXPECT_EQ(next_free, 104u);
  g = reservation_grant(next_free, 101, 24);  // backlog: right after the previous slot
  EXPECT_EQ(g.start, 104u);
  EXPECT_EQ(next_free, 128u);
  g = reservation_grant(next_free, 102, 1);
  EXPECT_EQ(g.start, 128u);
  EXPECT_EQ(reservation_backlog(next_free, 110), 19u);
  g = reservation_grant(next_free, 500, 4);  // idle again: the gap is not booked
  EXPECT_EQ(g.start, 500u);
  EXPECT_EQ(reservation_backlog(next_free, 600), 0u);
}

TEST(DragonflyScheduler, LeadAndOverhead) {
  uint32_t next_free = 0;
  ReservationGrant g = reservation_grant(next_free, 10, 4, /*lead=*/50, /*overhead=*/1);
  EXPECT_EQ(g.start, 60u);
  EXPECT_EQ(g.end, 65u);
  g = reservation_grant(next_free, 11, 4, 50, 1);
  EXPECT_EQ(g.start, 65u);  // the backlog beats the lead
  g = reservation_grant(next_free, 12, 0);
  EXPECT_EQ(g.start, g.end);  // nothing booked
  EXPECT_EQ(next_free, 70u);
}

// Random requests at non-decreasing times: slots never overlap, each starts no earlier than its
// request, and a request that finds a backlog starts exactly where the previous slot ended.
TEST(DragonflyScheduler, GrantsNeverOverlap) {
  std::mt19937 rng(7);
  uint32_t next_free = 0, now = 0, prev_end = 0;
  for (int i = 0; i < 5000; ++i) {
    now += rng() % 6;
    const uint32_t flits = 1 + rng() % 24;
    const uint32_t before = next_free;
    const ReservationGrant g = reservation_grant(next_free, now, flits);
    ASSERT_GE(g.start, now);
    ASSERT_GE(g.start, prev_end);
    ASSERT_EQ(g.end - g.start, flits);
    if (before > now) ASSERT_EQ(g.start, before);  // back to back
    prev_end = g.end;
  }
}

TEST(DragonflyClasses, StrictPriorityOrder) {
  // grant > reservation > ACK/NACK > data > speculative (M12 suggested, 0 = highest)
  EXPECT_LT(static_cast<int>(traffic_class_of(PacketKind::kGrant)), static_cast<int>(traffic_class_of(PacketKind::kReservation)));
  EXPECT_LT(static_cast<int>(traffic_class_of(PacketKind::kReservation)), static_cast<int>(traffic_class_of(PacketKind::kAck)));
  EXPECT_EQ(traffic_class_of(PacketKind::kAck), traffic_class_of(PacketKind::kNack));
  EXPECT_LT(static_cast<int>(traffic_class_of(PacketKind::kAck)), static_cast<int>(traffic_class_of(PacketKind::kData)));
  EXPECT_LT(static_cast<int>(traffic_class_of(PacketKind::kData)), static_cast<int>(traffic_class_of(PacketKind::kSpeculative)));
  const uint32_t spec = 1u << static_cast<int>(TrafficClass::kSpeculative);
  const uint32_t data = 1u << static_cast<int>(TrafficClass::kData);
  const uint32_t ack = 1u << static_cast<int>(TrafficClass::kAckNack);
  EXPECT_EQ(highest_priority_class(spec | data), static_cast<int>(TrafficClass::kData));
  EXPECT_EQ(highest_priority_class(spec | data | ack), static_cast<int>(TrafficClass::kAckNack));
  EXPECT_EQ(highest_priority_class(spec), static_cast<int>(TrafficClass::kSpeculative));
  EXPECT_EQ(highest_priority_class(0), -1);
}

TEST(DragonflyClasses, ClassesPerProtocol) {
  // 001 §4: baseline / ECN 2, LHRP 3 (NACK shares ACK), SRP / SMSRP 5 (§P1.9 item 12)
  EXPECT_EQ(protocol_class_count(EndpointProtocol::kBaseline), 2);
  EXPECT_EQ(protocol_class_count(EndpointProtocol::kEcn), 2);
  EXPECT_EQ(protocol_class_count(EndpointProtocol::kLhrp), 3);
  EXPECT_EQ(protocol_class_count(EndpointProtocol::kLhrpFabricDrop), 3);
  EXPECT_EQ(protocol_class_count(EndpointProtocol::kSrp), 5);
  EXPECT_EQ(protocol_class_count(EndpointProtocol::kSmsrp), 5);
  EXPECT_EQ(protocol_class_count(EndpointProtocol::kComprehensive), 5);
  EXPECT_FALSE(protocol_uses_kind(EndpointProtocol::kLhrp, PacketKind::kReservation));
  EXPECT_FALSE(protocol_uses_kind(EndpointProtocol::kBaseline, PacketKind::kSpeculative));
  EXPECT_FALSE(protocol_uses_kind(EndpointProtocol::kBaseline, PacketKind::kNack));
  EXPECT_TRUE(protocol_uses_kind(EndpointProtocol::kLhrp, PacketKind::kNack));
  // Dense slots keep the priority order: LHRP = ACK/NACK 0, data 1, speculative 2.
  EXPECT_EQ(class_slot(EndpointProtocol::kLhrp, PacketKind::kAck), 0);
  EXPECT_EQ(class_slot(EndpointProtocol::kLhrp, PacketKind::kNack), 0);
  EXPECT_EQ(class_slot(EndpointProtocol::kLhrp, PacketKind::kData), 1);
  EXPECT_EQ(class_slot(EndpointProtocol::kLhrp, PacketKind::kSpeculative), 2);
  EXPECT_EQ(class_slot(EndpointProtocol::kLhrp, PacketKind::kGrant), -1);
  EXPECT_EQ(class_slot(EndpointProtocol::kBaseline, PacketKind::kAck), 0);
  EXPECT_EQ(class_slot(EndpointProtocol::kBaseline, PacketKind::kData), 1);
  for (int k = 0; k < static_cast<int>(PacketKind::kCount); ++k)
    EXPECT_EQ(class_slot(EndpointProtocol::kSrp, static_cast<PacketKind>(k)),
              static_cast<int>(traffic_class_of(static_cast<PacketKind>(k))));
}

TEST(DragonflySegmentation, SizesSumToTheMessage) {
  EXPECT_EQ(segment_count(4), 1u);
  EXPECT_EQ(segment_count(24), 1u);
  EXPECT_EQ(segment_count(25), 2u);
  EXPECT_EQ(segment_count(48), 2u);
  EXPECT_EQ(segment_count(192), 8u);   // 001 §6.2: 8 packets
  EXPECT_EQ(segment_count(512), 22u);  // 001 §6.2: 22 packets
  EXPECT_EQ(segment_flits(512, 21), 8u);
  EXPECT_EQ(segment_flits(512, 22), 0u);
  EXPECT_EQ(segment_count(0), 0u);
  for (uint32_t flits = 1; flits <= 768; ++flits) {
    uint32_t sum = 0;
    const uint32_t n = segment_count(flits);
    for (uint32_t k = 0; k < n; ++k) {
      const uint32_t s = segment_flits(flits, k);
      ASSERT_GE(s, 1u);
      ASSERT_LE(s, 24u);
      sum += s;
    }
    ASSERT_EQ(sum, flits);
    ASSERT_EQ(segment_mask_flits(flits, (n >= 64 ? ~0ull : (1ull << n) - 1)), flits);
  }
  EXPECT_EQ(segment_mask_flits(50, 0b101), 24u + 2u);
}

TEST(DragonflySegmentation, MessageSizeLimit) {
  const ProtocolParams q;
  EXPECT_TRUE(msg_fits(1, q));
  EXPECT_TRUE(msg_fits(512, q));
  EXPECT_TRUE(msg_fits(768, q));
  EXPECT_FALSE(msg_fits(769, q));
  EXPECT_FALSE(msg_fits(0, q));
}

}  // namespace
}  // namespace saturn
