// Source injection schedulers (PAPERS-SPEC M30, M31, item 10; kernels/injection/*): Periodic
// Selection's exact period, per-flow rates over a long horizon for many unequal flows, no catch-up
// after a stall; SVC's per-flow shaping with aggregate bursts; both picking argmin D/r; per-flow
// IPD spacing; the window cap.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "kernels/injection/inter_packet_delay.hpp"
#include "kernels/injection/periodic_selection.hpp"
#include "kernels/injection/shaped_virtual_clock.hpp"
#include "kernels/injection/window.hpp"

namespace saturn {
namespace {

constexpr uint64_t kQ = 1u << 16;

uint64_t all(int n) { return n >= 64 ? ~0ull : (1ull << n) - 1; }

// One source (trial 0 of 1) with F queues and the columns of every scheduler.
struct Source {
  SourceQueues q;
  std::vector<uint32_t> sent, gap;
  std::vector<uint64_t> next, eligible, ps_next, ps_period;
  std::vector<uint8_t> rr;
  std::vector<uint16_t> outstanding;
  explicit Source(const std::vector<uint32_t>& gaps) : gap(gaps) {
    const int F = static_cast<int>(gaps.size());
    q.source = 0;
    q.queues = F;
    sent.assign(F, 0);
    next.assign(F, 0);
    eligible.assign(F, 0);
    ps_next.assign(1, 0);
    ps_period.assign(1, 0);
    rr.assign(1, 63);
    outstanding.assign(F, 0);
  }
  PeriodicSelectionColumns ps() { return {sent.data(), gap.data(), ps_next.data(), ps_period.data()}; }
  ShapedVirtualClockColumns svc() { return {sent.data(), gap.data(), eligible.data()}; }
  InterPacketDelayColumns ipd() { return {gap.data(), next.data(), rr.data()}; }
  WindowColumns win(int w) { return {outstanding.data(), rr.data(), w}; }
};

struct Send {
  uint32_t cycle;
  int queue;
};

// Runs PS for `sends` packets of packet_cycles cycles; the link refuses to start anything in
// [block_from, block_to).
std::vector<Send> run_ps(Source& s, int sends, uint32_t packet_cycles, uint32_t block_from = 0, uint32_t block_to = 0) {
  const PeriodicSelectionColumns c = s.ps();
  ps_set_active(c, s.q, all(s.q.queues));
  std::vector<Send> out;
  uint32_t busy_until = 0;
  for (uint32_t now = 0; static_cast<int>(out.size()) < sends; ++now) {
    if (now < busy_until || (now >= block_from && now < block_to)) continue;
    const int a = ps_pick(c, s.q, all(s.q.queues), now);
    if (a == kNoQueue) continue;
    ps_sent(c, s.q, a, now);
    out.push_back({now, a});
    busy_until = now + packet_cycles;
  }
  return out;
}

TEST(Injection, ScheduleKeepsItsFractionOnTimeAndRestartsWhenLate) {
  EXPECT_EQ(schedule_after(0, 0, 5 * kQ / 2), 5 * kQ / 2);
  EXPECT_EQ(schedule_after(5 * kQ / 2, 3, 5 * kQ / 2), 5 * kQ);     // on time at 3: next 5.0
  EXPECT_EQ(schedule_after(5 * kQ / 2, 4, 5 * kQ / 2), 13 * kQ / 2);  // late: 4 + 2.5
  EXPECT_EQ(round_robin_pick(0b1011, 63), 0);
  EXPECT_EQ(round_robin_pick(0b1011, 0), 1);
  EXPECT_EQ(round_robin_pick(0b1011, 1), 3);
  EXPECT_EQ(round_robin_pick(0b1011, 3), 0);
  EXPECT_EQ(round_robin_pick(0, 3), kNoQueue);
  EXPECT_EQ(saa_gap_q16(1.0, 1.0, 4.0), 4 * kQ);  // r = w_f / W_f = 1/4: four packet times per packet
}

// Item 10(a): with nothing blocking, the k-th send is in the first cycle at or after k * d_p / R.
// Flows at 1/4, 1/4, 1/8 (R = 5/8) of 2-cycle packets: period 3.2 cycles.
TEST(Injection, PeriodicSelectionSendsExactlyEveryPeriod) {
  Source s({8 * kQ, 8 * kQ, 16 * kQ});
  const std::vector<Send> out = run_ps(s, 500, 2);
  EXPECT_EQ(s.ps_period[0], static_cast<uint64_t>(3.2 * kQ + 0.5));
  for (size_t k = 0; k < out.size(); ++k)
    ASSERT_EQ(out[k].cycle, static_cast<uint32_t>(std::ceil(k * static_cast<double>(s.ps_period[0]) / kQ - 1e-12))) << k;
  EXPECT_EQ(s.sent[0], 200u);  // shares 2/5, 2/5, 1/5
  EXPECT_EQ(s.sent[1], 200u);
  EXPECT_EQ(s.sent[2], 100u);
}

// Item 10(b) and the rate check behind item 11: 37 flows with unequal rates (R = 0.9 of the line),
// 10^5 packets. After every send N, flow f has sent D_f with
//   D_f <= N r_f / R + 1                 (never more than one packet ahead of its rate), and
//   D_f >= N r_f / R - max(1, F r_f / R) (the argmin rule's bound: every D_f / r_f is within
//                                         1 / r_f of the least one),
// and over the horizon each flow's measured rate is its calculated r(f) within 1%.
TEST(Injection, PeriodicSelectionHoldsEveryFlowToItsRate) {
  std::mt19937 rng(2009);
  const int F = 37;
  const uint32_t packet_cycles = 1;
  std::vector<double> weight(F);
  double total = 0;
  for (double& w : weight) total += (w = 10.0 + static_cast<double>(rng() % 41));
  std::vector<double> rate(F);
  std::vector<uint32_t> gaps(F);
  for (int f = 0; f < F; ++f) {
    rate[f] = 0.9 * weight[f] / total;
    gaps[f] = gap_q16_for_rate(packet_cycles, rate[f]);
  }
  Source s(gaps);
  // The schedule's own rates (1 / gap: exact integers) for the per-send bound.
  double R = 0;
  for (uint32_t g : gaps) R += 1.0 / g;
  const std::vector<Send> out = run_ps(s, 100000, packet_cycles);
  std::vector<int> d(F, 0);
  double worst_ahead = -1e9, worst_behind = 0;
  for (size_t n = 0; n < out.size(); ++n) {
    d[out[n].queue] += 1;
    for (int f = 0; f < F; ++f) {
      const double share = (1.0 / gaps[f]) / R;
      const double dev = d[f] - static_cast<double>(n + 1) * share;
      worst_ahead = std::max(worst_ahead, dev);
      worst_behind = std::min(worst_behind, dev);
      ASSERT_LE(dev, 1.0 + 1e-9) << "flow " << f << " after " << n + 1;
      ASSERT_GE(dev, -std::max(1.0, F * share) - 1e-9) << "flow " << f << " after " << n + 1;
    }
  }
  const double horizon = out.back().cycle + 1.0;  // cycles, the period's Q16 rounding included
  for (int f = 0; f < F; ++f) EXPECT_NEAR(d[f] / horizon / rate[f], 1.0, 0.01) << "flow " << f;
  EXPECT_LE(worst_ahead, 1.0);
  RecordProperty("worst_behind_packets", std::to_string(worst_behind));
}

// Item 10(c): a stall (back-pressure) delays the next send; the one after is a full period later:
// no catch-up burst. Period 4 cycles (two flows at 1/8 of 1-cycle packets); link blocked [9, 19).
TEST(Injection, PeriodicSelectionDoesNotCatchUpAfterAStall) {
  Source s({8 * kQ, 8 * kQ});
  const std::vector<Send> out = run_ps(s, 8, 1, 9, 19);
  const std::vector<uint32_t> want = {0, 4, 8, 19, 23, 27, 31, 35};
  for (size_t k = 0; k < want.size(); ++k) EXPECT_EQ(out[k].cycle, want[k]) << k;
}

// Item 10(d, e): SVC never serves a flow ahead of d_p / r(f) per packet (cumulatively), lets the
// aggregate go back to back, and picks argmin D/r (ties lowest); PS with the same flows spreads them.
TEST(Injection, ShapedVirtualClockShapesFlowsButNotTheAggregate) {
  Source s({6 * kQ, 6 * kQ, 6 * kQ});  // three flows at 1/6 of 1-cycle packets
  const ShapedVirtualClockColumns c = s.svc();
  std::vector<Send> out;
  std::vector<uint32_t> first(3, 0);
  std::vector<int> count(3, 0);
  for (uint32_t now = 0; now < 600; ++now) {
    const int a = svc_pick(c, s.q, all(3), now);
    if (a == kNoQueue) {
      EXPECT_GT(svc_wake_q16(c, s.q, all(3)), static_cast<uint64_t>(now) << 16);
      continue;
    }
    if (count[a] == 0) first[a] = now;
    // Cumulative shaping: the k-th packet of a flow starts at least k * d_p / r after its first.
    ASSERT_GE(now, first[a] + 6u * count[a]);
    ++count[a];
    svc_sent(c, s.q, a, now);
    out.push_back({now, a});
  }
  ASSERT_GE(out.size(), 3u);
  EXPECT_EQ(out[0].cycle, 0u);  // the aggregate bursts: three packets in cycles 0, 1, 2
  EXPECT_EQ(out[1].cycle, 1u);
  EXPECT_EQ(out[2].cycle, 2u);
  EXPECT_EQ(out[0].queue, 0);  // ties go to the lowest queue
  EXPECT_EQ(out[1].queue, 1);
  EXPECT_EQ(out[2].queue, 2);
  for (int f = 0; f < 3; ++f) EXPECT_EQ(count[f], 100);
  // PS, same flows: exactly one packet every 2 cycles (R = 1/2), never back to back.
  Source p({6 * kQ, 6 * kQ, 6 * kQ});
  const std::vector<Send> ps = run_ps(p, 300, 1);
  for (size_t k = 1; k < ps.size(); ++k) ASSERT_EQ(ps[k].cycle - ps[k - 1].cycle, 2u) << k;
}

// argmin D/r with unequal rates, by hand: flow 0 at 1/2, flow 1 at 1/4 (gaps 2 and 4). Keys after
// sends: f0: 0,2,4,..; f1: 0,4,8,..: order 0, 1, 0, 0(key 4 vs 4: tie -> 0), 1, ...
TEST(Injection, BothPickTheLeastDataOverRate) {
  Source s({2 * kQ, 4 * kQ});
  const PeriodicSelectionColumns c = s.ps();
  std::vector<int> order;
  for (int k = 0; k < 6; ++k) {
    const int a = argmin_virtual_time(s.sent.data(), s.gap.data(), s.q, all(2));
    order.push_back(a);
    s.sent[a] += 1;
  }
  EXPECT_EQ(order, (std::vector<int>{0, 1, 0, 0, 1, 0}));
  (void)c;
}

// Per-flow IPD: one flow at gap 3.5 cycles starts at 0, 4, 7, 11, 14 (never before k * 3.5); held
// back by a busy link it restarts from the actual start. Two flows share the link round robin.
TEST(Injection, InterPacketDelaySpacesEachFlow) {
  Source s({7 * kQ / 2});
  const InterPacketDelayColumns c = s.ipd();
  std::vector<uint32_t> starts;
  for (uint32_t now = 0; starts.size() < 5; ++now) {
    if (ipd_pick(c, s.q, 1, now) == kNoQueue) continue;
    ipd_sent(c, s.q, 0, now);
    starts.push_back(now);
  }
  EXPECT_EQ(starts, (std::vector<uint32_t>{0, 4, 7, 11, 14}));
  // Late start at 20 (due at 17.5): the next is due at 23.5, i.e. cycle 24.
  ipd_sent(c, s.q, 0, 20);
  EXPECT_EQ(ipd_pick(c, s.q, 1, 23), kNoQueue);
  EXPECT_EQ(ipd_pick(c, s.q, 1, 24), 0);
  Source two({2 * kQ, 2 * kQ});
  const InterPacketDelayColumns c2 = two.ipd();
  std::vector<int> who;
  for (uint32_t now = 0; now < 8; ++now) {
    const int a = ipd_pick(c2, two.q, all(2), now);
    if (a == kNoQueue) continue;
    ipd_sent(c2, two.q, a, now);
    who.push_back(a);
  }
  EXPECT_EQ(who, (std::vector<int>{0, 1, 0, 1, 0, 1, 0, 1}));
}

// The window caps each flow's unacknowledged packets; an ACK opens one more.
TEST(Injection, WindowCapsOutstandingPackets) {
  Source s({kQ, kQ, kQ});
  const WindowColumns c = s.win(2);
  int sends = 0;
  for (int step = 0; step < 20; ++step) {
    const int a = window_pick(c, s.q, all(3));
    if (a == kNoQueue) break;
    window_sent(c, s.q, a);
    ++sends;
    for (uint16_t o : s.outstanding) ASSERT_LE(o, 2);
  }
  EXPECT_EQ(sends, 6);  // 3 flows x window 2, round robin
  EXPECT_EQ(window_pick(c, s.q, all(3)), kNoQueue);
  window_acked(c, s.q, 1);
  EXPECT_EQ(window_pick(c, s.q, all(3)), 1);
  window_acked(c, s.q, 1);
  window_acked(c, s.q, 1);
  window_acked(c, s.q, 1);  // stray ACK: ignored
  EXPECT_EQ(s.outstanding[1], 0);
}

}  // namespace
}  // namespace saturn
