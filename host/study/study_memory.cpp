// Whole-study memory estimates (see study_memory.hpp): sums over shapes and points, in double.
#include "host/study/study_memory.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/common/macros.hpp"
#include "kernels/launch/flow_launch.hpp"
#include "kernels/state/engine_view.hpp"

namespace saturn {

namespace {

// Metrics every packet trial reports besides per-link and per-flow ones (see metrics.cpp).
constexpr double kBaseMetrics = 16;

// A resolved point config: a map of every key to its value (about 120 bytes each, measured), its
// flows and its swept assignments.
double point_bytes(const Config& c) {
  return static_cast<double>(c.values.size()) * 160 + static_cast<double>(c.flows.size()) * 64 +
         static_cast<double>(c.sweeps.size()) * 96;
}

// Trials this run holds results for: all of them, or one shard's slice.
double trials_of_run(const std::vector<SweepPoint>& points, const StudyOptions& options) {
  double total = 0;
  for (const auto& p : points) total += static_cast<double>(p.config.get_int("simulation.trials"));
  return std::ceil(total / std::max(1, options.shards));
}

double points_bytes(const std::vector<SweepPoint>& points) {
  double b = 0;
  for (const auto& p : points) b += point_bytes(p.config);
  return b;
}

// The items of `need`, and the engine state of the shape with the most bytes per trial, column by
// column (on the CUDA backend that state is in device memory, so it is not among the items).
void report_packet_memory(const MemoryNeed& need, const MemoryLimit& limit, const std::vector<SweepPoint>& points,
                          const std::vector<std::vector<int>>& groups, const std::vector<ModelSetup>& setups,
                          MemoryReport& report) {
  report = MemoryReport{need.items(), limit, {}, -1};
  size_t largest = 0;
  for (size_t g = 0; g < groups.size(); ++g) {
    const size_t bytes = setups[g].bytes_per_trial();
    if (groups[g].empty() || bytes <= largest) continue;
    largest = bytes;
    report.state_point = points[groups[g].front()].index;
    report.state_columns.clear();
    report.port_entries = setups[g].model.entries;
    report.buffer_packets = setups[g].buffer_packets;
    for (const ColumnBytes& c : setups[g].columns_per_trial())
      if (c.elements > 0) report.state_columns.emplace_back(c.name, static_cast<double>(c.elements * c.element_bytes));
  }
  std::stable_sort(report.state_columns.begin(), report.state_columns.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
}

}  // namespace

// From the axis lengths alone, before a point exists: the points, and the results every trial will
// hold at the least (kBaseMetrics each). Both are what the engines' checks count again after the
// expansion, so nothing they accept is refused here; a study that cannot fit is refused before its
// points take memory and time (issue 65 item 1: 200,000 points took 6.4 GB and 40 s to be refused).
void check_sweep_memory(const Config& config, const StudyOptions& options) {
  double points = 1;
  for (const SweepAxis& axis : config.sweeps) points *= static_cast<double>(axis.values.size());
  // simulation.trials may be swept: the trials are its values' sum times the other axes' product.
  double trials = points * static_cast<double>(config.get_int("simulation.trials"));
  for (const SweepAxis& axis : config.sweeps) {
    if (axis.key != "simulation.trials") continue;
    double sum = 0;
    for (const ParamValue& v : axis.values) sum += static_cast<double>(std::get<int64_t>(v));
    trials = points / static_cast<double>(axis.values.size()) * sum;
  }
  trials = std::ceil(trials / std::max(1, options.shards));
  MemoryNeed need;
  if (points > 1)
    need.add("sweep points (" + std::to_string(static_cast<long long>(std::min(points, 1e18))) + ")",
             points * point_bytes(config));
  const bool flow = config.get_string("simulation.mode") == "flow";
  need.add("results (at least)", results_bytes(trials, flow ? static_cast<double>(kFmCount) : kBaseMetrics));
  const MemoryLimit limit = memory_limit(options.max_memory);
  // validate --memory shows these items if they are refused (the engines' checks replace them).
  if (options.memory_report) *options.memory_report = MemoryReport{need.items(), limit, {}, -1};
  need.check(config.source, limit);
}

size_t check_packet_study_memory(const Config& config, const std::vector<SweepPoint>& points,
                                 const std::vector<std::vector<int>>& groups, const std::vector<ModelSetup>& setups,
                                 const StudyOptions& options) {
  const MemoryLimit limit = memory_limit(options.max_memory);
  MemoryNeed need;
  need.add("sweep points", points_bytes(points));
  double tables = 0, one_trial = 0, results = 0;
  for (size_t g = 0; g < groups.size(); ++g) {
    const ModelSetup& s = setups[g];
    tables += s.table_bytes();
    if (kCpuBackend) one_trial = std::max(one_trial, static_cast<double>(s.bytes_per_trial()));
    double trials = 0;
    for (int p : groups[g]) trials += static_cast<double>(points[p].config.get_int("simulation.trials"));
    trials = std::ceil(trials / std::max(1, options.shards));
    const double metrics = kBaseMetrics + (s.per_link_stats ? 2.0 * s.topology.connected_ports() : 0) +
                           (s.latency_histogram ? 2.0 * kHistBins : 0) +
                           2.0 * static_cast<double>(s.flows.size());
    const double samples =
        s.series_cycles > 0 ? std::floor(static_cast<double>(s.total_cycles()) / s.series_cycles) : 0;
    results += results_bytes(trials, metrics, samples);
  }
  need.add("tables (topology, routing)", tables);
  need.add("results", results);
  need.add("one trial's engine state", one_trial);
  if (options.memory_report) report_packet_memory(need, limit, points, groups, setups, *options.memory_report);
  need.check(config.source, limit);
  if (!kCpuBackend || limit.bytes <= 0) return std::numeric_limits<size_t>::max();
  return static_cast<size_t>(std::max(0.0, limit.bytes - need.total() + one_trial));
}

void check_flow_study_memory(const Config& config, const std::vector<SweepPoint>& points,
                             const std::vector<FlowSetup>& setups, const StudyOptions& options) {
  const MemoryLimit limit = memory_limit(options.max_memory);
  MemoryNeed need;
  need.add("sweep points", points_bytes(points));
  double topologies = 0, scratch = 0;
  for (size_t i = 0; i < setups.size(); ++i) {
    const FlowSetup& s = setups[i];
    NetworkShape shape = shape_of(s.topology);
    closed_form_shape(points[i].config, &shape);  // validate makes the shape only
    topologies += topology_bytes(shape);
    // CPU: one tile of trials per thread in flight; CUDA batches are sized to the device.
    const double in_flight = kCpuBackend ? static_cast<double>(kCpuFlowTile) * std::max(1, options.threads) : 0;
    scratch = std::max(scratch, static_cast<double>(s.bytes_per_trial()) * in_flight);
  }
  need.add("topologies", topologies);
  need.add("flow-engine scratch", scratch);
  need.add("results", results_bytes(trials_of_run(points, options), kFmCount));
  if (options.memory_report) *options.memory_report = MemoryReport{need.items(), limit, {}, -1};
  need.check(config.source, limit);
}

}  // namespace saturn
