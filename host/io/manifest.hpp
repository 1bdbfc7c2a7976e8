// manifest.json: everything needed to reproduce and judge a run (config, seeds, backend, timing).
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "host/config/config.hpp"
#include "host/engine/study.hpp"

namespace saturn {

struct RunContext {
  std::string config_path;
  std::string backend;
  int threads = 1;
  std::string command_line;
};

nlohmann::json make_manifest(const Config& config, const StudyResult& result, const RunContext& context);

// File-name suffix of shard i of n: ".shard-002-of-008" (empty for an unsharded run).
std::string shard_suffix(int shard, int shards);

}  // namespace saturn
