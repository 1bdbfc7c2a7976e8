// Writing a run's (or a merge's) result files into the output directory through StagedOutput,
// with the manifest vouching for each file by checksum.
#pragma once
#include <string>

#include "host/config/config.hpp"
#include "host/study/study.hpp"
#include "host/io/manifest.hpp"
#include "host/io/merge.hpp"

namespace saturn {

// trials<suffix>.csv, series<suffix>.csv (with a series), summary.csv (unsharded runs only) and
// manifest<suffix>.json, replacing every file of an older run. Returns the checksum line's text:
// "trials<suffix>.csv fnv1a64=<16 hex digits>".
std::string write_run_outputs(const std::string& dir, const std::string& suffix, const Config& config,
                              const StudyResult& result, RunContext context);

// trials.csv, summary.csv, series.csv (if the shards had one) and manifest.json of a merge; the
// shard files stay. Returns the checksum line's text as above.
std::string write_merged_outputs(const std::string& dir, MergedRun& run);

}  // namespace saturn
