// The staged block program (GpuStep::kSharedTrial, kernels/state/trial_stage.hpp; issue 62 item 2):
// the GPU runs it with a block per trial and the trial's state in shared memory, and the CPU runs
// the same program with one thread per trial, which these tests check on every build:
//   - every golden case under SATURN_GPU_STEP=shared gives its committed trials.csv byte for byte;
//   - the whole engine state after a run (every column, saved) is the same as the phases' on a fat
//     tree, the small dragonfly with LHRP (the speculative protocol's rows) and Santos Fig. 4b (congestion
//     control's rows), calls of a few cycles each included (the stage is copied in and out per call);
//   - a trial's stage holds every per-trial row that the memory estimate counts, no more than its
//     16-byte alignment adds.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "host/engine/engine.hpp"
#include "host/engine/model_setup.hpp"
#include "kernels/launch/engine_launch.hpp"
#include "kernels/state/trial_stage.hpp"
#include "tests/support/engine_helpers.hpp"
#include "tests/support/golden_cases.hpp"
#include "tests/support/run_helpers.hpp"
#include "tests/support/small_dragonfly.hpp"

namespace saturn {
namespace {

using namespace saturn::test;

TEST(StagedProgram, EveryGoldenCaseGivesItsCommittedResults) {
#if defined(SATURN_BACKEND_CUDA)
  GTEST_SKIP() << "cuda build: the parity tier runs the golden cases under SATURN_GPU_STEP=shared on a GPU";
#endif
  expect_golden_cases_under("SATURN_GPU_STEP=shared", "saturn_staged");
}

// `cycles` in one call, and in `calls` calls.
void expect_same_state(const std::string& toml_or_path, bool is_file, const std::vector<std::string>& overrides,
                       uint32_t cycles, int calls) {
  const Config cfg = is_file ? load_config_file(std::string(SATURN_SOURCE_DIR) + "/" + toml_or_path, overrides)
                             : load_config_string(toml_or_path, "test", overrides);
  const std::string dir = is_file ? std::string(SATURN_SOURCE_DIR) + "/" + toml_or_path.substr(0, toml_or_path.rfind('/')) : "";
  const ModelSetup setup = build_model(cfg, dir);
  const std::string phases = engine_state_after(setup, GpuStep::kAuto, 1, cycles);
  EXPECT_EQ(engine_state_after(setup, GpuStep::kSharedTrial, 1, cycles), phases) << "one call";
  EXPECT_EQ(engine_state_after(setup, GpuStep::kSharedTrial, calls, cycles / calls), phases) << calls << " calls";
}

TEST(StagedProgram, TheWholeStateIsThePhasesOnAFatTree) {
  expect_same_state("[topology]\nk = 4\nn = 2\n[traffic]\nmessage_bytes = [4096]\n", false, {}, 1500, 300);
}

TEST(StagedProgram, TheWholeStateIsThePhasesOnTheDragonflyWithLhrp) {
  expect_same_state("configs/papers/jiang2015/lhrp_hotspot_60_4.toml", true,
                    {"topology.dragonfly_p=2", "topology.dragonfly_a=4", "topology.dragonfly_h=2", "topology.dragonfly_g=9",
                     "cc.lhrp_threshold_flits=200"},
                    1500, 30);
}

TEST(StagedProgram, TheWholeStateIsThePhasesUnderSantosCongestionControl) {
  expect_same_state("configs/papers/santos2002/fig4b.toml", true, {"traffic.start_jitter_ns=0"}, 20000, 100);
}

TEST(StagedProgram, AStageHoldsEveryPerTrialRowOfTheEstimate) {
  const ModelSetup setup =
      build_model(load_config_string(kSmallDragonfly, "test", {"routing.algorithm=par", "switch.vcs=8", "cc.acks=true",
                                                               "cc.ack_vc=4", "cc.ack_bytes=100"}),
                  "");
  std::vector<TrialSpec> specs;
  for (int t = 0; t < 3; ++t) specs.push_back(TrialSpec{0, t, trial_seed(1, 0, t), 0.5, 0.0});
  Engine engine(build_engine_spec(setup, specs));
  const int64_t estimate = static_cast<int64_t>(setup.bytes_per_trial());
  const int64_t staged = engine.trial_stage_bytes();
  EXPECT_GE(staged, estimate);
  EXPECT_LT(staged, estimate + 16 * 200) << "more than the rows' alignment";
}

}  // namespace
}  // namespace saturn
