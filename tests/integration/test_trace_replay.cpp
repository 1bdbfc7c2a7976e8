// Trace replay (traffic.pattern = "trace", kernels/traffic/trace_replay.hpp, docs/traces.md):
//   - a hand-written dependency chain on a 4-ary 3-tree whose execution time follows from the
//     zero-load latency, the message sizes and the compute delays (exact, in cycles);
//   - a trace the limit cuts short is reported unfinished (nan, unfinished nodes counted);
//   - bad trace input: one error line naming the file, the line and the problem, exit code 2;
//   - the same trials.csv with 1 and 2 threads, and no invariant violation while replaying with
//     streams (the incast) on top;
//   - malformed engine tables are refused before any kernel reads them out of range.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "host/engine/engine.hpp"
#include "host/engine/model_setup.hpp"
#include "host/trace/trace_tables.hpp"
#include "tests/support/cli_helpers.hpp"

namespace saturn {
namespace {

using namespace saturn::test;

// The zero-load network of test_zero_load_latency.cpp: a packet of S flits whose head leaves the
// NIC at t0 has its tail received at t0 + (h + 1) L + h R + (S - 1), h switches crossed.
constexpr int kL = 3, kR = 2, kS = 8;
constexpr double kCycleNs = 20.48;

const char* kTree = R"(
[simulation]
trials = 2
warmup_ns = 0
time_limit_ns = 1e6
check_invariants = true
[topology]
kind = "kary_ntree"
k = 4
n = 3
[link]
bandwidth_gbps = 100
flit_bytes = 256
latency_ns = 40.96
[switch]
router_delay_ns = 40.96
buffer_bytes = 16384
[endpoint]
mtu_bytes = 2048
[traffic]
pattern = "trace"
[stats]
trace_node_times = true
)";

// Tail of the last of P back-to-back packets of a message sent at t0 across h switches.
int message_cycles(int packets, int h) { return (packets - 1) * kS + (h + 1) * kL + h * kR + (kS - 1); }

// Node 0 computes 100 and 50 cycles at once, then sends 2 packets to node 16 (5 switches away);
// node 16 computes 200 cycles after receiving them and replies with one packet; node 0 computes
// 50 cycles after the reply. Compute times are whole cycles: 2048 ns = 100 cycles of 20.48 ns.
const char* kChain = R"(saturn_trace 1
nodes 17
node 0
0 compute 2048
4 compute 1024
1 send 16 4096 after 0,4
2 recv 16 2048
3 compute 1024 after 2
node 16
0 recv 0 4096
1 compute 4096 after 0
2 send 0 2048 after 1
)";

std::string write_trace(const std::string& text, const std::string& name = "t.trace") {
  const std::string path = make_temp_dir("saturn_trace") + "/" + name;
  write_file(path, text);
  return path;
}

StudyResult run_trace(const std::string& trace_path, std::vector<std::string> overrides = {}, int threads = 1,
                      const char* base = kTree) {
  overrides.push_back("traffic.trace_file=\"" + trace_path + "\"");
  return run_config(load_config_string(base, "trace_test", overrides), threads);
}

TEST(TraceReplay, ExecutionTimeOfADependencyChainIsExact) {
  const StudyResult r = run_trace(write_trace(kChain));
  // Node 0: computes end at 100 (and 50: concurrent); the request leaves at 100 and its second
  // packet's tail reaches node 16 at 100 + message(2, 5); node 16 computes 200 cycles, replies at
  // once, the reply lands message(1, 5) later and node 0 computes 50 more.
  const int request_in = 100 + message_cycles(2, 5);
  const int reply_sent = request_in + 200;
  const int reply_in = reply_sent + message_cycles(1, 5);
  const int end = reply_in + 50;
  ASSERT_EQ(end, 428);  // the arithmetic above, spelled out: 100 + 43 + 200 + 35 + 50
  for (const auto& t : r.trials) {
    EXPECT_EQ(metric_of(t, "execution_time_cycles"), end);
    EXPECT_NEAR(metric_of(t, "execution_time_ns"), end * kCycleNs, 1e-9 * end * kCycleNs);
    EXPECT_EQ(metric_of(t, "trace_unfinished_nodes"), 0.0);
    // Node 16's last event is its reply send: done the cycle after its one packet started.
    EXPECT_NEAR(metric_of(t, "node_finish_ns[n16]"), (reply_sent + 1) * kCycleNs, 1e-6);
    EXPECT_NEAR(metric_of(t, "node_finish_ns[n0]"), end * kCycleNs, 1e-6);
    EXPECT_NEAR(metric_of(t, "node_finish_ns[n1]"), 0.0, 1e-12);  // no events: done at 0
    EXPECT_EQ(metric_of(t, "packets_delivered"), 3.0);
    EXPECT_EQ(metric_of(t, "invariant_violations"), 0.0);
    // Packet latency at zero load: (1 packet of the request, 1 of the reply) + the second packet.
    EXPECT_NEAR(metric_of(t, "net_latency_mean_ns"), message_cycles(1, 5) * kCycleNs, 1e-6);
  }
}

TEST(TraceReplay, DependentsWaitForEveryDependencyAndARecvForItsMessage) {
  // The recv's dependency (a 300-cycle compute) completes after its message arrived: the recv
  // completes then, not at the arrival. The sender's message left at 0 and took message(1, 1).
  const char* trace = R"(saturn_trace 1
nodes 2
node 0
0 send 1 2048
node 1
0 compute 6144
1 recv 0 2048 after 0
2 compute 1024 after 1
)";
  const StudyResult r = run_trace(write_trace(trace));
  ASSERT_LT(message_cycles(1, 1), 300);
  EXPECT_EQ(metric_of(r.trials[0], "execution_time_cycles"), 300 + 50);
}

TEST(TraceReplay, UnfinishedAtTheTimeLimitIsReported) {
  const StudyResult r = run_trace(write_trace(kChain), {"simulation.time_limit_ns=4000"});  // 195 cycles
  for (const auto& t : r.trials) {
    EXPECT_TRUE(std::isnan(metric_of(t, "execution_time_ns")));
    EXPECT_TRUE(std::isnan(metric_of(t, "execution_time_cycles")));
    EXPECT_EQ(metric_of(t, "trace_unfinished_nodes"), 2.0);
    EXPECT_TRUE(std::isnan(metric_of(t, "node_finish_ns[n0]")));
  }
}

TEST(TraceReplay, StreamsRunOnTopAndCanBeSwitchedOff) {
  // Two greedy streams into node 16 while the chain runs: the reply path is shared, so the
  // execution time grows; without the streams it is the zero-load 428 cycles again.
  const std::string with_streams = std::string(kChain) + "stream 20 16 0 20000 100\nstream 21 16 0 20000 100\n";
  const std::string text = std::string(with_streams).replace(with_streams.find("nodes 17"), 8, "nodes 24");
  const std::string path = write_trace(text);
  const StudyResult on = run_trace(path);
  const StudyResult off = run_trace(path, {"traffic.trace_streams=false"});
  EXPECT_EQ(metric_of(off.trials[0], "execution_time_cycles"), 428.0);
  EXPECT_GT(metric_of(on.trials[0], "execution_time_cycles"), 428.0);
  EXPECT_EQ(metric_of(on.trials[0], "invariant_violations"), 0.0);
  EXPECT_GT(metric_of(on.trials[0], "packets_delivered"), 3.0 + 20.0);  // the chain's 3 and the streams'
}

TEST(TraceReplay, BadTraceIsOneErrorLineWithFileAndLine) {
  const std::string bad = write_trace("saturn_trace 1\nnodes 4\nnode 0\n0 send 9 100\n", "bad.trace");
  try {
    build_model(load_config_string(kTree, "cfg", {"traffic.trace_file=\"" + bad + "\""}), "");
    ADD_FAILURE() << "a trace sending to node 9 of 4 loaded";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.trace:4: destination node '9' is not allowed"), std::string::npos) << e.what();
  }
  // Through the CLI: exit code 2, one line on stderr naming the file and line.
  const std::string dir = make_temp_dir("saturn_trace_cfg");
  write_file(dir + "/bad.trace", "saturn_trace 1\nnodes 4\nnode 0\n0 compute 10\n1 recv 2 64 after 7\n");
  write_file(dir + "/study.toml", std::string(kTree).replace(std::string(kTree).find("[stats]"), 7,
                                                             "trace_file = \"bad.trace\"\n[stats]"));
  const CliRun r = saturn_cli({"run", dir + "/study.toml", "--out", dir + "/out", "--quiet"});
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_EQ(line_count(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("bad.trace:5:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("waits on event 7"), std::string::npos) << r.err;
  // A missing file and a missing key name what is wrong.
  EXPECT_THROW(build_model(load_config_string(kTree, "cfg", {"traffic.trace_file=\"/nonexistent/x.trace\""}), ""),
               ConfigError);
  try {
    build_model(load_config_string(kTree, "cfg"), "");
    ADD_FAILURE() << "no trace_file accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("traffic.trace_file"), std::string::npos) << e.what();
  }
  // More trace nodes than endpoints.
  const std::string big = write_trace("saturn_trace 1\nnodes 65\n", "big.trace");
  EXPECT_THROW(build_model(load_config_string(kTree, "cfg", {"traffic.trace_file=\"" + big + "\""}), ""), ConfigError);
}

TEST(TraceReplay, SameResultsWithOneAndTwoThreadsAndNoViolations) {
  const std::string path = source_path("configs/examples/trace_small.toml");
  const std::vector<std::string> set{"simulation.trials=5", "simulation.check_invariants=true", "routing.algorithm=\"random\""};
  const StudyResult one = run_file(path, set, 1);
  const StudyResult two = run_file(path, set, 2);
  ASSERT_EQ(one.trials.size(), 5u);
  ASSERT_EQ(two.trials.size(), 5u);
  for (size_t i = 0; i < one.trials.size(); ++i) {
    const TrialResult& a = one.trials[i];
    const TrialResult& b = two.trials[i];
    EXPECT_EQ(a.seed, b.seed);
    ASSERT_EQ(a.metrics.size(), b.metrics.size());
    for (size_t k = 0; k < a.metrics.size(); ++k) {
      EXPECT_EQ(a.metrics[k].name, b.metrics[k].name);
      if (std::isnan(a.metrics[k].value)) EXPECT_TRUE(std::isnan(b.metrics[k].value)) << a.metrics[k].name;
      else EXPECT_EQ(a.metrics[k].value, b.metrics[k].value) << a.metrics[k].name;
    }
    EXPECT_EQ(metric_of(a, "invariant_violations"), 0.0);
    EXPECT_EQ(metric_of(a, "trace_unfinished_nodes"), 0.0);
    EXPECT_GT(metric_of(a, "execution_time_ns"), 0.0);
  }
}

// Tables the kernels could read out of range are refused on the host: check_trace_tables, which
// the engine runs before uploading them.
TEST(TraceReplay, MalformedTablesAreRefusedBeforeTheKernelsSeeThem) {
  Trace trace = parse_trace(kChain, "chain.trace");
  TraceUnits units;
  units.endpoints = 64;
  units.cycle_ns = kCycleNs;
  units.flit_bytes = 256;
  units.mtu_flits = 8;
  const TraceTables good = build_trace_tables(trace, units);
  EXPECT_NO_THROW(check_trace_tables(good, 64));
  EXPECT_THROW(check_trace_tables(good, 63), std::logic_error);
  auto refused = [&](const char* what, auto&& corrupt) {
    TraceTables t = good;
    corrupt(t);
    EXPECT_THROW(check_trace_tables(t, 64), std::logic_error) << what;
  };
  const uint32_t send = good.node_first[0] + 2;  // node 0's "1 send 16 4096"
  ASSERT_EQ(good.op[send], static_cast<uint8_t>(TraceOp::kSend));
  refused("match out of range", [&](TraceTables& t) { t.match[send] = 1000; });
  refused("match not a recv", [&](TraceTables& t) { t.match[send] = send; });
  refused("peer out of range", [&](TraceTables& t) { t.peer[send] = 64; });
  refused("dependent out of range", [&](TraceTables& t) { t.succ[0] = 99; });
  refused("dependent in another node", [&](TraceTables& t) { t.succ[0] = t.node_first[16]; });
  refused("dependents run past the list", [&](TraceTables& t) { t.succ_first.back() += 1; });
  refused("unknown op", [&](TraceTables& t) { t.op[0] = 7; });
  refused("node regions", [&](TraceTables& t) { t.node_first[1] = t.node_first[2] + 1; });
  refused("FIFO outside its node", [&](TraceTables& t) { t.fifo_base[0] = t.node_first[1] + 1; });
  refused("initial heap overflow", [&](TraceTables& t) { t.heap_n[0] = 100; });
  refused("wait not the dependencies", [&](TraceTables& t) { t.wait[send] += 1; });
  refused("short per-event table", [&](TraceTables& t) { t.arg.pop_back(); });
  // And the engine refuses such tables instead of running on them.
  const ModelSetup setup = build_model(load_config_string(kTree, "cfg", {"traffic.trace_file=\"" + write_trace(kChain) + "\""}), "");
  EngineSpec spec = build_engine_spec(setup, {TrialSpec{0, 0, 1, 0, 0}});
  TraceTables broken = *setup.trace;
  broken.match[send] = 1000;
  spec.trace = &broken;
  EXPECT_THROW(Engine engine(spec), std::logic_error);
  // A compute the engine's cycle counter cannot hold is a trace error with its line.
  units.max_cycles = 10;
  try {
    build_trace_tables(trace, units);
    ADD_FAILURE() << "a 100-cycle compute passed a 10-cycle limit";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("chain.trace:4: compute of 2048 ns"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace saturn
