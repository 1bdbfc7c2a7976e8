// Congestion-control mechanisms in the packet engine (PAPERS-SPEC M8, M22-M28): ACK timing and
// window (item 25), marking policies, bounded bypass, dynamic flows, CCA, and that every feature
// keeps the model's invariants and determinism. Santos scenario = configs/papers/santos2002.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "host/config/config_error.hpp"
#include "tests/support/run_helpers.hpp"

namespace saturn {
namespace {
using namespace saturn::test;

const std::string kFig2b = source_path("configs/papers/santos2002/fig2b.toml");

// L = 5, R = 1 flows to B_C (id 7) starting every 100 us, and the victim 6 -> 8 from `victim_ns`.
std::string santos_flows(double victim_ns, const std::string& extra = "") {
  std::string f = "traffic.flows=[";
  for (int i = 0; i < 6; ++i) f += "{src=" + std::to_string(i) + ",dst=7,start_ns=" + std::to_string(i * 100e3) + extra + "},";
  return f + "{src=6,dst=8,start_ns=" + std::to_string(victim_ns) + "}]";
}

// Item 25: one flow, idle network, window 1. A packet of S = 517 flits (2068 B in 4-byte cycles)
// goes L1 -> B -> B_C (2 links of 1 cycle, 10-cycle header delay at B); the 5-flit ACK comes back
// the same way and acts when its tail is in. Period = 2 (2 + 10) + 517 + 5 - 1 = 545 cycles, so
// the throughput is exactly 517 / 545 = 0.9486 (PAPERS-SPEC: >= 0.9; the overhead is 112 ns).
TEST(CongestionControl, WindowOneFlowOnAnIdleNetwork) {
  const StudyResult r = run_file(kFig2b, {"simulation.trials=1", "simulation.warmup_ns=1e5", "simulation.duration_ns=2180e3",
                                          "traffic.flows=[{src=0,dst=7}]"});
  EXPECT_NEAR(metric_mean(r, "flow_rate[L1->B_C]"), 517.0 / 545.0, 1e-3);
  // Every data packet is ACKed: one control packet per delivered packet (give or take the
  // packet in flight at each end of the window).
  EXPECT_NEAR(metric_mean(r, "control_packets"), metric_mean(r, "packets_delivered"), 1.0);
  EXPECT_EQ(metric_mean(r, "acks_dropped"), 0.0);
}

// A larger window hides the round trip: window 2 gives line rate.
TEST(CongestionControl, WindowTwoFillsTheLink) {
  const StudyResult r = run_file(kFig2b, {"simulation.trials=1", "simulation.warmup_ns=1e5", "simulation.duration_ns=2e6",
                                          "cc.window=2", "traffic.flows=[{src=0,dst=7}]"});
  EXPECT_GT(metric_mean(r, "flow_rate[L1->B_C]"), 0.999);
}

// Every mechanism at once (marking, window, discrete LIPD, CCA, dynamic flows, persistent state,
// bypass): the per-cycle invariants hold (packets incl. ACKs conserved, credits of both VCs within
// [0, buffer], buffers never over-full), and 1 and 2 threads give the same bits.
TEST(CongestionControl, AllMechanismsKeepInvariantsAndDeterminism) {
  const std::vector<std::string> sets = {
      "simulation.trials=3", "simulation.warmup_ns=5e5", "simulation.duration_ns=1e6",
      "simulation.check_invariants=true", "cc.marking=input_output", "cc.output_threshold=3",
      "cc.response=lipd", "cc.rates=discrete", "cc.persistent=true", "cca.enabled=true",
      "traffic.on_off_mean_ns=2e5", santos_flows(3e5, ",dynamic=true")};
  const StudyResult one = run_file(kFig2b, sets, 1);
  const StudyResult two = run_file(kFig2b, sets, 2);
  ASSERT_EQ(one.trials.size(), two.trials.size());
  for (size_t i = 0; i < one.trials.size(); ++i) {
    EXPECT_EQ(metric_of(one.trials[i], "invariant_violations"), 0.0);
    EXPECT_GT(metric_of(one.trials[i], "packets_delivered"), 100.0);
    EXPECT_GT(metric_of(one.trials[i], "marked_fraction"), 0.0);
    ASSERT_EQ(one.trials[i].metrics.size(), two.trials[i].metrics.size());
    for (size_t k = 0; k < one.trials[i].metrics.size(); ++k) {
      const double a = one.trials[i].metrics[k].value, b = two.trials[i].metrics[k].value;
      EXPECT_TRUE(a == b || (std::isnan(a) && std::isnan(b))) << one.trials[i].metrics[k].name << ": " << a << " vs " << b;
    }
  }
}

// Naive marking (M23) marks only packets sitting in a full input buffer: with the flows of Fig. 2(a)
// the buffer at B fed by A fills and packets are marked; with one flow per output nothing fills
// and nothing is marked. No source response and a window too large to matter: ACKs carry the marks back
// (marked_fraction) but no rate changes, so the network is the uncontrolled one of Fig. 2(a).
TEST(CongestionControl, NaiveMarkingNeedsAFullBuffer) {
  const std::vector<std::string> base = {"simulation.trials=1", "simulation.warmup_ns=1e6", "simulation.duration_ns=1e6",
                                         "cc.window=64", "cc.marking=naive"};
  auto with = base;
  with.push_back(santos_flows(5e5));
  auto without = base;
  without.push_back("traffic.flows=[{src=0,dst=7},{src=6,dst=8}]");
  const StudyResult full = run_file(kFig2b, with);
  const StudyResult free = run_file(kFig2b, without);
  EXPECT_GT(metric_mean(full, "marked_fraction"), 0.0);
  EXPECT_GT(metric_mean(full, "buffer_full[A->B]"), 0.0);
  EXPECT_EQ(metric_mean(free, "marked_fraction"), 0.0);
  EXPECT_EQ(metric_mean(free, "buffer_full[A->B]"), 0.0);
}

// Bounded bypass (M8): with limit 0 (strict FIFO per output) the remote flow of Fig. 2(b) gets its
// 1/6 of the root; with the paper's limit 4 the head remote packet, whose input at B is kept busy
// by the victim, is bypassed and the remote flow gets less (about 1/10; see docs/santos2002.md). Tolerances:
// 1/6 +- 0.03 and "at least 0.03 below".
TEST(CongestionControl, BypassLimitTradesRemoteShareForRootUse) {
  const std::vector<std::string> base = {"simulation.trials=1", "simulation.warmup_ns=2e6", "simulation.duration_ns=3e6",
                                         santos_flows(1e6)};
  auto strict = base;
  strict.push_back("switch.bypass_limit=0");
  const StudyResult fifo = run_file(kFig2b, strict);
  const StudyResult bypass = run_file(kFig2b, base);
  EXPECT_NEAR(metric_mean(fifo, "flow_rate[R1->B_C]"), 1.0 / 6.0, 0.03);
  EXPECT_LT(metric_mean(bypass, "flow_rate[R1->B_C]"), metric_mean(fifo, "flow_rate[R1->B_C]") - 0.03);
  EXPECT_GE(metric_mean(bypass, "link_util[B->B_C]"), metric_mean(fifo, "link_util[B->B_C]"));
}

// Output trigger (M25): on top of the input trigger, an arrival that takes an output's waiting
// packets above the threshold makes it mark its next departures. With L = 5, R = 5, window 1 and
// LIPD, a threshold of 2 marks a larger fraction of packets than the input trigger alone, and the
// root link pays for it (the paper's Fig. 4(c) effect). Threshold 0 means input only.
TEST(CongestionControl, OutputTriggerMarksMoreThanInputAlone) {
  const std::string fig3a = source_path("configs/papers/santos2002/fig3a.toml");
  const std::vector<std::string> base = {"simulation.trials=1", "simulation.warmup_ns=3e6", "simulation.duration_ns=3e6",
                                         "cc.response=lipd", "cc.marking=input_output"};
  auto input_only = base, with_output = base;
  input_only.push_back("cc.output_threshold=0");
  with_output.push_back("cc.output_threshold=2");
  const StudyResult in = run_file(fig3a, input_only);
  const StudyResult io = run_file(fig3a, with_output);
  EXPECT_GT(metric_mean(in, "marked_fraction"), 0.0);
  EXPECT_GT(metric_mean(io, "marked_fraction"), metric_mean(in, "marked_fraction"));
  EXPECT_LT(metric_mean(io, "link_util[B->B_C]"), metric_mean(in, "link_util[B->B_C]"));
}

// A dynamic flow alone is ON half of the time (equal exponential means): over a window of about
// 100 ON/OFF cycles its rate is 0.5 of what it gets when static (tolerance +-0.1, about 3 sigma).
TEST(CongestionControl, DynamicFlowIsOnHalfTheTime) {
  const StudyResult r = run_file(kFig2b, {"simulation.trials=2", "simulation.warmup_ns=1e6", "simulation.duration_ns=40e6",
                                          "cc.window=2", "traffic.on_off_mean_ns=2e5",
                                          "traffic.flows=[{src=0,dst=7,dynamic=true}]"});
  EXPECT_NEAR(metric_mean(r, "flow_rate[L1->B_C]"), 0.5, 0.1);
}

// Fig. 7 (item 38), LIPD at 2-packet buffers: the victim, marked for sharing B's input with the
// remote flows, runs at 0.4-0.6 of line rate, where the IPD grid 1/(1 + ipd) is coarsest. Rounding
// its computed rate down to the grid costs it the most, rounding to the nearest grid rate less,
// continuous rates nothing (docs/santos2002.md, Fig. 7). 1 trial, [5, 15] ms; in this run 0.148,
// 0.223 and 0.279.
TEST(CongestionControl, IpdRoundingSetsTheVictimOfFig7) {
  const auto victim = [](const char* rates) {
    const StudyResult r = run_file(source_path("configs/papers/santos2002/fig7.toml"),
                                   {"simulation.trials=1", "simulation.warmup_ns=5e6", "simulation.duration_ns=10e6",
                                    "sweep.cc.response=[\"lipd\"]", std::string("sweep.cc.rates=[\"") + rates + "\"]",
                                    "sweep.switch.buffer_bytes=[4136]"});
    return metric_mean(r, "flow_rate[A_V->B_V]");
  };
  const double down = victim("discrete"), nearest = victim("discrete_nearest"), continuous = victim("continuous");
  EXPECT_LT(down + 0.03, nearest) << "down " << down << ", nearest " << nearest;
  EXPECT_LT(nearest + 0.03, continuous) << "nearest " << nearest << ", continuous " << continuous;
}

TEST(CongestionControl, BadKeysGiveOneClearError) {
  try {
    run_file(kFig2b, {"cc.ack_vc=3"});
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("cc.ack_vc"), std::string::npos) << e.what();
  }
  try {  // 1-flit ACKs sharing the data VCs of 40,000-flit buffers: 80,000 entries per port (at most 65535)
    run_file(kFig2b, {"switch.vcs=2", "cc.ack_vc=0", "cc.ack_bytes=4", "switch.buffer_bytes=320000"});
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("switch.buffer_bytes"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("own VC"), std::string::npos) << e.what();
  }
  try {
    run_file(kFig2b, {"traffic.flows=[{src=0,dst=7,dynamic=1}]"});
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("dynamic"), std::string::npos) << e.what();
  }
  try {
    run_file(kFig2b, {"cc.marking=smart"});
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("input_output"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace saturn
