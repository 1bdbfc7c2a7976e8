// The column list (kernels/state/state_columns.def): the memory estimate that sizes batches,
// Engine::bytes_per_trial, equals what a batch really allocates per trial, for models that switch
// every allocation group on or off; and overflow counts kept per input port reach the trial's
// violation counter.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "host/config/config.hpp"
#include "host/engine/engine.hpp"
#include "host/engine/model_setup.hpp"
#include "tests/support/run_helpers.hpp"

namespace saturn {
namespace {
using test::source_path;

const std::string kFig2b = source_path("configs/papers/santos2002/fig2b.toml");

ModelSetup setup_of(const std::string& file, const std::vector<std::string>& sets) {
  const Config config = file.empty() ? load_config_string("", "test", sets) : load_config_file(file, sets);
  return build_model(config, file.empty() ? "" : source_path("configs/papers/santos2002"));
}

EngineSpec spec_of(const ModelSetup& setup, int trials) {
  std::vector<TrialSpec> specs;
  for (int t = 0; t < trials; ++t) specs.push_back({0, t, trial_seed(7, 0, t), 0.5, 0.2});
  return build_engine_spec(setup, specs);
}

std::map<std::string, ColumnBytes> allocated(const ModelSetup& setup, int trials) {
  const Engine engine(spec_of(setup, trials));
  std::map<std::string, ColumnBytes> out;
  for (const ColumnBytes& c : engine.column_bytes()) out[c.name] = c;
  return out;
}

// Allocates batches of 2 and 5 trials: the difference is 3 trials' worth of every per-trial
// column; a column that is off (or empty) has exactly one element in both. The per-trial sum of
// what was really allocated must be the estimate. Returns the per-trial elements of each column.
std::map<std::string, int64_t> check_estimate(const ModelSetup& setup) {
  const auto two = allocated(setup, 2), five = allocated(setup, 5);
  EXPECT_EQ(two.size(), five.size());
  std::map<std::string, size_t> estimated;  // the estimate column by column (saturn validate --memory)
  for (const ColumnBytes& c : setup.columns_per_trial()) {
    EXPECT_TRUE(c.per_trial) << c.name;
    EXPECT_EQ(estimated.count(c.name), 0u) << c.name;
    estimated[c.name] = c.elements;
  }
  std::map<std::string, int64_t> per_trial;
  size_t bytes = 0;
  for (const auto& [name, a] : two) {
    const ColumnBytes& b = five.at(name);
    const int64_t e2 = static_cast<int64_t>(a.elements), e5 = static_cast<int64_t>(b.elements);
    if (!a.per_trial) {
      EXPECT_EQ(e2, e5) << name << ": a shared table must not grow with the trials";
      continue;
    }
    EXPECT_EQ((e5 - e2) % 3, 0) << name;
    const int64_t k = (e5 - e2) / 3;
    EXPECT_EQ(e2, k > 0 ? 2 * k : 1) << name << ": full size or the one-element placeholder";
    per_trial[name] = k;
    bytes += static_cast<size_t>(k) * a.element_bytes;
    if (estimated.count(name) == 0) {
      ADD_FAILURE() << name << ": a per-trial column the estimate does not list";
      continue;
    }
    EXPECT_EQ(estimated.at(name), static_cast<size_t>(k)) << name << ": estimated elements per trial";
  }
  EXPECT_EQ(estimated.size(), per_trial.size());
  EXPECT_EQ(setup.bytes_per_trial(), bytes);
  return per_trial;
}

TEST(StateColumns, EstimateIsWhatOneVcUniformAllocates) {
  const ModelSetup setup = setup_of("", {"topology.k=2", "topology.n=3"});
  const auto k = check_estimate(setup);
  EXPECT_EQ(k.at("out_head"), 0);         // no bypass arbitration: placeholder
  EXPECT_EQ(k.at("in_flits"), 0);         // no occupancy tracking
  EXPECT_EQ(k.at("dest_table"), 0);       // uniform traffic has no destination table
  EXPECT_EQ(k.at("st_port_violations"), setup.topology.total_ports());
  const int64_t ports = setup.topology.total_ports();
  EXPECT_EQ(k.at("ent_pkt"), ports * setup.model.entries);  // input buffers: P entries per port
  EXPECT_EQ(k.at("voq_ready"), ports * setup.topology.max_radix() * setup.model.vcs);  // one VOQ per output and VC
  EXPECT_EQ(k.at("out_src"), ports);
  // FCFS ties follow from the ready cycle (kernels/state/voq.hpp: fcfs_tie): no tie columns
  EXPECT_EQ(setup.model.arbitration, Arbitration::kFcfs);
  EXPECT_EQ(k.at("ent_tie"), 0);
  EXPECT_EQ(k.at("voq_tie"), 0);
}

// A speculative protocol re-queues packets with a new ready cycle and their old tie: it keeps them.
TEST(StateColumns, SpeculativeProtocolsKeepTheFcfsTies) {
  const ModelSetup setup = setup_of(source_path("configs/papers/jiang2015/lhrp_uniform.toml"),
                                    {"topology.dragonfly_g=3", "topology.dragonfly_a=2", "topology.dragonfly_h=1",
                                     "topology.dragonfly_p=1"});
  ASSERT_TRUE(setup.model.cc.speculative);
  ASSERT_NE(setup.model.arbitration, Arbitration::kRoundRobin);
  const auto k = check_estimate(setup);
  EXPECT_EQ(k.at("ent_tie"), k.at("ent_time"));
  EXPECT_EQ(k.at("voq_tie"), k.at("voq_ready"));
}

TEST(StateColumns, EstimateIsWhatMultiVcPermutationsAllocate) {
  const ModelSetup setup =
      setup_of("", {"topology.k=2", "topology.n=3", "switch.vcs=3", "traffic.pattern=permutation", "traffic.permutations=2"});
  const auto k = check_estimate(setup);
  EXPECT_EQ(k.at("out_credits"), setup.topology.total_ports() * 3);
  EXPECT_EQ(k.at("dest_table"), setup.topology.num_endpoints * 2);
}

TEST(StateColumns, EstimateIsWhatHotSpotsAllocate) {
  const ModelSetup setup = setup_of("", {"topology.k=2", "topology.n=3", "traffic.pattern=hotspot",
                                         "traffic.hotspot_destinations=2", "traffic.hotspot_sources=4"});
  EXPECT_EQ(check_estimate(setup).at("dest_table"), 2);
}

TEST(StateColumns, EstimateIsWhatCongestionControlWithEveryGroupAllocates) {
  const ModelSetup setup = setup_of(
      kFig2b, {"switch.arbitration=fifo_bypass", "cc.marking=input_output", "cc.response=lipd", "cc.window=4",
               "cca.enabled=true", "traffic.on_off_mean_ns=2e5",
               "traffic.flows=[{src=0,dst=7,dynamic=true},{src=1,dst=7},{src=6,dst=8,start_ns=1000}]"});
  const auto k = check_estimate(setup);
  const int64_t ports = setup.topology.total_ports(), endpoints = setup.topology.num_endpoints;
  EXPECT_EQ(k.at("in_flits"), ports * setup.model.vcs);                               // switch group
  EXPECT_EQ(k.at("out_head"), ports);                                                 // bypass group
  EXPECT_EQ(k.at("act_rate"), endpoints * setup.model.active_queues);                 // queue group
  EXPECT_EQ(k.at("ackq_word"), endpoints * static_cast<int64_t>(setup.model.cc.ack_queue));  // answer group
  EXPECT_EQ(k.at("flow_dst"), 3);
}

TEST(StateColumns, EstimateIsWhatExplicitAndPhaseFlowsAllocate) {
  const ModelSetup flows = setup_of("", {"topology.k=2", "topology.n=3", "traffic.pattern=flows",
                                         "traffic.flows=[{src=0,dst=7},{src=1,dst=7,bytes=4096}]"});
  EXPECT_EQ(check_estimate(flows).at("st_flow_flits"), 2);
  const ModelSetup phase = setup_of("", {"topology.k=2", "topology.n=3", "traffic.pattern=permutation",
                                         "traffic.permutations=2", "traffic.phase_bytes=4096"});
  EXPECT_EQ(check_estimate(phase).at("flow_dst"), phase.topology.num_endpoints * 2);
}

// Input buffers are no longer limited to 64 packets (one 64-bit mask); they are to 65535 entries
// (16-bit entry indices), and beyond that the configuration is refused naming switch.buffer_bytes.
TEST(StateColumns, InputBuffersHoldUpTo65535Packets) {
  const ModelSetup big = setup_of("", {"topology.k=2", "topology.n=2", "switch.buffer_bytes=2097152"});
  EXPECT_EQ(big.model.entries, 1024);
  try {
    setup_of("", {"topology.k=2", "topology.n=2", "switch.vcs=2", "switch.buffer_bytes=163840000"});
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("switch.buffer_bytes"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("65535"), std::string::npos) << e.what();
  }
}

// An input port given fewer packet entries than its credits allow overflows under load; each switch
// counts that at its own port (st_no_descriptor) and read_counters adds it to the trial's count
// (switch.packet_descriptors: the run then stops, tests/integration/test_packet_descriptors.cpp).
TEST(StateColumns, PortOverflowsReachTheTrialViolationCount) {
  ModelSetup setup = setup_of("", {"topology.k=2", "topology.n=3"});
  ASSERT_GT(setup.model.entries, 1);
  setup.model.entries = 1;
  Engine engine(spec_of(setup, 3));
  engine.advance(3000, LaunchOptions{});
  const Counters c = engine.read_counters();
  ASSERT_EQ(c.violations.size(), 3u);
  for (int t = 0; t < 3; ++t) {
    EXPECT_GT(c.no_descriptor[t], 0u) << "trial " << t;
    EXPECT_GE(c.violations[t], c.no_descriptor[t]) << "trial " << t;
  }
}

}  // namespace
}  // namespace saturn
