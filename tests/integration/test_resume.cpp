// Issue 9 item 6: `saturn run --resume` keeps the finished (point, trial) pairs of an interrupted
// or partial run, runs only the rest, and writes the bytes an uninterrupted run writes; it refuses
// a run of another config or seed and files that do not match their manifest.
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "host/config/config.hpp"
#include "host/io/output_dir.hpp"
#include "host/io/run_output.hpp"
#include "host/study/study.hpp"
#include "tests/support/cli_helpers.hpp"

namespace saturn {
namespace {

using namespace saturn::test;

// 3 trials at 4 points, with a time series: every output file is exercised.
const char* kStudy = R"(
[simulation]
trials = 3
warmup_ns = 1000
duration_ns = 8000
[topology]
k = 2
n = 2
[stats]
series_interval_ns = 2000
[sweep]
traffic.load = [0.2, 0.5]
switch.arbitration = ["fcfs", "round_robin"]
)";

struct Dirs {
  std::string root, cfg, full;
};

Dirs complete_run() {
  Dirs d;
  d.root = make_temp_dir("saturn_resume");
  d.cfg = d.root + "/study.toml";
  write_file(d.cfg, kStudy);
  d.full = d.root + "/full";
  const CliRun r = saturn_cli({"run", d.cfg, "--out", d.full, "--threads", "1", "--quiet"});
  EXPECT_EQ(r.rc, 0) << r.err;
  return d;
}

// Keeps the rows of trials.csv and series.csv up to (not including) point `upto`, as a run
// stopped there would have left them, and rewrites the manifest to match.
void cut_to_points(const std::string& dir, int upto, const nlohmann::json& unfinished) {
  nlohmann::json m = nlohmann::json::parse(read_file(dir + "/manifest.json"));
  for (const char* name : {"trials.csv", "series.csv"}) {
    if (!std::filesystem::exists(dir + "/" + name)) continue;
    const std::string text = read_file(dir + "/" + name);
    std::string kept;
    size_t pos = 0;
    while (pos < text.size()) {
      const size_t nl = text.find('\n', pos);
      const std::string line = text.substr(pos, nl + 1 - pos);
      pos = nl + 1;
      if (kept.empty() || std::stoi(line) < upto) kept += line;  // the header, then rows before `upto`
    }
    write_file(dir + "/" + name, kept);
    m["files"][name]["fnv1a64"] = file_fnv1a64(dir + "/" + name);
  }
  std::filesystem::remove(dir + "/summary.csv");
  m["complete"] = false;
  m["partial"] = true;
  m["unfinished_trials"] = unfinished;
  write_file(dir + "/manifest.json", m.dump(2));
}

void copy_dir(const std::string& from, const std::string& to) {
  std::filesystem::copy(from, to, std::filesystem::copy_options::recursive);
}

TEST(Resume, KeepsFinishedTrialsRunsTheRestAndMatchesTheUninterruptedRun) {
  const Dirs d = complete_run();
  const std::string out = d.root + "/cut";
  copy_dir(d.full, out);
  // Points 0 and 1 finished except (1, 2), whose value is spoiled: it must be run again, not kept.
  cut_to_points(out, 2, nlohmann::json::array({{1, 2}}));
  std::string trials = read_file(out + "/trials.csv");
  const size_t row = trials.find("\n1,2,");
  ASSERT_NE(row, std::string::npos);
  trials.insert(trials.find(",throughput_per_node,", row) + 21, "9");
  write_file(out + "/trials.csv", trials);
  nlohmann::json m = nlohmann::json::parse(read_file(out + "/manifest.json"));
  m["files"]["trials.csv"]["fnv1a64"] = file_fnv1a64(out + "/trials.csv");
  write_file(out + "/manifest.json", m.dump(2));

  const CliRun r = saturn_cli({"run", d.cfg, "--out", out, "--threads", "2", "--quiet", "--resume"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("(5 kept from the resumed run)"), std::string::npos) << r.err;
  for (const char* f : {"/trials.csv", "/summary.csv", "/series.csv"})
    EXPECT_EQ(read_file(out + f), read_file(d.full + f)) << f;
  EXPECT_EQ(nlohmann::json::parse(read_file(out + "/manifest.json")).at("complete"), true);
}

TEST(Resume, FlowModeKeepsFinishedTrialsToo) {
  const std::string root = make_temp_dir("saturn_resume_flow");
  const std::string cfg = root + "/flow.toml";
  write_file(cfg, "[simulation]\nmode = \"flow\"\ntrials = 3\n[topology]\nk = 4\nn = 2\nhorizontal_width = 1\n"
                  "[traffic]\npattern = \"permutation\"\n[sweep]\nrouting.algorithm = [\"dmodk\", \"adaptive\"]\n");
  ASSERT_EQ(saturn_cli({"run", cfg, "--out", root + "/full", "--quiet"}).rc, 0);
  copy_dir(root + "/full", root + "/cut");
  cut_to_points(root + "/cut", 1, nlohmann::json::array());
  const CliRun r = saturn_cli({"run", cfg, "--out", root + "/cut", "--quiet", "--resume"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("(3 kept from the resumed run)"), std::string::npos) << r.err;
  EXPECT_EQ(read_file(root + "/cut/trials.csv"), read_file(root + "/full/trials.csv"));
  EXPECT_EQ(read_file(root + "/cut/summary.csv"), read_file(root + "/full/summary.csv"));
}

// saturn run --checkpoint: after each batch (at most every SECONDS) the finished trials are written
// as a stopped run's files, so that a run killed outright resumes from the last checkpoint.
TEST(Resume, ACheckpointIsAStoppedRunThatResumesToTheUninterruptedBytes) {
  const Dirs d = complete_run();
  const Config config = load_config_file(d.cfg, {});
  std::vector<StudyResult> checkpoints;
  StudyOptions options;
  options.threads = 1;
  options.checkpoint_seconds = 0;  // after every batch but the last
  options.checkpoint = [&](const StudyResult& r) { checkpoints.push_back(r); };
  const StudyResult full = run_study(config, options);
  ASSERT_GE(full.batches.size(), 2u);
  ASSERT_EQ(checkpoints.size(), full.batches.size() - 1);
  for (size_t i = 0; i < checkpoints.size(); ++i) {
    EXPECT_TRUE(checkpoints[i].partial);
    EXPECT_TRUE(checkpoints[i].unfinished.empty());
    EXPECT_LT(checkpoints[i].trials.size(), full.trials.size());
    if (i > 0) EXPECT_GT(checkpoints[i].trials.size(), checkpoints[i - 1].trials.size());
  }
  // The first checkpoint's files, as `saturn run` writes them, then killed: --resume finishes it.
  const std::string out = d.root + "/killed";
  std::filesystem::create_directories(out);
  write_run_outputs(out, "", config, checkpoints.front(), RunContext{d.cfg, SATURN_BACKEND_NAME, 1, "test", {}, 0});
  EXPECT_EQ(nlohmann::json::parse(read_file(out + "/manifest.json")).at("complete"), false);
  const CliRun r = saturn_cli({"run", d.cfg, "--out", out, "--threads", "1", "--quiet", "--resume"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("(" + std::to_string(checkpoints.front().trials.size()) + " kept from the resumed run)"),
            std::string::npos)
      << r.err;
  for (const char* f : {"/trials.csv", "/summary.csv", "/series.csv"})
    EXPECT_EQ(read_file(out + f), read_file(d.full + f)) << f;
  // Checkpoints after every batch leave the final files as they were.
  const CliRun every = saturn_cli({"run", d.cfg, "--out", d.root + "/every", "--threads", "1", "--quiet", "--checkpoint", "0"});
  ASSERT_EQ(every.rc, 0) << every.err;
  for (const char* f : {"/trials.csv", "/summary.csv", "/series.csv"})
    EXPECT_EQ(read_file(d.root + "/every" + f), read_file(d.full + f)) << f;
}

TEST(Resume, WithoutAnEarlierRunStartsFreshAndACompleteRunIsLeftAlone) {
  const Dirs d = complete_run();
  const CliRun fresh = saturn_cli({"run", d.cfg, "--out", d.root + "/fresh", "--quiet", "--resume"});
  ASSERT_EQ(fresh.rc, 0) << fresh.err;
  EXPECT_EQ(read_file(d.root + "/fresh/trials.csv"), read_file(d.full + "/trials.csv"));
  const std::string manifest = read_file(d.full + "/manifest.json");
  const CliRun again = saturn_cli({"run", d.cfg, "--out", d.full, "--quiet", "--resume"});
  ASSERT_EQ(again.rc, 0) << again.err;
  EXPECT_NE(again.err.find("nothing to resume"), std::string::npos) << again.err;
  EXPECT_NE(again.err.find("checksum: trials.csv fnv1a64="), std::string::npos) << again.err;
  EXPECT_EQ(read_file(d.full + "/manifest.json"), manifest);
}

// A partial run of a build that had not yet a key now at its default (its manifest lacks the key,
// its config_hash differs) is resumed as the same run: the files come out as an uninterrupted run's.
TEST(Resume, KeepsTheTrialsOfABuildThatLackedAKeyAtItsDefault) {
  const Dirs d = complete_run();
  // The complete run cut after point 0, its manifest as a build without switch.vc_buffer wrote it.
  const auto older_run = [&](const std::string& out) {
    copy_dir(d.full, out);
    cut_to_points(out, 1, nlohmann::json::array());
    nlohmann::json m = nlohmann::json::parse(read_file(out + "/manifest.json"));
    EXPECT_EQ(m["config"]["values"]["switch.vc_buffer"], "split");  // a key added 2026-12-04, at its default
    m["config"]["values"].erase("switch.vc_buffer");
    m["config_hash"] = "0123456789abcdef";
    write_file(out + "/manifest.json", m.dump(2));
  };
  const std::string out = d.root + "/older";
  older_run(out);
  const CliRun r = saturn_cli({"run", d.cfg, "--out", out, "--threads", "1", "--quiet", "--resume"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("kept from the resumed run"), std::string::npos) << r.err;
  EXPECT_EQ(read_file(out + "/trials.csv"), read_file(d.full + "/trials.csv"));
  // The same manifest with the key's value not the default here is another run.
  const std::string other = d.root + "/older_shared";
  older_run(other);
  const CliRun refused =
      saturn_cli({"run", d.cfg, "--out", other, "--quiet", "--resume", "--set", "switch.vc_buffer=\"shared\""});
  EXPECT_EQ(refused.rc, 2) << refused.err;
  EXPECT_NE(refused.err.find("another config or seed"), std::string::npos) << refused.err;
}

TEST(Resume, RefusesAnotherConfigOrSeedAndFilesThatDoNotMatchTheirManifest) {
  const Dirs d = complete_run();
  const std::string out = d.root + "/cut";
  copy_dir(d.full, out);
  cut_to_points(out, 1, nlohmann::json::array());
  for (const std::vector<std::string>& change :
       {std::vector<std::string>{"--seed", "77"}, std::vector<std::string>{"--set", "simulation.duration_ns=9000"}}) {
    std::vector<std::string> args{"run", d.cfg, "--out", out, "--quiet", "--resume"};
    args.insert(args.end(), change.begin(), change.end());
    const CliRun r = saturn_cli(args);
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_EQ(line_count(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("another config or seed"), std::string::npos) << r.err;
  }
  // A row cut off after the manifest was written: the checksum no longer matches.
  const std::string trials = read_file(out + "/trials.csv");
  write_file(out + "/trials.csv", trials.substr(0, trials.size() - 7));
  const CliRun cut = saturn_cli({"run", d.cfg, "--out", out, "--quiet", "--resume"});
  EXPECT_EQ(cut.rc, 2) << cut.err;
  EXPECT_EQ(line_count(cut.err), 1) << cut.err;
  EXPECT_NE(cut.err.find("checksum"), std::string::npos) << cut.err;
}

}  // namespace
}  // namespace saturn
