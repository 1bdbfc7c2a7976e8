// From a checked Config to what the engine runs: topology, routes, model parameters in cycles
// and flits, and the per-trial inputs of a batch (seeds, loads, permutations, hot spots, flows).
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "host/config/config.hpp"
#include "host/engine/engine.hpp"
#include "host/engine/host_patterns.hpp"
#include "host/engine/memory_estimate.hpp"
#include "host/topology/topology.hpp"
#include "host/trace/trace_tables.hpp"

namespace saturn {

// What a trial takes from its own sweep point where the points of one batch differ in per-trial
// keys other than the loads (the hot-spot sets and fractions): filled by the study's plan from each
// point's own build_model, read by build_engine_spec. Everything else is the batch's.
struct PointInputs {
  HostPatternSpec host_pattern;  // hotspot_window: hot_nodes and hot_sources
  int hotspot_sources = 0;       // traffic.pattern = "hotspot"
  ModelParams model{};           // the point's own model: its per-trial fields (thresholds)
};

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
  HostPatternSpec host_pattern;    // worst_case / hotspot_window (host_patterns.hpp)
  bool per_link_stats = false;
  bool latency_histogram = false;  // stats.latency_histogram: per-bin metrics (metrics.cpp)
  bool check_invariants = false;
  uint32_t sample_cycles = 0;
  uint32_t series_cycles = 0;      // time-series interval, 0 = no series
  std::vector<uint32_t> dump_cycles;  // stats.state_dump_ns in cycles, ascending, unique
  int dump_trial = 0;                 // stats.state_dump_trial
  RoutingAlgorithm routing = RoutingAlgorithm::kDmodK;
  // traffic.pattern = "trace": the replayed trace (shared by the copies of a setup), its streams in
  // `flows`; stats.trace_node_times adds every node's finish time to the metrics.
  std::shared_ptr<const TraceTables> trace;
  bool trace_node_times = false;
  bool has_routes = false;         // false until build_setup_routes (validate never builds them)
  int route_cache_entries = 0;     // routing.algorithm = adaptive: PRC entries per input port, 0 = unlimited
  bool saa_rates = false;          // injection.rates = "saa" (host/engine/injection_rates.cpp)
  // switch.packet_descriptors: the packet entries an input port may hold (0 = no limit), and the
  // most packets of the smallest size any input port's buffers hold (the entries without it).
  // A run whose port finds no free entry stops with an error naming the key (batch_run.cpp).
  int64_t packet_descriptors = 0;
  int64_t buffer_packets = 0;
  // The entries of a port whose buffers hold `packets` packets of the smallest size.
  int64_t port_entries(int64_t packets) const {
    return packet_descriptors > 0 && packet_descriptors < packets ? packet_descriptors : packets;
  }
  std::string config_source;       // the config's name, for errors found while running
  // Per sweep point of this batch shape, where its points differ in per-trial keys other than the
  // loads (empty otherwise: every trial takes the values above).
  std::map<int, PointInputs> point_inputs;

  // The hot-spot inputs of a trial of sweep point `point`.
  const HostPatternSpec& host_pattern_of(int point) const {
    const auto it = point_inputs.find(point);
    return it == point_inputs.end() ? host_pattern : it->second.host_pattern;
  }
  int hotspot_sources_of(int point) const {
    const auto it = point_inputs.find(point);
    return it == point_inputs.end() ? hotspot_sources : it->second.hotspot_sources;
  }
  const ModelParams& model_of(int point) const {
    const auto it = point_inputs.find(point);
    return it == point_inputs.end() ? model : it->second.model;
  }
  // What the batch's trials must share: the model parameters but for the per-trial fields, and the
  // state's shape that per-trial keys could change (the number of hot spots, the victims' row
  // width). Two points with equal non-per-trial keys and equal batch_shape() share a batch.
  std::string batch_shape() const;

  uint32_t window_end() const { return warmup_cycles + measure_cycles; }
  // Per-trial table sizes the engine spec will have (build_engine_spec uses these too).
  int dest_width() const;     // destinations per row of the trial's destination table
  int num_flows() const;      // explicit flows, or phase flows (one per source and permutation)
  int flows_per_source() const;  // the most flows one source has (the engine's flow table width)
  size_t bytes_per_trial() const;  // Engine::bytes_per_trial for this shape
  std::vector<ColumnBytes> columns_per_trial() const;  // the same, column by column (Engine::columns_per_trial)
  // The last cycle a batch may run: the window's end, or the time limit for finite flows.
  uint32_t total_cycles() const { return finite ? time_limit_cycles : window_end(); }
  // Host memory of the shared tables: topology and routing tables (twice on the CPU backend,
  // where the engine keeps its own copy), estimated before the routing tables exist.
  double table_bytes() const;
};

// How build_model treats memory: the limit every table is checked against before it is built,
// and whether to build the routing tables at all (validate checks their size, builds none).
struct ModelBuild {
  size_t max_memory = 0;  // bytes; 0 = MemAvailable
  bool routes = true;
};

// One trial of a batch: its point, index and the per-trial parameters.
struct TrialSpec {
  int point = 0;
  int trial = 0;
  uint64_t seed = 0;
  double load = 0;
  double background_load = 0;
};

// How make_topology treats memory. With a limit, a network of closed-form size is checked
// against it before it is built (with its routing tables when with_routes), so that a huge k-ary
// n-tree is refused in microseconds. shape_only (validate, flow mode): a built-in network is
// checked but not built; the result has its name, endpoints and tree parameters, no switches.
struct TopologyBuild {
  MemoryLimit limit;
  bool with_routes = false;
  bool shape_only = false;
};

// The network of a config (topology.* keys), shared by the packet and flow engines; config_dir
// resolves a relative topology.file. Throws ConfigError naming the key.
Topology make_topology(const Config& config, const std::string& config_dir, const TopologyBuild& how = {});

// Validates the cross-key constraints (each violation a one-line ConfigError naming the key) and
// the memory of the tables and of one trial. config_dir resolves a relative topology.file.
ModelSetup build_model(const Config& config, const std::string& config_dir, const ModelBuild& how = {});

// The routing tables of a setup built with how.routes = false (after the study's memory check).
void build_setup_routes(ModelSetup& setup);

// Memory of one shape: its tables and one trial's engine state (host memory on the CPU backend).
MemoryNeed shape_memory(const ModelSetup& setup);

// The per-trial seed: a function of the run seed and the global (point, trial) index only,
// so any sharding of a sweep reproduces the same numbers.
uint64_t trial_seed(uint64_t run_seed, int point, int trial);

EngineSpec build_engine_spec(const ModelSetup& setup, const std::vector<TrialSpec>& trials);

// traffic.pattern = "trace" (trace_setup.cpp): loads traffic.trace_file (relative to config_dir),
// builds its engine tables and turns its streams into explicit flows; lowers *min_packet to the
// smallest packet a trace message produces. Called by build_model; throws ConfigError.
void setup_trace(const Config& cfg, const std::string& config_dir, ModelSetup& s, uint32_t* min_packet);

}  // namespace saturn
