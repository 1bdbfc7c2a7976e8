// The invariant check (kernels/phases/invariants.hpp) must be able to fail: a saturated 8-node
// tree runs checked for a while (no violations), then one field of one trial's state is corrupted
// through the engine's view and the check is run again on the cycle just finished
// (host/engine/engine_test_access.hpp: the check runs in the library, optimized; this file includes
// no kernel header, so the indices below are written out from kernels/common/index.hpp and
// kernels/state/voq.hpp). Each corruption
// must add violations to that trial and to no other. Among them, the two that the walk's shortcut
// relies on: a VOQ holding packets whose output is not listed in in_voq_lo/hi is caught on a cycle
// without the full VOQ walk (by the sums), and a stale tail on an empty VOQ on one with it.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>

#include "host/config/config.hpp"
#include "host/engine/engine.hpp"
#include "host/engine/engine_test_access.hpp"
#include "host/engine/model_setup.hpp"
#include "tests/support/run_helpers.hpp"

namespace saturn {
namespace {

constexpr int kTrials = 2, kCorrupted = 1;

struct CheckedRun {
  ModelSetup setup;
  std::unique_ptr<Engine> engine;
};

// `cycles` cycles of the model of `cfg` (first sweep point, kTrials trials at `load`) with the
// check on every cycle; the uncorrupted run must report nothing.
CheckedRun run_checked(uint32_t cycles, const Config& cfg, const std::string& config_dir, double load) {
  CheckedRun r{build_model(cfg, config_dir), nullptr};
  std::vector<TrialSpec> specs;
  for (int t = 0; t < kTrials; ++t) specs.push_back(TrialSpec{0, t, trial_seed(3, 0, t), load, 0.0});
  r.engine = std::make_unique<Engine>(build_engine_spec(r.setup, specs));
  LaunchOptions options;
  options.check_invariants = true;
  r.engine->advance(cycles, options);
  for (uint64_t v : r.engine->read_counters().violations) EXPECT_EQ(v, 0u) << "the uncorrupted run of " << cfg.source;
  return r;
}

// A 2-ary 3-tree at load 0.9 (`extra`: more TOML).
CheckedRun run_checked(uint32_t cycles, const std::string& extra = "") {
  return run_checked(cycles, load_config_string("[topology]\nk = 2\nn = 3\n" + extra, "catches"), "", 0.9);
}

// One of Jiang et al.'s configs on test_ecn.cpp's 72-node dragonfly (p = 2, a = 4, h = 2, g = 9).
CheckedRun run_checked_dragonfly(uint32_t cycles, const char* config, std::vector<std::string> sets) {
  for (const char* s : {"topology.dragonfly_p=2", "topology.dragonfly_a=4", "topology.dragonfly_h=2", "topology.dragonfly_g=9"})
    sets.push_back(s);
  const std::string path = test::source_path(std::string("configs/papers/jiang2015/") + config);
  const Config cfg = expand_sweep(load_config_file(path, sets)).front().config;
  return run_checked(cycles, cfg, test::source_path("configs/papers/jiang2015"), cfg.get_float("traffic.load"));
}

// Runs `corrupt` on the view of a checked run, then the check of the last cycle on every trial:
// the violations it adds, per trial.
std::vector<uint64_t> violations_after_corrupting(const CheckedRun& r, const std::function<void(const EngineView&)>& corrupt) {
  const EngineView& v = r.engine->view_for_tests();
  corrupt(v);
  std::vector<uint64_t> added;
  for (int t = 0; t < kTrials; ++t) added.push_back(recheck_invariants_for_tests(*r.engine, t));
  return added;
}

std::vector<uint64_t> dragonfly_violations_after(uint32_t cycles, const char* config, const std::vector<std::string>& sets,
                                                 const std::function<void(const EngineView&)>& corrupt) {
  return violations_after_corrupting(run_checked_dragonfly(cycles, config, sets), corrupt);
}

// The state's layout: trial-minor columns (at), VOQs by (input, output, VC), in_voq_lo's bit per output.
int64_t at_trial(int64_t element, int t, int T) { return element * T + t; }
int64_t voq_of(const ModelParams& m, int gp, int o, int vc) {
  return (static_cast<int64_t>(gp) * m.max_radix + o) * m.vcs + vc;
}
constexpr uint32_t kEmptyEnd = 0xFFFFu;  // kNoEntry: a VOQ end when it is empty

// A switch-fed input of the corrupted trial with packets in its VOQs, and one of those outputs
// (every network here has radix <= 32: in_voq_lo alone lists them).
bool busy_input(const EngineView& v, int* gp, int* o) {
  EXPECT_LE(v.model.max_radix, 32);
  for (int p = 0; p < v.net.num_ports; ++p) {
    if (v.net.peer_type[p] != static_cast<uint8_t>(PeerType::kSwitch)) continue;
    const uint32_t listed = v.state.in_voq_lo[at_trial(p, kCorrupted, v.model.trials)];
    if (listed == 0) continue;
    *gp = p;
    *o = __builtin_ctz(listed);
    return true;
  }
  return false;
}

// Runs `corrupt` on the view after `cycles` checked cycles, then the check of the last cycle on
// every trial: the violations it adds, per trial.
std::vector<uint64_t> violations_after(uint32_t cycles, const std::function<void(const EngineView&)>& corrupt,
                                       const std::string& extra = "") {
  return violations_after_corrupting(run_checked(cycles, extra), corrupt);
}

void expect_only_the_corrupted_trial(const std::vector<uint64_t>& added, const char* what) {
  for (int t = 0; t < kTrials; ++t) {
    if (t == kCorrupted) EXPECT_GT(added[t], 0u) << what << ": not caught";
    else EXPECT_EQ(added[t], 0u) << what << ": reported on an untouched trial";
  }
}

class InvariantCheck : public ::testing::Test {
 protected:
  void SetUp() override {
#if defined(SATURN_BACKEND_CUDA)
    GTEST_SKIP() << "cuda build: the engine's state is device memory (the CPU build runs this test)";
#endif
  }
};

// The last cycle run: 2001 is not a full-walk cycle (2001 % 16 != 0); 2000 is one.
constexpr uint32_t kPartialWalk = 2002, kFullWalk = 2001;

TEST_F(InvariantCheck, NothingCorruptedNothingReported) {
  ASSERT_NE((kPartialWalk - 1) % invariant_full_scan_cycles(), 0u);
  ASSERT_EQ((kFullWalk - 1) % invariant_full_scan_cycles(), 0u);
  for (const uint32_t cycles : {kPartialWalk, kFullWalk})
    for (const uint64_t added : violations_after(cycles, [](const EngineView&) {})) EXPECT_EQ(added, 0u);
}

TEST_F(InvariantCheck, CatchesACreditCounterOffByOne) {
  expect_only_the_corrupted_trial(violations_after(kPartialWalk,
                                                   [](const EngineView& v) {
                                                     int gp = 0, o = 0;
                                                     ASSERT_TRUE(busy_input(v, &gp, &o));
                                                     const int up = v.net.peer[gp];
                                                     v.state.out_credits[at_trial(static_cast<int64_t>(up) * v.model.vcs, kCorrupted,
                                                                                  v.model.trials)] += 1;
                                                   }),
                                  "an upstream credit counter one too high");
}

// A shared VC buffer (kernels/state/credit_pool.hpp): two VCs, traffic on VC 1, whose books at an
// upstream output owe one flit too many (the counters derived from them still agree).
TEST_F(InvariantCheck, CatchesSharedBufferBooksOffByOne) {
  const std::string pool = "[switch]\nvcs = 2\nvc_buffer = \"shared\"\n[traffic]\nvc = 1\n";
  for (const uint64_t added : violations_after(kPartialWalk, [](const EngineView&) {}, pool)) EXPECT_EQ(added, 0u);
  expect_only_the_corrupted_trial(violations_after(kPartialWalk,
                                                   [](const EngineView& v) {
                                                     int gp = 0, o = 0;
                                                     ASSERT_TRUE(busy_input(v, &gp, &o));
                                                     const int up = v.net.peer[gp];
                                                     v.state.out_owed[at_trial(static_cast<int64_t>(up) * v.model.vcs + 1,
                                                                               kCorrupted, v.model.trials)] += 1;
                                                   },
                                                   pool),
                                  "an upstream VC's owed flits one too high");
}

TEST_F(InvariantCheck, CatchesAPacketCountedTwice) {
  expect_only_the_corrupted_trial(violations_after(kPartialWalk,
                                                   [](const EngineView& v) {
                                                     v.state.st_inj_packets[at_trial(0, kCorrupted, v.model.trials)] += 1;
                                                   }),
                                  "one injected packet too many");
}

TEST_F(InvariantCheck, CatchesPacketsInAVoqWhoseOutputIsNotListedBetweenFullWalks) {
  expect_only_the_corrupted_trial(violations_after(kPartialWalk,
                                                   [](const EngineView& v) {
                                                     int gp = 0, o = 0;
                                                     ASSERT_TRUE(busy_input(v, &gp, &o));
                                                     v.state.in_voq_lo[at_trial(gp, kCorrupted, v.model.trials)] &= ~(1u << o);
                                                   }),
                                  "a non-empty VOQ's output bit cleared");
}

TEST_F(InvariantCheck, CatchesAStaleTailOnAnEmptyVoqOnAFullWalk) {
  expect_only_the_corrupted_trial(
      violations_after(kFullWalk,
                       [](const EngineView& v) {
                         const ModelParams& m = v.model;
                         int gp = 0, o = 0;
                         ASSERT_TRUE(busy_input(v, &gp, &o));
                         const uint32_t listed = v.state.in_voq_lo[at_trial(gp, kCorrupted, m.trials)];
                         int empty = 0;
                         while ((listed >> empty) & 1u) ++empty;
                         ASSERT_LT(empty, m.max_radix) << "every output of the input is busy";
                         uint32_t& ends = v.state.voq_ends[at_trial(voq_of(m, gp, empty, 0), kCorrupted, m.trials)];
                         ASSERT_EQ(ends, kEmptyEnd | kEmptyEnd << 16) << "the VOQ should be empty";
                         ends = kEmptyEnd;  // head empty, tail entry 0
                       }),
      "an empty VOQ with a tail");
}

// 001's ECN (kernels/cc/ib_ecn.hpp) at a 2x 60:4 hot spot: an input VC's count of waiting flits,
// which decides the marks, one too high where packets wait.
TEST_F(InvariantCheck, CatchesAnEcnWaitingCountOffByOne) {
  const std::vector<std::string> ecn = {"cc.protocol=\"ecn\"", "cc.ecn_scope=\"source\"", "sweep.traffic.load=[0.133333]"};
  expect_only_the_corrupted_trial(
      dragonfly_violations_after(3000, "baseline_hotspot_60_4.toml", ecn,
                                 [](const EngineView& v) {
                                   int gp = 0, o = 0;
                                   ASSERT_TRUE(busy_input(v, &gp, &o));
                                   v.state.cc.ecn_waiting[at_trial(static_cast<int64_t>(gp) * v.model.vcs, kCorrupted,
                                                                   v.model.trials)] += 1;
                                 }),
      "an input VC's ECN count one too high");
}

// LHRP (kernels/reservation/lhrp_engine.hpp) at a 2x 60:4 hot spot: an endpoint port's last-hop
// queue, which decides the drops, one flit too long.
TEST_F(InvariantCheck, CatchesALastHopQueueOffByOne) {
  const std::vector<std::string> lhrp = {"cc.protocol=\"lhrp\"", "sweep.traffic.load=[0.133333]"};
  expect_only_the_corrupted_trial(
      dragonfly_violations_after(3000, "baseline_hotspot_60_4.toml", lhrp,
                                 [](const EngineView& v) {
                                   int ep_port = -1;
                                   for (int p = 0; p < v.net.num_ports && ep_port < 0; ++p)
                                     if (v.net.peer_type[p] == static_cast<uint8_t>(PeerType::kEndpoint)) ep_port = p;
                                   ASSERT_GE(ep_port, 0);
                                   v.state.cc.lh_queued[at_trial(ep_port, kCorrupted, v.model.trials)] += 1;
                                 }),
      "an endpoint port's last-hop queue one flit too long");
}

}  // namespace
}  // namespace saturn
