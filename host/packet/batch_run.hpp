// One part of a packet batch run through its sample points: windows, series, the stall watch,
// stop requests, and saved states (batch_state.hpp) to each trial's metrics.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "host/engine/engine.hpp"
#include "host/engine/model_setup.hpp"
#include "host/study/study.hpp"
#include "host/study/study_engine.hpp"

namespace saturn {

// A part of a batch as the engine takes it: trials of one shape, padding last.
struct BatchRun {
  const ModelSetup* setup;
  std::vector<TrialSpec> trials;
  size_t padding = 0;  // the last `padding` trials fill a 16-trial pack (host/packet/cpu_parts.hpp): run, never reported
};

// Where a part saves its state and whether it starts from the state saved there.
struct BatchSaving {
  std::string path;          // empty: never saved
  bool restore = false;      // start from the file at `path` (written by an earlier run of this part)
  double every_seconds = 0;  // also save at the first sample point this long after the last save; 0: only when stopped
  std::string config_hash;   // written into the file; --resume uses only files of its own config
  std::string earlier_hash;  // ... or of this hash (StudyOptions::earlier_config_hash; "" for none)
  uint64_t batch_id = 0;
  int part = 0;
};

// What a part reports.
struct BatchResult {
  std::vector<TrialResult> trials;
  std::vector<SeriesSample> series;
  BatchInfo info;
  bool stopped = false;
  std::vector<std::pair<int, int>> unfinished;
  bool began = true;  // false: a stop came before the part began; it ran and saved nothing and reports no trial
};

// Runs one part to its end or to a stop request (then saving its state where `saving` says). A
// part that a stop request finds not yet begun does not begin (BatchResult::began): its trials are
// left to --resume, as those of a batch not begun.
// Throws std::runtime_error naming the file where a state to restore cannot be read or is not
// this part's.
BatchResult run_batch(const BatchRun& batch, const StudyOptions& options, int threads, WorkTally& tally,
                      const BatchSaving& saving = {});

}  // namespace saturn
