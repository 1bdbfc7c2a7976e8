// The packet engine behind the study layer's interface (host/study/study_engine.hpp): shapes
// (points that differ only in per-trial parameters share one), batches that fit in memory, CPU
// sub-batches, and a batch run through its sample points (windows, series, stall watch, stop
// requests) to each trial's metrics. Wraps host/engine/ (Engine, ModelSetup, metrics).
#include "host/study/study_engine.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <exception>
#include <functional>
#include <map>
#include <mutex>

#include "host/engine/engine.hpp"
#include "host/io/state_dump.hpp"
#include "host/engine/metrics.hpp"
#include "host/engine/model_setup.hpp"
#include "host/packet/cpu_parts.hpp"
#include "host/study/study_memory.hpp"
#include "kernels/cc/saa_probes.hpp"
#include "kernels/routing/route_setup.hpp"
#include "kernels/common/index.hpp"
#include "kernels/common/macros.hpp"
#include "kernels/launch/engine_launch.hpp"
#include "kernels/isolation/iso_params.hpp"

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

// injection.rates = saa_probes: whether every flow of trial t that announced itself has its
// AnnounceEnd back (act_saa_state, kernels/cc/saa_probes.hpp); true when the model has no probes.
bool saa_settled(const std::vector<uint8_t>& saa_state, int t, int T) {
  for (size_t i = static_cast<size_t>(t); i < saa_state.size(); i += static_cast<size_t>(T))
    if ((saa_state[i] & kSaaStarted) != 0 && (saa_state[i] & kSaaDone) == 0) return false;
  return true;
}

// routing.route_setup = packets: whether every connection of trial t is torn down (no send queue
// owns one: kernels/routing/route_setup.hpp); true when the model sets routes up on the host.
bool routes_closed(const std::vector<uint8_t>& route_state, int t, int T) {
  for (size_t i = static_cast<size_t>(t); i < route_state.size(); i += static_cast<size_t>(T))
    if ((route_state[i] & kRtOwner) != 0) return false;
  return true;
}

struct BatchRun {
  const ModelSetup* setup;
  std::vector<TrialSpec> trials;
  size_t padding = 0;  // the last `padding` trials fill a 16-trial pack (host/packet/cpu_parts.hpp): run, never reported
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
          n == "packets_out_of_order" || n.rfind("flow_done_ns[", 0) == 0 || n.rfind("execution_time_", 0) == 0 ||
          n == "trace_unfinished_nodes" || n.rfind("node_finish_ns[", 0) == 0)
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
  bool update(const Engine& engine, const ModelSetup& setup, const EngineSpec& spec, bool finite) {
    const std::vector<uint64_t> delivered = engine.read_delivered_flits();
    const std::vector<uint64_t> injected = engine.read_injected_flits();
    const std::vector<uint32_t> trace_done = setup.trace ? engine.read_trace_done() : std::vector<uint32_t>();
    // SAA by control packets: a finite trial also waits for its flows' AnnounceEnds to come back
    // (the registers are then all 0 again; completion_time_ns is still the data's)
    const std::vector<uint8_t> saa = spec.model.cc.saa_probes ? engine.read_saa_state() : std::vector<uint8_t>();
    // Route setup packets: and for every teardown to come back (route_state_left is then 0)
    const std::vector<uint8_t> route = spec.model.cc.route_setup ? engine.read_route_state() : std::vector<uint8_t>();
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
      // A trace is done when every node has completed its events (its streams may still run).
      const bool finished = finite &&
                            (setup.trace ? trace_finished(setup, trace_done, t, T)
                                         : flits_outstanding(spec, delivered, t) == 0 && saa_settled(saa, t, T) &&
                                               routes_closed(route, t, T));
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
StudyPlan plan_study(const Config& config, const std::vector<SweepPoint>& points, const StudyOptions& options) {
  StudyPlan plan;
  plan.points = points;
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

// One batch's trials as the engine takes them, and what it reports.
struct BatchResult {
  std::vector<TrialResult> trials;
  std::vector<SeriesSample> series;
  BatchInfo info;
  bool stopped = false;
  std::vector<std::pair<int, int>> unfinished;
};

// Runs one batch to its end (or a stop request): windows, series, stall watch, per-trial metrics.
BatchResult run_batch(const BatchRun& batch, const StudyOptions& options, int threads, WorkTally& tally) {
  BatchResult out;
  LaunchOptions launch;
  launch.threads = threads;
  const ModelSetup& setup = *batch.setup;
  launch.check_invariants = setup.check_invariants;
  const EngineSpec spec = build_engine_spec(setup, batch.trials);
  Engine engine(spec);
  const int real = spec.model.trials - static_cast<int>(batch.padding);  // the trials reported
  BatchInfo info;
  info.trials = real;
  info.padding_trials = static_cast<int>(batch.padding);
  info.bytes_per_trial = setup.bytes_per_trial();
  info.split_mode = cpu_split_mode(spec.model.trials, threads, setup.topology.num_switches());
  for (int t = 0; t < real; ++t)
    if (info.points.empty() || info.points.back() != batch.trials[t].point) info.points.push_back(batch.trials[t].point);

  // Snapshots at the window's start and end; finite flows may run on past the window.
  const uint32_t total = setup.total_cycles(), warm = setup.warmup_cycles, wend = setup.window_end();
  Counters start, window_end;
  StallWatch watch(spec.model.trials);
  bool started = warm == 0, closed = false;
  // Trial t's metrics from the counters `now` at its own end: the window closes at the window's
  // end or at the trial's completion, whichever came first.
  std::vector<TrialResult> results(spec.model.trials);
  std::vector<uint8_t> finished(spec.model.trials, 0);
  std::fill(finished.begin() + real, finished.end(), 1);  // padding: no series, no metrics
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
  // stats.state_dump_ns: the run stops at each dump time (advance is the same in any chunks).
  const bool dumping = !options.state_dir.empty() && !setup.dump_cycles.empty();
  size_t dump_next = 0;
  auto dump_if_due = [&] {
    if (!dumping || dump_next >= setup.dump_cycles.size() || engine.cycle() != setup.dump_cycles[dump_next]) return;
    ++dump_next;
    bool wanted = false;
    for (int t = 0; t < real; ++t) wanted = wanted || batch.trials[t].trial == setup.dump_trial;
    if (!wanted) return;
    const StateSnapshot snap = engine.snapshot();
    for (int t = 0; t < real; ++t)
      if (batch.trials[t].trial == setup.dump_trial)
        write_state_dump(snap, static_cast<int>(t), setup.topology,
                         state_dump_prefix(options.state_dir, batch.trials[t].point, batch.trials[t].trial,
                                           engine.cycle() * setup.cycle_ns));
  };
  dump_if_due();
  while (engine.cycle() < total) {
    uint32_t next = std::min(total, engine.cycle() + setup.sample_cycles);
    if (!started) next = std::min(next, warm);
    if (!closed) next = std::min(next, wend);
    if (setup.series_cycles > 0) next = std::min(next, series_next);
    if (dumping && dump_next < setup.dump_cycles.size()) next = std::min(next, setup.dump_cycles[dump_next]);
    engine.advance(next - engine.cycle(), launch);
    dump_if_due();
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
    tally.add(static_cast<double>(engine.cycle() - reported) * real);
    reported = engine.cycle();
    const bool all_done = watch.update(engine, setup, spec, setup.finite);
    if (setup.finite && !watch.newly_done().empty()) {
      // A finite trial is measured when it is done, not when its batch is: the batch's length
      // depends on which other trials share it (thread count, shards, memory).
      const Counters now = engine.read_counters();
      for (int t : watch.newly_done())
        if (t < real) finish_trial(t, now);
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
  for (int t = 0; t < real; ++t) {
    if (!finished[t]) {
      if (stopped) out.unfinished.push_back({batch.trials[t].point, batch.trials[t].trial});
      finish_trial(t, end);
    }
    deadlocked += results[t].metrics.back().value != 0 ? 1 : 0;
    out.trials.push_back(std::move(results[t]));
  }
  if (deadlocked > 0)
    std::cerr << "saturn: " << deadlocked << " of " << real << " trials delivered nothing for "
              << kStallCycles << " cycles with packets in flight (deadlock: see the 'deadlocked' metric)\n";
  info.cycles = engine.cycle();
  out.info = info;
  out.stopped = stopped;
  tally.add(static_cast<double>(total - engine.cycle()) * real);  // the rest counts as done
  return out;
}

class PacketStudyEngine final : public StudyEngine {
 public:
  void plan(const Config& config, const std::vector<SweepPoint>& points, const StudyOptions& options) override {
    plan_ = plan_study(config, points, options);
  }

  // Host bytes a batch's engine state may take.
  size_t batch_budget(const StudyOptions& options) const {
    return options.memory_budget_override ? options.memory_budget_override
                                          : std::min(Engine::memory_budget(), plan_.engine_budget);
  }

  // The most trials of `setup` one batch may hold (at least 1).
  size_t max_batch_trials(const ModelSetup& setup, const StudyOptions& options) const {
    return std::max<size_t>(1, batch_budget(options) / std::max<size_t>(1, setup.bytes_per_trial()));
  }

  // All trials of a shape (of this run), split where memory requires it.
  std::vector<EngineBatch> plan_batches(const std::vector<TrialRef>& trials, const StudyOptions& options) override {
    const size_t budget = batch_budget(options);
    std::vector<size_t> group_of(plan_.points.size(), 0);
    for (size_t gi = 0; gi < plan_.groups.size(); ++gi)
      for (int p : plan_.groups[gi]) group_of[p] = gi;
    std::vector<EngineBatch> batches;
    size_t split_trials = 0, split_bytes = 0, smallest_batch = 0;  // groups split by memory: one note for all
    for (size_t gi = 0; gi < plan_.groups.size(); ++gi) {
      std::vector<TrialRef> mine;
      for (const TrialRef& t : trials)
        if (group_of[t.point] == gi) mine.push_back(t);
      if (mine.empty()) continue;  // another shard's work
      const ModelSetup& setup = plan_.setups[gi];
      const size_t per_trial = setup.bytes_per_trial();
      const size_t max_trials = max_batch_trials(setup, options);
      if (per_trial > budget)
        throw ConfigError("one trial needs " + human_bytes(per_trial) + ", more than the " + human_bytes(budget) +
                          " available");
      if (mine.size() > max_trials) {
        split_trials += mine.size();
        split_bytes += mine.size() * per_trial;
        smallest_batch = smallest_batch == 0 ? max_trials : std::min(smallest_batch, max_trials);
      }
      for (size_t first = 0; first < mine.size(); first += max_trials) {
        const size_t last = std::min(mine.size(), first + max_trials);
        EngineBatch b{std::vector<TrialRef>(mine.begin() + first, mine.begin() + last), gi, 0.0};
        b.work = static_cast<double>(setup.total_cycles()) * b.trials.size();
        batches.push_back(std::move(b));
      }
    }
    if (split_trials > 0)
      std::cerr << "saturn: " << split_trials << " trials need " << human_bytes(split_bytes)
                << "; running them in batches of " << smallest_batch << (plan_.groups.size() > 1 ? " or more" : "")
                << "\n";
    return batches;
  }

  // A batch's parts on `threads` threads (one part with every thread on the GPU).
  std::vector<CpuPart> parts_of(const EngineBatch& batch, int threads, const StudyOptions& options) const {
    threads = std::max(1, threads);
    const size_t n = batch.trials.size();
    if (!kCpuBackend) return {CpuPart{0, n, 0, threads}};
    const ModelSetup& setup = plan_.setups[batch.shape];
    const bool packs = auto_cpu_step(model_uses_cc(setup.model)) == CpuStep::kPhasesPack16;
    return plan_cpu_parts(n, threads, packs ? pack_speedup_estimate(setup.model) : 0.0, max_batch_trials(setup, options));
  }

  // CPU: batches side by side when each alone keeps fewer threads busy than there are (a padded
  // 16-trial pack runs on one thread: the Santos figures' 10-trial points), as many as the
  // threads and the memory budget allow.
  int side_by_side(const std::vector<EngineBatch>& batches, const StudyOptions& options) const override {
    const int threads = std::max(1, options.threads);
    if (!kCpuBackend || threads == 1 || batches.size() < 2) return 1;
    int busiest = 1;
    size_t largest = 1;
    for (const EngineBatch& b : batches) {
      const std::vector<CpuPart> parts = parts_of(b, threads, options);
      int busy = 0;
      size_t trials = 0;
      for (const CpuPart& p : parts) {
        busy += p.threads;
        trials += p.count + p.padding;
      }
      busy = std::min(busy, threads);  // parts beyond the threads wait for a free one
      busiest = std::max(busiest, busy);
      largest = std::max(largest, trials * plan_.setups[b.shape].bytes_per_trial());
    }
    const size_t fit = std::max<size_t>(1, batch_budget(options) / largest);
    return static_cast<int>(std::min<size_t>(static_cast<size_t>(threads / busiest), fit));
  }

  // On the CPU the batch runs as the parts of plan_cpu_parts (host/packet/cpu_parts.hpp): a batch
  // too small to give every thread 16 trials as single-threaded parts side by side (trials of
  // different threads would otherwise share cache lines: the layout is trial-minor), and where
  // 16-trial packs run, whole packs, each a part with its state contiguous, with padding trials
  // where they pay; the parts run `threads` at a time. Results are independent of the parts. The
  // GPU runs the batch whole.
  BatchOutput run(const EngineBatch& batch, const BatchContext& context) override {
    const ModelSetup& setup = plan_.setups[batch.shape];
    std::vector<TrialSpec> specs;
    for (const TrialRef& t : batch.trials) {
      const Config& pc = plan_.points[t.point].config;
      specs.push_back(TrialSpec{t.point, t.trial, t.seed, pc.get_float("traffic.load"),
                                pc.get_float("traffic.background_load")});
    }
    const std::vector<CpuPart> plan = parts_of(batch, context.options.threads, context.options);
    std::vector<BatchRun> parts;
    for (const CpuPart& p : plan) parts.push_back(BatchRun{&setup, part_trials(specs, p), p.padding});
    std::vector<BatchResult> results(parts.size());
    if (parts.size() == 1) {
      results[0] = run_batch(parts[0], context.options, plan[0].threads, context.tally);
    } else {
      std::vector<std::exception_ptr> errors(parts.size());
      for_each_on_workers(parts.size(), context.options.threads, [&](size_t i) {
        try {
          results[i] = run_batch(parts[i], context.options, 1, context.tally);
        } catch (...) {
          errors[i] = std::current_exception();
        }
      });
      for (const auto& e : errors)
        if (e) std::rethrow_exception(e);
    }
    BatchOutput out;
    for (BatchResult& r : results) {
      for (auto& t : r.trials) out.trials.push_back(std::move(t));
      for (auto& x : r.series) out.series.push_back(std::move(x));
      for (auto& u : r.unfinished) out.unfinished.push_back(u);
      r.info.split_mode = parts.size() > 1 ? "sub-batches" : r.info.split_mode;
      out.infos.push_back(std::move(r.info));
      out.stopped = out.stopped || r.stopped;
    }
    return out;
  }

  double cycle_ns() const override { return plan_.setups.empty() ? 0 : plan_.setups.front().cycle_ns; }

 private:
  StudyPlan plan_;
};

}  // namespace

std::unique_ptr<StudyEngine> make_packet_study_engine() { return std::make_unique<PacketStudyEngine>(); }

}  // namespace saturn
