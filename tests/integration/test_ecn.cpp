// 001's InfiniBand-style ECN (Jiang, Dennison & Dally 2015 §5, Table 1; PAPERS-SPEC M22;
// cc.protocol = "ecn", kernels/cc/ib_ecn.hpp) on the 72-node dragonfly of test_lhrp.cpp
// (p = 2, a = 4, h = 2, g = 9) with 001's links, buffers, PAR and ACKs:
//   - no input VC buffer passes half full under light uniform traffic, so nothing is marked and
//     ECN is the baseline bit for bit (001: "no false notifications under uniform traffic");
//   - at a 2x over-subscribed 60:4 hot spot the marks come back on the ACKs and, with one state per
//     source, the sources' delays bring the network latency below the baseline's, each hot spot
//     still near its full ejection rate;
//   - one state per source (cc.ecn_scope = "source") reacts harder than one per pair at 15x;
//   - marking by the CIOQ output queue (cc.ecn_marking = "output_queue") marks the hot spot's
//     sources more and its victims less than marking by input VC, and leaves light traffic alone;
//   - invariants hold every cycle; bad combinations are one-line errors naming the key.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "host/config/config.hpp"
#include "host/engine/model_setup.hpp"
#include "tests/support/config_errors.hpp"
#include "tests/support/run_helpers.hpp"

namespace saturn {
namespace {

using namespace saturn::test;

const std::vector<std::string> kSmall = {"topology.dragonfly_p=2", "topology.dragonfly_a=4", "topology.dragonfly_h=2",
                                         "topology.dragonfly_g=9", "simulation.trials=1"};

StudyResult run_jiang(const char* config, const std::string& protocol, std::vector<std::string> extra, int threads = 1) {
  extra.insert(extra.begin(), kSmall.begin(), kSmall.end());
  extra.push_back("cc.protocol=\"" + protocol + "\"");
  return run_file(source_path(std::string("configs/papers/jiang2015/") + config), extra, threads);
}

double at(const StudyResult& r, int point, const char* metric) { return metric_of(r.trials[point], metric); }

TEST(Ecn, LightUniformTrafficIsNeverMarked) {
  const std::vector<std::string> run = {"simulation.warmup_ns=3000", "simulation.duration_ns=5000",
                                        "sweep.traffic.load=[0.3]"};
  const StudyResult base = run_jiang("baseline_uniform.toml", "baseline", run);
  const StudyResult ecn = run_jiang("baseline_uniform.toml", "ecn", run);
  EXPECT_EQ(at(ecn, 0, "marked_fraction"), 0.0);
  EXPECT_EQ(at(ecn, 0, "ecn_echo_fraction"), 0.0);
  for (const char* m : {"throughput_per_node", "net_latency_mean_ns", "msg_latency_p99_ns", "packets_delivered",
                        "control_packets"})
    EXPECT_EQ(at(ecn, 0, m), at(base, 0, m)) << m;
}

// 60:4 hot spot at 2x (20 us warm-up, 20 us window). With one state per source (the configs'
// cc.ecn_scope) the marks bring the network latency well below the baseline's, each hot spot still
// near its full ejection rate (measured with the configs' output queues: 37% marked, 3,087 ns
// against 6,372, 0.971 per hot spot; input-queued: 34%, 2,323 against 5,516, 0.978).
// With one per pair the marks come (65%) but the delays do not build up (5,687 ns; see below).
TEST(Ecn, MarksAtTheHotSpotLowerItsLatency) {
  const std::vector<std::string> run = {"simulation.warmup_ns=20000", "simulation.duration_ns=20000",
                                        "sweep.traffic.load=[0.133333]"};
  std::vector<std::string> source = run;
  source.push_back("cc.ecn_scope=\"source\"");
  const StudyResult base = run_jiang("baseline_hotspot_60_4.toml", "baseline", run);
  const StudyResult ecn = run_jiang("baseline_hotspot_60_4.toml", "ecn", source);
  const StudyResult pair = run_jiang("baseline_hotspot_60_4.toml", "ecn", run);
  EXPECT_GT(at(ecn, 0, "marked_fraction"), 0.1);
  EXPECT_GT(at(pair, 0, "marked_fraction"), 0.1);
  EXPECT_LT(at(ecn, 0, "net_latency_mean_ns"), 0.6 * at(base, 0, "net_latency_mean_ns"));
  EXPECT_GE(at(ecn, 0, "throughput_per_node") * 72.0 / 4.0, 0.95);
}

// 15x, 20 us + 20 us: per pair a pair's ACKs come once per 240 cycles, 2.5 timer periods, so its
// index cannot climb; one state per source hears all four destinations' ACKs. Measured on the
// input-queued switch (switch.output_queue_packets = 0): latency 8,623 against 14,546 ns, marked
// 57% against 79%. On the configs' CIOQ switch (16-packet output queues) the gap is smaller:
// 11,334 against 13,463 ns, marked 54% against 76%, the hot sources held to 0.042 against 0.056
// per node: marks are made by input-buffer occupancy, and the output queues drain the input
// buffers at the crossbar's 2 flits a cycle, so per-source indices climb less.
TEST(Ecn, OneStatePerSourceReactsHarderThanOnePerPair) {
  for (const char* queues : {"switch.output_queue_packets=0", "switch.output_queue_packets=16"}) {
    const std::vector<std::string> run = {"simulation.warmup_ns=20000", "simulation.duration_ns=20000",
                                          "sweep.traffic.load=[1.0]", queues};
    std::vector<std::string> source = run;
    source.push_back("cc.ecn_scope=\"source\"");
    const StudyResult pair = run_jiang("baseline_hotspot_60_4.toml", "ecn", run);
    const StudyResult per_source = run_jiang("baseline_hotspot_60_4.toml", "ecn", source);
    const bool input_queued = std::string(queues).back() == '0';
    EXPECT_LT(at(per_source, 0, "net_latency_mean_ns"), (input_queued ? 0.8 : 1.0) * at(pair, 0, "net_latency_mean_ns"))
        << queues;
    EXPECT_LT(at(per_source, 0, "throughput_per_node"), 0.9 * at(pair, 0, "throughput_per_node")) << queues;
  }
}

TEST(Ecn, InvariantsHoldAtFifteenTimes) {
  for (const char* scope : {"cc.ecn_scope=\"pair\"", "cc.ecn_scope=\"source\"", "cc.ecn_marking=\"output_queue\""}) {
    const StudyResult r = run_jiang("baseline_hotspot_60_4.toml", "ecn",
                                    {"simulation.warmup_ns=2000", "simulation.duration_ns=3000",
                                     "simulation.check_invariants=true", "sweep.traffic.load=[1.0]", scope});
    EXPECT_EQ(at(r, 0, "invariant_violations"), 0.0) << scope;
    EXPECT_EQ(at(r, 0, "deadlocked"), 0.0) << scope;
    EXPECT_GT(at(r, 0, "marked_fraction"), 0.0) << scope;
  }
}

std::string error_of(const char* config, std::vector<std::string> sets) {
  return test::model_error([&] { return load_config_file(source_path(std::string("configs/") + config), sets); });
}

// The echo metrics (host/engine/metrics.cpp): in the transient (Fig. 6's config, one hot spot on
// the small dragonfly, 4 hot sources at 50% to it), the hot sources' ACKs echo marks far more often
// than the victims', and the share over all sources lies between the two (an average of them
// weighted by their ACKs). Measured: hot 0.306, victims 0.0028, all 0.0092.
TEST(Ecn, HotSourcesGetTheirAcksEchoedMoreThanVictims) {
  const StudyResult r = run_jiang("transient_ecn.toml", "ecn",
                                  {"traffic.hotspot_nodes=[27]", "traffic.hotspot_start_ns=2000",
                                   "simulation.duration_ns=30000", "simulation.warmup_ns=5000"});
  const double hot = at(r, 0, "hot_ecn_echo_fraction"), victims = at(r, 0, "victim_ecn_echo_fraction");
  const double all = at(r, 0, "ecn_echo_fraction");
  EXPECT_GT(hot, 0.2);
  EXPECT_LE(hot, 1.0);
  EXPECT_LT(victims, 0.5 * hot);
  EXPECT_GE(all, victims);
  EXPECT_LE(all, hot);
}

// cc.ecn_marking = "output_queue" (000's switch watching each output port): the same transient, with
// marks made by the CIOQ output queue a packet joins. A queue fills only where its link is the
// bottleneck, here the hot node's ejection channel, so the hot sources hear more marks and the
// victims, whose input buffers the hot traffic shares on the way, far fewer. Measured: hot 0.483
// against 0.306 by input VC, victims 0.00068 against 0.00285.
TEST(Ecn, OutputQueueMarkingSparesTheVictims) {
  const std::vector<std::string> run = {"traffic.hotspot_nodes=[27]", "traffic.hotspot_start_ns=2000",
                                        "simulation.duration_ns=30000", "simulation.warmup_ns=5000"};
  std::vector<std::string> at_output = run;
  at_output.push_back("cc.ecn_marking=\"output_queue\"");
  const StudyResult input = run_jiang("transient_ecn.toml", "ecn", run);
  const StudyResult output = run_jiang("transient_ecn.toml", "ecn", at_output);
  EXPECT_GT(at(output, 0, "hot_ecn_echo_fraction"), at(input, 0, "hot_ecn_echo_fraction"));
  EXPECT_GT(at(output, 0, "victim_ecn_echo_fraction"), 0.0);
  EXPECT_LT(at(output, 0, "victim_ecn_echo_fraction"), 0.5 * at(input, 0, "victim_ecn_echo_fraction"));
}

// Marks by output queue, like every other switch state, give the same bits on 1 and 2 threads.
TEST(Ecn, OutputQueueMarkingIsTheSameOnOneAndTwoThreads) {
  const std::vector<std::string> run = {"simulation.trials=2", "simulation.warmup_ns=2000", "simulation.duration_ns=6000",
                                        "sweep.traffic.load=[0.133333]", "cc.ecn_scope=\"source\"",
                                        "cc.ecn_marking=\"output_queue\""};
  const StudyResult one = run_jiang("baseline_hotspot_60_4.toml", "ecn", run, 1);
  const StudyResult two = run_jiang("baseline_hotspot_60_4.toml", "ecn", run, 2);
  ASSERT_EQ(one.trials.size(), 2u);
  ASSERT_EQ(two.trials.size(), 2u);
  EXPECT_GT(at(one, 0, "marked_fraction"), 0.0);
  for (size_t t = 0; t < one.trials.size(); ++t)
    for (const char* m : {"marked_fraction", "ecn_echo_fraction", "net_latency_mean_ns", "packets_delivered"})
      EXPECT_EQ(metric_of(one.trials[t], m), metric_of(two.trials[t], m)) << m << " trial " << t;
}

// Light uniform traffic fills no output queue past half either: ECN is the baseline bit for bit.
TEST(Ecn, OutputQueueMarkingLeavesLightUniformTrafficAlone) {
  const std::vector<std::string> run = {"simulation.warmup_ns=3000", "simulation.duration_ns=5000",
                                        "sweep.traffic.load=[0.3]", "cc.ecn_marking=\"output_queue\""};
  const StudyResult base = run_jiang("baseline_uniform.toml", "baseline", {"simulation.warmup_ns=3000",
                                                                           "simulation.duration_ns=5000",
                                                                           "sweep.traffic.load=[0.3]"});
  const StudyResult ecn = run_jiang("baseline_uniform.toml", "ecn", run);
  EXPECT_EQ(at(ecn, 0, "marked_fraction"), 0.0);
  for (const char* m : {"throughput_per_node", "net_latency_mean_ns", "packets_delivered"})
    EXPECT_EQ(at(ecn, 0, m), at(base, 0, m)) << m;
}

TEST(Ecn, BadCombinationsNameTheirKey) {
  const char* df = "papers/jiang2015/ecn_hotspot_60_4.toml";
  EXPECT_EQ(error_of(df, {}), "");
  EXPECT_NE(error_of("default.toml", {"cc.protocol=\"ecn\"", "cc.acks=true"}).find("topology.kind"), std::string::npos);
  EXPECT_NE(error_of(df, {"cca.enabled=true"}).find("CCA"), std::string::npos);  // (the dragonfly's own check)
  EXPECT_NE(error_of(df, {"cc.acks=false", "switch.vcs=4", "cc.ack_vc=-1"}).find("cc.acks"), std::string::npos);
  EXPECT_NE(error_of(df, {"cca.threshold=1.5"}).find("cca.threshold"), std::string::npos);
  EXPECT_EQ(error_of(df, {"cc.ecn_marking=\"output_queue\""}), "");
  EXPECT_NE(error_of(df, {"cc.ecn_marking=\"output_queue\"", "switch.output_queue_packets=0"}).find("cc.ecn_marking"),
            std::string::npos);
  EXPECT_NE(error_of("papers/jiang2015/baseline_hotspot_60_4.toml", {"cc.ecn_marking=\"output_queue\""})
                .find("key 'cc.ecn_marking': does not apply to cc.protocol = \"baseline\""),
            std::string::npos);
}

}  // namespace
}  // namespace saturn
