// FIFO input queues, the separable allocator and traffic.include_self on whole runs:
//   - Karol, Hluchyj and Morgan (1987): one N x N switch with FIFO inputs, every input saturated
//     with uniform destinations over the N outputs (its own included), accepts per port what their
//     Table I gives for N = 2, 4, 8 (within 1%); VOQs accept far more;
//   - include_self sends 1/N of the traffic to the source itself (seen as traffic that stays on
//     the leaf of a 2-ary 2-tree);
//   - the phases one trial at a time and in 16-trial packs give the same bits for FIFO inputs and
//     the separable allocator, the CPU's element split runs them too, and the fused step refuses them;
//   - bad values and combinations are one error line naming the key.
#include <gtest/gtest.h>

#include <stdexcept>
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
using test::metric_names;
using test::run_toml;

// Karol et al. 1987, Table I: saturation throughput of FIFO input queueing, N = 2, 4, 8.
struct KarolCase {
  int n;
  double throughput;
};

// Packets of 8 flits (one Karol slot = 8 cycles; once every input is backlogged a grant falls only
// in a cycle where a packet ends, so the grant cycles mod 8 can only merge and the switch ends up
// running slotted, docs/model/switch.md), 8 packets of buffer per input (the
// credit loop of one packet never empties it), speedup 1 (an input sends one packet at a time), one
// send queue per NIC (packets leave in the order their destinations were drawn). 16 trials of
// 6000 slots after 1000 slots of warm-up: the standard error per point is about 0.1%.
std::vector<std::string> karol_overrides(int n, const std::string& queue) {
  return {"topology.k=" + std::to_string(n), "topology.n=1", "switch.input_queue=" + queue, "switch.speedup=1",
          "switch.buffer_bytes=131072", "endpoint.mtu_bytes=16384", "endpoint.active_queues=1",
          "traffic.message_bytes=[16384]", "traffic.load=1.0", "traffic.include_self=true", "simulation.trials=16",
          "simulation.warmup_ns=1310720", "simulation.duration_ns=7864320"};
}

TEST(InputFifo, KarolHluchyjMorganSaturationThroughput) {
  for (const KarolCase& k : {KarolCase{2, 0.7500}, KarolCase{4, 0.6553}, KarolCase{8, 0.6184}}) {
    const StudyResult r = run_toml("", karol_overrides(k.n, "fifo"));
    const double accepted = metric_mean(r, "throughput_per_node");
    EXPECT_NEAR(accepted, k.throughput, 0.01 * k.throughput) << "N = " << k.n;
    std::printf("[ karol    ] N = %d: accepted %.4f per port (Karol et al. 1987: %.4f)\n", k.n, accepted, k.throughput);
  }
}

// The same saturated switch with VOQs has no head-of-line blocking: it accepts far more than the
// FIFO limit (2 - sqrt(2) = 0.586 for large N), here over 0.9 per port for N = 8.
TEST(InputFifo, VoqsAvoidHeadOfLineBlocking) {
  const StudyResult r = run_toml("", karol_overrides(8, "voq"));
  EXPECT_GT(metric_mean(r, "throughput_per_node"), 0.9);
}

// A 2-ary 2-tree: of a leaf's two nodes' traffic, the part for the other leaf goes up. Without
// include_self that is 2 of 3 destinations; with it, 2 of 4 (the node itself and its sibling stay).
double leaf_up_traffic(bool include_self) {
  const StudyResult r =
      run_toml("", {"topology.k=2", "topology.n=2", "traffic.load=0.4", "stats.per_link=true", "simulation.trials=4",
                    "simulation.warmup_ns=20000", "simulation.duration_ns=2000000",
                    std::string("traffic.include_self=") + (include_self ? "true" : "false")});
  EXPECT_NEAR(metric_mean(r, "throughput_per_node"), 0.4, 0.02) << "self-addressed packets are delivered too";
  double up = 0;
  const std::vector<std::string> names = metric_names(r, "link_util[L1.S0->L0.");
  EXPECT_EQ(names.size(), 2u);
  for (const auto& name : names) up += metric_mean(r, name);
  return up;
}

TEST(InputFifo, IncludeSelfKeepsOneNthAtTheSource) {
  EXPECT_NEAR(leaf_up_traffic(false), 2 * 0.4 * 2.0 / 3.0, 0.05 * 2 * 0.4 * 2.0 / 3.0);
  EXPECT_NEAR(leaf_up_traffic(true), 2 * 0.4 * 2.0 / 4.0, 0.05 * 2 * 0.4 * 2.0 / 4.0);
}

Counters run_mode(const std::string& toml, int trials, CpuStep step, int threads, uint32_t cycles) {
  std::vector<TrialSpec> specs;
  for (int t = 0; t < trials; ++t) specs.push_back(TrialSpec{0, t, trial_seed(11, 0, t), 0.6 + 0.1 * (t % 4), 0.0});
  return test::run_engine(load_config_string(toml, "fifo"), "", specs, step, threads, cycles);
}

const char* const kIdentityModels[] = {
    // FIFO inputs under the greedy allocator: two VCs, packets of several sizes, switch-to-switch credits.
    "[topology]\nk = 4\nn = 2\n[switch]\ninput_queue = \"fifo\"\nvcs = 2\nbuffer_bytes = 8192\n[traffic]\n"
    "message_bytes = [256, 4096]\n[endpoint]\nmtu_bytes = 2048\n[link]\nflit_bytes = 256\n",
    // VOQs under the separable allocator, 2 iterations, round-robin outputs and VCs, speedup 2.
    "[topology]\nk = 4\nn = 2\n[switch]\nallocator = \"separable_input_first\"\nallocator_iterations = 2\n"
    "arbitration = \"round_robin\"\nvcs = 2\nvc_arbitration = \"round_robin\"\nspeedup = \"2\"\n[traffic]\n"
    "message_bytes = [512, 4096]\n[endpoint]\nmtu_bytes = 2048\n[link]\nflit_bytes = 256\n",
    // FIFO inputs under the separable allocator, 3 iterations, FCFS outputs, uniform over all nodes.
    "[topology]\nk = 2\nn = 3\n[switch]\ninput_queue = \"fifo\"\nallocator = \"separable_input_first\"\n"
    "allocator_iterations = 3\nspeedup = \"1\"\n[traffic]\ninclude_self = true\n",
};

TEST(InputFifo, ScalarPhasesAndPacksAgree) {
  for (const char* toml : kIdentityModels)  // 37 trials: two 16-trial packs and a remainder one at a time
    test::expect_steps_agree([&](CpuStep step, int threads) { return run_mode(toml, 37, step, threads, 1500); }, 2000u,
                             toml);
}

// Fewer trials than threads on a network of 32 or more switches: the CPU splits elements, one
// (switch, trial) at a time, and must run the phases there as well.
TEST(InputFifo, ElementSplitRunsThePhases) {
  const std::string toml =
      "[topology]\nk = 4\nn = 3\n[switch]\ninput_queue = \"fifo\"\nallocator = \"separable_input_first\"\n";
  ASSERT_STREQ(cpu_split_mode(1, 2, 48), "elements");
  test::expect_same_counters(run_mode(toml, 1, CpuStep::kPhases, 1, 600), run_mode(toml, 1, CpuStep::kAuto, 2, 600), "element split");
}

TEST(InputFifo, FusedStepRefusesFifoAndSeparable) {
  for (const char* set : {"input_queue = \"fifo\"", "allocator = \"separable_input_first\""}) {
    const std::string toml = std::string("[topology]\nk = 2\nn = 2\n[switch]\n") + set + "\n";
    try {
      run_mode(toml, 2, CpuStep::kFused, 1, 10);
      ADD_FAILURE() << "the fused step ran " << set;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("fused"), std::string::npos) << e.what();
    }
  }
}

// The separable allocator's input pointers (in_rr) are allocated only for it, and counted in the
// memory estimate that sizes batches.
TEST(InputFifo, InputPointersExistOnlyForTheSeparableAllocator) {
  for (const char* allocator : {"greedy", "separable_input_first"}) {
    const Config cfg = load_config_string("[topology]\nk = 2\nn = 2\n", "cols",
                                          {std::string("switch.allocator=") + allocator});
    const ModelSetup setup = build_model(cfg, "");
    std::vector<TrialSpec> specs;
    for (int t = 0; t < 3; ++t) specs.push_back(TrialSpec{0, t, trial_seed(1, 0, t), 0.5, 0.0});
    const Engine engine(build_engine_spec(setup, specs));
    const bool separable = std::string(allocator) != "greedy";
    for (const ColumnBytes& c : engine.column_bytes())
      if (c.name == "in_rr") EXPECT_EQ(c.elements, separable ? 3u * setup.topology.total_ports() : 1u) << allocator;
    if (separable)
      EXPECT_EQ(setup.bytes_per_trial(),
                build_model(load_config_string("[topology]\nk = 2\nn = 2\n", "cols"), "").bytes_per_trial() +
                    static_cast<size_t>(setup.topology.total_ports()));
  }
}

std::string config_error(const std::vector<std::string>& overrides) {
  return test::model_error([&] { return load_config_string("[topology]\nk = 2\nn = 2\n", "bad.toml", overrides); });
}

TEST(InputFifo, ConfigErrorsNameTheKey) {
  const std::string queue = config_error({"switch.input_queue=lifo"});
  EXPECT_NE(queue.find("switch.input_queue"), std::string::npos) << queue;
  EXPECT_NE(queue.find("voq"), std::string::npos) << queue;
  EXPECT_NE(queue.find("fifo"), std::string::npos) << queue;
  const std::string alloc = config_error({"switch.allocator=islip"});
  EXPECT_NE(alloc.find("switch.allocator"), std::string::npos) << alloc;
  EXPECT_NE(alloc.find("greedy"), std::string::npos) << alloc;
  EXPECT_NE(alloc.find("separable_input_first"), std::string::npos) << alloc;
  EXPECT_NE(config_error({"switch.allocator_iterations=0"}).find("switch.allocator_iterations"), std::string::npos);
  EXPECT_NE(config_error({"switch.allocator_iterations=2"}).find("separable_input_first"), std::string::npos);
  EXPECT_NE(config_error({"switch.input_queue=fifo", "cc.marking=naive"}).find("switch.input_queue"), std::string::npos);
  EXPECT_NE(config_error({"switch.allocator=separable_input_first", "stats.per_link=true"}).find("switch.allocator"),
            std::string::npos);
  EXPECT_NE(config_error({"traffic.include_self=true", "traffic.pattern=permutation"}).find("traffic.include_self"),
            std::string::npos);
  EXPECT_NE(config_error({"traffic.include_self=true", "traffic.phase_bytes=4096"}).find("traffic.include_self"),
            std::string::npos);
  EXPECT_EQ(config_error({"switch.input_queue=fifo", "switch.allocator=separable_input_first",
                          "switch.allocator_iterations=4", "traffic.include_self=true"}),
            "");
}

}  // namespace
}  // namespace saturn
