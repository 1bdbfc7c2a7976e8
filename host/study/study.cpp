// The study layer, above every engine: expands the sweep, has the engine plan its shapes, numbers
// the (point, trial) pairs globally and takes this shard's slice, drops what a resumed run keeps,
// runs the engine's batches with progress and stop requests, and gathers the result.
#include "host/study/study.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <thread>

#include "host/engine/model_setup.hpp"
#include "host/engine/omp_team.hpp"
#include "host/study/study_engine.hpp"
#include "host/study/study_memory.hpp"

namespace saturn {

namespace {

// Trials [begin, end) of the study's global trial list belong to shard i of n.
struct ShardSlice {
  int64_t begin, end;
  ShardSlice(int i, int n, int64_t total) : begin(total * i / n), end(total * (i + 1) / n) {}
  bool owns(int64_t global_trial) const { return global_trial >= begin && global_trial < end; }
};

// The engine is chosen per study: simulation.mode may not be swept (checked when the config loads).
std::unique_ptr<StudyEngine> make_engine(const Config& config) {
  return config.get_string("simulation.mode") == "flow" ? make_flow_study_engine() : make_packet_study_engine();
}

// The sweep's points, each shape built and the study's memory checked: every config error comes
// out of here, before anything runs.
std::vector<SweepPoint> plan_points(StudyEngine& engine, const Config& config, const StudyOptions& options) {
  check_sweep_memory(config, options);
  std::vector<SweepPoint> points = expand_sweep(config);
  engine.plan(config, points, options);
  return points;
}

}  // namespace

void validate_study(const Config& config, const StudyOptions& options) {
  const std::unique_ptr<StudyEngine> engine = make_engine(config);
  plan_points(*engine, config, options);
}

std::vector<int64_t> label_study(const Config& config, const std::vector<SweepPoint>& points,
                                 const StudyOptions& options, StudyResult& result) {
  for (const auto& axis : config.sweeps) result.swept_keys.push_back(axis.key);
  for (const auto& p : points) {
    PointLabel label;
    label.index = p.index;
    label.swept = p.labels;
    result.points.push_back(label);
  }
  // The study's trials in (point, trial) order, numbered globally: a shard takes a contiguous slice.
  std::vector<int64_t> first_trial(points.size() + 1, 0);
  for (size_t p = 0; p < points.size(); ++p)
    first_trial[p + 1] = first_trial[p] + points[p].config.get_int("simulation.trials");
  const ShardSlice shard(options.shard, options.shards, first_trial.back());
  result.shard = options.shard;
  result.shards = options.shards;
  result.shard_begin = shard.begin;
  result.shard_end = shard.end;
  result.total_trials = first_trial.back();
  return first_trial;
}

void sort_results(StudyResult& result) {
  std::stable_sort(result.trials.begin(), result.trials.end(), [](const TrialResult& a, const TrialResult& b) {
    return a.point != b.point ? a.point < b.point : a.trial < b.trial;
  });
  std::stable_sort(result.series.begin(), result.series.end(), [](const SeriesSample& a, const SeriesSample& b) {
    if (a.point != b.point) return a.point < b.point;
    return a.trial != b.trial ? a.trial < b.trial : a.time_ns < b.time_ns;
  });
}

StudyResult run_study(const Config& config, const StudyOptions& options) {
  const auto wall_start = std::chrono::steady_clock::now();
  const OmpTeam team(options.threads);  // the set-up's Thrust regions (tables) too; each batch sets its own
  const std::unique_ptr<StudyEngine> engine = make_engine(config);
  StudyResult result;
  const std::vector<SweepPoint> points = plan_points(*engine, config, options);
  if (options.planned) options.planned();
  const std::vector<int64_t> first_trial = label_study(config, points, options, result);
  const ShardSlice shard(options.shard, options.shards, first_trial.back());

  // This run's trials: its shard's slice, less those a resumed run keeps. A trial's seed depends
  // only on its global (point, trial) index, never on the batching, the shard or the backend.
  // simulation.seeds = "common": every point draws as point 0 (common random numbers);
  // "common_across_cases": the cases share draws, the value axes' points draw apart.
  std::vector<TrialRef> trials;
  for (size_t p = 0; p < points.size(); ++p) {
    const Config& pc = points[p].config;
    const int n = static_cast<int>(pc.get_int("simulation.trials"));
    const uint64_t run_seed = static_cast<uint64_t>(pc.get_int("simulation.seed"));
    const int point = static_cast<int>(p);
    const std::string& seeds = pc.get_string("simulation.seeds");
    const int seed_point = seeds == "common" ? 0 : seeds == "common_across_cases" ? points[p].value_index : point;
    for (int tr = 0; tr < n; ++tr)
      if (shard.owns(first_trial[p] + tr) && !skipped(options, point, tr))
        trials.push_back(TrialRef{point, tr, trial_seed(run_seed, seed_point, tr)});
  }
  const std::vector<EngineBatch> batches = engine->plan_batches(trials, options);
  result.cycle_ns = engine->cycle_ns();

  double total_work = 0;
  for (const EngineBatch& b : batches) total_work += b.work;
  WorkTally tally(options.progress, total_work);
  // The cycles saved batch states hold count as done from the start, every part's, and not only as
  // each part begins (a resumed Jiang Fig. 12 showed 1% with 12 parts restored, 2 running).
  double restored_work = 0;
  for (const EngineBatch& b : batches) restored_work += b.restored_work;
  tally.add(restored_work);
  const auto gather = [&result](BatchOutput& out, size_t batch) {
    for (auto& t : out.trials) result.trials.push_back(std::move(t));
    for (auto& x : out.series) result.series.push_back(std::move(x));
    for (auto& u : out.unfinished) result.unfinished.push_back(u);
    for (auto& info : out.infos) {
      info.batch = static_cast<int>(batch);
      result.simulated_cycles += info.cycles;
      result.batches.push_back(std::move(info));
    }
    if (out.stopped) result.partial = true;
  };
  // After a batch is gathered: the finished trials so far, for the caller to write (StudyOptions::checkpoint).
  auto last_checkpoint = wall_start;
  size_t batches_done = 0;
  const auto checkpoint = [&] {
    ++batches_done;
    if (!options.checkpoint || batches_done == batches.size() || result.partial) return;
    const auto now = std::chrono::steady_clock::now();
    if (std::chrono::duration<double>(now - last_checkpoint).count() < options.checkpoint_seconds) return;
    last_checkpoint = now;
    StudyResult snapshot = result;
    snapshot.partial = true;
    sort_results(snapshot);
    snapshot.wall_seconds = std::chrono::duration<double>(now - wall_start).count();
    options.checkpoint(std::move(snapshot));
  };
  const int side = std::max(1, std::min<int>(engine->side_by_side(batches, options), static_cast<int>(batches.size())));
  result.side_by_side = side;
  if (side == 1) {
    for (size_t i = 0; i < batches.size() && !result.partial; ++i) {
      BatchOutput out = engine->run(batches[i], BatchContext{options, tally, i + 1 == batches.size()});
      gather(out, i);
      checkpoint();
    }
  } else {
    // `side` workers take the next batch in order, each with its share of the threads; after a
    // stop request none starts another (the running ones stop at their next sample point).
    StudyOptions each = options;
    each.threads = std::max(1, options.threads / side);
    std::atomic<size_t> next{0};
    std::mutex merge;
    std::vector<std::exception_ptr> errors(static_cast<size_t>(side));
    std::vector<std::thread> workers;
    for (int w = 0; w < side; ++w)
      workers.emplace_back([&, w] {
        try {
          for (size_t i = next++; i < batches.size(); i = next++) {
            if (options.stop != nullptr && options.stop->load()) break;
            BatchOutput out = engine->run(batches[i], BatchContext{each, tally, i + 1 == batches.size()});
            const std::lock_guard<std::mutex> lock(merge);
            gather(out, i);
            checkpoint();
          }
        } catch (...) {
          errors[static_cast<size_t>(w)] = std::current_exception();
          next = batches.size();  // the others finish their batch and stop
        }
      });
    for (auto& w : workers) w.join();
    for (const auto& e : errors)
      if (e) std::rethrow_exception(e);
    if (options.stop != nullptr && options.stop->load() && result.trials.size() < trials.size()) result.partial = true;
    std::stable_sort(result.batches.begin(), result.batches.end(), [](const BatchInfo& a, const BatchInfo& b) {
      return a.points.empty() || b.points.empty() ? a.points.size() < b.points.size() : a.points.front() < b.points.front();
    });
  }
  sort_results(result);
  result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return result;
}

}  // namespace saturn
