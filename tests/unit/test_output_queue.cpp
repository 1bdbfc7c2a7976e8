// CIOQ output queues (kernels/state/output_queue.hpp) on hand-set columns: one output port, three
// VCs, rings of K = 2 packets, two trials (trial-minor columns: a trial's state never touches the
// other's). FIFO order and wrap-around per VC, the per-port count, the link's VC choice by strict
// priority (highest VC first) or round-robin, and the crossbar's time per packet.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kernels/state/output_queue.hpp"

namespace saturn {
namespace {

constexpr int kT = 2, kV = 3, kK = 2;

struct OneOutput {
  std::vector<uint32_t> ends = std::vector<uint32_t>(kV * kT, 0), count = std::vector<uint32_t>(kT, 0);
  std::vector<Packet> ring = std::vector<Packet>(kV * kK * kT, Packet::empty());
  std::vector<uint8_t> vc_rr = std::vector<uint8_t>(kT, 0);
  EngineView v{};
  explicit OneOutput(VcArbitration arbitration) {
    v.model.trials = kT;
    v.model.vcs = kV;
    v.model.oq_packets = kK;
    v.model.xbar_flits = 2;
    v.model.vc_arbitration = arbitration;
    v.state.oq_ends = ends.data();
    v.state.oq_count = count.data();
    v.state.oq_pkt = ring.data();
    v.state.oq_vc_rr = vc_rr.data();
  }
  void push(int vc, uint32_t tag, int t = 0) { oq_push(v, 0, vc, Packet::make(tag, 1, 4, vc, 0, tag, 0), t); }
  // The tag (source) of the packet the link takes next, and its VC.
  uint32_t pop(int* vc = nullptr, int t = 0) {
    const Packet p = oq_pop_next(v, 0, t);
    if (vc) *vc = static_cast<int>(p.vc());
    return p.src();
  }
};

TEST(OutputQueue, FifoPerVcWithWrapAround) {
  OneOutput q(VcArbitration::kPriority);
  for (uint32_t round = 0; round < 3; ++round) {  // the ring's head goes round it
    q.push(1, 10 + round);
    q.push(1, 20 + round);
    EXPECT_EQ(oq_length(q.v, 0, 1, 0), 2u);
    EXPECT_EQ(q.count[0], 2u);
    EXPECT_EQ(oq_at(q.v, 0, 1, 1, 0).src(), 20 + round);
    EXPECT_EQ(q.pop(), 10 + round);
    EXPECT_EQ(q.pop(), 20 + round);
    EXPECT_EQ(q.count[0], 0u);
  }
  EXPECT_EQ(q.count[1], 0u) << "trial 1 untouched";
}

TEST(OutputQueue, TheLinkTakesTheHighestVcFirstUnderPriority) {
  OneOutput q(VcArbitration::kPriority);
  q.push(0, 1);
  q.push(2, 2);
  q.push(1, 3);
  q.push(2, 4);
  int vc = -1;
  EXPECT_EQ(q.pop(&vc), 2u);
  EXPECT_EQ(vc, 2);
  EXPECT_EQ(q.pop(&vc), 4u);
  EXPECT_EQ(q.pop(&vc), 3u);
  EXPECT_EQ(vc, 1);
  EXPECT_EQ(q.pop(&vc), 1u);
  EXPECT_EQ(vc, 0);
}

TEST(OutputQueue, RoundRobinRotatesFromTheVcAfterTheLastOne) {
  OneOutput q(VcArbitration::kRoundRobin);
  q.push(0, 1);
  q.push(0, 2);
  q.push(2, 3);
  q.push(2, 4, 1);  // trial 1 has its own pointer
  int vc = -1;
  EXPECT_EQ(q.pop(&vc), 1u);  // pointer at 0: VC 0, then the pointer moves to 1
  EXPECT_EQ(q.pop(&vc), 3u);  // VC 1 empty: VC 2
  EXPECT_EQ(q.pop(&vc), 2u);  // wraps to VC 0
  EXPECT_EQ(q.pop(&vc, 1), 4u);
  EXPECT_EQ(vc, 2);
  EXPECT_EQ(q.vc_rr[1], 0u);
}

TEST(OutputQueue, CrossbarCyclesAtSpeedupTwo) {
  ModelParams m{};
  m.xbar_flits = 2;
  EXPECT_EQ(xbar_cycles(m, 1), 1u);
  EXPECT_EQ(xbar_cycles(m, 2), 1u);
  EXPECT_EQ(xbar_cycles(m, 3), 2u);
  EXPECT_EQ(xbar_cycles(m, 24), 12u);
  m.xbar_flits = 1;
  EXPECT_EQ(xbar_cycles(m, 24), 24u);
}

}  // namespace
}  // namespace saturn
