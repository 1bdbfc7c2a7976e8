// Running the packet engine directly (no study layer) and comparing the counters of two runs bit
// for bit: the step-identity checks of test_step_identity.cpp and test_input_fifo.cpp.
#pragma once
#include <gtest/gtest.h>

#include <cctype>
#include <cstdint>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "host/config/config.hpp"
#include "host/engine/engine.hpp"
#include "host/engine/model_setup.hpp"
#include "host/io/binary_io.hpp"
#include "kernels/launch/engine_launch.hpp"

namespace saturn {
namespace test {

// `cycles` of the trials `specs` on the CPU step `step`, the invariants checked every cycle.
inline Counters run_engine(const Config& cfg, const std::string& dir, const std::vector<TrialSpec>& specs,
                           CpuStep step, int threads, uint32_t cycles) {
  const ModelSetup setup = build_model(cfg, dir);
  Engine engine(build_engine_spec(setup, specs));
  LaunchOptions opt;
  opt.threads = threads;
  opt.cpu_step = step;
  opt.check_invariants = true;
  engine.advance(cycles, opt);
  return engine.read_counters();
}

// Every counter of every trial is the same.
inline void expect_same_counters(const Counters& a, const Counters& b, const std::string& what) {
  EXPECT_EQ(a.inj_packets, b.inj_packets) << what;
  EXPECT_EQ(a.inj_flits, b.inj_flits) << what;
  EXPECT_EQ(a.del_packets, b.del_packets) << what;
  EXPECT_EQ(a.del_flits, b.del_flits) << what;
  EXPECT_EQ(a.net_lat_sum, b.net_lat_sum) << what;
  EXPECT_EQ(a.msg_done, b.msg_done) << what;
  EXPECT_EQ(a.msg_lat_sum, b.msg_lat_sum) << what;
  EXPECT_EQ(a.net_hist, b.net_hist) << what;
  EXPECT_EQ(a.msg_hist, b.msg_hist) << what;
  EXPECT_EQ(a.busy_cycles, b.busy_cycles) << what;
  EXPECT_EQ(a.generated, b.generated) << what;
  EXPECT_EQ(a.refused, b.refused) << what;
  EXPECT_EQ(a.flow_flits, b.flow_flits) << what;
  EXPECT_EQ(a.flow_done, b.flow_done) << what;
  EXPECT_EQ(a.flow_reordered, b.flow_reordered) << what;
  EXPECT_EQ(a.busy_until, b.busy_until) << what;
  EXPECT_EQ(a.ctrl_injected, b.ctrl_injected) << what;
  EXPECT_EQ(a.ctrl_delivered, b.ctrl_delivered) << what;
  EXPECT_EQ(a.acks_dropped, b.acks_dropped) << what;
  EXPECT_EQ(a.marked, b.marked) << what;
  EXPECT_EQ(a.full_cycles, b.full_cycles) << what;
  EXPECT_EQ(a.trace_done, b.trace_done) << what;
  EXPECT_EQ(a.trace_finish, b.trace_finish) << what;
  EXPECT_EQ(a.arn_sent, b.arn_sent) << what;
  EXPECT_EQ(a.arn_refused, b.arn_refused) << what;
  EXPECT_EQ(a.voq_vc, b.voq_vc) << what;
  EXPECT_EQ(a.adapted, b.adapted) << what;
  EXPECT_EQ(a.victim_msg_done, b.victim_msg_done) << what;
  EXPECT_EQ(a.victim_msg_lat_sum, b.victim_msg_lat_sum) << what;
  EXPECT_EQ(a.drops, b.drops) << what;
  EXPECT_EQ(a.nacks, b.nacks) << what;
  EXPECT_EQ(a.saa_changes, b.saa_changes) << what;
  EXPECT_EQ(a.saa_off, b.saa_off) << what;
  EXPECT_EQ(a.saa_above, b.saa_above) << what;
  EXPECT_EQ(a.saa_settled, b.saa_settled) << what;
  EXPECT_EQ(a.saa_residual, b.saa_residual) << what;
  EXPECT_EQ(a.route_setups, b.route_setups) << what;
  EXPECT_EQ(a.route_setup_cycles, b.route_setup_cycles) << what;
  EXPECT_EQ(a.route_teardowns, b.route_teardowns) << what;
  EXPECT_EQ(a.route_full, b.route_full) << what;
  EXPECT_EQ(a.route_left, b.route_left) << what;
  EXPECT_EQ(a.retx, b.retx) << what;
  EXPECT_EQ(a.res, b.res) << what;
  EXPECT_EQ(a.gnt, b.gnt) << what;
}

// The same trials one at a time on one thread, in 16-trial packs on two threads and under the
// default step (run(step, threads) runs them, with 37 trials two packs and a remainder): no invariant
// violation, more than min_delivered packets delivered, and every counter the same.
template <class Run>
inline void expect_steps_agree(const Run& run, uint64_t min_delivered, const std::string& what) {
  const Counters scalar = run(CpuStep::kPhases, 1);
  const Counters packs = run(CpuStep::kPhasesPack16, 2);
  const Counters chosen = run(CpuStep::kAuto, 1);
  EXPECT_GT(std::accumulate(scalar.del_packets.begin(), scalar.del_packets.end(), uint64_t{0}), min_delivered) << what;
  for (uint64_t x : scalar.violations) EXPECT_EQ(x, 0u) << what;
  for (uint64_t x : packs.violations) EXPECT_EQ(x, 0u) << what;
  expect_same_counters(scalar, packs, "scalar vs packs: " + what);
  expect_same_counters(scalar, chosen, "scalar vs the default step: " + what);
}

// The engine's whole state as save_state writes it (every column).
inline std::string saved_engine_state(const Engine& engine) {
  std::stringstream buffer;
  BinaryWriter w(buffer);
  engine.save_state(w);
  return buffer.str();
}

// The engine's whole saved state (every column) after `calls` calls of `cycles` cycles each under
// the GPU program `step` (on the CPU: kSharedTrial and kWarpSwitch run their programs, kAuto the
// phases), three trials at loads 0.6-0.8, the invariants checked every cycle: the state checks of
// the GPU programs that the CPU runs (test_staged_program.cpp, test_switch_team.cpp).
inline std::string engine_state_after(const ModelSetup& setup, GpuStep step, int calls, uint32_t cycles) {
  std::vector<TrialSpec> specs;
  for (int t = 0; t < 3; ++t) specs.push_back(TrialSpec{0, t, trial_seed(11, 0, t), 0.6 + 0.1 * t, 0.0});
  Engine engine(build_engine_spec(setup, specs));
  LaunchOptions opt;
  opt.threads = 2;
  opt.cpu_step = CpuStep::kPhases;
  opt.gpu_step = step;
  opt.check_invariants = true;
  for (int k = 0; k < calls; ++k) engine.advance(cycles, opt);
  const Counters c = engine.read_counters();
  for (uint64_t v : c.violations) EXPECT_EQ(v, 0u);
  uint64_t delivered = 0;
  for (uint64_t d : c.del_packets) delivered += d;
  EXPECT_GT(delivered, 100u);
  return saved_engine_state(engine);
}

// Where two saved engine states first differ: the byte offset and the last column name before it
// (the saved stream names each column), for a failure message; empty if they are equal.
inline std::string state_difference(const std::string& a, const std::string& b) {
  if (a == b) return "";
  size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  std::string column = "?";
  for (size_t j = i; j-- > 0;) {  // the nearest run of 3 or more name characters before the byte
    size_t k = j + 1;
    while (j > 0 && (std::isalnum(static_cast<unsigned char>(a[j])) || a[j] == '_')) --j;
    if (k - j - 1 >= 3 && std::isalpha(static_cast<unsigned char>(a[j + 1]))) {
      column = a.substr(j + 1, k - j - 1);
      break;
    }
  }
  return "saved states differ from byte " + std::to_string(i) + " of " + std::to_string(a.size()) +
         ", in or after column '" + column + "'";
}

}  // namespace test
}  // namespace saturn
