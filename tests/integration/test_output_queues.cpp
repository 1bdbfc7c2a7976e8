// Output queues (CIOQ: switch.output_queue_packets > 0, kernels/state/output_queue.hpp) on whole runs:
//   - at crossbar speedup 1 they change nothing: every counter of every trial is the one the
//     input-queued switch gives (the crossbar and the link move one flit a cycle, so a queue never
//     holds more than the packet the link is sending);
//   - at speedup 2 they lift the head-of-line limit of FIFO inputs (Karol et al.'s saturated
//     8 x 8 switch): above the input-queued switch with the same speedup, rising with the queue,
//     and with queues that never fill, the switch is work-conserving (2 (2 - sqrt 2) > 1);
//   - the phases one trial at a time, in 16-trial packs and as the default step give the same
//     bits, with per-cycle invariants (credits including queued flits, packets conserved);
//   - bad values and combinations are one error line naming the key.
// Zero-load latency with output queues: tests/integration/test_zero_load_latency.cpp; the
// dragonfly of 001, whose configs use them, in every protocol: test_step_identity.cpp, test_golden.cpp.
#include <gtest/gtest.h>

#include <numeric>
#include <string>
#include <vector>

#include "host/config/config.hpp"
#include "host/engine/engine.hpp"
#include "host/engine/model_setup.hpp"
#include "tests/support/config_errors.hpp"
#include "tests/support/engine_helpers.hpp"
#include "tests/support/run_helpers.hpp"

namespace saturn {
namespace {

using test::metric_mean;
using test::run_toml;

Counters run_mode(const std::string& toml, int trials, CpuStep step, int threads, uint32_t cycles,
                  const std::vector<std::string>& overrides = {}) {
  std::vector<TrialSpec> specs;
  for (int t = 0; t < trials; ++t) specs.push_back(TrialSpec{0, t, trial_seed(17, 0, t), 0.5 + 0.15 * (t % 4), 0.0});
  return test::run_engine(load_config_string(toml, "oq", overrides), "", specs, step, threads, cycles);
}

// Two VCs (round-robin between them), packets of 1 to 8 flits, switch-to-switch credits.
const char* const kMixedVoqs =
    "[topology]\nk = 4\nn = 2\n[switch]\nvcs = 2\nvc_arbitration = \"round_robin\"\nbuffer_bytes = 8192\n"
    "[traffic]\nmessage_bytes = [256, 1024, 4096]\n[endpoint]\nmtu_bytes = 2048\n[link]\nflit_bytes = 256\n";
// FIFO inputs, round-robin outputs, uniform over all nodes.
const char* const kFifoInputs =
    "[topology]\nk = 2\nn = 3\n[switch]\ninput_queue = \"fifo\"\narbitration = \"round_robin\"\n"
    "[traffic]\ninclude_self = true\nmessage_bytes = [2048]\n[endpoint]\nmtu_bytes = 2048\n[link]\nflit_bytes = 256\n";

TEST(OutputQueues, AtSpeedupOneTheyChangeNothing) {
  for (const char* allocator : {"greedy", "separable_input_first"})
    for (const char* toml : {kMixedVoqs, kFifoInputs}) {
      const std::string with = std::string("switch.allocator=") + allocator;
      const Counters plain = run_mode(toml, 5, CpuStep::kPhases, 1, 3000, {"switch.speedup=1", with});
      const Counters queued =
          run_mode(toml, 5, CpuStep::kPhases, 1, 3000, {"switch.speedup=1", "switch.output_queue_packets=4", with});
      EXPECT_GT(std::accumulate(plain.del_packets.begin(), plain.del_packets.end(), uint64_t{0}), 1000u) << toml;
      for (uint64_t x : queued.violations) EXPECT_EQ(x, 0u) << toml;
      test::expect_same_counters(plain, queued, std::string("output queues at speedup 1, ") + allocator + ": " + toml);
    }
}

// Karol et al.'s saturated N x N switch with FIFO inputs (test_input_fifo.cpp: 0.618 per port for
// N = 8 at speedup 1), 8-flit packets. At speedup 2 a head may cross in half a packet time.
double karol_accepted(int n, const std::string& speedup, int queue_packets, const std::string& inputs = "fifo",
                      const std::string& allocator = "greedy") {
  const StudyResult r = run_toml(
      "", {"topology.k=" + std::to_string(n), "topology.n=1", "switch.input_queue=" + inputs,
           "switch.allocator=" + allocator, "switch.speedup=" + speedup,
           "switch.output_queue_packets=" + std::to_string(queue_packets), "switch.buffer_bytes=131072",
           "endpoint.mtu_bytes=16384", "endpoint.active_queues=1", "traffic.message_bytes=[16384]", "traffic.load=1.0",
           "traffic.include_self=true", "simulation.trials=8", "simulation.warmup_ns=1310720",
           "simulation.duration_ns=6553600"});
  return metric_mean(r, "throughput_per_node");
}

TEST(OutputQueues, AtSpeedupTwoTheyLiftHeadOfLineBlocking) {
  const double input_queued = karol_accepted(8, "2", 0);  // two heads at once per input: 0.72
  const double small = karol_accepted(8, "2", 2);
  const double paper = karol_accepted(8, "2", 16);  // 001's 16 packets per VC
  // Queues that never fill: each phase of the 2x crossbar moves 2 - sqrt(2) = 0.586 of a packet per
  // output under HOL blocking, 1.17 a packet time in all, more than the link's 1: the outputs
  // never starve, and the switch accepts all it is offered (within 3% in a finite run).
  const double unbounded = karol_accepted(8, "2", 1000);
  std::printf("[ cioq     ] N = 8, speedup 2: input-queued %.4f; output queues of 2, 16, 1000 packets: %.4f %.4f %.4f\n",
              input_queued, small, paper, unbounded);
  EXPECT_GT(small, input_queued);
  EXPECT_GT(paper, small);
  EXPECT_GT(unbounded, paper);
  EXPECT_GT(unbounded, 0.97);
  EXPECT_LE(unbounded, 1.0 + 1e-9);
}

// The separable (iSLIP-like) allocator of 001's suggestion, one round, on the same saturated 8 x 8
// switch with VOQ inputs: input-queued at speedup 1 it leaves outputs idle in a cycle where two
// inputs pick the same one; behind a 2x crossbar with output queues every output is fed.
TEST(OutputQueues, SeparableAllocatorBehindATwoTimesCrossbar) {
  const double input_queued = karol_accepted(8, "1", 0, "voq", "separable_input_first");
  const double paper = karol_accepted(8, "2", 16, "voq", "separable_input_first");
  const double unbounded = karol_accepted(8, "2", 1000, "voq", "separable_input_first");
  std::printf("[ cioq     ] N = 8, VOQ inputs, separable allocator: input-queued %.4f; 2x crossbar with output queues "
              "of 16, 1000 packets: %.4f %.4f\n", input_queued, paper, unbounded);
  EXPECT_GT(paper, input_queued);
  EXPECT_GE(unbounded, paper);
  EXPECT_GT(unbounded, 0.97);
  EXPECT_LE(unbounded, 1.0 + 1e-9);
}

const char* const kIdentityModels[] = {
    kMixedVoqs,
    kFifoInputs,
    // ACKs on a VC of their own above data, FCFS, CCA-free congestion control path (cc.acks).
    "[topology]\nk = 4\nn = 2\n[switch]\nvcs = 2\nbuffer_bytes = 8192\n[cc]\nacks = true\nack_bytes = 256\nack_vc = 1\n"
    "[traffic]\nmessage_bytes = [2048, 8192]\n[endpoint]\nmtu_bytes = 2048\n[link]\nflit_bytes = 256\n",
};

TEST(OutputQueues, ScalarPhasesAndPacksAgree) {
  for (const char* toml : kIdentityModels)
    for (const char* queue : {"switch.output_queue_packets=1", "switch.output_queue_packets=3"}) {
      // The separable allocator on the first two models (the third has congestion control, which
      // it does not take: test_switch_allocation.cpp), with 2 rounds.
      const bool separable = toml != kIdentityModels[2] && queue[std::string(queue).size() - 1] == '3';
      std::vector<std::string> set = {queue, "switch.speedup=2"};
      if (separable) set.insert(set.end(), {"switch.allocator=separable_input_first", "switch.allocator_iterations=2"});
      // 37 trials: two 16-trial packs and a remainder that runs one trial at a time.
      test::expect_steps_agree([&](CpuStep step, int threads) { return run_mode(toml, 37, step, threads, 1500, set); },
                               2000u, std::string(queue) + " " + toml);
    }
}

TEST(OutputQueues, FusedStepRefusesThem) {
  try {
    run_mode("[topology]\nk = 2\nn = 2\n", 2, CpuStep::kFused, 1, 10, {"switch.output_queue_packets=16", "switch.speedup=2"});
    ADD_FAILURE() << "the fused step ran output queues";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("fused"), std::string::npos) << e.what();
  }
}

std::string config_error(const std::vector<std::string>& overrides) {
  return test::model_error([&] { return load_config_string("[topology]\nk = 2\nn = 2\n", "bad.toml", overrides); });
}

TEST(OutputQueues, ConfigErrorsNameTheKey) {
  const std::string negative = config_error({"switch.output_queue_packets=-1"});
  EXPECT_NE(negative.find("switch.output_queue_packets"), std::string::npos) << negative;
  const std::string unlimited = config_error({"switch.output_queue_packets=16", "switch.speedup=unlimited"});
  EXPECT_NE(unlimited.find("switch.speedup"), std::string::npos) << unlimited;
  const std::string bypass =
      config_error({"switch.output_queue_packets=16", "switch.speedup=2", "switch.arbitration=fifo_bypass"});
  EXPECT_NE(bypass.find("switch.arbitration"), std::string::npos) << bypass;
  EXPECT_EQ(config_error({"switch.output_queue_packets=16", "switch.speedup=2"}), "");
}

}  // namespace
}  // namespace saturn
