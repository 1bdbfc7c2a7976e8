// From a checked Config to what the engine runs: topology, routes, model parameters in cycles
// and flits, and the per-trial inputs of a batch (seeds, loads, permutations, hot spots, flows).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "host/config/config.hpp"
#include "host/engine/engine.hpp"
#include "host/topology/topology.hpp"

namespace saturn {

// Shape of a batch: everything that must be equal for all its trials.
struct ModelSetup {
  Topology topology;
  RoutingTables routes;
  ModelParams model{};             // model.trials is set per batch
  double cycle_ns = 0;             // one flit time
  int flit_bytes = 0;
  int hotspot_sources = 0;
  uint32_t warmup_cycles = 0;
  uint32_t measure_cycles = 0;     // measurement window length
  uint32_t time_limit_cycles = 0;  // finite flows: stop here if not all complete
  bool finite = false;             // phase flows or explicit flows with a size: run until done
  double mean_message_flits = 1;
  std::vector<FlowSpec> flows;     // explicit flows (pattern = flows)
  std::vector<std::string> flow_names;  // "src->dst" per explicit flow
  uint32_t phase_flits = 0;
  bool per_link_stats = false;
  bool check_invariants = false;
  uint32_t sample_cycles = 0;
  uint32_t series_cycles = 0;      // time-series interval, 0 = no series

  uint32_t window_end() const { return warmup_cycles + measure_cycles; }
  // Per-trial table sizes the engine spec will have (build_engine_spec uses these too).
  int dest_width() const;     // destinations per row of the trial's destination table
  int num_flows() const;      // explicit flows, or phase flows (one per source and permutation)
  size_t bytes_per_trial() const;  // Engine::bytes_per_trial for this shape
  // The last cycle a batch may run: the window's end, or the time limit for finite flows.
  uint32_t total_cycles() const { return finite ? time_limit_cycles : window_end(); }
};

// One trial of a batch: its point, index and the per-trial parameters.
struct TrialSpec {
  int point = 0;
  int trial = 0;
  uint64_t seed = 0;
  double load = 0;
  double background_load = 0;
};

// The network of a config (topology.* keys), shared by the packet and flow engines; config_dir
// resolves a relative topology.file. Throws ConfigError naming the key.
Topology make_topology(const Config& config, const std::string& config_dir);

// Validates the cross-key constraints (each violation a one-line ConfigError naming the key).
// config_dir resolves a relative topology.file.
ModelSetup build_model(const Config& config, const std::string& config_dir);

// The per-trial seed: a function of the run seed and the global (point, trial) index only,
// so any sharding of a sweep reproduces the same numbers.
uint64_t trial_seed(uint64_t run_seed, int point, int trial);

EngineSpec build_engine_spec(const ModelSetup& setup, const std::vector<TrialSpec>& trials);

}  // namespace saturn
