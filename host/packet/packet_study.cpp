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
#include <set>

#include "host/engine/engine.hpp"
#include "host/io/state_dump.hpp"
#include "host/engine/metrics.hpp"
#include "host/engine/key_scope.hpp"
#include "host/engine/model_setup.hpp"
#include "host/io/manifest.hpp"
#include "host/packet/batch_run.hpp"
#include "host/packet/batch_state.hpp"
#include "host/packet/cpu_parts.hpp"
#include "host/packet/gpu_side_by_side.hpp"
#include "host/study/study_memory.hpp"
#include "kernels/cc/saa_probes.hpp"
#include "kernels/routing/route_setup.hpp"
#include "kernels/common/index.hpp"
#include "kernels/common/macros.hpp"
#include "kernels/launch/engine_launch.hpp"
#include "kernels/isolation/iso_params.hpp"

namespace saturn {

namespace {

// Points that differ only in per-trial parameters may share one batch.
std::string shape_key(const SweepPoint& p) {
  std::string key;
  for (const auto& [name, value] : p.assignments) {
    const ParamSpec* spec = find_param(name);
    if (spec != nullptr && spec->per_trial) continue;
    key += name + "=" + value_to_string(value) + ";";
  }
  return key;
}

// The loads are read straight from each trial's config (TrialSpec); every other per-trial key is
// taken through the point's own build (ModelSetup::point_inputs).
bool loads_only(const std::string& key) { return key == "traffic.load" || key == "traffic.background_load"; }

// The per-trial keys other than the loads that some point of the sweep assigns.
std::set<std::string> rich_per_trial_keys(const std::vector<SweepPoint>& points) {
  std::set<std::string> keys;
  for (const SweepPoint& p : points)
    for (const auto& kv : p.assignments) {
      const ParamSpec* spec = find_param(kv.first);
      if (spec != nullptr && spec->per_trial && !loads_only(kv.first)) keys.insert(kv.first);
    }
  return keys;
}

// The point's values of `keys` (from its config: a case may leave a key at the base value).
std::string own_inputs_key(const SweepPoint& p, const std::set<std::string>& keys) {
  std::string key;
  for (const std::string& k : keys) key += k + "=" + value_to_string(p.config.values.at(k)) + ";";
  return key;
}

std::string human_bytes(size_t bytes) {
  char buf[32];
  if (bytes >= (size_t{1} << 30)) std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / 1073741824.0);
  else if (bytes >= (size_t{1} << 20)) std::snprintf(buf, sizeof buf, "%.1f MiB", bytes / 1048576.0);
  else std::snprintf(buf, sizeof buf, "%.1f KiB", bytes / 1024.0);
  return buf;
}

struct StudyPlan {
  std::vector<SweepPoint> points;
  std::vector<std::vector<int>> groups;  // point indices per shape
  std::vector<ModelSetup> setups;        // one per group
  size_t engine_budget = 0;              // host bytes left for engine state (CPU backend)
};

// Groups points by shape, in order of first appearance, and builds (so validates) each shape once.
// A point whose per-trial keys other than the loads are swept is built on its own as well (every
// point is then checked as if it ran alone), and shares a batch only with points whose builds
// agree on what those keys could change (ModelSetup::batch_shape: e.g. the number of hot spots).
StudyPlan plan_study(const Config& config, const std::vector<SweepPoint>& points, const StudyOptions& options) {
  check_keys_apply(config);  // the study's config, sweep axes included (key_scope.hpp)
  StudyPlan plan;
  plan.points = points;
  const ModelBuild how{options.max_memory, /*routes=*/false};
  std::map<std::string, PointInputs> inputs_of;   // own_inputs_key -> that build's inputs
  std::map<std::string, std::string> shape_of;    // own_inputs_key -> that build's batch_shape()
  std::map<int, PointInputs> point_inputs;
  std::map<std::string, size_t> group_of;
  const std::set<std::string> rich = rich_per_trial_keys(plan.points);
  for (const auto& p : plan.points) {
    std::string key = shape_key(p);
    const std::string own = own_inputs_key(p, rich);
    if (!own.empty()) {
      const std::string whole = key + "|" + own;
      if (shape_of.count(whole) == 0) {
        const ModelSetup alone = build_model(p.config, options.config_dir, how);
        inputs_of[whole] = PointInputs{alone.host_pattern, alone.hotspot_sources, alone.model};
        shape_of[whole] = alone.batch_shape();
      }
      point_inputs[p.index] = inputs_of[whole];
      key += "|" + shape_of[whole];
    }
    auto it = group_of.find(key);
    if (it == group_of.end()) {
      group_of[key] = plan.groups.size();
      plan.groups.push_back({p.index});
    } else {
      plan.groups[it->second].push_back(p.index);
    }
  }
  plan.setups.reserve(plan.groups.size());
  for (const auto& g : plan.groups) {
    plan.setups.push_back(build_model(plan.points[g.front()].config, options.config_dir, how));
    for (int p : g)
      if (point_inputs.count(p) != 0) plan.setups.back().point_inputs[p] = point_inputs[p];
  }
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
  std::vector<EngineBatch> plan_batches(const std::vector<TrialRef>& all, const StudyOptions& options) override {
    const size_t budget = batch_budget(options);
    std::vector<size_t> group_of(plan_.points.size(), 0);
    for (size_t gi = 0; gi < plan_.groups.size(); ++gi)
      for (int p : plan_.groups[gi]) group_of[p] = gi;
    std::vector<TrialRef> trials = all;
    std::vector<EngineBatch> batches = take_saved_batches(trials, options, group_of);
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
        EngineBatch b{std::vector<TrialRef>(mine.begin() + first, mine.begin() + last), gi, 0.0, {}};
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
    const bool packs = auto_cpu_step_for(setup.model) == CpuStep::kPhasesPack16;
    return plan_cpu_parts(n, threads, packs ? pack_speedup_estimate(setup.model, setup.bytes_per_trial()) : 0.0,
                          max_batch_trials(setup, options));
  }

  // CPU: batches side by side when each alone keeps fewer threads busy than there are (a padded
  // 16-trial pack runs on one thread: the Santos figures' 10-trial points), as many as the
  // threads and the memory budget allow. CUDA: as many as fill the device (gpu_side_by_side.hpp).
  int side_by_side(const std::vector<EngineBatch>& batches, const StudyOptions& options) const override {
    const int threads = std::max(1, options.threads);
    if (!kCpuBackend) return gpu_batches_side_by_side(batches, options);
    if (threads == 1 || batches.size() < 2) return 1;
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

  int gpu_batches_side_by_side(const std::vector<EngineBatch>& batches, const StudyOptions& options) const {
    if (batches.size() < 2) return 1;
    int64_t widest = 1;
    size_t largest = 1;
    for (const EngineBatch& b : batches) {
      const ModelSetup& setup = plan_.setups[b.shape];
      const int64_t elements = std::max(setup.topology.num_switches(), setup.topology.num_endpoints);
      widest = std::max(widest, elements * static_cast<int64_t>(b.trials.size()));
      largest = std::max(largest, b.trials.size() * setup.bytes_per_trial());
    }
    const size_t fit = std::max<size_t>(1, batch_budget(options) / largest);
    return gpu_side_by_side(gpu_resident_threads(), widest, fit, batches.size(), options.threads);
  }

  // On the CPU the batch runs as the parts of plan_cpu_parts (host/packet/cpu_parts.hpp): a batch
  // too small to give every thread 16 trials as single-threaded parts side by side (trials of
  // different threads would otherwise share cache lines: the layout is trial-minor), scalar
  // trials a part each, and where 16-trial packs run, whole packs, each a part with its state
  // contiguous, with padding trials where they pay; the parts run `threads` at a time. Results
  // are independent of the parts. The GPU runs the batch whole.
  BatchOutput run(const EngineBatch& batch, const BatchContext& context) override {
    const ModelSetup& setup = plan_.setups[batch.shape];
    const StudyOptions& options = context.options;
    std::vector<BatchRun> parts;
    std::vector<BatchSaving> saving;
    std::vector<int> part_threads;
    const auto saving_to = [&](const std::string& path, bool restore, uint64_t id, int part) {
      return BatchSaving{path, restore, options.batch_state_seconds, options.config_hash, options.earlier_config_hash,
                         id, part};
    };
    if (!batch.resume_from.empty()) {
      // Parts saved by an earlier run (plan_batches took them): each goes on from its file.
      for (const std::string& path : batch.resume_from) {
        const BatchStateHeader h = read_batch_state_header(path);
        parts.push_back(BatchRun{&setup, h.trials, static_cast<size_t>(h.padding)});
        saving.push_back(saving_to(path, true, h.batch_id, h.part));
        part_threads.push_back(batch.resume_from.size() == 1 ? options.threads : 1);
      }
    } else {
      std::vector<TrialSpec> specs;
      for (const TrialRef& t : batch.trials) {
        const Config& pc = plan_.points[t.point].config;
        specs.push_back(TrialSpec{t.point, t.trial, t.seed, pc.get_float("traffic.load"),
                                  pc.get_float("traffic.background_load")});
      }
      const uint64_t id = batch_id(specs);
      const std::vector<CpuPart> plan = parts_of(batch, options.threads, options);
      for (const CpuPart& p : plan) {
        const int i = static_cast<int>(parts.size());
        parts.push_back(BatchRun{&setup, part_trials(specs, p), p.padding});
        saving.push_back(options.batch_state_dir.empty()
                             ? BatchSaving{}
                             : saving_to(batch_state_path(options.batch_state_dir, suffix(options), id, i), false, id, i));
        part_threads.push_back(plan.size() == 1 ? plan[0].threads : 1);
      }
    }
    std::vector<BatchResult> results(parts.size());
    if (parts.size() == 1) {
      results[0] = run_batch(parts[0], options, part_threads[0], context.tally, saving[0]);
    } else {
      std::vector<std::exception_ptr> errors(parts.size());
      for_each_on_workers(parts.size(), options.threads, [&](size_t i) {
        try {
          results[i] = run_batch(parts[i], options, part_threads[i], context.tally, saving[i]);
        } catch (...) {
          errors[i] = std::current_exception();
        }
      });
      for (const auto& e : errors)
        if (e) std::rethrow_exception(e);
    }
    // A resumed part may hold trials the run's files already keep (finished before it stopped):
    // those rows are the kept ones, not these.
    BatchOutput out;
    for (BatchResult& r : results) {
      out.stopped = out.stopped || r.stopped;
      if (!r.began) continue;  // stopped before it began: its trials stay to run
      for (auto& t : r.trials)
        if (!skipped(options, t.point, t.trial)) out.trials.push_back(std::move(t));
      for (auto& x : r.series)
        if (!skipped(options, x.point, x.trial)) out.series.push_back(std::move(x));
      for (auto& u : r.unfinished)
        if (!skipped(options, u.first, u.second)) out.unfinished.push_back(u);
      r.info.split_mode = parts.size() > 1 ? "sub-batches" : r.info.split_mode;
      out.infos.push_back(std::move(r.info));
      out.stopped = out.stopped || r.stopped;
    }
    return out;
  }

  double cycle_ns() const override { return plan_.setups.empty() ? 0 : plan_.setups.front().cycle_ns; }

 private:
  static std::string suffix(const StudyOptions& options) { return shard_suffix(options.shard, options.shards); }

  // --resume: the batches whose parts an earlier run saved (batch_state.hpp) and that this run
  // still has to finish are taken out of `trials` and go first, each part from its saved cycle.
  // A saved batch is used only whole (every trial it reports still to run or kept by the run's
  // files), so each of its parts goes on with the trials it was saved with.
  std::vector<EngineBatch> take_saved_batches(std::vector<TrialRef>& trials, const StudyOptions& options,
                                              const std::vector<size_t>& group_of) const {
    std::vector<EngineBatch> batches;
    if (options.batch_state_dir.empty()) return batches;
    std::map<uint64_t, std::vector<std::pair<std::string, BatchStateHeader>>> by_batch;
    for (auto& saved :
         list_batch_states(options.batch_state_dir, suffix(options), options.config_hash, options.earlier_config_hash))
      by_batch[saved.second.batch_id].push_back(std::move(saved));
    std::map<std::pair<int, int>, size_t> pending;  // (point, trial) -> index in trials
    for (size_t i = 0; i < trials.size(); ++i) pending[{trials[i].point, trials[i].trial}] = i;
    std::vector<uint8_t> taken(trials.size(), 0);
    uint64_t resumed_parts = 0;
    for (const auto& [id, saved] : by_batch) {
      std::vector<size_t> mine;
      bool usable = true;
      size_t shape = 0;
      double work = 0, restored = 0;
      for (const auto& [path, h] : saved) {
        for (size_t k = 0; k + h.padding < h.trials.size(); ++k) {
          const TrialSpec& t = h.trials[k];
          const auto it = pending.find({t.point, t.trial});
          if (t.point < 0 || static_cast<size_t>(t.point) >= group_of.size()) usable = false;
          else if (it != pending.end() && !taken[it->second] && trials[it->second].seed == t.seed) mine.push_back(it->second);
          else if (!skipped(options, t.point, t.trial)) usable = false;  // neither to run nor kept: another plan
          if (usable) shape = group_of[t.point];
        }
        work += static_cast<double>(h.trials.size() - h.padding) * plan_.setups[shape].total_cycles();
        restored += static_cast<double>(h.trials.size() - h.padding) * h.cycle;
      }
      if (!usable || mine.empty()) continue;
      EngineBatch b;
      for (size_t i : mine) {
        taken[i] = 1;
        b.trials.push_back(trials[i]);
      }
      b.shape = shape;
      b.work = work;
      b.restored_work = restored;
      for (const auto& part : saved) b.resume_from.push_back(part.first);
      resumed_parts += saved.size();
      batches.push_back(std::move(b));
    }
    std::vector<TrialRef> rest;
    for (size_t i = 0; i < trials.size(); ++i)
      if (!taken[i]) rest.push_back(trials[i]);
    trials = std::move(rest);
    if (resumed_parts > 0)
      std::cerr << "saturn: " << batches.size() << (batches.size() == 1 ? " batch goes" : " batches go")
                << " on from saved states (" << resumed_parts << " part" << (resumed_parts == 1 ? "" : "s") << " in "
                << options.batch_state_dir << ")\n";
    return batches;
  }

  StudyPlan plan_;
};

}  // namespace

std::unique_ptr<StudyEngine> make_packet_study_engine() { return std::make_unique<PacketStudyEngine>(); }

}  // namespace saturn
