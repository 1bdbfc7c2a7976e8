// Unit tests for the ARN+AFI congestion detector (kernels/isolation/detector.hpp; PAPERS-SPEC M38,
// item 43: the 003 Fig. 3 example) on hand-set VOQ and credit traces.
#include <gtest/gtest.h>

#include "kernels/isolation/afi.hpp"
#include "kernels/isolation/detector.hpp"

namespace saturn {
namespace {

DetectorParams params(uint32_t crt) {
  DetectorParams p;  // 81 / 63 / 78 % as 003 §4.1
  p.crt_cycles = crt;
  return p;
}

TEST(IsolationDetector, ThresholdsOnThe84PacketPortMatchTheSpecInference) {
  const DetectorParams p = params(0);
  // M38 INFER: HCDTh ~ 68 of 84 (strictly above 68.04 packets), LCDTh ~ 53, FCTh ~ 66 free slots.
  EXPECT_FALSE(detector_over_hcd(68, 84, p));
  EXPECT_TRUE(detector_over_hcd(69, 84, p));
  EXPECT_TRUE(detector_below_lcd(52, 84, p));
  EXPECT_FALSE(detector_below_lcd(53, 84, p));
  EXPECT_FALSE(detector_root_credits(65, 84, p));
  EXPECT_TRUE(detector_root_credits(66, 84, p));
  // A 21-packet VC (SQS + AFC): 17 / 13 / 16 packets.
  EXPECT_FALSE(detector_over_hcd(17, 21, p));
  EXPECT_TRUE(detector_over_hcd(18, 21, p));
  EXPECT_TRUE(detector_below_lcd(13, 21, p));
  EXPECT_TRUE(detector_root_credits(17, 21, p));
  EXPECT_FALSE(detector_root_credits(16, 21, p));
}

TEST(IsolationDetector, HysteresisKeepsAVoqCountedUntilBelowLcd) {
  const DetectorParams p = params(0);
  DetectorState s;
  // Capacity 100: over above 81, released below 63.
  const uint32_t trace[] = {50, 81, 82, 90, 75, 63, 64, 62, 80, 81, 82};
  const bool counted[] = {false, false, true, true, true, true, true, false, false, false, true};
  for (int i = 0; i < 11; ++i) {
    detector_observe_voq(s, 0, trace[i], 100, p);
    EXPECT_EQ(s.over_mask != 0, counted[i]) << "step " << i << " occupancy " << trace[i];
  }
}

// 003 Fig. 3: input 0 / VOQ 3 and input 1 / VOQ 3 compete for output 3; the LC of output 3 reports
// the free credits of the next switch's VC.
struct Fig3 {
  DetectorParams p = params(100);
  DetectorState out3;
  DetectorEvent eval(uint32_t now, uint32_t voq0, uint32_t voq1, uint32_t free_next) {
    bool hcd = detector_observe_voq(out3, 0, voq0, 100, p);
    hcd = detector_observe_voq(out3, 1, voq1, 100, p) || hcd;
    return detector_step(out3, hcd, free_next, 100, now, p);
  }
};

TEST(IsolationDetector, Fig3RootDeclaredOnlyWhenTheCrtExpiresWithBothConditions) {
  Fig3 f;
  EXPECT_EQ(f.eval(0, 50, 40, 100), DetectorEvent::kNone);   // below HCDTh
  EXPECT_EQ(f.eval(10, 90, 70, 95), DetectorEvent::kNone);   // over HCDTh, free > FCTh: CRT starts
  EXPECT_EQ(f.out3.crt_start, 10u);
  EXPECT_EQ(f.eval(50, 95, 80, 90), DetectorEvent::kNone);   // still waiting
  EXPECT_EQ(f.eval(109, 95, 80, 90), DetectorEvent::kNone);  // 99 cycles: not yet
  EXPECT_EQ(f.eval(110, 95, 80, 90), DetectorEvent::kRootDeclared);
  EXPECT_TRUE(f.out3.root);
  EXPECT_EQ(f.eval(111, 95, 80, 90), DetectorEvent::kNone);  // declared once
}

TEST(IsolationDetector, Fig3BranchWhenFreeCreditsFallBelowFcthBeforeExpiry) {
  Fig3 f;
  EXPECT_EQ(f.eval(10, 90, 70, 95), DetectorEvent::kNone);
  EXPECT_EQ(f.eval(60, 90, 70, 78), DetectorEvent::kNone);  // 78 free = FCTh: a branch, CRT restarts
  EXPECT_EQ(f.out3.crt_start, kNoTimer);
  EXPECT_EQ(f.eval(110, 95, 80, 20), DetectorEvent::kNone);  // back-pressured: never a root
  EXPECT_FALSE(f.out3.root);
  EXPECT_EQ(f.eval(120, 95, 80, 90), DetectorEvent::kNone);  // a root again: the CRT starts afresh
  EXPECT_EQ(f.eval(219, 95, 80, 90), DetectorEvent::kNone);
  EXPECT_EQ(f.eval(220, 95, 80, 90), DetectorEvent::kRootDeclared);
}

TEST(IsolationDetector, Fig3ReleasedOnlyWhenEveryCountedVoqIsBelowLcd) {
  Fig3 f;
  f.eval(0, 90, 85, 95);
  ASSERT_EQ(f.eval(100, 90, 85, 95), DetectorEvent::kRootDeclared);
  EXPECT_EQ(detector_over_count(f.out3), 2);
  EXPECT_EQ(f.eval(200, 70, 85, 95), DetectorEvent::kNone);  // VOQ 0 between LCDTh and HCDTh
  EXPECT_EQ(f.eval(300, 60, 85, 95), DetectorEvent::kNone);  // VOQ 0 released, VOQ 1 still over
  EXPECT_EQ(detector_over_count(f.out3), 1);
  EXPECT_EQ(f.eval(400, 60, 70, 95), DetectorEvent::kNone);  // VOQ 1 in the band: still counted
  EXPECT_EQ(f.eval(500, 60, 62, 95), DetectorEvent::kRootReleased);
  EXPECT_FALSE(f.out3.root);
  EXPECT_EQ(f.eval(501, 60, 62, 95), DetectorEvent::kNone);
}

TEST(IsolationDetector, WithoutRestartOnlyTheExpiryMatters) {
  Fig3 f;
  f.p.restart_on_failure = false;
  f.eval(10, 90, 0, 95);
  EXPECT_EQ(f.eval(50, 60, 0, 95), DetectorEvent::kNone);  // dips below HCDTh: the timer runs on
  EXPECT_EQ(f.out3.crt_start, 10u);
  EXPECT_EQ(f.eval(110, 90, 0, 95), DetectorEvent::kRootDeclared);
  // Expiry with the condition failing: no root, and the timer stops.
  Fig3 g;
  g.p.restart_on_failure = false;
  g.eval(10, 90, 0, 95);
  EXPECT_EQ(g.eval(110, 90, 0, 10), DetectorEvent::kNone);
  EXPECT_EQ(g.out3.crt_start, kNoTimer);
}

TEST(IsolationDetector, EarlyDetectionReadingTestsFcthOnlyWhenTheCrtStarts) {
  Fig3 f;
  f.p = detector_params_for(f.p, IncastReading::kEarlyDetection);
  EXPECT_FALSE(f.p.fc_at_expiry);
  f.eval(10, 90, 0, 95);                                              // starts with free credits
  EXPECT_EQ(f.eval(60, 90, 0, 5), DetectorEvent::kNone);              // tree fills behind it
  EXPECT_EQ(f.eval(110, 90, 0, 0), DetectorEvent::kRootDeclared);     // still declared a root
  EXPECT_TRUE(detector_params_for(params(5), IncastReading::kFirstStage).fc_at_expiry);
}

TEST(IsolationDetector, ZeroCrtDeclaresAtOnce) {
  DetectorParams p = params(0);
  DetectorState s;
  EXPECT_EQ(detector_step(s, true, 90, 100, 7, p), DetectorEvent::kRootDeclared);
}

// isolation.detector_vcs: with the AFC watched (the default) the fullest VOQ toward an output may be
// the AFC's, whose credits then decide root or branch; "regular" leaves the AFC (the last VC) out.
// The hot leaf's links of the 2026-11-29 dump: 41 VC 0 packets for the neighbour, 42 in the AFC.
TEST(IsolationDetector, DetectorVcsChoosesWhetherTheAfcVoqIsWatched) {
  const uint32_t voq[] = {41, 42};  // VC 0, AFC
  const auto count = [&](int vc) { return voq[vc]; };
  int vc = -1;
  EXPECT_EQ(detector_fullest_voq(count, 2, false, &vc), 42u);
  EXPECT_EQ(vc, 1);
  EXPECT_EQ(detector_fullest_voq(count, 2, true, &vc), 41u);
  EXPECT_EQ(vc, 0);
  // Four VCs (an SQS + the AFC): the fullest regular VC, the lowest on a tie; an empty input reads 0.
  const uint32_t sqs[] = {3, 9, 9, 30};
  EXPECT_EQ(detector_fullest_voq([&](int c) { return sqs[c]; }, 4, true, &vc), 9u);
  EXPECT_EQ(vc, 1);
  EXPECT_EQ(detector_fullest_voq([&](int c) { return sqs[c]; }, 4, false, &vc), 30u);
  EXPECT_EQ(vc, 3);
  const uint32_t none[] = {0, 0};
  EXPECT_EQ(detector_fullest_voq([&](int c) { return none[c]; }, 2, true, &vc), 0u);
  EXPECT_EQ(vc, 0);
}

}  // namespace
}  // namespace saturn
