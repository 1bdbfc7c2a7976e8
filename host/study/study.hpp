// A study: sweep points x trials, grouped into batches of equal shape, run to completion (or to a
// stop request), reduced to per-trial metrics.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "host/config/config.hpp"
#include "host/stats/summary.hpp"

namespace saturn {

struct MemoryReport;  // host/engine/memory_estimate.hpp

struct StudyResult;

struct StudyOptions {
  int threads = 1;
  std::string config_dir;                   // resolves relative paths in the config
  const std::atomic<bool>* stop = nullptr;  // set asynchronously (SIGINT): stop at the next sample point
  std::function<void(double)> progress;     // fraction of the whole study done, called at sample points
  size_t memory_budget_override = 0;        // bytes; 0 = what the backend reports (tests use this)
  int shard = 0, shards = 1;                // run only slice `shard` of `shards` of the study's trials
  size_t max_memory = 0;                    // bytes the study may use (--max-memory); 0 = MemAvailable
  bool check_only = false;                  // validate: check every table's size, build no routing table
  MemoryReport* memory_report = nullptr;    // validate --memory: filled by the memory check
  const std::set<std::pair<int, int>>* skip = nullptr;  // (point, trial) pairs already done (--resume)
  // Called once the study is planned (every config error raised), before any trial runs: the
  // CLI checks the output directory there, so a config error is reported first.
  std::function<void()> planned;
  // Where stats.state_dump_ns writes its dumps (the CLI: OUT/state); empty = they are not written.
  std::string state_dir;
  // Called when a batch ends, at most once per checkpoint_seconds and not after the last one, with
  // the trials finished so far (a sorted copy, marked partial, the callee's to keep or change):
  // the CLI writes them as a stopped run's files, so a run killed outright (SIGKILL, a machine
  // taken away) resumes from there.
  std::function<void(StudyResult)> checkpoint;
  double checkpoint_seconds = 0;
  // Packet engine: where a running batch saves its whole state (host/packet/batch_state.hpp)
  // when stopped and at most every batch_state_seconds while it runs (0: only when stopped), and
  // where a resumed run finds the states to go on from; empty: never saved. config_hash (the
  // manifest's) is written into each file and a file of another hash is never used.
  std::string batch_state_dir;
  double batch_state_seconds = 0;
  std::string config_hash;
  // --resume of a run an earlier build made (ResumeState::earlier_hash): files saved under this
  // hash go on too; "" where there is none.
  std::string earlier_config_hash;
};

inline bool skipped(const StudyOptions& options, int point, int trial) {
  return options.skip != nullptr && options.skip->count({point, trial}) != 0;
}

struct BatchInfo {
  int batch = 0;              // the study's batch this is (a part of): its index in this run's plan
  std::vector<int> points;    // global point indices in this batch
  int trials = 0;             // trials in this batch (points x trials per point, or a split of them)
  uint64_t cycles = 0;        // cycles this run simulated (a part resumed from a saved state: since that state)
  size_t bytes_per_trial = 0;
  std::string split_mode;     // "trials", "elements" (CPU) or "cuda"
  int padding_trials = 0;     // CPU: trials run only to fill the last 16-trial pack, never reported
};

struct StudyResult {
  std::vector<PointLabel> points;
  std::vector<std::string> swept_keys;
  std::vector<TrialResult> trials;   // in (point, trial) order
  std::vector<SeriesSample> series;  // in (point, trial, time) order; empty without a series
  std::vector<BatchInfo> batches;
  int side_by_side = 1;              // batches run at once (CPU: small single-threaded batches, StudyEngine::side_by_side)
  bool partial = false;              // stopped before the end: the last batch's window is shorter
  // Trials of a stopped batch that had not finished: their rows cover part of the window only,
  // and a resumed run runs them again.
  std::vector<std::pair<int, int>> unfinished;
  int shard = 0, shards = 1;
  int64_t shard_begin = 0, shard_end = 0, total_trials = 0;  // this shard's slice of the global trial list
  uint64_t simulated_cycles = 0;
  double cycle_ns = 0;               // of the first batch
  double wall_seconds = 0;
};

StudyResult run_study(const Config& config, const StudyOptions& options);

// Puts trials in (point, trial) order and series samples in (point, trial, time) order.
void sort_results(StudyResult& result);

// What every engine's study fills the same way: the swept keys, the point labels and this
// shard's contiguous slice [shard_begin, shard_end) of the global (point, trial) numbering.
// Returns first_trial: trial j of point p is global trial first_trial[p] + j (size points + 1).
std::vector<int64_t> label_study(const Config& config, const std::vector<SweepPoint>& points,
                                 const StudyOptions& options, StudyResult& result);

// Builds every distinct shape of the sweep (all cross-key checks) without running; throws ConfigError.
void validate_study(const Config& config, const StudyOptions& options);

}  // namespace saturn
