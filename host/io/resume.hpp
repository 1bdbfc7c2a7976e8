// `saturn run --resume`: what an interrupted or partial run in the output directory already
// finished, so that only the rest is run and the files come out as an uninterrupted run's.
#pragma once
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "host/config/config.hpp"
#include "host/stats/summary.hpp"

namespace saturn {

struct ResumeState {
  bool found = false;     // DIR held a manifest for this run (and shard)
  bool complete = false;  // ... of a run that finished every trial: nothing to do
  std::string manifest_path;
  std::set<std::pair<int, int>> done;  // (point, trial) pairs kept
  std::vector<TrialResult> trials;     // their rows, in (point, trial) order
  std::vector<SeriesSample> series;    // their series samples, in (point, trial, time) order
  // The manifest's config_hash where it is not this run's but the run is the same (same_run_config:
  // an earlier build that lacked a key now at its default); "" otherwise. The batch states that
  // build saved carry it, and they are this run's too (StudyOptions::earlier_config_hash).
  std::string earlier_hash;
};

// Reads DIR/manifest<suffix>.json and the files it lists. Without a manifest, found = false (a
// fresh start). Throws ConfigError (one line) when the run was made with another config or seed
// (config_hash differs, and the configs are not one run by same_run_config in host/io/manifest.hpp)
// or a file does not match the checksum its manifest recorded.
ResumeState load_resume(const std::string& dir, const std::string& suffix, const Config& config, size_t swept);

}  // namespace saturn
