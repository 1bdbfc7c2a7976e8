// InfiniBand CCA of Zdornov & Birk 000 §3.2 (PAPERS-SPEC M22, item 2), unit checks of the code that
// exists: the source's CCT index (+1 per BECN, capped, IPD = index * step) and timer (-1 per full
// period without a BECN, floored at 0) in kernels/phases/endpoint_cc.hpp, and the switch's root
// against victim classification and marking period in kernels/cc/marking.hpp (cc_departure).
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "kernels/cc/marking.hpp"
#include "kernels/phases/endpoint_cc.hpp"

namespace saturn {
namespace {

// One send queue (endpoint 0, one active queue, one trial) with only the columns CCA touches.
struct CcaQueue {
  std::vector<uint32_t> dst{7}, gap{1u << 16}, last_start{0}, timer{0}, inflight32;
  std::vector<uint64_t> next{0};
  std::vector<uint16_t> index{0}, last_size{4}, inflight{0};
  std::vector<double> rate{1.0};
  EngineView v{};
  CcaQueue(int step, int max_index, int period) {
    v.model.trials = 1;
    v.model.active_queues = 1;
    v.model.cc.cca = true;
    v.model.cc.response = Response::kNone;
    v.model.cc.cca_ipd_step = step;
    v.model.cc.cca_max_index = max_index;
    v.model.cc.cca_timer = period;
    v.state.act_dst = dst.data();
    v.state.act_gap_q16 = gap.data();
    v.state.act_next_q16 = next.data();
    v.state.cc.act_last_start = last_start.data();
    v.state.cc.act_last_size = last_size.data();
    v.state.cc.act_index = index.data();
    v.state.cc.act_timer = timer.data();
    v.state.cc.act_inflight = inflight.data();
    v.state.cc.act_rate = rate.data();
  }
  void becn(uint32_t c) { cc_control_received(v, 0, 0, c, 7, kFlagControl | kFlagEcnEcho); }
  // Next start in cycles: last start + size * gap + index * step.
  uint64_t next_cycle() const { return next[0] >> 16; }
};

// Item 2: BECNs raise the index one step each (to the cap), and the next packet waits
// last size + index * step cycles (M22: packet length + IPD, IPD = 24 * index).
TEST(Cca, EachBecnRaisesTheIndexAndTheIpd) {
  CcaQueue q(24, 5, 96);
  for (int k = 1; k <= 7; ++k) {
    q.becn(10);
    EXPECT_EQ(q.index[0], std::min(k, 5));
    EXPECT_EQ(q.next_cycle(), 0u + 4u + 24u * std::min(k, 5));
  }
  // An unmarked control packet (a plain ACK) does nothing to the index.
  cc_control_received(q.v, 0, 0, 11, 7, kFlagControl);
  EXPECT_EQ(q.index[0], 5);
  // A BECN for another destination's queue is not this queue's.
  cc_control_received(q.v, 0, 0, 12, 8, kFlagControl | kFlagEcnEcho);
  EXPECT_EQ(q.index[0], 5);
}

// Item 2: with BECNs stopped the index falls by exactly one per timer period, to 0, and stays.
TEST(Cca, TimerLowersTheIndexOnePerPeriodToZero) {
  CcaQueue q(24, 127, 96);
  for (int k = 0; k < 4; ++k) q.becn(100);  // index 4, timer due at 196
  ASSERT_EQ(q.index[0], 4);
  std::vector<int> index_at;
  for (uint32_t c = 100; c <= 100 + 96 * 6; ++c) {
    cca_timer_tick(q.v, 0, c);
    const uint32_t periods = (c - 100) / 96;
    ASSERT_EQ(q.index[0], periods >= 4 ? 0 : 4 - periods) << "cycle " << c;
  }
  EXPECT_EQ(q.next_cycle(), 4u);  // no IPD left
  // Ticks that arrive late (a queue not looked at for 2.5 periods) catch up exactly.
  for (int k = 0; k < 3; ++k) q.becn(1000);
  cca_timer_tick(q.v, 0, 1000 + 96 * 2 + 48);
  EXPECT_EQ(q.index[0], 1);
  cca_timer_tick(q.v, 0, 1000 + 96 * 3 - 1);
  EXPECT_EQ(q.index[0], 1);
  cca_timer_tick(q.v, 0, 1000 + 96 * 3);
  EXPECT_EQ(q.index[0], 0);
  // A BECN restarts the period: one at 1010 after one at 1000 delays the first decrement to 1106.
  q.becn(1000);
  q.becn(1010);
  cca_timer_tick(q.v, 0, 1105);
  EXPECT_EQ(q.index[0], 2);
  cca_timer_tick(q.v, 0, 1106);
  EXPECT_EQ(q.index[0], 1);
}

// One switch output with the CCA columns.
struct CcaOutput {
  std::vector<uint16_t> cnt1{0}, cnt2{0}, mark_count{0};
  std::vector<uint8_t> stalled{0};
  EngineView v{};
  CcaOutput(int threshold, int period) {
    v.model.trials = 1;
    v.model.cc.cca = true;
    v.model.cc.marking = Marking::kNone;
    v.model.cc.cca_threshold_packets = threshold;
    v.model.cc.cca_marking_period = period;
    v.state.cc.out_cnt1 = cnt1.data();
    v.state.cc.out_cnt2 = cnt2.data();
    v.state.cc.out_mark_count = mark_count.data();
    v.state.cc.out_stalled = stalled.data();
  }
  // A data packet departs with `waiting` packets queued for the output; stalled = it waited for credits.
  bool depart(int waiting, bool was_stalled) {
    cnt1[0] = static_cast<uint16_t>(waiting);
    stalled[0] = was_stalled ? 1 : 0;
    Packet p = Packet::make(1, 2, 4, 0, 0, 0, 0);
    cc_departure(v, 0, p, 0);
    return (p.flags() & kFlagEcn) != 0;
  }
};

// Item 2: over the threshold and at line rate = root (marks); over it but held back by credits =
// victim (no mark); at or under it = no mark. A root marks one departure in every marking period.
TEST(Cca, RootMarksVictimDoesNot) {
  CcaOutput o(4, 1);
  EXPECT_TRUE(o.depart(5, false));   // root
  EXPECT_FALSE(o.depart(5, true));   // victim: back-pressure, not its own congestion
  EXPECT_EQ(o.stalled[0], 0);        // the stall flag is per departure
  EXPECT_FALSE(o.depart(4, false));  // at the threshold: not congested
  EXPECT_TRUE(o.depart(30, false));
  CcaOutput p(4, 3);
  std::vector<bool> marks;
  for (int k = 0; k < 9; ++k) marks.push_back(p.depart(6, false));
  EXPECT_EQ(marks, (std::vector<bool>{false, false, true, false, false, true, false, false, true}));
  // Victim departures do not advance the marking count.
  CcaOutput r(4, 2);
  EXPECT_FALSE(r.depart(6, false));
  EXPECT_FALSE(r.depart(6, true));
  EXPECT_TRUE(r.depart(6, false));
  // Control packets (BECN) are never marked.
  Packet becn = Packet::make(1, 2, 1, 0, kFlagControl, 0, 0);
  r.cnt1[0] = 10;
  cc_departure(r.v, 0, becn, 0);
  EXPECT_EQ(becn.flags() & kFlagEcn, 0u);
}

// 001's ECN index (kernels/cc/ib_ecn.hpp, one state per source): +1 per marked ACK, and one step
// down per cca.timer_flits (96) cycles that pass without one, the timer restarting at each mark.
// With an ACK every 60 cycles (one hot source's share of a tree that delivers one packet per cycle
// to 60 sources) marked at random with probability f, the index climbs on average only above
// f ~ 0.41 (the expected decay per mark, E[floor(60 G / 96)] with G geometric, equals 1 there):
// at 0.55 it reaches the cap, at 0.3 it stays near 0 (docs/jiang2015.md, "Why ECN's seed 4
// collapses late").
uint16_t ecn_index_after_acks(double marked, int acks) {
  std::vector<uint16_t> index{0};
  std::vector<uint32_t> timer{0}, next{0};
  EngineView v{};
  v.model.trials = 1;
  v.model.cc.ecn = true;
  v.model.cc.ecn_per_source = true;
  v.model.cc.cca_timer = 96;
  v.model.cc.cca_max_index = 127;
  v.model.cc.cca_ipd_step = 24;
  v.state.cc.ecn_index = index.data();
  v.state.cc.ecn_timer = timer.data();
  v.state.cc.ecn_next = next.data();
  std::mt19937 draw(7);
  std::bernoulli_distribution is_marked(marked);
  for (int k = 1; k <= acks; ++k) {
    const uint32_t c = 1000u + 60u * static_cast<uint32_t>(k);
    if (is_marked(draw)) ecn_notified(v, 0, 0, 5, c);
  }
  ecn_tick(v, 0, 1000u + 60u * static_cast<uint32_t>(acks));
  return index[0];
}

TEST(EcnIndex, ClimbsAboveAboutFortyOnePercentOfAcksMarkedAndFallsBelow) {
  EXPECT_GE(ecn_index_after_acks(0.55, 20000), 120) << "more than ~41% marked: at the cap (127) but for the last gap";
  EXPECT_EQ(ecn_index_after_acks(1.0, 200), 127);
  EXPECT_LE(ecn_index_after_acks(0.3, 20000), 5) << "below ~41% marked: near 0";
  EXPECT_EQ(ecn_index_after_acks(0.0, 200), 0);
}

}  // namespace
}  // namespace saturn
