// manifest.json: everything needed to reproduce and judge a run (config, seeds, backend, timing).
#pragma once
#include <exception>
#include <string>

#include <nlohmann/json.hpp>

#include "host/config/config.hpp"
#include "host/study/study.hpp"

namespace saturn {

struct RunContext {
  std::string config_path;
  std::string backend;
  int threads = 1;
  std::string command_line;
  nlohmann::json files;      // {"trials.csv": {"fnv1a64": ...}, ...}: what the manifest vouches for
  int64_t resumed_trials = 0;  // trials kept from the run this one resumed
};

// fnv1a64 of the resolved config (values, sweeps, flows; seed and trials included), as 16 hex
// digits: shards, merges and resumes of one study share it.
std::string config_hash(const Config& config);

// Whether two manifests' configs (their "config" objects) describe one run: equal, or equal once
// every value at this build's default is left out, so that a run made before a key was added (it
// has no such key) and one made after (the key at its default) are one run. A key whose default
// changed, or that this build does not know, still tells the runs apart. Merges and --resume use it.
bool same_run_config(const nlohmann::json& a, const nlohmann::json& b);

// "complete" is true when every trial of the run (or of the shard) finished; otherwise
// "unfinished_trials" lists the (point, trial) pairs whose rows cover part of their window.
nlohmann::json make_manifest(const Config& config, const StudyResult& result, const RunContext& context);

// A manifest a run wrote, read back for merge and --resume: a regular file holding one JSON object
// nested at most kMaxManifestDepth deep (a deeper one is no manifest, and comparing it would recurse
// that deep). Throws ConfigError "'PATH' ..." saying what is wrong; the caller adds its prefix.
constexpr int kMaxManifestDepth = 64;
nlohmann::json read_manifest_file(const std::string& path);

// A manifest's field access failed (a value of the wrong type, a missing field): one line naming
// the file, without nlohmann's "[json.exception.type_error.302] " prefix.
std::string manifest_defect(const std::string& path, const std::exception& e);

// File-name suffix of shard i of n: ".shard-002-of-008" (empty for an unsharded run).
std::string shard_suffix(int shard, int shards);

}  // namespace saturn
