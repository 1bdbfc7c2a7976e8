// The flow engine behind the study layer's interface (host/study/study_engine.hpp): one setup per
// sweep point, batches of one point's trials (sized by device memory on CUDA, by how often
// progress and Ctrl-C are looked at on the CPU), and each trial's metrics from the flow kernel.
#include <algorithm>

#include "host/engine/key_scope.hpp"
#include "host/engine/model_setup.hpp"
#include "host/engine/omp_team.hpp"
#include "host/flow/flow_engine.hpp"
#include "host/study/study_engine.hpp"
#include "host/study/study_memory.hpp"
#include "kernels/common/index.hpp"
#include "kernels/common/macros.hpp"
#include "kernels/launch/flow_launch.hpp"

namespace saturn {

namespace {

// Trials per batch on the CPU: the scratch belongs to the threads, so this only sets how often
// progress and Ctrl-C are looked at.
constexpr int kCpuFlowBatch = 256;

class FlowStudyEngine final : public StudyEngine {
 public:
  void plan(const Config& config, const std::vector<SweepPoint>& points, const StudyOptions& options) override {
    check_keys_apply(config);  // the study's config, sweep axes included (key_scope.hpp)
    setups_.clear();
    setups_.reserve(points.size());
    for (const auto& p : points)
      setups_.push_back(build_flow_setup(p.config, options.config_dir, options.max_memory, options.check_only));
    if (!points.empty()) check_flow_study_memory(points.front().config, points, setups_, options);
  }

  std::vector<EngineBatch> plan_batches(const std::vector<TrialRef>& trials, const StudyOptions& options) override {
    const int threads = std::max(1, options.threads);
    const size_t budget = options.memory_budget_override ? options.memory_budget_override : flow_memory_budget();
    const bool cuda = !kCpuBackend;
    std::vector<EngineBatch> batches;
    for (size_t first = 0; first < trials.size();) {
      const int point = trials[first].point;
      const size_t per_trial = setups_[point].bytes_per_trial();
      const size_t cap = cuda ? std::max<size_t>(1, budget / std::max<size_t>(1, per_trial))
                              : static_cast<size_t>(std::max(kCpuFlowBatch, 16 * threads));
      size_t last = first;
      while (last < trials.size() && trials[last].point == point && last - first < cap) ++last;
      EngineBatch b{std::vector<TrialRef>(trials.begin() + first, trials.begin() + last), static_cast<size_t>(point),
                    static_cast<double>(last - first), {}};
      batches.push_back(std::move(b));
      first = last;
    }
    return batches;
  }

  BatchOutput run(const EngineBatch& batch, const BatchContext& context) override {
    const FlowSetup& setup = setups_[batch.shape];
    std::vector<uint64_t> seeds;
    for (const TrialRef& t : batch.trials) seeds.push_back(t.seed);
    const int T = static_cast<int>(seeds.size());
    const OmpTeam team(context.options.threads);  // Thrust's regions (the batch's columns) too
    const std::vector<double> metrics = run_flow_batch(setup, seeds, std::max(1, context.options.threads));
    BatchOutput out;
    for (int t = 0; t < T; ++t) {
      TrialResult r{batch.trials[t].point, batch.trials[t].trial, seeds[t], {}};
      for (int m = 0; m < kFmCount; ++m) {
        if ((m == kFmMaxminCompletion || m == kFmMaxminRateMin) && !setup.params.maxmin) continue;
        if (m >= kFmSaaProtocolMismatches && m <= kFmSaaProtocolSteps && !setup.params.saa_protocol) continue;
        r.metrics.push_back({flow_metric_name(m), metrics[at(m, t, T)]});
      }
      r.metrics.push_back({"flows", static_cast<double>(setup.params.num_flows)});
      r.metrics.push_back({"switch_ports", static_cast<double>(setup.switch_ports)});
      r.metrics.push_back({"switch_ports_added_pct", 100.0 * (setup.switch_ports - setup.switch_ports_unmodified) /
                                                         setup.switch_ports_unmodified});
      out.trials.push_back(std::move(r));
    }
    BatchInfo info;
    info.points = {static_cast<int>(batch.shape)};
    info.trials = T;
    info.bytes_per_trial = setup.bytes_per_trial();
    info.split_mode = kCpuBackend ? "trials" : "cuda";
    out.infos.push_back(std::move(info));
    context.tally.add(static_cast<double>(T));
    // A batch runs whole: a stop request is honoured between batches.
    out.stopped = context.options.stop != nullptr && context.options.stop->load() && !context.last;
    return out;
  }

 private:
  std::vector<FlowSetup> setups_;
};

}  // namespace

std::unique_ptr<StudyEngine> make_flow_study_engine() { return std::make_unique<FlowStudyEngine>(); }

}  // namespace saturn
