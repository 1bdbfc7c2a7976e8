// The 001 endpoint protocols (kernels/reservation/protocol.hpp) on hand-driven event sequences:
// baseline, SRP (reservation, speculative drop -> NACK, grant -> non-speculative retransmission),
// SMSRP (no reservation until a NACK), LHRP (last-hop threshold drop, the NACK's time), LHRP with
// fabric drop, and the comprehensive protocol's 48-flit split.
#include <gtest/gtest.h>

#include <cstdint>

#include "kernels/reservation/protocol.hpp"

namespace saturn {
namespace {

// The five sets partition the message's packets.
void expect_partition(const MessageState& m) {
  const uint32_t sets[] = {m.spec_ready, m.held, m.nonspec, m.in_flight, m.acked};
  uint32_t uni = 0;
  for (uint32_t s : sets) {
    EXPECT_EQ(uni & s, 0u) << "a packet in two sets";
    uni |= s;
  }
  EXPECT_EQ(uni, all_packets_mask(m.packets));
}

// Sends every packet the message may send at `now`; returns how many went speculatively.
int send_all(MessageState& m, uint32_t now, int* nonspec_sent = nullptr) {
  int spec = 0, ns = 0;
  bool speculative = false;
  for (int k; (k = msg_next_packet(m, now, &speculative)) >= 0;) {
    msg_sent(m, k);
    (speculative ? spec : ns) += 1;
  }
  if (nonspec_sent) *nonspec_sent = ns;
  return spec;
}

TEST(DragonflyProtocols, Table1Defaults) {
  const ProtocolParams q;
  EXPECT_EQ(q.fabric_timeout_cycles, 1000u);     // 1 us at 1 GHz
  EXPECT_EQ(q.last_hop_threshold_flits, 1000u);  // 1000 flits
  EXPECT_EQ(q.comprehensive_split_flits, 48u);
  EXPECT_EQ(q.max_packet_flits, 24u);
  EXPECT_EQ(q.control_flits, 1u);
}

TEST(DragonflyProtocols, BaselineSendsEverythingLosslessly) {
  const ProtocolParams q;
  MessageState m;
  const ProtocolAction a = msg_begin(m, EndpointProtocol::kBaseline, 50, 7, q);
  EXPECT_FALSE(a.sends_reservation());
  EXPECT_EQ(m.packets, 3);
  int ns = 0;
  EXPECT_EQ(send_all(m, 7, &ns), 0);
  EXPECT_EQ(ns, 3);
  for (int k = 0; k < 3; ++k) msg_on_ack(m, k);
  EXPECT_TRUE(msg_done(m));
  expect_partition(m);
}

TEST(DragonflyProtocols, SrpReservationDropNackGrantRetransmit) {
  const ProtocolParams q;
  MessageState m;
  // 48 flits = 2 packets: Res 48 first, then speculation (M32 steps 1, 3)
  ProtocolAction a = msg_begin(m, EndpointProtocol::kSrp, 48, 0, q);
  EXPECT_TRUE(a.sends_reservation());
  EXPECT_EQ(a.reserve_flits, 48u);
  bool spec = false;
  EXPECT_EQ(msg_next_packet(m, 0, &spec), 0);
  EXPECT_TRUE(spec);
  msg_sent(m, 0);  // packet 0 goes speculatively; packet 1 not yet
  expect_partition(m);

  // The fabric drops packet 0 after its 1 us timeout (switch side) and NACKs it.
  EXPECT_FALSE(spec_timed_out(1000, 0, q.fabric_timeout_cycles));
  EXPECT_TRUE(spec_timed_out(1001, 0, q.fabric_timeout_cycles));
  EXPECT_EQ(speculative_drop(EndpointProtocol::kSrp, false, 1001, 0, 0, q), DropVerdict::kDropNack);
  EXPECT_EQ(speculative_drop(EndpointProtocol::kSrp, false, 900, 0, 5000, q), DropVerdict::kKeep);
  a = msg_on_nack(m, 0, false, 0, 1100, q);
  EXPECT_FALSE(a.sends_reservation());  // SRP already asked
  // speculation stopped: nothing may go until the grant
  EXPECT_EQ(msg_next_packet(m, 1100, &spec), -1);
  EXPECT_EQ(m.held, 0b11u);
  expect_partition(m);

  // The destination's scheduler grants t = 2000; both packets go non-speculatively from t.
  uint32_t next_free = 1950;
  const ReservationGrant g = reservation_grant(next_free, 1200, 48);
  EXPECT_EQ(g.start, 1950u);
  msg_on_grant(m, 2000);
  EXPECT_EQ(msg_next_packet(m, 1999, &spec), -1);
  int ns = 0;
  EXPECT_EQ(send_all(m, 2000, &ns), 0);
  EXPECT_EQ(ns, 2);
  msg_on_ack(m, 0);
  msg_on_ack(m, 1);
  EXPECT_TRUE(msg_done(m));
  expect_partition(m);
}

TEST(DragonflyProtocols, SrpGrantStopsSpeculationAndLateNackResendsAtOnce) {
  const ProtocolParams q;
  MessageState m;
  msg_begin(m, EndpointProtocol::kSrp, 72, 0, q);  // 3 packets
  bool spec = false;
  msg_next_packet(m, 0, &spec);
  msg_sent(m, 0);
  msg_on_grant(m, 300);  // the grant arrives before packets 1, 2 went: they wait for t
  EXPECT_EQ(msg_next_packet(m, 200, &spec), -1);
  EXPECT_EQ(m.nonspec, 0b110u);
  // packet 0 (still speculative in flight) is dropped after the grant time: resent at once
  msg_on_nack(m, 0, false, 0, 400, q);
  EXPECT_EQ(m.retx_at[0], 400u);
  int ns = 0;
  EXPECT_EQ(send_all(m, 400, &ns), 0);
  EXPECT_EQ(ns, 3);
  expect_partition(m);
}

TEST(DragonflyProtocols, SmsrpReservesOnlyAfterANack) {
  const ProtocolParams q;
  MessageState m;
  ProtocolAction a = msg_begin(m, EndpointProtocol::kSmsrp, 4, 0, q);
  EXPECT_FALSE(a.sends_reservation());  // speculative at once, no Res
  EXPECT_EQ(send_all(m, 0), 1);
  // success path: the ACK ends it with no reservation ever
  MessageState ok = m;
  msg_on_ack(ok, 0);
  EXPECT_TRUE(msg_done(ok));
  EXPECT_EQ(ok.reservation, ReservationState::kNone);

  // drop path: NACK -> Res 4 -> Gnt t -> non-speculative at t
  a = msg_on_nack(m, 0, false, 0, 1500, q);
  EXPECT_TRUE(a.sends_reservation());
  EXPECT_EQ(a.reserve_flits, 4u);
  EXPECT_EQ(m.reservation, ReservationState::kRequested);
  bool spec = false;
  EXPECT_EQ(msg_next_packet(m, 1500, &spec), -1);
  msg_on_grant(m, 2600);
  EXPECT_EQ(msg_next_packet(m, 2599, &spec), -1);
  EXPECT_EQ(msg_next_packet(m, 2600, &spec), 0);
  EXPECT_FALSE(spec);
  expect_partition(m);
}

TEST(DragonflyProtocols, SmsrpReservesTheUnackedRemainderOnce) {
  const ProtocolParams q;
  MessageState m;
  msg_begin(m, EndpointProtocol::kSmsrp, 60, 0, q);  // 24 + 24 + 12
  EXPECT_EQ(send_all(m, 0), 3);
  msg_on_ack(m, 0);
  ProtocolAction a = msg_on_nack(m, 1, false, 0, 1200, q);
  EXPECT_TRUE(a.sends_reservation());
  EXPECT_EQ(a.reserve_flits, 36u);  // packets 1 and 2, not the ACKed one
  a = msg_on_nack(m, 2, false, 0, 1210, q);
  EXPECT_FALSE(a.sends_reservation());  // one reservation per message
  EXPECT_EQ(m.held, 0b110u);
  expect_partition(m);
}

TEST(DragonflyProtocols, LhrpLastHopThresholdAndNackTime) {
  const ProtocolParams q;
  // switch side: only the last hop drops, at >= 1000 queued flits (">=": "reaches", §6.3)
  EXPECT_EQ(speculative_drop(EndpointProtocol::kLhrp, false, 99999, 0, 5000, q), DropVerdict::kKeep);
  EXPECT_EQ(speculative_drop(EndpointProtocol::kLhrp, true, 10, 0, 999, q), DropVerdict::kKeep);
  EXPECT_EQ(speculative_drop(EndpointProtocol::kLhrp, true, 10, 0, 1000, q), DropVerdict::kDropNackWithTime);
  ProtocolParams strict = q;
  strict.threshold_inclusive = false;
  EXPECT_FALSE(lhrp_over_threshold(1000, strict));
  EXPECT_TRUE(lhrp_over_threshold(1001, strict));

  // The last-hop scheduler gives the dropped packets consecutive slots.
  uint32_t next_free = 0;
  const uint32_t t1 = lhrp_nack_time(next_free, 5000, 4, q);
  const uint32_t t2 = lhrp_nack_time(next_free, 5001, 4, q);
  EXPECT_EQ(t1, 5000u);
  EXPECT_EQ(t2, 5004u);

  // source side: the NACK's time schedules that packet only; the others stay speculative.
  MessageState m;
  EXPECT_FALSE(msg_begin(m, EndpointProtocol::kLhrp, 48, 0, q).sends_reservation());
  EXPECT_EQ(send_all(m, 0), 2);
  const ProtocolAction a = msg_on_nack(m, 1, true, t2, 5100, q);
  EXPECT_FALSE(a.sends_reservation());  // piggybacked: no Res / Gnt ever
  EXPECT_EQ(m.nonspec, 0b10u);
  EXPECT_EQ(m.retx_at[1], 5004u);
  bool spec = false;
  EXPECT_EQ(msg_next_packet(m, 5100, &spec), 1);
  EXPECT_FALSE(spec);
  msg_on_ack(m, 0);
  msg_sent(m, 1);
  msg_on_ack(m, 1);
  EXPECT_TRUE(msg_done(m));
  EXPECT_EQ(m.reservation, ReservationState::kNone);
  expect_partition(m);
}

TEST(DragonflyProtocols, LhrpFabricDropResendsSpeculatively) {
  const ProtocolParams q;
  // M35: timeout drops before the last hop (no time), threshold drops at it (with time)
  EXPECT_EQ(speculative_drop(EndpointProtocol::kLhrpFabricDrop, false, 1001, 0, 0, q), DropVerdict::kDropNack);
  EXPECT_EQ(speculative_drop(EndpointProtocol::kLhrpFabricDrop, false, 1000, 0, 0, q), DropVerdict::kKeep);
  EXPECT_EQ(speculative_drop(EndpointProtocol::kLhrpFabricDrop, true, 5000, 0, 10, q), DropVerdict::kKeep);
  EXPECT_EQ(speculative_drop(EndpointProtocol::kLhrpFabricDrop, true, 10, 0, 1000, q),
            DropVerdict::kDropNackWithTime);
  MessageState m;
  msg_begin(m, EndpointProtocol::kLhrpFabricDrop, 4, 0, q);
  EXPECT_EQ(send_all(m, 0), 1);
  msg_on_nack(m, 0, false, 0, 1200, q);
  bool spec = false;
  EXPECT_EQ(msg_next_packet(m, 1200, &spec), 0);
  EXPECT_TRUE(spec);  // speculative again
  msg_sent(m, 0);
  msg_on_nack(m, 0, true, 3000, 2500, q);  // this time the last hop dropped it, with a time
  EXPECT_EQ(msg_next_packet(m, 2999, &spec), -1);
  EXPECT_EQ(msg_next_packet(m, 3000, &spec), 0);
  EXPECT_FALSE(spec);
  expect_partition(m);
}

TEST(DragonflyProtocols, ComprehensiveSplitsAt48Flits) {
  const ProtocolParams q;
  EXPECT_EQ(resolve_protocol(EndpointProtocol::kComprehensive, 4, q), EndpointProtocol::kLhrp);
  EXPECT_EQ(resolve_protocol(EndpointProtocol::kComprehensive, 47, q), EndpointProtocol::kLhrp);
  EXPECT_EQ(resolve_protocol(EndpointProtocol::kComprehensive, 48, q), EndpointProtocol::kSrp);
  EXPECT_EQ(resolve_protocol(EndpointProtocol::kComprehensive, 512, q), EndpointProtocol::kSrp);
  EXPECT_EQ(resolve_protocol(EndpointProtocol::kSmsrp, 512, q), EndpointProtocol::kSmsrp);
  MessageState small, large;
  EXPECT_FALSE(msg_begin(small, EndpointProtocol::kComprehensive, 47, 0, q).sends_reservation());
  const ProtocolAction a = msg_begin(large, EndpointProtocol::kComprehensive, 48, 0, q);
  EXPECT_TRUE(a.sends_reservation());
  EXPECT_EQ(a.reserve_flits, 48u);
  // one scheduler, in the last-hop switch, serves both (M36)
  EXPECT_TRUE(scheduler_at_last_hop(EndpointProtocol::kComprehensive));
  EXPECT_TRUE(scheduler_at_last_hop(EndpointProtocol::kLhrp));
  EXPECT_FALSE(scheduler_at_last_hop(EndpointProtocol::kSrp));
  EXPECT_FALSE(scheduler_at_last_hop(EndpointProtocol::kSmsrp));
  uint32_t next_free = 0;
  const uint32_t lhrp_t = lhrp_nack_time(next_free, 100, 4, q);
  const ReservationGrant srp_g = reservation_grant(next_free, 100, 48);
  EXPECT_EQ(lhrp_t, 100u);
  EXPECT_EQ(srp_g.start, 104u);  // after the LHRP slot: no overlap between the two modes
  // the last-hop drop policy for both modes (M36 suggested): no timeout drops in the fabric
  EXPECT_EQ(speculative_drop(EndpointProtocol::kComprehensive, false, 99999, 0, 0, q), DropVerdict::kKeep);
  EXPECT_EQ(speculative_drop(EndpointProtocol::kComprehensive, true, 0, 0, 1000, q), DropVerdict::kDropNackWithTime);
  // an SRP-mode NACK ignores a piggybacked time: the grant decides
  EXPECT_EQ(send_all(large, 0), 2);
  msg_on_nack(large, 0, true, 777, 900, q);
  bool spec = false;
  EXPECT_EQ(msg_next_packet(large, 777, &spec), -1);
  msg_on_grant(large, 1000);
  EXPECT_EQ(msg_next_packet(large, 1000, &spec), 0);
  expect_partition(large);
}

TEST(DragonflyProtocols, StrayEventsAreIgnored) {
  const ProtocolParams q;
  MessageState m;
  msg_begin(m, EndpointProtocol::kSmsrp, 4, 0, q);
  msg_on_ack(m, 0);  // not sent yet
  EXPECT_FALSE(msg_on_nack(m, 0, false, 0, 10, q).sends_reservation());
  EXPECT_EQ(m.spec_ready, 1u);
  send_all(m, 0);
  msg_on_ack(m, 0);
  msg_on_ack(m, 0);  // duplicate
  EXPECT_TRUE(msg_done(m));
  msg_on_grant(m, 50);  // a late grant changes no packet
  expect_partition(m);
  MessageState b;  // baseline data is lossless: a NACK for it changes nothing
  msg_begin(b, EndpointProtocol::kBaseline, 4, 0, q);
  send_all(b, 0);
  msg_on_nack(b, 0, false, 0, 10, q);
  EXPECT_EQ(b.in_flight, 1u);
}

}  // namespace
}  // namespace saturn
