// `saturn merge DIR`: the shards of a sharded run (manifest.shard-I-of-N.json and
// trials.shard-I-of-N.csv) become the trials.csv, summary.csv and manifest.json an unsharded
// run writes. Per-trial values are stored exactly, so the merged files match it byte for byte.
#include "host/io/merge.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <stdexcept>

#include "host/config/config_error.hpp"
#include "host/io/manifest.hpp"
#include "host/io/output_dir.hpp"
#include "host/io/regular_file.hpp"
#include "host/io/trials_reader.hpp"

namespace saturn {

namespace {

[[noreturn]] void fail(const std::string& message) { throw ConfigError("merge: " + message); }

nlohmann::json read_json(const std::string& path) {
  try {
    return read_manifest_file(path);
  } catch (const ConfigError& e) {
    fail(e.what());
  }
}

// A shard's result file, before anything opens it: a FIFO would block the merge, /dev/zero never end.
void require_regular(const std::string& path) {
  try {
    require_regular_file(path, "shard file");
  } catch (const ConfigError& e) {
    fail(e.what());
  }
}

// The checksum its manifest gives the shard file `name`: every file a run writes is listed, so a
// file without one was not written by the run (or the manifest was edited) and is not merged.
void check_listed_checksum(const std::string& path, const std::string& name, const nlohmann::json& files,
                           const std::string& manifest) {
  if (!files.is_object() || !files.contains(name) || !files[name].is_object() || !files[name].contains("fnv1a64"))
    fail("'" + manifest + "' lists no checksum of " + name + " (under \"files\"): the file cannot be vouched for");
  if (file_fnv1a64(path) != files[name].value("fnv1a64", ""))
    fail("'" + path + "' does not match the checksum in its manifest (edited, cut short or from another run)");
}

// Shards of one run share the resolved config, seed included: the same config_hash, or configs
// that differ only in keys one build had not yet (same_run_config; manifests from before issue 9
// have no config_hash and are compared that way too).
void check_same_run(const nlohmann::json& first, const nlohmann::json& m, int shard) {
  const nlohmann::json& a = first.at("config");
  const nlohmann::json& b = m.at("config");
  const bool same = (first.contains("config_hash") && m.contains("config_hash") &&
                     first["config_hash"] == m["config_hash"]) ||
                    same_run_config(a, b);
  if (same) return;
  const nlohmann::json seed_a = a.at("values").value("simulation.seed", nlohmann::json());
  const nlohmann::json seed_b = b.at("values").value("simulation.seed", nlohmann::json());
  if (seed_a != seed_b)
    fail("shard " + std::to_string(shard) + " was run with another seed than shard 0 (" + seed_b.dump() + " vs " +
         seed_a.dump() + ")");
  fail("shard " + std::to_string(shard) + " was run with another config than shard 0 (config_hash " +
       m.value("config_hash", "none") + " vs " + first.value("config_hash", "none") + ")");
}

// The newest shard manifest is older than an unsharded run's manifest.json (not a merge's own):
// the directory mixes two runs and merging would overwrite the newer one.
void check_no_newer_unsharded_run(const std::string& dir, const std::map<int, std::string>& manifests) {
  namespace fs = std::filesystem;
  const std::string whole = dir + "/manifest.json";
  if (!fs::exists(whole)) return;
  nlohmann::json m;
  try {
    m = read_manifest_file(whole);
  } catch (const ConfigError&) {
    return;  // unreadable (or a FIFO, never opened): stale, replaced by the merge
  }
  if (m.contains("merged_from")) return;  // an earlier merge of these shards
  auto newest = fs::file_time_type::min();
  for (const auto& [i, path] : manifests) newest = std::max(newest, fs::last_write_time(path));
  if (fs::last_write_time(whole) >= newest)
    fail("'" + dir + "' holds both shard files and a newer unsharded run (manifest.json); merge would replace it. "
         "Move one of them elsewhere");
}

}  // namespace

MergedRun merge_shards(const std::string& dir) {
  // Find the shard manifests and how many shards the run had.
  const std::regex name(R"(manifest\.shard-(\d+)-of-(\d+)\.json)");
  std::map<int, std::string> manifests;
  int shards = 0;
  if (!std::filesystem::exists(dir)) fail("no directory '" + dir + "'");
  if (!std::filesystem::is_directory(dir)) fail("'" + dir + "' is not a directory");
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::smatch m;
    const std::string file = entry.path().filename().string();
    if (!std::regex_match(file, m, name)) continue;
    if (m[1].length() > 7 || m[2].length() > 7)  // (std::stoi would throw past int)
      fail("'" + clip_for_message(file) + "' numbers more shards than a run makes (at most 1048576)");
    const int n = std::stoi(m[2]);
    if (shards != 0 && n != shards) fail("'" + dir + "' holds shards of runs split " + std::to_string(shards) + " and " +
                                         std::to_string(n) + " ways");
    shards = n;
    manifests[std::stoi(m[1])] = entry.path().string();
  }
  if (shards == 0) fail("no manifest.shard-*-of-*.json in '" + dir + "'");
  std::string missing;
  for (int i = 0; i < shards; ++i)
    if (!manifests.count(i)) missing += (missing.empty() ? "" : ", ") + std::to_string(i);
  if (!missing.empty()) fail("shards " + missing + " of " + std::to_string(shards) + " are missing in '" + dir + "'");
  check_no_newer_unsharded_run(dir, manifests);

  MergedRun run;
  nlohmann::json shard_info = nlohmann::json::array();
  int64_t covered = 0, total = -1;
  double wall = 0;
  uint64_t cycles = 0;
  bool partial = false;
  nlohmann::json unfinished = nlohmann::json::array();
  // One shard: its manifest's fields, its rows (vouched for by the manifest's checksums, read strictly).
  const auto take_shard = [&](int i, const nlohmann::json& m) {
    if (i > 0) check_same_run(run.manifest, m, i);
    if (i == 0) {
      run.manifest = m;
      run.swept_keys = m.at("swept_keys").get<std::vector<std::string>>();
      for (const auto& p : m.at("points")) {
        PointLabel label;
        label.index = p.at("point").get<int>();
        for (const auto& key : run.swept_keys) label.swept.push_back({key, p.at("values").at(key).get<std::string>()});
        run.points.push_back(label);
      }
      total = m.at("total_trials").get<int64_t>();
    }
    const auto slice = m.at("shard_trials").get<std::vector<int64_t>>();
    if (slice.size() != 2 || slice[0] != covered || m.at("total_trials").get<int64_t>() != total)
      fail("shard " + std::to_string(i) + " does not continue the trials of shard " + std::to_string(i - 1) +
           " (were the shards run with the same config?)");
    const bool complete = manifest_complete(m);
    partial = partial || !complete;
    shard_info.push_back({{"shard", i}, {"wall_seconds", m.at("wall_seconds")}, {"partial", !complete},
                          {"simulated_cycles", m.at("simulated_cycles")},
                          {"run_host", m.value("run_host", nlohmann::json())},
                          {"build", m.value("build", nlohmann::json())}});
    for (const auto& u : m.value("unfinished_trials", nlohmann::json::array())) unfinished.push_back(u);
    wall = std::max(wall, m.at("wall_seconds").get<double>());
    cycles += m.at("simulated_cycles").get<uint64_t>();

    const std::string name = "trials" + shard_suffix(i, shards) + ".csv";
    const std::string path = dir + "/" + name;
    if (!std::filesystem::exists(path)) fail("'" + path + "' is missing (its manifest is there)");
    require_regular(path);
    check_listed_checksum(path, name, m.value("files", nlohmann::json::object()), manifests[i]);
    std::vector<TrialResult> rows = read_trials_csv(path, run.swept_keys.size());
    if (complete && static_cast<int64_t>(rows.size()) != slice[1] - slice[0])
      fail("'" + path + "' holds " + std::to_string(rows.size()) + " trials; its manifest says " +
           std::to_string(slice[1] - slice[0]));
    for (auto& r : rows) run.trials.push_back(std::move(r));
    covered = slice[1];
    const std::string series = "series" + shard_suffix(i, shards) + ".csv";
    if (std::filesystem::exists(dir + "/" + series)) {
      require_regular(dir + "/" + series);
      check_listed_checksum(dir + "/" + series, series, m.value("files", nlohmann::json::object()), manifests[i]);
    }
  };
  for (int i = 0; i < shards; ++i) {
    const nlohmann::json m = read_json(manifests[i]);
    try {
      take_shard(i, m);
    } catch (const nlohmann::json::exception& e) {  // a field of another type, or none: one line naming the file
      fail(manifest_defect(manifests[i], e));
    }
  }
  if (covered != total) fail("the shards cover " + std::to_string(covered) + " of " + std::to_string(total) + " trials");
  check_trial_order(run.trials, "merge: '" + dir + "'");

  // Time series: each shard's rows are in (point, trial, time) order and the shards are
  // consecutive slices of the trials, so concatenation keeps the order an unsharded run writes.
  for (int i = 0; i < shards; ++i) {
    const std::string path = dir + "/series" + shard_suffix(i, shards) + ".csv";
    if (!std::filesystem::exists(path)) continue;
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    if (run.series_csv.empty()) run.series_csv = line + "\n";
    while (std::getline(in, line)) run.series_csv += line + "\n";
  }

  nlohmann::json seeds = nlohmann::json::array();
  for (const auto& t : run.trials) seeds.push_back({{"point", t.point}, {"trial", t.trial}, {"seed", t.seed}});
  run.manifest["trial_seeds"] = seeds;
  run.manifest["partial"] = partial;
  run.manifest["complete"] = !partial;
  run.manifest["unfinished_trials"] = unfinished;
  run.manifest["wall_seconds"] = wall;
  run.manifest["simulated_cycles"] = cycles;
  run.manifest["shard"] = 0;
  run.manifest["shards"] = 1;
  run.manifest["shard_trials"] = {0, total};
  run.manifest["merged_from"] = shard_info;
  run.manifest.erase("batches");
  run.manifest.erase("batches_side_by_side");
  return run;
}

}  // namespace saturn
