// The one small interface every engine offers the study layer (host/study/study.cpp): plan the
// study's shapes, group this run's trials into batches, run a batch and report each trial's
// metrics. Sweeps, seeds, shards, resume, progress, stop requests and the result live above it;
// backend and threading choices (sub-batches, device batches) live below it, in the engine.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "host/config/config.hpp"
#include "host/study/study.hpp"

namespace saturn {

// One trial of the study: its global sweep point, its index within the point and its seed.
struct TrialRef {
  int point = 0;
  int trial = 0;
  uint64_t seed = 0;
};

// Trials an engine runs together (one shape). `work` is in the engine's own unit (packet:
// trial-cycles, flow: trials); progress is the sum of work done over the sum of every batch's.
struct EngineBatch {
  std::vector<TrialRef> trials;
  size_t shape = 0;  // the engine's index of the planned shape these trials share
  double work = 0;
  // Packet engine, --resume: the saved states (host/packet/batch_state.hpp) this batch's parts go
  // on from; they may also hold trials the run already keeps (their results are dropped).
  std::vector<std::string> resume_from;
  double restored_work = 0;  // of `work`, what those states already hold: counted done at the start
};

// What one batch reports: each trial's metrics (and time series), the batches as they ran (an
// engine may run a batch as several), and whether a stop request cut it short.
struct BatchOutput {
  std::vector<TrialResult> trials;
  std::vector<SeriesSample> series;
  std::vector<BatchInfo> infos;
  bool stopped = false;
  std::vector<std::pair<int, int>> unfinished;  // (point, trial) stopped before the trial's end
};

// Progress over the whole study from concurrent (sub-)batches: work done / total.
class WorkTally {
 public:
  WorkTally(std::function<void(double)> report, double total) : report_(std::move(report)), total_(total) {}
  void add(double work) {
    if (!report_ || work <= 0) return;
    std::lock_guard<std::mutex> lock(mutex_);
    done_ += work;
    report_(std::min(1.0, done_ / total_));
  }

 private:
  std::function<void(double)> report_;
  double total_, done_ = 0;
  std::mutex mutex_;
};

struct BatchContext {
  const StudyOptions& options;  // threads, stop flag
  WorkTally& tally;
  bool last = false;            // the study's last batch: nothing left to stop before
};

class StudyEngine {
 public:
  virtual ~StudyEngine() = default;
  // Builds (so validates) every shape of the expanded sweep and checks the whole study's memory;
  // with options.check_only it sizes the tables without building them. Throws ConfigError.
  virtual void plan(const Config& config, const std::vector<SweepPoint>& points, const StudyOptions& options) = 0;
  // Groups this run's trials, given in (point, trial) order, into batches that fit in memory.
  virtual std::vector<EngineBatch> plan_batches(const std::vector<TrialRef>& trials, const StudyOptions& options) = 0;
  // Runs one batch to its end (or a stop request) and reports each trial's metrics.
  virtual BatchOutput run(const EngineBatch& batch, const BatchContext& context) = 0;
  // Simulated time per cycle of the first shape (0: the engine has no cycles).
  virtual double cycle_ns() const { return 0; }
  // How many batches may run side by side, each on options.threads / k threads: more than 1 where a
  // batch alone keeps fewer threads busy than there are (CPU: small batches of single-threaded
  // SIMD packs) and memory holds that many at once. Results never depend on it.
  virtual int side_by_side(const std::vector<EngineBatch>& batches, const StudyOptions& options) const {
    (void)batches;
    (void)options;
    return 1;
  }
};

// The engines (host/packet/packet_study.cpp, host/flow/flow_study.cpp).
std::unique_ptr<StudyEngine> make_packet_study_engine();
std::unique_ptr<StudyEngine> make_flow_study_engine();

}  // namespace saturn
