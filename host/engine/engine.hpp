// A batch of trials of the packet engine: owns the device state, advances it, reads counters.
// Plain C++ API; the implementation (engine.cu) is compiled by nvcc or by g++ as C++.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "host/io/binary_io.hpp"
#include "host/topology/topology.hpp"
#include "host/trace/trace_tables.hpp"
#include "kernels/launch/engine_launch.hpp"
#include "kernels/state/engine_view.hpp"

namespace saturn {

// Finite or scheduled flows, grouped by source (explicit [[traffic.flows]] or phase flows).
struct FlowPlan {
  int flows_per_source = 0;              // table width per source; 0 = no flows
  std::vector<int32_t> index;            // [source * width + j] flow id in start order, -1 = none
  std::vector<uint32_t> dst;             // [at(f, t)] per trial
  std::vector<uint32_t> flits, start, stop, gap_q16;  // [f]
  std::vector<uint8_t> vc;                            // [f]
  std::vector<uint8_t> dynamic;                       // [f] 1 = ON/OFF flow
  // injection.rates = "saa" (host/engine/injection_rates.cpp): each flow's SAA rate at t = 0 on its
  // route in this trial, as a fraction of line rate; empty otherwise.
  std::vector<double> calc_rate;                      // [at(f, t)]
  std::vector<uint32_t> sched_gap_q16;                // [at(f, t)] injection.scheduler ipd/svc/ps: d_p / r(f)
  int num_flows() const { return static_cast<int>(flits.size()); }
  // [f] the source endpoint of flow f (-1: in no source's row).
  std::vector<int> sources() const {
    std::vector<int> source(flits.size(), -1);
    for (size_t i = 0; i < index.size(); ++i)
      if (index[i] >= 0) source[index[i]] = static_cast<int>(i / flows_per_source);
    return source;
  }
};

struct EngineSpec {
  const Topology* topology = nullptr;
  const RoutingTables* routes = nullptr;
  ModelParams model{};                   // model.trials = T
  std::vector<uint64_t> seed;            // [t]
  std::vector<double> log1m_p_msg, log1m_p_background;  // [t] ln(1 - message probability per cycle)
  std::vector<int32_t> output_threshold;                // [t] cc.output_threshold (per-trial key)
  std::vector<uint32_t> lhrp_threshold_flits;           // [t] cc.lhrp_threshold_flits (per-trial key)
  std::vector<uint32_t> first_message;   // [at(e, t)] cycle of each source's first message
  int dest_width = 1;
  std::vector<uint32_t> dest_table;      // [at(row * width + j, t)]
  std::vector<uint8_t> role;             // [at(e, t)]
  FlowPlan flows;
  // routing.algorithm = "adaptive": the PRC entries the host set up (host/engine/adaptive_routes.cpp),
  // [at(gp * model.prc_slots + e, t)]; empty otherwise.
  std::vector<uint32_t> prc_gcid;
  std::vector<uint8_t> prc_port;
  const TraceTables* trace = nullptr;   // model.trace: the events every trial replays
};

// Integer counters copied back to the host. Endpoint counters and latency histograms are reduced
// per trial where they live (kernels/launch/segmented_reduce.hpp: CUB on CUDA, a loop on the CPU),
// so a sample point copies T values per counter instead of endpoints x T; per-port and per-flow
// counters come back whole (trial-minor like the device arrays).
struct Counters {
  int trials = 0;
  uint32_t cycle = 0;
  std::vector<uint64_t> generated, refused, inj_packets, inj_flits, del_packets, del_flits, net_lat_sum, msg_done,
      msg_lat_sum;                       // [t], summed over endpoints
  std::vector<uint64_t> net_hist, msg_hist;  // [at(b, t)], summed over endpoints
  std::vector<uint64_t> busy_cycles;     // [at(gp, t)]
  // [at(gp, t)] out_busy_until: the cycle each output finishes its current packet. Empty where the
  // engine does not read it (metrics then keep the whole packet in the window it started in).
  std::vector<uint32_t> busy_until;
  std::vector<uint64_t> flow_flits;      // [at(f, t)]
  std::vector<uint32_t> flow_done;       // [at(f, t)]
  std::vector<uint32_t> flow_reordered;  // [at(f, t)] packets delivered after a later-injected one of their flow
  std::vector<uint64_t> violations;      // [t] check_invariants' count plus every port's own counts (below, LHRP's)
  std::vector<uint64_t> no_descriptor;   // [t] arrivals that found no free packet entry (switch.packet_descriptors)
  std::vector<uint64_t> ctrl_injected, ctrl_delivered, acks_dropped, marked;  // [t], summed over endpoints
  std::vector<uint64_t> ecn_acks, ecn_echoes;  // [at(e, t)] 001's ECN: ACKs each source received, those echoing a mark (empty where off)
  std::vector<uint64_t> full_cycles;     // [at(gp, t)] (one element unless tracked)
  std::vector<uint32_t> trace_done, trace_finish;  // [at(e, t)] trace replay: events completed, cycle of the last (empty unless model.trace)
  std::vector<uint64_t> arn_sent, arn_refused, adapted;  // [t] congestion isolation (empty where off)
  // [at(vc, t)] ARN techniques: packets in the switches' VOQs for each VC at read time (a snapshot;
  // the VOQ's VC is the one the packet uses downstream, so the AFC counts packets adapted here too)
  std::vector<uint64_t> voq_vc;
  std::vector<uint64_t> victim_msg_done, victim_msg_lat_sum;  // [t] hotspot_window's victims (empty where off)
  std::vector<uint64_t> split_msg_done, split_msg_lat_sum, split_msg_flits;  // [at(k, t)] k = size class (empty where off)
  std::vector<uint64_t> drops, nacks, retx;  // [t] speculative protocols: packets dropped, NACKs received, packets resent (empty where off)
  std::vector<uint64_t> res, gnt;            // [t] SMSRP: reservations and grants received (empty where off)
  // [t] injection.rates = saa_probes (empty where off): probes that changed a sending flow's W_f, flows
  // that never sent at their central SAA rate (sums); the last W_f change, the largest link
  // weight register now (maxima over endpoints, and ports and endpoints)
  std::vector<uint64_t> saa_changes, saa_off, saa_above, saa_settled, saa_residual;
  // [t] routing.route_setup = packets (empty where off): setups and teardowns back at their sources,
  // the setups' round trips (cycles, summed), setups that found a PRC full with an alternate on
  // offer; route_left: PRC entries plus output flow counts not yet taken back (0 once every
  // connection is torn down)
  std::vector<uint64_t> route_setups, route_setup_cycles, route_teardowns, route_full, route_left;
};

// A host copy of a batch's whole state at one cycle, with a view whose pointers are that copy, so
// host code reads it with the kernels' own index helpers (voq_index, entry_index, at). For state
// dumps (host/io/state_dump.cpp): it copies every column, so it costs the batch's memory again.
struct StateSnapshot {
  EngineView view{};
  uint32_t cycle = 0;
  std::shared_ptr<const void> storage;  // owns what view points at
};

// One column of a batch as allocated (Engine::column_bytes; a debug view of the column list).
struct ColumnBytes {
  std::string name;
  size_t element_bytes = 0;
  size_t elements = 0;
  bool per_trial = false;  // state and per-trial inputs; false: network and flow tables, one copy per batch
};

class Engine {
 public:
  explicit Engine(const EngineSpec& spec);  // throws std::runtime_error("no usable GPU ...") on CUDA failure
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  void advance(uint32_t cycles, const LaunchOptions& options);
  uint32_t cycle() const;
  Counters read_counters() const;
  std::vector<uint64_t> read_delivered_flits() const;  // [at(e, t)], cheap: for completion checks
  std::vector<uint64_t> read_injected_flits() const;   // [at(e, t)], cheap: for stall checks
  std::vector<uint64_t> read_no_descriptor() const;    // [t] Counters::no_descriptor, cheap: checked at every sample
  std::vector<uint32_t> read_trace_done() const;       // [at(e, t)] events each node completed (model.trace)
  std::vector<uint8_t> read_saa_state() const;         // [at(e * A + a, t)] SaaQueueState bits (model.cc.saa_probes)
  std::vector<uint8_t> read_route_state() const;       // [at(e * A + a, t)] RouteQueueState bits (model.cc.route_setup)

  // The view the kernels receive. On the CPU backend its state pointers are host memory: the
  // invariant tests corrupt one field through it to show the check catches it (engine_test_access.hpp).
  // (CUDA: device memory.)
  const EngineView& view_for_tests() const;
  // Bytes of one trial's stage (kernels/state/trial_stage.hpp): what the GPU's "shared" program
  // keeps in a block's shared memory.
  int64_t trial_stage_bytes() const;

  // A host copy of the whole state now (see StateSnapshot).
  StateSnapshot snapshot() const;

  // The cycle and every column the kernels write (the state and congestion-control rows of the
  // list), column by column with its name and size: with the same spec, load_state puts an engine
  // where this one is, and advancing both gives the same bits (host/packet/batch_state.hpp).
  // Each column is written sparse (put_sparse, host/io/binary_io.hpp: blocks still at the column's
  // initial value are a flag byte).
  void save_state(BinaryWriter& out) const;
  // Throws std::runtime_error (naming the column) where the saved columns are not this engine's.
  // dense: columns written whole, as saved batch states of format 3 hold them.
  void load_state(BinaryReader& in, bool dense = false);

  // Every column of this batch as allocated, in the order of kernels/state/state_columns.def.
  std::vector<ColumnBytes> column_bytes() const;

  // Bytes of per-trial state for a network and model (for batch sizing and the benchmark): the
  // sum over the per-trial rows of the column list, so it is exactly what a batch allocates per trial.
  static size_t bytes_per_trial(const Topology& topo, const ModelParams& model, int dest_width, int num_flows);
  // The same estimate column by column: every per-trial row of the list, with the elements one
  // trial needs (0 where its group is off), in list order (saturn validate --memory).
  static std::vector<ColumnBytes> columns_per_trial(const Topology& topo, const ModelParams& model, int dest_width,
                                                    int num_flows);
  // Memory the backend can give a batch (CPU: 3/4 of available RAM; CUDA: 3/4 of free device memory).
  static size_t memory_budget();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace saturn
