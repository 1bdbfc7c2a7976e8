// Loading a previous run for --resume: the config hash must match, every file must match the
// checksum in its manifest, and the trials the manifest marks unfinished are dropped.
#include "host/io/resume.hpp"

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "host/config/config_error.hpp"
#include "host/io/manifest.hpp"
#include "host/io/output_dir.hpp"
#include "host/io/regular_file.hpp"
#include "host/io/trials_reader.hpp"

namespace saturn {

namespace {

[[noreturn]] void fail(const std::string& message) { throw ConfigError("--resume: " + message); }

// The file named `name` in DIR, checked against the manifest's checksum of it.
std::string checked_file(const std::string& dir, const std::string& name, const nlohmann::json& files) {
  const std::string path = dir + "/" + name;
  if (!files.is_object() || !files.contains(name)) fail(path + " is not listed in its manifest; run without --resume to start over");
  if (!std::filesystem::exists(path)) fail(path + " is missing; run without --resume to start over");
  if (is_special_file(path)) fail(path + " is not a regular file; run without --resume to start over");
  const std::string want = files[name].value("fnv1a64", "");
  if (file_fnv1a64(path) != want)
    fail(path + " does not match the checksum in its manifest (edited or cut short?); run without --resume to start over");
  return path;
}

// The run the manifest m describes: its config (the same hash, or the same run by
// same_run_config: a run of a build that lacked a key now at its default), and the finished
// trials of its files.
void read_run(const std::string& dir, const std::string& suffix, const Config& config, size_t swept,
              const nlohmann::json& m, ResumeState& state) {
  const std::string had = m.value("config_hash", "");
  const std::string config_hash = saturn::config_hash(config);
  if (had != config_hash && !(m.contains("config") && same_run_config(m["config"], config.to_json())))
    fail(state.manifest_path + " is from another config or seed (config_hash " + (had.empty() ? "none" : had) +
         ", this run " + config_hash + "); run without --resume (and with --force) to replace it");
  if (had != config_hash) state.earlier_hash = had;
  state.complete = manifest_complete(m);
  if (state.complete) return;

  const nlohmann::json files = m.value("files", nlohmann::json::object());
  std::set<std::pair<int, int>> unfinished;
  for (const auto& u : m.value("unfinished_trials", nlohmann::json::array()))
    unfinished.insert({u.at(0).get<int>(), u.at(1).get<int>()});
  for (TrialResult& t : read_trials_csv(checked_file(dir, "trials" + suffix + ".csv", files), swept)) {
    if (unfinished.count({t.point, t.trial})) continue;
    state.done.insert({t.point, t.trial});
    state.trials.push_back(std::move(t));
  }
  const std::string series = "series" + suffix + ".csv";
  if (files.contains(series))
    for (SeriesSample& s : read_series_csv(checked_file(dir, series, files), swept))
      if (state.done.count({s.point, s.trial})) state.series.push_back(std::move(s));
}

}  // namespace

ResumeState load_resume(const std::string& dir, const std::string& suffix, const Config& config, size_t swept) {
  ResumeState state;
  state.manifest_path = dir + "/manifest" + suffix + ".json";
  if (!std::filesystem::exists(state.manifest_path)) return state;
  nlohmann::json m;
  try {
    m = read_manifest_file(state.manifest_path);
  } catch (const ConfigError& e) {
    fail(std::string(e.what()) + "; run without --resume to start over");
  }
  state.found = true;
  try {
    read_run(dir, suffix, config, swept, m, state);
  } catch (const nlohmann::json::exception& e) {  // a field of another type: one line naming the file
    fail(manifest_defect(state.manifest_path, e) + "; run without --resume to start over");
  }
  return state;
}

}  // namespace saturn
