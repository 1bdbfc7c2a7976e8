// Builds manifest.json from the resolved config and what the run did.
#include "host/io/manifest.hpp"

#include <cstdio>
#include <ctime>
#include <fstream>

#include "host/io/output_dir.hpp"
#include "host/io/provenance.hpp"
#include "host/io/regular_file.hpp"

namespace saturn {

std::string config_hash(const Config& config) { return hex64(fnv1a64(config.to_json().dump())); }

namespace {

// The config less its values at this build's defaults (the values of a default Config).
nlohmann::json without_defaults(const nlohmann::json& config) {
  static const nlohmann::json defaults = Config().to_json().at("values");
  nlohmann::json out = config;
  if (!out.is_object() || !out.contains("values") || !out["values"].is_object()) return out;
  nlohmann::json& values = out["values"];
  for (auto it = values.begin(); it != values.end();) {
    const auto d = defaults.find(it.key());
    if (d != defaults.end() && *d == it.value())
      it = values.erase(it);
    else
      ++it;
  }
  return out;
}

}  // namespace

bool same_run_config(const nlohmann::json& a, const nlohmann::json& b) {
  return a == b || without_defaults(a) == without_defaults(b);
}

nlohmann::json make_manifest(const Config& config, const StudyResult& result, const RunContext& context) {
  nlohmann::json m;
  m["saturn_version"] = SATURN_VERSION;
  m["backend"] = context.backend;
  m["threads"] = context.threads;
  m["command"] = context.command_line;
  m["config_file"] = context.config_path;
  m["config"] = config.to_json();
  m["config_hash"] = config_hash(config);
  m["complete"] = !result.partial;
  m["partial"] = result.partial;
  nlohmann::json unfinished = nlohmann::json::array();
  for (const auto& [point, trial] : result.unfinished) unfinished.push_back({point, trial});
  m["unfinished_trials"] = unfinished;
  m["files"] = context.files;
  if (context.resumed_trials > 0) m["resumed_trials"] = context.resumed_trials;
  m["build"] = build_provenance();
  m["run_host"] = host_provenance();
  m["swept_keys"] = result.swept_keys;
  m["shard"] = result.shard;
  m["shards"] = result.shards;
  m["shard_trials"] = {result.shard_begin, result.shard_end};
  m["total_trials"] = result.total_trials;
  m["wall_seconds"] = result.wall_seconds;
  m["simulated_cycles"] = result.simulated_cycles;
  m["cycle_ns"] = result.cycle_ns;
  char stamp[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  m["finished_at"] = stamp;
  nlohmann::json points = nlohmann::json::array();
  for (const auto& p : result.points) {
    nlohmann::json jp;
    jp["point"] = p.index;
    for (const auto& [k, v] : p.swept) jp["values"][k] = v;
    points.push_back(jp);
  }
  m["points"] = points;
  nlohmann::json seeds = nlohmann::json::array();
  for (const auto& t : result.trials) seeds.push_back({{"point", t.point}, {"trial", t.trial}, {"seed", t.seed}});
  m["trial_seeds"] = seeds;
  nlohmann::json batches = nlohmann::json::array();
  for (const auto& b : result.batches)
    batches.push_back({{"batch", b.batch}, {"points", b.points}, {"trials", b.trials}, {"cycles", b.cycles},
                       {"bytes_per_trial", b.bytes_per_trial}, {"cpu_split", b.split_mode},
                       {"padding_trials", b.padding_trials}});
  m["batches"] = batches;
  m["batches_side_by_side"] = result.side_by_side;
  return m;
}

namespace {

struct TooDeep {};  // thrown out of the parser's callback: nlohmann stops there and unwinds

// nlohmann's message without its "[json.exception.type_error.302] " prefix.
std::string plain_message(const std::exception& e) {
  const std::string what = e.what();
  const size_t end = what.find("] ");
  return what.rfind("[json.exception.", 0) == 0 && end != std::string::npos ? what.substr(end + 2) : what;
}

}  // namespace

nlohmann::json read_manifest_file(const std::string& path) {
  require_regular_file(path, "manifest");
  std::ifstream in(path);
  if (!in) throw ConfigError("cannot read '" + path + "'");
  nlohmann::json m;
  try {
    m = nlohmann::json::parse(in, [](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
      if (depth > kMaxManifestDepth) throw TooDeep{};
      return true;
    });
  } catch (const TooDeep&) {
    throw ConfigError("'" + path + "' nests JSON deeper than " + std::to_string(kMaxManifestDepth) +
                      " levels: it is no manifest of a saturn run");
  } catch (const std::exception& e) {
    throw ConfigError("'" + path + "' is not valid JSON: " + plain_message(e));
  }
  if (!m.is_object())
    throw ConfigError("'" + path + "' holds a JSON " + std::string(m.type_name()) +
                      ", not the object a saturn run writes as its manifest");
  return m;
}

std::string manifest_defect(const std::string& path, const std::exception& e) {
  return "'" + path + "' is not a manifest of a saturn run: " + plain_message(e);
}

std::string shard_suffix(int shard, int shards) {
  if (shards <= 1) return "";
  char buf[64];
  std::snprintf(buf, sizeof buf, ".shard-%03d-of-%03d", shard, shards);
  return buf;
}

}  // namespace saturn
