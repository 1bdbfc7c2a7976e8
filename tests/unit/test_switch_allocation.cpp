// The switch grant phase on hand-built switches (one trial, the scalar lane): FIFO inputs block a
// packet behind a blocked head where VOQs let it go, and the separable input-first allocator
// matches more with more iterations on a request pattern where the first round leaves an input and
// an output unmatched; its pointers move on first-iteration grants only.
#include <gtest/gtest.h>

#include <vector>

#include "kernels/phases/switch_grant.hpp"  // (and the FIFO-with-bypass grant it may call, switch_grant_cc.hpp)

namespace saturn {
namespace {

// One switch of R ports, every port facing an endpoint (no credits), one VC, one trial.
struct HandSwitch {
  static constexpr int R = 4, D = 2, E = 8, kMaxV = 2;  // per-VC arrays are sized for kMaxV VCs
  std::vector<int32_t> port_base{0, R};
  std::vector<uint8_t> peer_type = std::vector<uint8_t>(R, static_cast<uint8_t>(PeerType::kEndpoint));
  std::vector<Packet> link = std::vector<Packet>(R * D, Packet::empty());
  std::vector<uint16_t> credit = std::vector<uint16_t>(R * D * kMaxV, 0);
  std::vector<uint8_t> link_mark = std::vector<uint8_t>(R * D, 0), credit_mark = std::vector<uint8_t>(R * D, 0);
  std::vector<uint32_t> busy_until = std::vector<uint32_t>(R, 0), src = std::vector<uint32_t>(R, kNoSource);
  std::vector<int32_t> out_credits = std::vector<int32_t>(R * kMaxV, 0);
  std::vector<uint8_t> out_rr = std::vector<uint8_t>(R * kMaxV, 0), out_vc_rr = std::vector<uint8_t>(R, 0),
                       in_rr = std::vector<uint8_t>(R, 0);
  std::vector<uint64_t> busy_cycles = std::vector<uint64_t>(R, 0);
  std::vector<uint32_t> free_lo = std::vector<uint32_t>(R, 0xFFFFFFFFu), alloc = std::vector<uint32_t>(R, kNoEntry),
                        voq_lo = std::vector<uint32_t>(R, 0), voq_hi = std::vector<uint32_t>(1, 0);
  std::vector<Packet> ent_pkt = std::vector<Packet>(R * E, Packet::empty());
  std::vector<uint32_t> ent_time = std::vector<uint32_t>(R * E, 0), ent_tie = std::vector<uint32_t>(R * E, 0);
  std::vector<uint16_t> ent_next = std::vector<uint16_t>(R * E, kNoEntry);
  std::vector<uint32_t> ends = std::vector<uint32_t>(R * R * kMaxV, kNoEnds),
                        ready = std::vector<uint32_t>(R * R * kMaxV, kEmptyReady), tie = std::vector<uint32_t>(R * R * kMaxV, 0);
  std::vector<uint8_t> voq_vcs = std::vector<uint8_t>(R * R, 0);
  std::vector<uint16_t> voq_small = std::vector<uint16_t>(R * R * kMaxV, 0);
  std::vector<uint32_t> out_ret = std::vector<uint32_t>(R, 0);
  std::vector<uint64_t> seed{12345};  // FCFS ties derive from it (kernels/state/voq.hpp: fcfs_tie)
  EngineView v{};

  HandSwitch(InputQueue queue, Allocator allocator, int iterations, Arbitration arbitration = Arbitration::kRoundRobin) {
    ModelParams& m = v.model;
    m.trials = 1;
    m.link_depth = D;
    m.link_latency = 1;
    m.vcs = 1;
    m.vc_flits = 64;
    m.entries = E;
    m.max_radix = R;
    m.speedup = 1;
    m.arbitration = arbitration;
    m.vc_arbitration = VcArbitration::kPriority;
    m.mtu_flits = 4;
    m.cc.ack_flits = 1;
    m.input_queue = queue;
    m.allocator = allocator;
    m.allocator_iterations = iterations;
    v.net.num_switches = 1;
    v.net.num_ports = R;
    v.net.sw_port_base = port_base.data();
    v.net.peer_type = peer_type.data();
    StateView& s = v.state;
    s.link = link.data();
    s.credit = credit.data();
    s.link_mark = link_mark.data();
    s.credit_mark = credit_mark.data();
    s.out_busy_until = busy_until.data();
    s.out_src = src.data();
    s.out_credits = out_credits.data();
    s.out_rr = out_rr.data();
    s.out_vc_rr = out_vc_rr.data();
    s.in_rr = in_rr.data();
    s.out_busy_cycles = busy_cycles.data();
    s.in_free_lo = free_lo.data();
    s.in_alloc = alloc.data();
    s.in_voq_lo = voq_lo.data();
    s.in_voq_hi = voq_hi.data();
    s.ent_pkt = ent_pkt.data();
    s.ent_time = ent_time.data();
    s.ent_tie = ent_tie.data();
    s.ent_next = ent_next.data();
    s.voq_ends = ends.data();
    s.voq_ready = ready.data();
    s.voq_tie = tie.data();
    s.voq_vcs = voq_vcs.data();
    s.voq_small = voq_small.data();
    s.out_ret = out_ret.data();
    v.trial.seed = seed.data();
  }

  // A 4-flit packet at input i for output (= endpoint) o on VC vc, ready at cycle r.
  void place(int i, int o, uint32_t r, int vc = 0) {
    const int e = voq_alloc(v, i, 0);
    ASSERT_NE(e, kNoEntry);
    ent_pkt[i * E + e] = Packet::make(static_cast<uint32_t>(i), static_cast<uint32_t>(o), 4, static_cast<uint32_t>(vc), 0, 0, 0);
    ent_time[i * E + e] = r;
    ent_tie[i * E + e] = 0;
    voq_push(v, i, o, vc, e, 0, r, 0);
  }
  // Output o is sending for `cycles` more cycles from input `from` (entry 31, not in any VOQ).
  void busy(int o, int from, uint32_t until) {
    busy_until[o] = until;
    src[o] = static_cast<uint32_t>(from) << 16 | 31u;
  }
  // Runs the grant at cycle c; returns, per output, the source input of the packet it sent or -1.
  std::vector<int> grant(uint32_t c) {
    if (v.model.vcs == 1) switch_grant<ScalarLanes, 1>(v, 0, 0, c);
    else switch_grant<ScalarLanes, 0>(v, 0, 0, c);
    std::vector<int> sent(R, -1);
    for (int o = 0; o < R; ++o) {
      const Packet& p = link[o * D + static_cast<int>(c % D)];
      if (link_mark[o * D + static_cast<int>(c % D)] != 0) {  // a packet written this lap (ring_marks.hpp)
        EXPECT_TRUE(p.valid()) << "output " << o << ": a marked slot holds no packet";
        EXPECT_EQ(p.dst(), static_cast<uint32_t>(o)) << "output " << o << " sent a packet for another output";
        sent[o] = static_cast<int>(p.src_size & 0xFFFFFu);
      }
    }
    return sent;
  }
};

constexpr uint32_t kCycle = 100;

// Input 0 holds a packet for output 0 (the older, its FIFO head) and one for output 1; output 0 is
// busy sending input 3's packet. VOQs: the packet for output 1 goes. FIFO: it waits behind the head.
void expect_head_of_line_blocking(Allocator allocator) {
  for (InputQueue queue : {InputQueue::kVoq, InputQueue::kFifo}) {
    HandSwitch sw(queue, allocator, 1);
    sw.place(0, 0, 10);
    sw.place(0, 1, 11);
    sw.busy(0, 3, kCycle + 3);
    const std::vector<int> sent = sw.grant(kCycle);
    EXPECT_EQ(sent[0], -1);
    EXPECT_EQ(sent[1], queue == InputQueue::kVoq ? 0 : -1) << (queue == InputQueue::kVoq ? "voq" : "fifo");
  }
}

TEST(SwitchAllocation, FifoHeadBlocksThePacketBehindItGreedy) { expect_head_of_line_blocking(Allocator::kGreedy); }

TEST(SwitchAllocation, FifoHeadBlocksThePacketBehindItSeparable) {
  expect_head_of_line_blocking(Allocator::kSeparableInputFirst);
}

// The FIFO sends its head and, even with read ports to spare, not the packet behind it in the same
// cycle (that one becomes the head only in the next cycle).
TEST(SwitchAllocation, FifoSendsItsHeadFirst) {
  HandSwitch sw(InputQueue::kFifo, Allocator::kGreedy, 1);
  sw.v.model.speedup = 0;  // unlimited read ports: only the FIFO holds the second packet back
  sw.place(0, 1, 10);
  sw.place(0, 0, 11);
  const std::vector<int> sent = sw.grant(kCycle + 1);  // output 1 grants first, then 2, 3 and 0
  EXPECT_EQ(sent[1], 0);
  EXPECT_EQ(sent[0], -1);
}

// Requests: input 0 -> outputs 0 and 1, input 1 -> output 0, input 2 -> outputs 0 and 2; all
// pointers at 0. Round 1: every input picks output 0 (first at its pointer), which grants input 0.
// Round 2: input 1 has nothing else; input 2 picks output 2. More rounds find nothing new. (A
// maximum matching would also give input 0 output 1 and input 1 output 0: separable allocation is
// not maximum, the greedy one here is maximal.)
std::vector<int> separable_round(int iterations) {
  HandSwitch sw(InputQueue::kVoq, Allocator::kSeparableInputFirst, iterations);
  sw.place(0, 0, 10);
  sw.place(0, 1, 11);
  sw.place(1, 0, 12);
  sw.place(2, 0, 13);
  sw.place(2, 2, 14);
  std::vector<int> sent = sw.grant(kCycle);
  // Pointers: first-iteration grants only (input 0 -> output 0).
  EXPECT_EQ(sw.in_rr[0], 1);
  EXPECT_EQ(sw.out_rr[0], 1);
  EXPECT_EQ(sw.in_rr[2], 0) << "a later-iteration grant must not move the input's pointer";
  EXPECT_EQ(sw.out_rr[2], 0) << "a later-iteration grant must not move the output's pointer";
  return sent;
}

TEST(SwitchAllocation, SeparableIterationsAddMatches) {
  EXPECT_EQ(separable_round(1), (std::vector<int>{0, -1, -1, -1}));
  EXPECT_EQ(separable_round(2), (std::vector<int>{0, -1, 2, -1}));
  EXPECT_EQ(separable_round(3), (std::vector<int>{0, -1, 2, -1}));
}

// Round-robin over inputs and over VCs with two VCs: output 0 has VC-0 packets at inputs 0 and 2
// (two each) and VC-1 packets at input 3 (four). The VCs alternate, and within VC 0 the inputs
// take turns: 0, 3, 2, 3, 0, ... With one input pointer shared by the VCs (the engine
// before this test), each VC-1 grant moved it past input 3, so VC 0's search always restarted at
// input 0 and input 2 was never served (it froze the 3456-node RLFT under ARN + AFI).
void expect_every_input_served_per_vc(Allocator allocator) {
  HandSwitch sw(InputQueue::kVoq, allocator, 1);
  sw.v.model.vcs = 2;
  sw.v.model.vc_arbitration = VcArbitration::kRoundRobin;
  sw.v.model.speedup = 0;  // the hand switch never frees an input's read port: leave them unlimited
  for (int k = 0; k < 2; ++k) {
    sw.place(0, 0, 10, 0);
    sw.place(2, 0, 10, 0);
    sw.place(3, 0, 10, 1);
    sw.place(3, 0, 10, 1);
  }
  std::vector<int> order;
  for (uint32_t c = kCycle; c < kCycle + 8 * 4; c += 4) order.push_back(sw.grant(c)[0]);  // 4-flit packets
  // (A shared pointer gives 0, 3, 0, 3, 2, 3, 2, 3: input 2 waits until input 0 has nothing left.)
  EXPECT_EQ(order, (std::vector<int>{0, 3, 2, 3, 0, 3, 2, 3}));
}

TEST(SwitchAllocation, RoundRobinServesEveryInputOfEachVcGreedy) {
  expect_every_input_served_per_vc(Allocator::kGreedy);
}

TEST(SwitchAllocation, RoundRobinServesEveryInputOfEachVcSeparable) {
  expect_every_input_served_per_vc(Allocator::kSeparableInputFirst);
}

// FCFS output arbitration in the output stage: output 0 grants the oldest of the three heads that
// picked it, input 1's (ready 9), whatever its round-robin pointer says.
TEST(SwitchAllocation, SeparableOutputStageFollowsTheArbitration) {
  HandSwitch sw(InputQueue::kVoq, Allocator::kSeparableInputFirst, 1, Arbitration::kFcfs);
  sw.place(1, 0, 9);
  sw.place(0, 0, 10);
  sw.place(2, 0, 13);
  sw.out_rr[0] = 2;  // ignored under FCFS
  EXPECT_EQ(sw.grant(kCycle), (std::vector<int>{1, -1, -1, -1}));
}

// The greedy allocator on the same pattern as SeparableIterationsAddMatches: outputs in rotating
// order from c mod R each take their best head; it is maximal, so it matches three pairs here.
TEST(SwitchAllocation, GreedyIsMaximalOnTheSamePattern) {
  HandSwitch sw(InputQueue::kVoq, Allocator::kGreedy, 1);
  sw.place(0, 0, 10);
  sw.place(0, 1, 11);
  sw.place(1, 0, 12);
  sw.place(2, 0, 13);
  sw.place(2, 2, 14);
  const std::vector<int> sent = sw.grant(kCycle + 1);  // output 1 first: input 0; output 2: input 2; output 0: input 1
  EXPECT_EQ(sent, (std::vector<int>{1, 0, 2, -1}));
}

}  // namespace
}  // namespace saturn
