// Study runner: batches of equal shape, sample points (progress, stop requests, completion),
// and the reduction of each trial's counters to metrics.
#include "host/engine/study.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

#include "host/engine/engine.hpp"
#include "host/engine/metrics.hpp"
#include "host/engine/model_setup.hpp"
#include "host/engine/study_memory.hpp"
#include "host/flow/flow_study.hpp"
#include "kernels/common/index.hpp"

namespace saturn {

namespace {

// Points that differ only in per-trial parameters share one batch.
std::string shape_key(const SweepPoint& p) {
  std::string key;
  for (const auto& [name, value] : p.assignments) {
    const ParamSpec* spec = find_param(name);
    if (spec != nullptr && spec->per_trial) continue;
    key += name + "=" + value_to_string(value) + ";";
  }
  return key;
}

// Trials [begin, end) of the study's global trial list belong to shard i of n.
struct ShardSlice {
  int64_t begin, end;
  ShardSlice(int i, int n, int64_t total) : begin(total * i / n), end(total * (i + 1) / n) {}
  bool owns(int64_t global_trial) const { return global_trial >= begin && global_trial < end; }
};

struct BatchRun {
  const ModelSetup* setup;
  std::vector<TrialSpec> trials;
};

std::string human_bytes(size_t bytes) {
  char buf[32];
  if (bytes >= (size_t{1} << 30)) std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / 1073741824.0);
  else if (bytes >= (size_t{1} << 20)) std::snprintf(buf, sizeof buf, "%.1f MiB", bytes / 1048576.0);
  else std::snprintf(buf, sizeof buf, "%.1f KiB", bytes / 1024.0);
  return buf;
}

// One time-series interval for every trial of a batch still running: the windowed metrics of
// [prev, now]. A trial that is done has no more samples, however long its batch goes on.
void append_series(const ModelSetup& setup, const EngineSpec& spec, const std::vector<TrialSpec>& trials,
                   const std::vector<uint8_t>& done, const Counters& prev, const Counters& now,
                   std::vector<SeriesSample>& out) {
  for (int t = 0; t < spec.model.trials; ++t) {
    if (done[t]) continue;
    SeriesSample sample{trials[t].point, trials[t].trial, now.cycle * setup.cycle_ns, {}};
    for (MetricValue& m : trial_metrics(setup, spec, prev, now, now, t)) {
      // Whole-run quantities are not rates over an interval.
      const std::string& n = m.name;
      if (n == "completion_time_ns" || n == "packets_in_flight" || n == "invariant_violations" ||
          n.rfind("flow_done_ns[", 0) == 0)
        continue;
      sample.metrics.push_back(std::move(m));
    }
    out.push_back(std::move(sample));
  }
}

// Deadlock watch: a trial that has packets in flight and delivers nothing for kStallCycles is
// reported as deadlocked (credit loops on cyclic routes never drain; a congested but live network
// always delivers something). Checked at sample points from two cheap counter columns.
constexpr uint32_t kStallCycles = 100000;

class StallWatch {
 public:
  explicit StallWatch(int trials)
      : last_delivered_(trials, 0), quiet_since_(trials, 0), stalled_(trials, 0), done_(trials, 0) {}

  // Returns true when every trial is finished (finite flows) or stalled. Trials that became so
  // at this sample point are listed by newly_done(): sample points depend only on the setup, so
  // that point is the same whichever batch a trial runs in.
  bool update(const Engine& engine, const EngineSpec& spec, bool finite) {
    const std::vector<uint64_t> delivered = engine.read_delivered_flits();
    const std::vector<uint64_t> injected = engine.read_injected_flits();
    const int T = spec.model.trials, N = spec.topology->num_endpoints;
    bool all_done = true;
    newly_done_.clear();
    for (int t = 0; t < T; ++t) {
      uint64_t del = 0, inj = 0;
      for (int e = 0; e < N; ++e) {
        del += delivered[at(e, t, T)];
        inj += injected[at(e, t, T)];
      }
      if (del != last_delivered_[t] || inj == del) {
        last_delivered_[t] = del;
        quiet_since_[t] = engine.cycle();
      }
      stalled_[t] = engine.cycle() - quiet_since_[t] >= kStallCycles ? 1 : 0;
      const bool finished = finite && flits_outstanding(spec, delivered, t) == 0;
      if ((finished || stalled_[t]) && !done_[t]) {
        done_[t] = 1;
        newly_done_.push_back(t);
      }
      all_done = all_done && (finished || stalled_[t]);
    }
    return all_done;
  }
  bool stalled(int t) const { return stalled_[t] != 0; }
  const std::vector<int>& newly_done() const { return newly_done_; }

 private:
  std::vector<uint64_t> last_delivered_;
  std::vector<uint32_t> quiet_since_;
  std::vector<uint8_t> stalled_, done_;
  std::vector<int> newly_done_;
};

struct StudyPlan {
  std::vector<SweepPoint> points;
  std::vector<std::vector<int>> groups;  // point indices per shape
  std::vector<ModelSetup> setups;        // one per group
  size_t engine_budget = 0;              // host bytes left for engine state (CPU backend)
};

// Groups points by shape, in order of first appearance, and builds (so validates) each shape once.
StudyPlan plan_study(const Config& config, const StudyOptions& options) {
  StudyPlan plan;
  check_sweep_memory(config, options);
  plan.points = expand_sweep(config);
  std::map<std::string, size_t> group_of;
  for (const auto& p : plan.points) {
    const std::string key = shape_key(p);
    auto it = group_of.find(key);
    if (it == group_of.end()) {
      group_of[key] = plan.groups.size();
      plan.groups.push_back({p.index});
    } else {
      plan.groups[it->second].push_back(p.index);
    }
  }
  plan.setups.reserve(plan.groups.size());
  const ModelBuild how{options.max_memory, /*routes=*/false};
  for (const auto& g : plan.groups)
    plan.setups.push_back(build_model(plan.points[g.front()].config, options.config_dir, how));
  // Every shape's routing tables (switches x endpoints entries) are counted before any is built.
  plan.engine_budget = check_packet_study_memory(config, plan.points, plan.groups, plan.setups, options);
  if (!options.check_only)
    for (ModelSetup& s : plan.setups) build_setup_routes(s);
  // Per-trial parameters are checked per point (the shape was checked above).
  for (size_t gi = 0; gi < plan.groups.size(); ++gi)
    for (int p : plan.groups[gi])
      if (plan.setups[gi].model.open_loop &&
          plan.points[p].config.get_float("traffic.load") / plan.setups[gi].mean_message_flits > 1.0)
        throw ConfigError(config.source + ": key 'traffic.load': asks for more than one message per cycle per source");
  return plan;
}

}  // namespace

// The engine is chosen per study: simulation.mode may not be swept (checked when the config loads).
bool flow_mode(const Config& config) { return config.get_string("simulation.mode") == "flow"; }

void validate_study(const Config& config, const StudyOptions& options) {
  if (flow_mode(config)) return validate_flow_study(config, options);
  plan_study(config, options);
}

// Results of one batch (or sub-batch).
struct BatchOutput {
  std::vector<TrialResult> trials;
  std::vector<SeriesSample> series;
  BatchInfo info;
  bool stopped = false;
  std::vector<std::pair<int, int>> unfinished;  // stopped before the trial's end
};

// Progress over the whole study from concurrent batches: simulated trial-cycles done / total.
class ProgressTally {
 public:
  ProgressTally(std::function<void(double)> report, double total) : report_(std::move(report)), total_(total) {}
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

// Runs one batch to its end (or a stop request): windows, series, stall watch, per-trial metrics.
BatchOutput run_batch(const BatchRun& batch, const StudyOptions& options, int threads, ProgressTally& tally) {
  BatchOutput out;
  LaunchOptions launch;
  launch.threads = threads;
  const ModelSetup& setup = *batch.setup;
  launch.check_invariants = setup.check_invariants;
  const EngineSpec spec = build_engine_spec(setup, batch.trials);
  Engine engine(spec);
  BatchInfo info;
  info.trials = spec.model.trials;
  info.bytes_per_trial = setup.bytes_per_trial();
  info.split_mode = cpu_split_mode(spec.model.trials, threads, setup.topology.num_switches());
  for (const auto& t : batch.trials)
    if (info.points.empty() || info.points.back() != t.point) info.points.push_back(t.point);

  // Snapshots at the window's start and end; finite flows may run on past the window.
  const uint32_t total = setup.total_cycles(), warm = setup.warmup_cycles, wend = setup.window_end();
  Counters start, window_end;
  StallWatch watch(spec.model.trials);
  bool started = warm == 0, closed = false;
  // Trial t's metrics from the counters `now` at its own end: the window closes at the window's
  // end or at the trial's completion, whichever came first.
  std::vector<TrialResult> results(spec.model.trials);
  std::vector<uint8_t> finished(spec.model.trials, 0);
  auto finish_trial = [&](int t, const Counters& now) {
    const TrialSpec& ts = batch.trials[t];
    const Counters& from = started ? start : now;  // done during warm-up: an empty window
    const Counters& to = closed ? window_end : now;
    const int64_t own_end = closed ? wend : std::min<int64_t>(wend, trial_end_cycle(setup, spec, now, t));
    results[t] = TrialResult{ts.point, ts.trial, ts.seed, trial_metrics(setup, spec, from, to, now, t, own_end)};
    results[t].metrics.push_back({"deadlocked", watch.stalled(t) ? 1.0 : 0.0});
    finished[t] = 1;
  };
  if (started) start = engine.read_counters();
  bool stopped = false;
  uint32_t reported = 0;
  Counters series_prev;
  uint32_t series_next = setup.series_cycles;
  if (setup.series_cycles > 0) series_prev = engine.read_counters();
  while (engine.cycle() < total) {
    uint32_t next = std::min(total, engine.cycle() + setup.sample_cycles);
    if (!started) next = std::min(next, warm);
    if (!closed) next = std::min(next, wend);
    if (setup.series_cycles > 0) next = std::min(next, series_next);
    engine.advance(next - engine.cycle(), launch);
    if (setup.series_cycles > 0 && engine.cycle() == series_next) {
      const Counters now = engine.read_counters();
      append_series(setup, spec, batch.trials, finished, series_prev, now, out.series);
      series_prev = now;
      series_next += setup.series_cycles;
    }
    if (!started && engine.cycle() == warm) {
      start = engine.read_counters();
      started = true;
    }
    if (!closed && engine.cycle() == wend) {
      window_end = engine.read_counters();
      closed = true;
    }
    tally.add(static_cast<double>(engine.cycle() - reported) * batch.trials.size());
    reported = engine.cycle();
    const bool all_done = watch.update(engine, spec, setup.finite);
    if (setup.finite && !watch.newly_done().empty()) {
      // A finite trial is measured when it is done, not when its batch is: the batch's length
      // depends on which other trials share it (thread count, shards, memory).
      const Counters now = engine.read_counters();
      for (int t : watch.newly_done()) finish_trial(t, now);
    }
    if (all_done && (setup.finite || closed)) break;
    if (!setup.finite && closed) break;
    if (options.stop != nullptr && options.stop->load()) {
      stopped = true;
      break;
    }
  }
  const Counters end = engine.read_counters();
  int deadlocked = 0;
  for (int t = 0; t < spec.model.trials; ++t) {
    if (!finished[t]) {
      if (stopped) out.unfinished.push_back({batch.trials[t].point, batch.trials[t].trial});
      finish_trial(t, end);
    }
    deadlocked += results[t].metrics.back().value != 0 ? 1 : 0;
    out.trials.push_back(std::move(results[t]));
  }
  if (deadlocked > 0)
    std::cerr << "saturn: " << deadlocked << " of " << spec.model.trials << " trials delivered nothing for "
              << kStallCycles << " cycles with packets in flight (deadlock: see the 'deadlocked' metric)\n";
  info.cycles = engine.cycle();
  out.info = info;
  out.stopped = stopped;
  tally.add(static_cast<double>(total - engine.cycle()) * batch.trials.size());  // the rest counts as done
  return out;
}

std::vector<int64_t> label_study(const Config& config, const std::vector<SweepPoint>& points,
                                 const StudyOptions& options, StudyResult& result) {
  for (const auto& axis : config.sweeps) result.swept_keys.push_back(axis.key);
  for (const auto& p : points) {
    PointLabel label;
    label.index = p.index;
    for (const auto& [key, value] : p.assignments) label.swept.push_back({key, value_to_string(value)});
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
  if (flow_mode(config)) return run_flow_study(config, options);
  const auto wall_start = std::chrono::steady_clock::now();
  StudyResult result;
  StudyPlan plan = plan_study(config, options);
  if (options.planned) options.planned();
  const std::vector<SweepPoint>& points = plan.points;
  const std::vector<std::vector<int>>& groups = plan.groups;
  std::vector<ModelSetup>& setups = plan.setups;
  const std::vector<int64_t> first_trial = label_study(config, points, options, result);
  const ShardSlice shard(options.shard, options.shards, first_trial.back());

  // Batches: all trials of a group (of this shard), split where memory requires it.
  const size_t budget = options.memory_budget_override ? options.memory_budget_override
                                                      : std::min(Engine::memory_budget(), plan.engine_budget);
  std::vector<BatchRun> batches;
  size_t split_trials = 0, split_bytes = 0, smallest_batch = 0;  // groups split by memory: one note for all
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    std::vector<TrialSpec> trials;
    for (int p : groups[gi]) {
      const Config& pc = points[p].config;
      const int n = static_cast<int>(pc.get_int("simulation.trials"));
      const uint64_t run_seed = static_cast<uint64_t>(pc.get_int("simulation.seed"));
      for (int tr = 0; tr < n; ++tr)
        if (shard.owns(first_trial[p] + tr) && !skipped(options, p, tr))
          trials.push_back(TrialSpec{p, tr, trial_seed(run_seed, p, tr), pc.get_float("traffic.load"),
                                     pc.get_float("traffic.background_load")});
    }
    if (trials.empty()) continue;  // another shard's work
    const size_t per_trial = setups[gi].bytes_per_trial();
    const size_t max_trials = std::max<size_t>(1, budget / std::max<size_t>(1, per_trial));
    if (per_trial > budget)
      throw ConfigError("one trial needs " + human_bytes(per_trial) + ", more than the " + human_bytes(budget) +
                        " available");
    if (trials.size() > max_trials) {
      split_trials += trials.size();
      split_bytes += trials.size() * per_trial;
      smallest_batch = smallest_batch == 0 ? max_trials : std::min(smallest_batch, max_trials);
    }
    for (size_t first = 0; first < trials.size(); first += max_trials) {
      const size_t last = std::min(trials.size(), first + max_trials);
      batches.push_back(BatchRun{&setups[gi], std::vector<TrialSpec>(trials.begin() + first, trials.begin() + last)});
    }
  }
  if (split_trials > 0)
    std::cerr << "saturn: " << split_trials << " trials need " << human_bytes(split_bytes)
              << "; running them in batches of " << smallest_batch << (groups.size() > 1 ? " or more" : "") << "\n";
  result.cycle_ns = setups.empty() ? 0 : setups.front().cycle_ns;

  // Run. On the CPU a batch too small to give every thread 16 trials would put trials of different
  // threads in the same cache lines (the layout is trial-minor): it runs instead as one
  // single-threaded sub-batch per thread, concurrently (results are independent of batching).
  double total_work = 0;
  for (const auto& b : batches) total_work += static_cast<double>(b.setup->total_cycles()) * b.trials.size();
  ProgressTally tally(options.progress, total_work);
  const bool cpu = std::string(SATURN_BACKEND_NAME) == "cpu";
  for (const BatchRun& batch : batches) {
    const int threads = std::max(1, options.threads);
    const size_t n = batch.trials.size();
    std::vector<BatchRun> parts;
    if (cpu && threads > 1 && n < 16u * static_cast<size_t>(threads) && n > 1) {
      const size_t k = std::min(n, static_cast<size_t>(threads));
      for (size_t i = 0; i < k; ++i)
        parts.push_back(BatchRun{batch.setup, std::vector<TrialSpec>(batch.trials.begin() + n * i / k,
                                                                     batch.trials.begin() + n * (i + 1) / k)});
    } else {
      parts.push_back(batch);
    }
    std::vector<BatchOutput> outputs(parts.size());
    if (parts.size() == 1) {
      outputs[0] = run_batch(parts[0], options, threads, tally);
    } else {
      std::vector<std::thread> workers;
      std::vector<std::exception_ptr> errors(parts.size());
      for (size_t i = 0; i < parts.size(); ++i)
        workers.emplace_back([&, i] {
          try {
            outputs[i] = run_batch(parts[i], options, 1, tally);
          } catch (...) {
            errors[i] = std::current_exception();
          }
        });
      for (auto& w : workers) w.join();
      for (const auto& e : errors)
        if (e) std::rethrow_exception(e);
    }
    bool stopped = false;
    for (BatchOutput& out : outputs) {
      for (auto& t : out.trials) result.trials.push_back(std::move(t));
      for (auto& x : out.series) result.series.push_back(std::move(x));
      for (auto& u : out.unfinished) result.unfinished.push_back(u);
      out.info.split_mode = parts.size() > 1 ? "sub-batches" : out.info.split_mode;
      result.simulated_cycles += out.info.cycles;
      result.batches.push_back(std::move(out.info));
      stopped = stopped || out.stopped;
    }
    if (stopped) {
      result.partial = true;
      break;
    }
  }
  sort_results(result);
  result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return result;
}

}  // namespace saturn
