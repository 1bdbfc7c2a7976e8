// Zero-load timing on a 4-ary 3-tree with 8-flit packets, L = 3 and R = 2 cycles.
// A packet of S flits injected (head leaves the NIC) at t0 across h switches has its tail
// received at t0 + (h+1) L + h R + (S - 1); the network latency is exactly that difference.
// Cycle = 256 B * 8 / 100 Gb/s = 20.48 ns; link.latency_ns = 2 cycles -> L = 1 + 2 = 3;
// router_delay_ns = 2 cycles -> R = 2. The same with output queues (CIOQ) at crossbar speedup 2.
#include <gtest/gtest.h>

#include <cmath>
#include <ostream>
#include <string>
#include <vector>

#include "tests/support/run_helpers.hpp"

namespace saturn {
namespace {

using test::metric_mean;
using test::run_toml;

constexpr int kK = 4, kN = 3, kL = 3, kR = 2, kS = 8;
constexpr double kCycleNs = 20.48;

const char* kBase = R"(
[simulation]
trials = 2
warmup_ns = 0
duration_ns = 1e6
[topology]
kind = "kary_ntree"
k = 4
n = 3
[link]
bandwidth_gbps = 100
flit_bytes = 256
latency_ns = 40.96
[switch]
router_delay_ns = 40.96
buffer_bytes = 16384
[endpoint]
mtu_bytes = 2048
)";

int zero_load_cycles(int h) { return (h + 1) * kL + h * kR + (kS - 1); }

// Switches crossed between endpoints a and b of a k-ary n-tree (digits most significant first):
// up to the level of the first differing digit among the leaf digits and back down.
int hops(int a, int b) {
  if (a / kK == b / kK) return 1;
  int place = 1;
  for (int i = 0; i < kN - 1; ++i) place *= kK;  // k^(n-1): weight of digit 0
  for (int level = 0; level < kN - 1; ++level, place /= kK)
    if ((a / place) % kK != (b / place) % kK) return 2 * (kN - 1 - level) + 1;
  return 1;
}

TEST(ZeroLoadLatency, HopCountHelper) {
  EXPECT_EQ(hops(0, 1), 1);
  EXPECT_EQ(hops(0, 4), 3);
  EXPECT_EQ(hops(5, 14), 3);
  EXPECT_EQ(hops(0, 16), 5);
  EXPECT_EQ(hops(63, 0), 5);
}

struct Pair {
  int src, dst, h;
};

void PrintTo(const Pair& p, std::ostream* os) { *os << p.src << "->" << p.dst << " (h=" << p.h << ")"; }

class SinglePacket : public ::testing::TestWithParam<Pair> {};

TEST_P(SinglePacket, ExactLatency) {
  const Pair p = GetParam();
  ASSERT_EQ(hops(p.src, p.dst), p.h);
  // Output queues (CIOQ, speedup 2) add nothing at zero load: the link takes a packet in the
  // cycle the crossbar starts moving it (kernels/state/output_queue.hpp).
  for (const char* queues : {"switch.output_queue_packets=0", "switch.output_queue_packets=16"})
    for (const char* routing : {"dmodk", "random"}) {
      const std::string flows = "traffic.flows=[{src=" + std::to_string(p.src) + ",dst=" + std::to_string(p.dst) +
                                ",bytes=2048}]";
      const StudyResult r = run_toml(kBase, {"traffic.pattern=flows", flows, std::string("routing.algorithm=") + routing,
                                             queues, "switch.speedup=2"});
      const double want = zero_load_cycles(p.h) * kCycleNs;
      // Exact up to floating-point rounding (1e-9 relative): one packet, no contention.
      EXPECT_NEAR(metric_mean(r, "net_latency_mean_ns"), want, 1e-9 * want) << routing << " h=" << p.h << " " << queues;
      EXPECT_EQ(metric_mean(r, "packets_delivered"), 1.0) << routing << " " << queues;
      // The flow starts at cycle 0 and its one packet leaves at once: completion = tail arrival.
      EXPECT_NEAR(metric_mean(r, "completion_time_ns"), want, 1e-9 * want) << routing << " " << queues;
    }
}

INSTANTIATE_TEST_SUITE_P(Hops, SinglePacket,
                         ::testing::Values(Pair{0, 1, 1}, Pair{7, 5, 1}, Pair{0, 4, 3}, Pair{9, 13, 3}, Pair{0, 16, 5},
                                           Pair{63, 2, 5}));

// A two-packet message to a neighbour: the second packet follows S cycles behind the first, so
// the mean packet latency is still the zero-load value and the message ends S cycles later.
TEST(ZeroLoadLatency, BackToBackPacketsPipeline) {
  const StudyResult r = run_toml(kBase, {"traffic.pattern=flows", "traffic.flows=[{src=0,dst=16,bytes=4096}]"});
  const double want = zero_load_cycles(5) * kCycleNs;
  EXPECT_NEAR(metric_mean(r, "net_latency_mean_ns"), want, 1e-9 * want);
  EXPECT_NEAR(metric_mean(r, "completion_time_ns"), want + kS * kCycleNs, 1e-9 * want);
}

// Uniform traffic at 2% load: mean latency within 5% of the mean zero-load latency over all
// src != dst pairs (uniform destinations, never self).
TEST(ZeroLoadLatency, UniformLowLoadMatchesAverageOfPairs) {
  double sum = 0;
  int pairs = 0;
  for (int a = 0; a < 64; ++a)
    for (int b = 0; b < 64; ++b)
      if (a != b) sum += zero_load_cycles(hops(a, b)), ++pairs;
  const double want = sum / pairs * kCycleNs;  // 32.14 cycles
  const StudyResult r = run_toml(kBase, {"traffic.pattern=uniform", "traffic.load=0.02", "traffic.message_bytes=[2048]",
                                         "simulation.warmup_ns=20000", "simulation.duration_ns=400000"});
  EXPECT_GT(metric_mean(r, "packets_delivered"), 500.0);
  const double got = metric_mean(r, "net_latency_mean_ns");
  // Tolerance: 5% relative (queueing at 2% load adds well under that).
  EXPECT_NEAR(got, want, 0.05 * want);
  // And it can never be below the zero-load value.
  EXPECT_GE(got, want * 0.97);
}

// traffic.pattern = "complement": endpoint s sends to 63 - s, whose top digit always differs, so
// every packet crosses a root switch (h = 5). D-mod-K routes it without two flows sharing a link:
// at a leaf the sources differ in digit 0, so their destinations (digit-wise complements) take
// distinct up ports; at the middle level they differ in digit 1 and take distinct up ports again;
// going down, every link carries one destination and the permutation gives it one source. So a
// phase of 8 packets per source ends exactly as one source's alone (pipelined, S cycles apart),
// and open-loop traffic at 90% load sees the zero-load network latency exactly (the queueing is
// at the source NIC, outside the network latency). Oblivious routing shares links: slower.
TEST(ZeroLoadLatency, ComplementCrossesTheRootWithoutContentionUnderDmodK) {
  const double one_packet = zero_load_cycles(5) * kCycleNs;
  const double phase = one_packet + 7 * kS * kCycleNs;  // 8 packets of 2048 bytes, back to back
  const StudyResult dmodk = run_toml(kBase, {"traffic.pattern=complement", "traffic.phase_bytes=16384",
                                             "routing.algorithm=dmodk", "simulation.time_limit_ns=1e6"});
  EXPECT_EQ(metric_mean(dmodk, "packets_delivered"), 64 * 8.0);
  EXPECT_NEAR(metric_mean(dmodk, "net_latency_mean_ns"), one_packet, 1e-9 * one_packet);
  EXPECT_NEAR(metric_mean(dmodk, "completion_time_ns"), phase, 1e-9 * phase);
  const StudyResult oblivious = run_toml(kBase, {"traffic.pattern=complement", "traffic.phase_bytes=16384",
                                                 "routing.algorithm=random", "simulation.time_limit_ns=1e6"});
  EXPECT_GT(metric_mean(oblivious, "completion_time_ns"), phase);
  const StudyResult loaded = run_toml(kBase, {"traffic.pattern=complement", "traffic.load=0.9",
                                              "simulation.warmup_ns=20000", "simulation.duration_ns=200000"});
  EXPECT_GT(metric_mean(loaded, "throughput_per_node"), 0.85);
  EXPECT_NEAR(metric_mean(loaded, "net_latency_mean_ns"), one_packet, 1e-9 * one_packet);
}

}  // namespace
}  // namespace saturn
