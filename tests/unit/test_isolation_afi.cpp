// Unit tests for ARN+AFI (kernels/isolation/afi.hpp) on the 432-node RLFT with D-mod-K: ARN
// generation and consumption by stage (003 Fig. 1, item 42), the operation example of 003 Fig. 4
// step by step (item 45), and the incast readings R1-R3 (M39, §P1.9-14).
#include <gtest/gtest.h>

#include <vector>

#include "host/topology/topology.hpp"
#include "kernels/isolation/afi.hpp"

namespace saturn {
namespace {

// The 432-node RLFT (K = 6) with one ARN table per switch and every output's free AFC credits.
struct Net {
  Topology topo = build_rlft(12);
  RoutingTables rt = build_routes(topo, RoutingAlgorithm::kDmodK);
  int k = 6, leaves = 72;
  std::vector<std::vector<ArnEntry>> tables = std::vector<std::vector<ArnEntry>>(180, std::vector<ArnEntry>(8));
  std::vector<std::vector<int32_t>> credits = std::vector<std::vector<int32_t>>(180, std::vector<int32_t>(12, 21));
  ArnParams p;
  Net() { p.ttl_cycles = 1000; }

  ArnTable table(int sw) { return ArnTable{tables[sw].data(), 1, 8}; }
  int stage(int sw) const { return sw < leaves ? 1 : sw < 2 * leaves ? 2 : 3; }
  uint8_t det(int sw, uint32_t d) const { return rt.det_port[static_cast<size_t>(sw) * 432 + d]; }
  // U18: the minimal outputs for d except the deterministic one (none going down).
  uint64_t alternatives(int sw, uint32_t d) const {
    const uint64_t m = rt.choice_masks[rt.choice_id[static_cast<size_t>(sw) * 432 + d]];
    return m & ~(1ull << det(sw, d));
  }
  bool upward(int sw, int port) const { return stage(sw) < 3 && port >= k; }
  ArnProcessResult detect(int sw, uint32_t d, uint8_t vc, int oport, uint32_t now) {
    return congestion_root_detected(table(sw), d, vc, false, static_cast<uint8_t>(oport), upward(sw, oport), stage(sw),
                                    arn_make_id(sw, oport, 0), alternatives(sw, d), credits[sw].data(), 1, 0, now, p);
  }
  // The ARN of entry `slot` at switch `from` leaves its input port `in`: it reaches the peer switch.
  ArnProcessResult forward(int from, int slot, int in, uint32_t now, int* to) {
    const PortPeer peer = topo.ports[from][in];
    *to = peer.index;
    const ArnInfo msg = arn_message(table(from), slot);
    return arn_received(table(peer.index), msg, static_cast<uint8_t>(peer.port), stage(peer.index),
                        alternatives(peer.index, msg.destination), credits[peer.index].data(), 1, 0, now, p);
  }
};

int top(int j, int u) { return 144 + j * 6 + u; }
int mid(int pod, int j) { return 72 + pod * 6 + j; }

TEST(IsolationAfi, Fig1RootInfoAndConsumingStage) {
  Net n;
  // A: a root on a stage-3 down port -> info 2, consumed at the stage-2 switch of the upward path.
  // Destination 1 climbs from pod 3 via mid(3, 1) -> top(1, 0) -> down port 0 (pod 0).
  ArnProcessResult a = n.detect(top(1, 0), 1, 0, 0, 0);
  EXPECT_EQ(a.outcome, ArnOutcome::kStored);  // no alternative at the top: stored, unconsumed
  EXPECT_EQ(n.table(top(1, 0))[a.slot].info.root_info, 2);
  int to = -1;
  ArnProcessResult a2 = n.forward(top(1, 0), a.slot, 3, 1, &to);  // out of top port 3 (pod 3)
  EXPECT_EQ(to, mid(3, 1));
  EXPECT_EQ(a2.outcome, ArnOutcome::kConsumed);
  EXPECT_NE(a2.alt_port, n.det(mid(3, 1), 1));
  EXPECT_GE(a2.alt_port, 6);

  // B: a root on a stage-2 down port -> info 1: stored unconsumed at the top and at the stage-2
  // switch of another pod, consumed at the source leaf.
  Net m;
  ArnProcessResult b = m.detect(mid(0, 1), 1, 0, 0, 0);  // mid(0,1) down port 0 -> leaf 0
  EXPECT_EQ(m.table(mid(0, 1))[b.slot].info.root_info, 1);
  ArnProcessResult b2 = m.forward(mid(0, 1), b.slot, 6, 1, &to);  // up port 6 -> top(1, 0)
  EXPECT_EQ(to, top(1, 0));
  EXPECT_EQ(b2.outcome, ArnOutcome::kStored);
  ArnProcessResult b3 = m.forward(top(1, 0), b2.slot, 3, 2, &to);
  EXPECT_EQ(to, mid(3, 1));
  EXPECT_EQ(b3.outcome, ArnOutcome::kStored);
  ArnProcessResult b4 = m.forward(mid(3, 1), b3.slot, 0, 3, &to);  // down port 0 -> leaf 18
  EXPECT_EQ(to, 18);
  EXPECT_EQ(b4.outcome, ArnOutcome::kConsumed);

  // D: a root on an upward port at stage s -> info s, consumed in the detecting switch.
  Net u;
  ArnProcessResult d1 = u.detect(18, 1, 0, u.det(18, 1), 0);
  EXPECT_EQ(u.table(18)[d1.slot].info.root_info, 1);
  EXPECT_EQ(d1.outcome, ArnOutcome::kConsumed);
  ArnProcessResult d2 = u.detect(mid(3, 1), 1, 0, u.det(mid(3, 1), 1), 0);
  EXPECT_EQ(d2.outcome, ArnOutcome::kConsumed);
}

// C: an incast root (leaf 0 -> endnode 4) has info 0. Walk its ARN back along one hot flow from
// pod 3 (node 108 on leaf 18): leaf 0 <- mid(0, 4) <- top(4, 0) <- mid(3, 4) <- leaf 18 <- node.
int incast_walk(Net& n, int* consumed_at) {
  const uint32_t hot = 4;
  ArnProcessResult r = n.detect(0, hot, 0, 4, 0);
  EXPECT_EQ(n.table(0)[r.slot].info.root_info, 0);
  EXPECT_EQ(r.outcome, ArnOutcome::kStored);
  const int path[][2] = {{0, 10}, {mid(0, 4), 6}, {top(4, 0), 3}, {mid(3, 4), 0}};  // switch, input toward the source
  int sw = 0, consumed = 0;
  *consumed_at = -1;
  for (const auto& hop : path) {
    EXPECT_EQ(sw, hop[0]);
    int to = -1;
    r = n.forward(sw, r.slot, hop[1], 1, &to);
    if (r.outcome == ArnOutcome::kConsumed) {
      ++consumed;
      *consumed_at = to;
    }
    sw = to;
  }
  EXPECT_EQ(sw, 18);
  return consumed;
}

TEST(IsolationAfi, IncastLiteralReadingNeverConsumes) {
  Net n;
  n.p.incast = IncastReading::kLiteral;
  int at = 0;
  EXPECT_EQ(incast_walk(n, &at), 0);
  // Every switch holds an unconsumed entry, so no packet to the hot spot is ever adapted; the
  // source leaf's entry only makes it send ARNs on to the endnodes.
  bool consumed = true;
  EXPECT_GE(arn_match(n.table(18), 4, 0, 2, &consumed), 0);
  EXPECT_FALSE(consumed);
  const ArnRoute r = arn_route_packet(n.table(18), 4, 0, false, 0, 2, n.p);
  EXPECT_EQ(r.port, kNoPort);
  EXPECT_FALSE(r.set_adapted);
  EXPECT_GE(r.send_arn, 0);  // toward node 108, which cannot adapt
}

TEST(IsolationAfi, IncastEarlyDetectionConsumesAsLiteral) {
  Net n;
  n.p.incast = IncastReading::kEarlyDetection;  // differs only in the detector (detector_params_for)
  int at = 0;
  EXPECT_EQ(incast_walk(n, &at), 0);
  // Its in-network roots are consumable: the top's down port to the hot pod (info 2).
  EXPECT_EQ(n.detect(top(4, 0), 4, 0, 0, 5).outcome, ArnOutcome::kStored);
}

TEST(IsolationAfi, IncastFirstStageReadingConsumesAtTheSourceLeaf) {
  Net n;
  n.p.incast = IncastReading::kFirstStage;
  int at = 0;
  EXPECT_EQ(incast_walk(n, &at), 1);
  EXPECT_EQ(at, 18);
  const ArnRoute r = arn_route_packet(n.table(18), 4, 0, false, 0, 2, n.p);
  EXPECT_TRUE(r.set_adapted);
  EXPECT_GE(r.port, 6);
  EXPECT_NE(r.port, n.det(18, 4));
  // The root's own leaf has no alternative for its endnode: it never consumes (hot sources on
  // leaf 0 itself send ARNs to their endnodes only).
  EXPECT_EQ(n.alternatives(0, 4), 0u);
}

// 003 Fig. 4 with the 432-node RLFT: destination endnode #1 (leaf 0, pod 0); Switch A = mid(3, 1)
// on the path from pod 3; Switch B = top(1, 0), whose output 0 (toward pod 0) becomes the root;
// Switch C = top(1, 3), reached through A's alternative port 9. Two VCs: VC0 and the AFC (VC1).
TEST(IsolationAfi, Fig4OperationExampleStepByStep) {
  Net n;
  const int A = mid(3, 1), B = top(1, 0), C = top(1, 3), vcs = 2;
  const uint32_t dst = 1;
  // Event 1: packets from input 0 of A (leaf 18) to #1 follow the deterministic route through B.
  EXPECT_EQ(n.det(A, dst), 6);
  EXPECT_EQ(n.topo.ports[A][6].index, B);
  ArnRoute r = arn_route_packet(n.table(A), dst, 0, false, 0, 0, n.p);
  EXPECT_EQ(r.port, kNoPort);
  EXPECT_EQ(r.send_arn, -1);
  // Events 2-3: B's detector declares output 0 a root; the head packet (#1, VC0) fills the entry.
  const ArnProcessResult e3 = n.detect(B, dst, 0, 0, 100);
  ASSERT_EQ(e3.outcome, ArnOutcome::kStored);
  const ArnEntry& eb = n.table(B)[e3.slot];
  EXPECT_EQ(eb.info.destination, dst);
  EXPECT_EQ(eb.info.port, 0);
  EXPECT_EQ(eb.info.vc, 0);
  EXPECT_EQ(eb.info.root_info, 2);
  EXPECT_FALSE(eb.info.consumed);
  // Event 4: a matching packet arriving at B from A (B's input 3) sends an ARN back out of input 3.
  r = arn_route_packet(n.table(B), dst, 0, false, 3, 110, n.p);
  ASSERT_EQ(r.send_arn, e3.slot);
  EXPECT_EQ(r.port, kNoPort);  // the packet itself still goes deterministically
  // Events 5-6: A receives it and consumes it; alternative = the up port with the most AFC credits.
  n.credits[A][9] = 21;
  for (int p : {6, 7, 8, 10, 11}) n.credits[A][p] = 5;
  int to = -1;
  const ArnProcessResult e6 = n.forward(B, r.send_arn, 3, 120, &to);
  EXPECT_EQ(to, A);
  ASSERT_EQ(e6.outcome, ArnOutcome::kConsumed);
  EXPECT_EQ(e6.alt_port, 9);
  EXPECT_EQ(n.table(A)[e6.slot].info.port, 6);  // Port = where the ARN arrived
  EXPECT_EQ(n.forward(B, r.send_arn, 3, 121, &to).outcome, ArnOutcome::kRefreshed);  // later ARNs refresh it
  // Event 7: A's packets for #1 in VC0 at input 0 are adapted and leave on port 9.
  r = arn_route_packet(n.table(A), dst, 0, false, 0, 130, n.p);
  EXPECT_EQ(r.port, 9);
  EXPECT_TRUE(r.set_adapted);
  EXPECT_EQ(n.topo.ports[A][9].index, C);
  EXPECT_EQ(buffer_vc(0, true, true, vcs), 1);  // stored in the AFC at the next switch
  // A packet for #1 in another VC, or for another destination, is not affected.
  EXPECT_EQ(arn_route_packet(n.table(A), dst, 1, false, 0, 130, n.p).port, kNoPort);
  EXPECT_EQ(arn_route_packet(n.table(A), 2, 0, false, 0, 130, n.p).port, kNoPort);
  // Event 8: at C (input 3, from pod 3) the adapted packet stays in the AFC and is routed
  // deterministically, never adapted again, even where an entry would match.
  r = arn_route_packet(n.table(C), dst, 0, true, n.topo.ports[A][9].port, 140, n.p);
  EXPECT_EQ(r.port, kNoPort);
  EXPECT_FALSE(r.set_adapted);
  EXPECT_EQ(r.send_arn, -1);
  EXPECT_EQ(n.det(C, dst), 0);
  // Event 9: down through mid(0, 1) and leaf 0 to #1, in the AFC at every hop.
  int sw = n.topo.ports[C][0].index;
  EXPECT_EQ(sw, mid(0, 1));
  sw = n.topo.ports[sw][n.det(sw, dst)].index;
  EXPECT_EQ(sw, 0);
  EXPECT_EQ(n.det(0, dst), 1);
  EXPECT_EQ(buffer_vc(0, true, true, vcs), afc_vc(vcs));
  // Non-adapted packets keep VC0 on the deterministic path (a pod-5 switch has no entry).
  EXPECT_EQ(arn_route_packet(n.table(mid(5, 1)), dst, 0, false, 0, 150, n.p).port, kNoPort);
  EXPECT_EQ(buffer_vc(0, false, true, vcs), 0);
  // Event 10: B stops refreshing; after the TTL every entry is gone and A routes #1 deterministically.
  const uint32_t later = 121 + n.p.ttl_cycles;
  EXPECT_EQ(arn_live_count(n.table(A), later), 0);
  EXPECT_EQ(arn_live_count(n.table(B), later), 0);
  r = arn_route_packet(n.table(A), dst, 0, false, 0, later, n.p);
  EXPECT_EQ(r.port, kNoPort);
  EXPECT_FALSE(r.set_adapted);
}

TEST(IsolationAfi, PlainArnReroutesWithoutAdapting) {
  Net n;
  n.p.afi = false;
  const int A = mid(3, 1);
  const ArnProcessResult c = n.detect(A, 1, 0, n.det(A, 1), 0);  // upward root at A: consumed there
  ASSERT_EQ(c.outcome, ArnOutcome::kConsumed);
  const ArnRoute r = arn_route_packet(n.table(A), 1, 0, false, 0, 1, n.p);
  EXPECT_EQ(r.port, c.alt_port);
  EXPECT_FALSE(r.set_adapted);
  EXPECT_EQ(buffer_vc(0, false, false, 1), 0);
}

TEST(IsolationAfi, ConsumptionIsEqualityNotLowerThan) {
  // §P1.9-7: the text's "lower than" would let a leaf consume a stage-2 ARN; Pseudo-code 2 does not.
  for (IncastReading r : {IncastReading::kLiteral, IncastReading::kEarlyDetection, IncastReading::kFirstStage}) {
    EXPECT_TRUE(arn_consumes(2, 2, true, r));
    EXPECT_FALSE(arn_consumes(1, 2, true, r));
    EXPECT_FALSE(arn_consumes(3, 2, true, r));
    EXPECT_FALSE(arn_consumes(2, 2, false, r));  // no alternative: stored, not consumed
  }
  EXPECT_FALSE(arn_consumes(1, 0, true, IncastReading::kLiteral));
  EXPECT_FALSE(arn_consumes(1, 0, true, IncastReading::kEarlyDetection));
  EXPECT_TRUE(arn_consumes(1, 0, true, IncastReading::kFirstStage));
  EXPECT_FALSE(arn_consumes(2, 0, true, IncastReading::kFirstStage));  // R3: the first stage only
  EXPECT_FALSE(arn_consumes(1, 0, false, IncastReading::kFirstStage));
}

TEST(IsolationAfi, AlternativePortTiesFollowTheDraw) {
  const int32_t credits[12] = {0, 0, 0, 0, 0, 0, 7, 9, 9, 3, 9, 1};
  const uint64_t cand = 0xFC0;  // ports 6..11
  EXPECT_EQ(select_alternative_oport(cand, credits, 1, 0), 7);
  EXPECT_EQ(select_alternative_oport(cand, credits, 1, 1), 8);
  EXPECT_EQ(select_alternative_oport(cand, credits, 1, 2), 10);
  EXPECT_EQ(select_alternative_oport(cand, credits, 1, 3), 7);
  EXPECT_EQ(select_alternative_oport(0, credits, 1, 0), kNoPort);
  // Strided credits (the engine's [port * V + vc] layout, V = 2, AFC = vc 1).
  int32_t strided[24] = {};
  strided[2 * 8 + 1] = 4;
  EXPECT_EQ(select_alternative_oport(0x300, strided + 1, 2, 0), 8);
}

}  // namespace
}  // namespace saturn
