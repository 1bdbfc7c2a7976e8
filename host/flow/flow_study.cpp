// Flow-mode studies: the same sweep points, trial seeds, shards and StudyResult as the packet
// engine's run_study, with each point's trials run by the flow engine in batches.
#include "host/flow/flow_study.hpp"

#include <algorithm>
#include <chrono>

#include "host/engine/engine.hpp"
#include "host/engine/model_setup.hpp"
#include "host/engine/study_memory.hpp"
#include "host/flow/flow_engine.hpp"
#include "kernels/common/index.hpp"
#include "kernels/launch/flow_launch.hpp"

namespace saturn {

namespace {

// Trials per batch on the CPU: the scratch belongs to the threads, so this only sets how often
// progress and Ctrl-C are looked at.
constexpr int kCpuFlowBatch = 256;

std::vector<FlowSetup> plan(const std::vector<SweepPoint>& points, const StudyOptions& options) {
  std::vector<FlowSetup> setups;
  setups.reserve(points.size());
  for (const auto& p : points)
    setups.push_back(build_flow_setup(p.config, options.config_dir, options.max_memory, options.check_only));
  if (!points.empty()) check_flow_study_memory(points.front().config, points, setups, options);
  return setups;
}

}  // namespace

void validate_flow_study(const Config& config, const StudyOptions& options) {
  check_sweep_memory(config, options);
  plan(expand_sweep(config), options);
}

StudyResult run_flow_study(const Config& config, const StudyOptions& options) {
  const auto wall_start = std::chrono::steady_clock::now();
  StudyResult result;
  check_sweep_memory(config, options);
  const std::vector<SweepPoint> points = expand_sweep(config);
  const std::vector<FlowSetup> setups = plan(points, options);
  if (options.planned) options.planned();
  // The global (point, trial) list and this shard's contiguous slice of it, as in run_study.
  const std::vector<int64_t> first_trial = label_study(config, points, options, result);
  const int64_t begin = result.shard_begin, end = result.shard_end;

  const int threads = std::max(1, options.threads);
  const size_t budget = options.memory_budget_override ? options.memory_budget_override : flow_memory_budget();
  int64_t mine = 0;  // trials this run does: its shard's, less those a resumed run keeps
  for (size_t p = 0; p < points.size(); ++p)
    for (int64_t g = std::max(begin, first_trial[p]); g < std::min(end, first_trial[p + 1]); ++g)
      mine += skipped(options, static_cast<int>(p), static_cast<int>(g - first_trial[p])) ? 0 : 1;
  int64_t done = 0;
  for (size_t p = 0; p < points.size() && !result.partial; ++p) {
    const FlowSetup& setup = setups[p];
    const Config& pc = points[p].config;
    const uint64_t run_seed = static_cast<uint64_t>(pc.get_int("simulation.seed"));
    const int n = static_cast<int>(pc.get_int("simulation.trials"));
    std::vector<int> trials;
    for (int tr = 0; tr < n; ++tr)
      if (first_trial[p] + tr >= begin && first_trial[p] + tr < end && !skipped(options, static_cast<int>(p), tr))
        trials.push_back(tr);
    const bool cuda = std::string(SATURN_BACKEND_NAME) == "cuda";
    const size_t per_trial = setup.bytes_per_trial();
    const size_t batch_cap = cuda ? std::max<size_t>(1, budget / std::max<size_t>(1, per_trial))
                                  : static_cast<size_t>(std::max(kCpuFlowBatch, 16 * threads));
    for (size_t first = 0; first < trials.size(); first += batch_cap) {
      const size_t last = std::min(trials.size(), first + batch_cap);
      std::vector<uint64_t> seeds;
      for (size_t i = first; i < last; ++i) seeds.push_back(trial_seed(run_seed, static_cast<int>(p), trials[i]));
      const int T = static_cast<int>(seeds.size());
      const std::vector<double> out = run_flow_batch(setup, seeds, threads);
      for (int t = 0; t < T; ++t) {
        TrialResult r{static_cast<int>(p), trials[first + t], seeds[t], {}};
        for (int m = 0; m < kFmCount; ++m) {
          if ((m == kFmMaxminCompletion || m == kFmMaxminRateMin) && !setup.params.maxmin) continue;
          if (m >= kFmSaaProtocolMismatches && m <= kFmSaaProtocolSteps && !setup.params.saa_protocol) continue;
          r.metrics.push_back({flow_metric_name(m), out[at(m, t, T)]});
        }
        r.metrics.push_back({"flows", static_cast<double>(setup.params.num_flows)});
        r.metrics.push_back({"switch_ports", static_cast<double>(setup.switch_ports)});
        r.metrics.push_back({"switch_ports_added_pct", 100.0 * (setup.switch_ports - setup.switch_ports_unmodified) /
                                                           setup.switch_ports_unmodified});
        result.trials.push_back(std::move(r));
      }
      BatchInfo info;
      info.points = {static_cast<int>(p)};
      info.trials = T;
      info.bytes_per_trial = per_trial;
      info.split_mode = cuda ? "cuda" : "trials";
      result.batches.push_back(info);
      done += T;
      if (options.progress) options.progress(mine > 0 ? static_cast<double>(done) / mine : 1.0);
      if (options.stop != nullptr && options.stop->load() && done < mine) {
        result.partial = true;
        break;
      }
    }
  }
  result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return result;
}

}  // namespace saturn
