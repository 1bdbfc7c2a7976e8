// Issue 9 item 4: `saturn merge` refuses what does not belong together, with one line and exit
// code 2: a missing directory, shards of another seed or config, a (point, trial) twice, a CSV cut
// mid-line (caught by its manifest's checksum, and by the reader), and shard files beside a newer
// unsharded run. Issue 65: manifests without checksums, of another shape, and special files.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "host/config/config_error.hpp"
#include "host/io/output_dir.hpp"
#include "host/io/trials_reader.hpp"
#include "tests/support/cli_helpers.hpp"

namespace saturn {
namespace {

namespace fs = std::filesystem;
using namespace saturn::test;

const char* kStudy = "[simulation]\ntrials = 4\nwarmup_ns = 0\nduration_ns = 4000\n[topology]\nk = 2\nn = 2\n";

struct Sharded {
  std::string root, cfg, dir;
};

// Shard 0 and 1 of 2 into root/parts; shard 1 with `shard1_extra` arguments.
Sharded two_shards(const std::vector<std::string>& shard1_extra = {}) {
  Sharded s;
  s.root = make_temp_dir("saturn_merge_checks");
  s.cfg = s.root + "/study.toml";
  write_file(s.cfg, kStudy);
  s.dir = s.root + "/parts";
  for (int i = 0; i < 2; ++i) {
    std::vector<std::string> args{"run", s.cfg, "--out", s.dir, "--quiet", "--shard", std::to_string(i), "--shards", "2"};
    if (i == 1) args.insert(args.end(), shard1_extra.begin(), shard1_extra.end());
    const CliRun r = saturn_cli(args);
    EXPECT_EQ(r.rc, 0) << r.err;
  }
  return s;
}

void expect_refusal(const std::string& dir, const std::string& needle) {
  const CliRun r = saturn_cli({"merge", dir, "--quiet"});
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_EQ(line_count(r.err), 1) << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << "'" << needle << "' not in: " << r.err;
  EXPECT_FALSE(fs::exists(dir + "/trials.csv")) << "a refused merge writes nothing";
}

const std::string kShard1 = "/trials.shard-001-of-002.csv";
const std::string kManifest1 = "/manifest.shard-001-of-002.json";

// Rewrites shard 1's manifest: the checksum of its (edited) trials file, or no checksums at all
// (as manifests written before checksums were).
void rewrite_manifest(const std::string& dir, bool keep_checksum) {
  nlohmann::json m = nlohmann::json::parse(read_file(dir + kManifest1));
  if (keep_checksum) m["files"]["trials.shard-001-of-002.csv"]["fnv1a64"] = file_fnv1a64(dir + kShard1);
  else m.erase("files");
  write_file(dir + kManifest1, m.dump(2));
}

TEST(MergeChecks, AMissingDirectoryIsAUsageError) {
  expect_refusal(make_temp_dir("saturn_merge_missing") + "/nothing_here", "no directory");
}

TEST(MergeChecks, RefusesShardsOfAnotherSeedOrConfig) {
  expect_refusal(two_shards({"--seed", "12"}).dir, "another seed");
  expect_refusal(two_shards({"--set", "simulation.duration_ns=5000"}).dir, "another config");
}

// A shard run by a build that had not yet a key now at its default is the same run: its manifest
// lacks the key (and so has another config_hash). A key it lacks whose value here is not the
// default still tells the runs apart.
TEST(MergeChecks, TakesAShardOfABuildThatLackedAKeyAtItsDefault) {
  const Sharded s = two_shards();
  nlohmann::json m = nlohmann::json::parse(read_file(s.dir + kManifest1));
  ASSERT_EQ(m["config"]["values"]["switch.vc_buffer"], "split");  // a key added 2026-12-04, at its default
  m["config"]["values"].erase("switch.vc_buffer");
  m["config_hash"] = "0123456789abcdef";
  write_file(s.dir + kManifest1, m.dump(2));
  const CliRun r = saturn_cli({"merge", s.dir, "--quiet"});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(fs::exists(s.dir + "/trials.csv"));

  const Sharded other = two_shards({"--set", "switch.vc_buffer=\"shared\""});
  nlohmann::json o = nlohmann::json::parse(read_file(other.dir + "/manifest.shard-000-of-002.json"));
  o["config"]["values"].erase("switch.vc_buffer");  // shard 0 lacks it; shard 1 has it at "shared"
  write_file(other.dir + "/manifest.shard-000-of-002.json", o.dump(2));
  expect_refusal(other.dir, "another config");
}

TEST(MergeChecks, RefusesATrialTwice) {
  const Sharded s = two_shards();
  // Shard 1's rows replaced by shard 0's: as many trials as its slice, but all seen before.
  write_file(s.dir + kShard1, read_file(s.dir + "/trials.shard-000-of-002.csv"));
  rewrite_manifest(s.dir, true);
  expect_refusal(s.dir, "appears twice");
}

TEST(MergeChecks, RefusesACsvCutMidLine) {
  const Sharded s = two_shards();
  const std::string text = read_file(s.dir + kShard1);
  write_file(s.dir + kShard1, text.substr(0, text.size() - 5));
  expect_refusal(s.dir, "checksum");
  // The reader catches the cut on its own too (it also reads files that have no manifest).
  try {
    read_trials_csv(s.dir + kShard1, 0);
    ADD_FAILURE() << "a CSV cut mid-line was read";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("cut mid-line"), std::string::npos) << e.what();
  }
}

// Issue 65 item 5: a manifest without checksums ("files") no longer lets an edited CSV through.
TEST(MergeChecks, RefusesAManifestWithoutChecksums) {
  const Sharded s = two_shards();
  rewrite_manifest(s.dir, false);
  expect_refusal(s.dir, "lists no checksum of trials.shard-001-of-002.csv");
  // A series file beside the shards must be vouched for as well.
  const Sharded t = two_shards();
  write_file(t.dir + "/series.shard-001-of-002.csv", "point,trial,time_ns,metric,value\n");
  expect_refusal(t.dir, "lists no checksum of series.shard-001-of-002.csv");
}

// Issue 65 item 2: a shard file that is a device or a FIFO hung the merge; it is refused unopened.
TEST(MergeChecks, RefusesSpecialFilesUnopened) {
  const Sharded s = two_shards();
  fs::remove(s.dir + kShard1);
  fs::create_symlink("/dev/zero", s.dir + kShard1);
  expect_refusal(s.dir, "not a regular file (a device or socket)");
  fs::remove(s.dir + kShard1);
  ASSERT_EQ(mkfifo((s.dir + kShard1).c_str(), 0600), 0);
  expect_refusal(s.dir, "not a regular file (a FIFO)");
  const Sharded t = two_shards();
  fs::remove(t.dir + kManifest1);
  ASSERT_EQ(mkfifo((t.dir + kManifest1).c_str(), 0600), 0);
  expect_refusal(t.dir, "merge: manifest '");
  expect_refusal(t.dir, "' is not a regular file (a FIFO)");
}

// Issue 65 item 4: a manifest of another shape gave nlohmann's raw type_error (exit 1, no file named).
TEST(MergeChecks, RefusesManifestsOfAnotherShapeNamingTheFile) {
  const Sharded s = two_shards();
  write_file(s.dir + kManifest1, "[1, 2, 3]");
  expect_refusal(s.dir, "manifest.shard-001-of-002.json' holds a JSON array");
  write_file(s.dir + kManifest1, std::string(100000, '[') + std::string(100000, ']'));
  expect_refusal(s.dir, "manifest.shard-001-of-002.json' nests JSON deeper than 64 levels");
  const Sharded t = two_shards();
  nlohmann::json m = nlohmann::json::parse(read_file(t.dir + kManifest1));
  m["total_trials"] = "four";
  write_file(t.dir + kManifest1, m.dump());
  expect_refusal(t.dir, "manifest.shard-001-of-002.json' is not a manifest of a saturn run: type must be number");
  m.erase("shard_trials");
  write_file(t.dir + kManifest1, m.dump());
  expect_refusal(t.dir, "manifest.shard-001-of-002.json' is not a manifest of a saturn run");
  write_file(t.dir + "/manifest.shard-99999999999-of-002.json", "{}");
  expect_refusal(t.dir, "numbers more shards than a run makes");
}

// The same manifest checks for --resume, which reads a stopped run's manifest.
TEST(MergeChecks, ResumeRefusesManifestsOfAnotherShape) {
  const std::string root = make_temp_dir("saturn_resume_shape");
  write_file(root + "/study.toml", kStudy);
  ASSERT_EQ(mkdir((root + "/out").c_str(), 0755), 0);
  for (const std::string& text : {std::string("[1]"), std::string(1000, '{')}) {
    write_file(root + "/out/manifest.json", text);
    const CliRun r = saturn_cli({"run", root + "/study.toml", "--out", root + "/out", "--quiet", "--resume"});
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_EQ(line_count(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("--resume: '" + root + "/out/manifest.json'"), std::string::npos) << r.err;
  }
  fs::remove(root + "/out/manifest.json");
  ASSERT_EQ(mkfifo((root + "/out/manifest.json").c_str(), 0600), 0);
  const CliRun r = saturn_cli({"run", root + "/study.toml", "--out", root + "/out", "--quiet", "--resume"});
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find("not a regular file (a FIFO)"), std::string::npos) << r.err;
}

TEST(MergeChecks, RefusesShardFilesBesideANewerUnshardedRun) {
  const Sharded s = two_shards();
  // An unsharded run would remove the shards; one copied in (or written by an older saturn) is not.
  const std::string whole = s.root + "/whole";
  ASSERT_EQ(saturn_cli({"run", s.cfg, "--out", whole, "--quiet"}).rc, 0);
  for (const char* f : {"/trials.csv", "/summary.csv", "/manifest.json"}) fs::copy_file(whole + f, s.dir + f);
  const CliRun r = saturn_cli({"merge", s.dir, "--quiet"});
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_EQ(line_count(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("newer unsharded run"), std::string::npos) << r.err;
  // The shards merge once the unsharded run is moved away, and again over their own merge.
  for (const char* f : {"/trials.csv", "/summary.csv", "/manifest.json"}) fs::remove(s.dir + f);
  ASSERT_EQ(saturn_cli({"merge", s.dir, "--quiet"}).rc, 0);
  EXPECT_EQ(read_file(s.dir + "/trials.csv"), read_file(whole + "/trials.csv"));
  const CliRun again = saturn_cli({"merge", s.dir, "--quiet"});
  EXPECT_EQ(again.rc, 0) << again.err;
  EXPECT_NE(again.err.find("checksum: trials.csv fnv1a64=" + file_fnv1a64(whole + "/trials.csv")), std::string::npos)
      << again.err;
}

}  // namespace
}  // namespace saturn
