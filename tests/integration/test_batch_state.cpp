// Saved batch states (host/packet/batch_state.hpp; saturn run --save-state, --resume): a batch
// stopped part way, or killed after a periodic save, goes on from its saved cycle and gives the
// bits of the uninterrupted run: every trial's metrics and every series sample, for a fat tree
// with a warm-up and a series, finite flows whose trials end at different cycles in padded
// 16-trial packs, and LHRP on a dragonfly (the speculative protocols' state columns).
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "host/config/config.hpp"
#include "host/io/manifest.hpp"
#include "host/io/run_output.hpp"
#include "host/packet/batch_state.hpp"
#include "host/study/study.hpp"
#include "tests/support/cli_helpers.hpp"

namespace saturn {
namespace {

namespace fs = std::filesystem;
using namespace saturn::test;

const char* kFatTree = R"(
[simulation]
trials = 3
warmup_ns = 2000
duration_ns = 30000
[topology]
k = 4
n = 2
[stats]
series_interval_ns = 5000
[sweep]
traffic.load = [0.3, 0.8]
)";

struct Case {
  const char* name;
  Config config;
};

std::vector<Case> cases() {
  const std::string dir = make_temp_dir("saturn_bstate_cfg");
  write_file(dir + "/fat_tree.toml", kFatTree);
  return {
      {"fat_tree_series", load_config_file(dir + "/fat_tree.toml", {})},
      {"finite_packs", load_config_file(source_path("configs/examples/permutation_phase.toml"),
                                        {"simulation.trials=20", "sweep.routing.algorithm=[\"random\"]",
                                         "sweep.traffic.permutations=[4]", "traffic.phase_bytes=1048576"})},
      {"lhrp_dragonfly",
       load_config_file(source_path("configs/papers/jiang2015/lhrp_hotspot_60_4.toml"),
                        {"simulation.trials=3", "simulation.warmup_ns=1000", "simulation.duration_ns=8000",
                         "sweep.traffic.load=[0.9]", "topology.dragonfly_a=4", "topology.dragonfly_h=2",
                         "topology.dragonfly_g=9", "topology.dragonfly_p=2"})},
  };
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

void expect_same_metrics(const std::vector<MetricValue>& a, const std::vector<MetricValue>& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].name, b[i].name) << what;
    EXPECT_TRUE(same_bits(a[i].value, b[i].value)) << what << " " << a[i].name << ": " << a[i].value << " vs " << b[i].value;
  }
}

// The uninterrupted run's trials and series against `got`'s.
void expect_same_run(const StudyResult& want, const StudyResult& got) {
  ASSERT_EQ(want.trials.size(), got.trials.size());
  for (size_t i = 0; i < want.trials.size(); ++i) {
    const std::string what = "trial (" + std::to_string(want.trials[i].point) + ", " + std::to_string(want.trials[i].trial) + ")";
    ASSERT_EQ(want.trials[i].point, got.trials[i].point) << what;
    ASSERT_EQ(want.trials[i].trial, got.trials[i].trial) << what;
    expect_same_metrics(want.trials[i].metrics, got.trials[i].metrics, what);
  }
  ASSERT_EQ(want.series.size(), got.series.size());
  for (size_t i = 0; i < want.series.size(); ++i) {
    EXPECT_TRUE(same_bits(want.series[i].time_ns, got.series[i].time_ns));
    expect_same_metrics(want.series[i].metrics, got.series[i].metrics, "series sample " + std::to_string(i));
  }
}

size_t state_files(const std::string& dir) {
  size_t n = 0;
  if (fs::is_directory(dir))
    for (const auto& e : fs::directory_iterator(dir)) n += e.path().extension() == ".bin" ? 1 : 0;
  return n;
}

StudyOptions base_options(const std::string& state_dir) {
  StudyOptions o;
  o.threads = 2;
  o.batch_state_dir = state_dir;
  o.config_hash = "test-hash";
  return o;
}

// The cut run's finished trials (what its files keep) joined with the resumed run's.
StudyResult joined(const StudyResult& cut, const std::set<std::pair<int, int>>& done, StudyResult resumed) {
  for (const TrialResult& t : cut.trials)
    if (done.count({t.point, t.trial})) resumed.trials.push_back(t);
  for (const SeriesSample& s : cut.series)
    if (done.count({s.point, s.trial})) resumed.series.push_back(s);
  sort_results(resumed);
  return resumed;
}

std::set<std::pair<int, int>> done_of(const StudyResult& r) {
  std::set<std::pair<int, int>> done;
  for (const TrialResult& t : r.trials) done.insert({t.point, t.trial});
  for (const auto& u : r.unfinished) done.erase(u);
  return done;
}

// A run of `config` saving its states to `dir`, stopped at its first progress report (progress
// comes within a sample, each eighth of it, so the stop falls inside the first sample).
StudyResult run_stopped_at_first_report(const Config& config, const std::string& dir) {
  std::atomic<bool> stop{false};
  StudyOptions options = base_options(dir);
  options.stop = &stop;
  options.progress = [&](double) { stop = true; };
  return run_study(config, options);
}

TEST(BatchState, AStoppedBatchGoesOnFromItsSavedCycleToTheUninterruptedBits) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    StudyOptions plain;
    plain.threads = 2;
    const StudyResult full = run_study(c.config, plain);

    const std::string dir = make_temp_dir("saturn_bstate_stop");
    std::atomic<bool> stop{false};
    StudyOptions cut_options = base_options(dir);
    cut_options.stop = &stop;
    int calls = 0;  // progress comes at sample points: about 100 a part
    cut_options.progress = [&](double) {
      if (++calls == 30) stop = true;
    };
    const StudyResult cut = run_study(c.config, cut_options);
    ASSERT_TRUE(cut.partial);
    ASSERT_FALSE(cut.unfinished.empty());
    EXPECT_GE(state_files(dir), 1u);

    const std::set<std::pair<int, int>> done = done_of(cut);
    StudyOptions resume_options = base_options(dir);
    resume_options.skip = &done;
    testing::internal::CaptureStderr();
    const StudyResult resumed = run_study(c.config, resume_options);
    EXPECT_NE(testing::internal::GetCapturedStderr().find("on from saved states"), std::string::npos);
    EXPECT_FALSE(resumed.partial);
    expect_same_run(full, joined(cut, done, resumed));
    // Each run counts the cycles it simulated itself: a resumed part not those before its state.
    EXPECT_EQ(cut.simulated_cycles + resumed.simulated_cycles, full.simulated_cycles);
    fs::remove_all(dir);
  }
}

// A stop inside a sample: finite trials in padded packs, with samples of about 1,200 cycles
// advanced in eighths. The stop comes at the first progress report, an eighth into the first
// sample; the saved state keeps that sample's point, so the resumed run's sample points are the
// uninterrupted run's: the same bits, and the batch ends where it did (at the first sample point
// that sees every trial done; from a sample an eighth off it ran on to another cycle).
TEST(BatchState, AStopInsideASampleResumesToTheUninterruptedBits) {
  const Config config = load_config_file(source_path("configs/examples/permutation_phase.toml"),
                                         {"simulation.trials=20", "sweep.routing.algorithm=[\"random\"]",
                                          "sweep.traffic.permutations=[4]", "traffic.phase_bytes=65536",
                                          "simulation.sample_interval_ns=200000"});
  StudyOptions plain;
  plain.threads = 2;
  const StudyResult full = run_study(config, plain);

  const std::string dir = make_temp_dir("saturn_bstate_inside");
  const StudyResult cut = run_stopped_at_first_report(config, dir);
  ASSERT_TRUE(cut.partial);
  ASSERT_GE(state_files(dir), 1u);
  const uint32_t sample_cycles = static_cast<uint32_t>(std::llround(200000.0 / 163.84));  // 2048-byte flits at 100 Gb/s
  for (const auto& e : fs::directory_iterator(dir))
    EXPECT_LT(read_batch_state_header(e.path().string()).cycle, sample_cycles) << "stopped inside the first sample";

  const std::set<std::pair<int, int>> done = done_of(cut);
  StudyOptions resume_options = base_options(dir);
  resume_options.skip = &done;
  const StudyResult resumed = run_study(config, resume_options);
  EXPECT_FALSE(resumed.partial);
  expect_same_run(full, joined(cut, done, resumed));
  // The batch ends at the first sample point that sees every trial done: the same point.
  EXPECT_EQ(cut.simulated_cycles + resumed.simulated_cycles, full.simulated_cycles);
}

// A batch of six one-trial parts on two threads: a stop at the first sample point finds four parts
// not yet begun, and those begin nothing (no state to allocate, run or save; their trials reported
// by neither the trials nor the unfinished list), and --resume runs them with the two saved parts
// to the uninterrupted bits.
TEST(BatchState, PartsAStopFindsNotYetBegunDoNotBegin) {
  const std::string dir = make_temp_dir("saturn_bstate_unbegun");
  write_file(dir + "/six.toml", std::string(kFatTree) + "\n");
  const Config config = load_config_file(dir + "/six.toml", {"simulation.trials=6", "sweep.traffic.load=[0.5]"});
  StudyOptions plain;
  plain.threads = 2;
  const StudyResult full = run_study(config, plain);
  ASSERT_EQ(full.trials.size(), 6u);
  ASSERT_EQ(full.batches.size(), 6u) << "six one-trial parts";

  const std::string states = dir + "/states";
  const StudyResult cut = run_stopped_at_first_report(config, states);
  ASSERT_TRUE(cut.partial);
  EXPECT_GE(state_files(states), 1u);
  EXPECT_LE(state_files(states), 2u) << "only the parts running when the stop came save a state";
  EXPECT_LE(cut.trials.size(), 2u);
  EXPECT_EQ(cut.trials.size(), cut.unfinished.size()) << "a begun part's trial is unfinished; the others are absent";
  EXPECT_LE(cut.batches.size(), 2u) << "no part that did not begin is listed";

  // On one thread the saved parts go on one after the other; the progress counts the cycles both
  // saved states hold from its first report, not each part's as it begins.
  double restored_cycles = 0;
  for (const auto& e : fs::directory_iterator(states)) restored_cycles += read_batch_state_header(e.path().string()).cycle;
  const std::set<std::pair<int, int>> done = done_of(cut);
  StudyOptions resume_options = base_options(states);
  resume_options.skip = &done;
  resume_options.threads = 1;
  double first_report = -1;
  resume_options.progress = [&](double f) {
    if (first_report < 0) first_report = f;
  };
  const StudyResult resumed = run_study(config, resume_options);
  EXPECT_FALSE(resumed.partial);
  expect_same_run(full, joined(cut, done, resumed));
  EXPECT_EQ(cut.simulated_cycles + resumed.simulated_cycles, full.simulated_cycles);
  // (the work to do: the 6 trials' cycles less those of the trials the cut run finished: none)
  EXPECT_DOUBLE_EQ(first_report, restored_cycles / static_cast<double>(full.simulated_cycles));
}

// (The fat tree and the finite packs: saving a dragonfly's state at each of its 100 sample points
// would write gigabytes; its columns are saved as a stop saves them, tested above.)
TEST(BatchState, AKilledRunGoesOnFromItsLastPeriodicSave) {
  const std::vector<Case> all = cases();
  for (const Case& c : {all[0], all[1]}) {
    SCOPED_TRACE(c.name);
    StudyOptions plain;
    plain.threads = 2;
    const StudyResult full = run_study(c.config, plain);

    // Saves at every sample point; at half way the saved files are copied, as a kill then would
    // leave them. Saving changes nothing: the run that saved gives the plain run's bits.
    const std::string dir = make_temp_dir("saturn_bstate_live"), killed = make_temp_dir("saturn_bstate_killed");
    StudyOptions saving = base_options(dir);
    saving.batch_state_seconds = 1e-9;
    bool copied = false;
    int calls = 0;
    saving.progress = [&](double) {
      if (copied || ++calls < 50) return;
      for (const auto& e : fs::directory_iterator(dir))
        if (e.path().extension() == ".bin") fs::copy_file(e.path(), killed + "/" + e.path().filename().string());
      copied = state_files(killed) > 0;
    };
    expect_same_run(full, run_study(c.config, saving));
    ASSERT_TRUE(copied);

    testing::internal::CaptureStderr();
    const StudyResult resumed = run_study(c.config, base_options(killed));
    EXPECT_NE(testing::internal::GetCapturedStderr().find("on from saved states"), std::string::npos);
    expect_same_run(full, resumed);

    // A state of another config is never used.
    StudyOptions other = base_options(killed);
    other.config_hash = "another-hash";
    testing::internal::CaptureStderr();
    const StudyResult fresh = run_study(c.config, other);
    EXPECT_EQ(testing::internal::GetCapturedStderr().find("saved states"), std::string::npos);
    expect_same_run(full, fresh);
    fs::remove_all(dir);
    fs::remove_all(killed);
  }
}

// What `saturn run CFG --out OUT` leaves when stopped (SIGINT) at its 30th progress report: the
// stopped run's files, and its batch states saved under config hash `hash`.
void write_stopped_run(const Config& config, const std::string& cfg, const std::string& out, const std::string& hash) {
  fs::create_directories(out);
  std::atomic<bool> stop{false};
  StudyOptions o = base_options(out + "/batch_state");
  o.config_hash = hash;
  o.stop = &stop;
  int calls = 0;
  o.progress = [&](double) {
    if (++calls == 30) stop = true;
  };
  const StudyResult cut = run_study(config, o);
  ASSERT_TRUE(cut.partial);
  write_run_outputs(out, "", config, cut, RunContext{cfg, SATURN_BACKEND_NAME, 2, "test", {}, 0});
  ASSERT_GE(state_files(out + "/batch_state"), 1u);
}

// The CLI: a stopped run's files and states (as `saturn run` leaves them on SIGINT), then
// --resume: the files of the uninterrupted run, and no state left behind.
TEST(BatchState, ResumeUsesTheStatesAndRemovesThemOnceTheRunIsComplete) {
  const std::string root = make_temp_dir("saturn_bstate_cli");
  const std::string cfg = root + "/study.toml";
  write_file(cfg, kFatTree);
  const CliRun full = saturn_cli({"run", cfg, "--out", root + "/full", "--threads", "2", "--quiet"});
  ASSERT_EQ(full.rc, 0) << full.err;
  EXPECT_FALSE(fs::exists(root + "/full/batch_state"));

  const Config config = load_config_file(cfg, {});
  const std::string out = root + "/cut";
  ASSERT_NO_FATAL_FAILURE(write_stopped_run(config, cfg, out, config_hash(config)));

  // A state cut short: one line naming it, and the run refused.
  const std::string copy = root + "/copy";
  fs::copy(out, copy, fs::copy_options::recursive);
  for (const auto& e : fs::directory_iterator(copy + "/batch_state")) fs::resize_file(e.path(), fs::file_size(e.path()) - 9);
  const CliRun bad = saturn_cli({"run", cfg, "--out", copy, "--threads", "2", "--quiet", "--resume", "--progress", "off"});
  EXPECT_NE(bad.rc, 0);
  EXPECT_NE(bad.err.find("batch_state/state_"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("cut short"), std::string::npos) << bad.err;

  const CliRun resumed = saturn_cli({"run", cfg, "--out", out, "--threads", "2", "--quiet", "--resume"});
  ASSERT_EQ(resumed.rc, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("on from saved states"), std::string::npos) << resumed.err;
  for (const char* f : {"/trials.csv", "/summary.csv", "/series.csv"})
    EXPECT_EQ(read_file(out + f), read_file(root + "/full" + f)) << f;
  EXPECT_FALSE(fs::exists(out + "/batch_state")) << "states are removed once the run's files hold their trials";

  // A fresh run (no --resume) into a directory with states of an earlier run removes them.
  const CliRun fresh = saturn_cli({"run", cfg, "--out", copy, "--threads", "2", "--quiet", "--force"});
  ASSERT_EQ(fresh.rc, 0) << fresh.err;
  EXPECT_FALSE(fs::exists(copy + "/batch_state"));
  EXPECT_EQ(read_file(copy + "/trials.csv"), read_file(root + "/full/trials.csv"));
}

// A run stopped by an earlier build, one that lacked a key now at its default: its manifest lacks
// the key and carries that build's config_hash, and so do its saved states. --resume takes the run
// as the same one (same_run_config) and its states with it: the uninterrupted run's files. States
// of another hash than the manifest's are not taken (the batches start again, to the same bits).
TEST(BatchState, ResumeTakesTheStatesOfABuildThatLackedAKeyAtItsDefault) {
  const std::string root = make_temp_dir("saturn_bstate_older");
  const std::string cfg = root + "/study.toml";
  write_file(cfg, kFatTree);
  const CliRun full = saturn_cli({"run", cfg, "--out", root + "/full", "--threads", "2", "--quiet"});
  ASSERT_EQ(full.rc, 0) << full.err;
  const Config config = load_config_file(cfg, {});
  const std::string older_hash = "0123456789abcdef";
  const auto older_cut = [&](const std::string& out, const std::string& manifest_hash) {
    ASSERT_NO_FATAL_FAILURE(write_stopped_run(config, cfg, out, older_hash));
    nlohmann::json m = nlohmann::json::parse(read_file(out + "/manifest.json"));
    ASSERT_EQ(m["config"]["values"]["cc.ipd_steps"], 1);  // a key added 2026-12-07, at its default
    m["config"]["values"].erase("cc.ipd_steps");
    m["config_hash"] = manifest_hash;
    write_file(out + "/manifest.json", m.dump(2));
  };
  const std::string out = root + "/older";
  ASSERT_NO_FATAL_FAILURE(older_cut(out, older_hash));
  const CliRun resumed = saturn_cli({"run", cfg, "--out", out, "--threads", "2", "--quiet", "--resume"});
  ASSERT_EQ(resumed.rc, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("on from saved states"), std::string::npos) << resumed.err;
  for (const char* f : {"/trials.csv", "/summary.csv", "/series.csv"})
    EXPECT_EQ(read_file(out + f), read_file(root + "/full" + f)) << f;
  EXPECT_FALSE(fs::exists(out + "/batch_state"));

  const std::string other = root + "/other";
  ASSERT_NO_FATAL_FAILURE(older_cut(other, "fedcba9876543210"));  // the states' hash is not the manifest's
  const CliRun fresh = saturn_cli({"run", cfg, "--out", other, "--threads", "2", "--quiet", "--resume"});
  ASSERT_EQ(fresh.rc, 0) << fresh.err;
  EXPECT_EQ(fresh.err.find("on from saved states"), std::string::npos) << fresh.err;
  EXPECT_EQ(read_file(other + "/trials.csv"), read_file(root + "/full/trials.csv"));
}

}  // namespace
}  // namespace saturn
