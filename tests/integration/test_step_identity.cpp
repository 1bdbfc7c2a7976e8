// The CPU step modes give the same bits: the fused per-trial step, the phases over lanes one trial
// at a time (the GPU thread's code), and the phases over 16-trial SIMD packs. Every counter of
// every trial is compared after a run with the invariants checked in every cycle, on models that
// exercise each branch of the phases: FCFS with hashed ties, round-robin, speedup 1, VC classes
// under priority and round-robin, multi-flit packets, oblivious routing, an edge-list topology,
// input buffers of more than 64 packets, and packets of several sizes behind short-of-credit heads.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "host/config/config.hpp"
#include "host/engine/engine.hpp"
#include "host/engine/model_setup.hpp"

namespace saturn {
namespace {

Counters run_mode(const std::string& toml, int trials, CpuStep step, int threads, uint32_t cycles) {
  const Config cfg = load_config_string(toml, "identity");
  const ModelSetup setup = build_model(cfg, SATURN_SOURCE_DIR "/configs/examples");
  std::vector<TrialSpec> specs;
  for (int t = 0; t < trials; ++t) specs.push_back(TrialSpec{0, t, trial_seed(7, 0, t), 0.45 + 0.02 * (t % 5), 0.0});
  Engine engine(build_engine_spec(setup, specs));
  LaunchOptions opt;
  opt.threads = threads;
  opt.cpu_step = step;
  opt.check_invariants = true;
  engine.advance(cycles, opt);
  return engine.read_counters();
}

void expect_same(const Counters& a, const Counters& b, const std::string& what) {
  EXPECT_EQ(a.inj_packets, b.inj_packets) << what;
  EXPECT_EQ(a.inj_flits, b.inj_flits) << what;
  EXPECT_EQ(a.del_packets, b.del_packets) << what;
  EXPECT_EQ(a.del_flits, b.del_flits) << what;
  EXPECT_EQ(a.net_lat_sum, b.net_lat_sum) << what;
  EXPECT_EQ(a.msg_done, b.msg_done) << what;
  EXPECT_EQ(a.msg_lat_sum, b.msg_lat_sum) << what;
  EXPECT_EQ(a.net_hist, b.net_hist) << what;
  EXPECT_EQ(a.msg_hist, b.msg_hist) << what;
  EXPECT_EQ(a.busy_cycles, b.busy_cycles) << what;
  EXPECT_EQ(a.generated, b.generated) << what;
  EXPECT_EQ(a.refused, b.refused) << what;
}

struct Model {
  const char* name;
  const char* toml;
};

const Model kModels[] = {
    {"fcfs_one_vc", "[topology]\nk = 4\nn = 2\n[traffic]\nload = 0.5\n"},
    {"oblivious_multi_flit",
     "[topology]\nk = 4\nn = 2\n[routing]\nalgorithm = \"random\"\n[traffic]\nload = 0.8\n"
     "message_bytes = [2048, 8192]\n[endpoint]\nmtu_bytes = 4096\n[link]\nflit_bytes = 512\n"},
    {"round_robin_speedup_1",
     "[topology]\nk = 4\nn = 2\n[switch]\narbitration = \"round_robin\"\nspeedup = \"1\"\n[traffic]\nload = 0.9\n"},
    {"vc_classes_priority",
     "[topology]\nk = 2\nn = 3\n[switch]\nvcs = 2\nrouter_delay_ns = 50\n[traffic]\nload = 0.7\n"
     "message_bytes = [512, 4096]\n[endpoint]\nmtu_bytes = 2048\n[link]\nflit_bytes = 256\nlatency_ns = 100\n"},
    {"vc_classes_round_robin",
     "[topology]\nk = 2\nn = 3\n[switch]\nvcs = 3\nvc_arbitration = \"round_robin\"\n[traffic]\nload = 0.7\n"},
    // 256 entries per input (more than the old 64-slot limit) and packets of 1 and 8 flits: VOQ
    // heads short of credits with a smaller packet behind them (voq_find_fit).
    {"big_buffer_mixed_sizes",
     "[topology]\nk = 4\nn = 2\n[switch]\nbuffer_bytes = 65536\n[traffic]\nload = 0.9\n"
     "message_bytes = [256, 4096]\n[endpoint]\nmtu_bytes = 2048\n[link]\nflit_bytes = 256\n"},
    {"small_buffer_mixed_sizes_speedup_2",
     "[topology]\nk = 4\nn = 2\n[switch]\nbuffer_bytes = 4096\nspeedup = \"2\"\n[traffic]\nload = 0.9\n"
     "message_bytes = [256, 768, 4096]\n[endpoint]\nmtu_bytes = 2048\n[link]\nflit_bytes = 256\n"},
    {"edge_list_leaf_spine", "[topology]\nkind = \"file\"\nfile = \"leaf_spine.topo\"\n[routing]\nalgorithm = \"table\"\n[traffic]\nload = 0.6\n"},
};

class StepIdentity : public ::testing::TestWithParam<Model> {};

TEST_P(StepIdentity, FusedScalarPhasesAndPacksAgree) {
  const Model& model = GetParam();
  // 37 trials: two 16-trial packs and a remainder that runs one trial at a time.
  const Counters fused = run_mode(model.toml, 37, CpuStep::kFused, 1, 800);
  const Counters phases = run_mode(model.toml, 37, CpuStep::kPhases, 1, 800);
  const Counters packs = run_mode(model.toml, 37, CpuStep::kPhasesPack16, 2, 800);
  ASSERT_GT(fused.del_packets.size(), 0u);
  uint64_t delivered = 0;
  for (uint64_t d : fused.del_packets) delivered += d;
  EXPECT_GT(delivered, 1000u) << "the model must carry traffic for the comparison to mean anything";
  for (uint64_t x : fused.violations) EXPECT_EQ(x, 0u);
  for (uint64_t x : packs.violations) EXPECT_EQ(x, 0u);
  expect_same(fused, phases, std::string(model.name) + ": fused vs phases");
  expect_same(fused, packs, std::string(model.name) + ": fused vs 16-lane packs");
}

INSTANTIATE_TEST_SUITE_P(Models, StepIdentity, ::testing::ValuesIn(kModels),
                         [](const ::testing::TestParamInfo<Model>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace saturn
