// Merging the shards of a sharded run (--shard i --shards N) into one run's files.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "host/stats/summary.hpp"

namespace saturn {

struct MergedRun {
  std::vector<PointLabel> points;
  std::vector<std::string> swept_keys;
  std::vector<TrialResult> trials;  // in (point, trial) order
  nlohmann::json manifest;          // shard 0's, with the run-wide fields merged
  std::string series_csv;           // the shards' series.csv rows concatenated ("" without a series)
};

// Reads DIR/manifest.shard-I-of-N.json and DIR/trials.shard-I-of-N.csv for every I; throws
// ConfigError (one line, exit 2) when the directory is missing, a shard is missing, the shards
// come from different configs or seeds, a file does not match its manifest's checksum or is cut
// mid-line, a (point, trial) appears twice, or a newer unsharded run sits beside the shards.
MergedRun merge_shards(const std::string& dir);

}  // namespace saturn
