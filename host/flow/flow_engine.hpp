// The flow-level engine (simulation.mode = "flow"): from a checked Config to a FlowSetup, and a
// batch of trials run on the compiled backend, returning every trial's metrics.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "host/config/config.hpp"
#include "host/topology/topology.hpp"
#include "kernels/flow/flow_view.hpp"

namespace saturn {

// Shape of a flow batch: the network (built by the shared topology code, and in closed form for
// the kernel), the routing and rate-model parameters, and explicit flows if any.
struct FlowSetup {
  Topology topology;
  FlowTree tree;
  FlowParams params;                           // params.trials is set per batch
  std::vector<uint32_t> fixed_src, fixed_dst;  // explicit flows (traffic.pattern = "flows")
  int switch_ports = 0;                        // connected switch ports of this network
  int switch_ports_unmodified = 0;             // the same tree with horizontal width 0
  int path_slack = 4;                          // path pool: links per flow beyond 2n, on average
  int cpu_team_width = 0;                      // tests: run the GPU's warp program on the CPU (flow_launch.hpp)
  size_t bytes_per_trial() const;              // scratch of one trial in flight
};

// The closed-form tree of build_kary_ntree(k, n, width).
FlowTree make_flow_tree(int k, int n, int width);

// Validates every flow-mode constraint; each violation is a one-line ConfigError naming the key.
// max_memory (0 = MemAvailable) bounds the topology, checked before it is built, and one trial.
// check_only (validate): the topology is sized, not built (the setup cannot run).
FlowSetup build_flow_setup(const Config& config, const std::string& config_dir, size_t max_memory = 0,
                           bool check_only = false);

// Metric names, in FlowMetric order.
const char* flow_metric_name(int metric);

// Runs one trial per seed; returns out[at(metric, t, T)] (FlowMetric columns). A trial whose path
// pool overflowed is rerun with a larger pool (results do not depend on the pool size).
std::vector<double> run_flow_batch(const FlowSetup& setup, const std::vector<uint64_t>& seeds, int threads);

// Memory the backend can give a batch (as the packet engine's Engine::memory_budget()).
size_t flow_memory_budget();

}  // namespace saturn
