// Deadlock watch: shortest-path routing on a ring has cyclic channel dependencies, and with
// one-packet buffers at full load the credit loops lock up. Saturn must say so per trial (the
// 'deadlocked' metric) and stop a finite-flow run instead of simulating to its time limit.
// A fat tree (up/down routing: acyclic) never trips the watch.
#include <gtest/gtest.h>

#include "tests/support/run_helpers.hpp"

namespace saturn {
namespace {

using namespace saturn::test;

std::string ring_topology() {
  const std::string dir = make_temp_dir("saturn_deadlock");
  std::string text;
  for (int i = 0; i < 6; ++i) text += "switch S" + std::to_string(i) + "\n";
  for (int i = 0; i < 6; ++i) text += "endpoint e" + std::to_string(i) + " S" + std::to_string(i) + "\n";
  for (int i = 0; i < 6; ++i) text += "link S" + std::to_string(i) + " S" + std::to_string((i + 1) % 6) + "\n";
  write_file(dir + "/ring.topo", text);
  return dir + "/ring.topo";
}

TEST(Deadlock, RingWithTinyBuffersIsReportedAndStopsEarly) {
  const std::string topo = ring_topology();
  // Every node sends 2048 packets two hops clockwise: each flow holds one link's buffer while it
  // waits for the next, and the six flows close the cycle.
  std::string flows = "traffic.flows=[";
  for (int i = 0; i < 6; ++i)
    flows += std::string(i ? ", " : "") + "{src=" + std::to_string(i) + ", dst=" + std::to_string((i + 2) % 6) +
             ", bytes=4194304}";
  flows += "]";
  const StudyResult r = run_toml("", {"topology.kind=file", "topology.file=\"" + topo + "\"", "routing.algorithm=table",
                                      "switch.buffer_bytes=2048", "traffic.pattern=flows", flows, "simulation.trials=2",
                                      "simulation.warmup_ns=0", "simulation.duration_ns=1e7"});
  for (const auto& t : r.trials) {
    EXPECT_EQ(metric_of(t, "deadlocked"), 1.0);
    EXPECT_TRUE(std::isnan(metric_of(t, "completion_time_ns")));
    EXPECT_GT(metric_of(t, "packets_in_flight"), 0.0);
  }
  // The default time limit is 1e9 ns = 6.1 M cycles; the watch ends the run after the stall.
  EXPECT_LT(r.simulated_cycles, 2u * 1000000u);
}

TEST(Deadlock, FatTreeAtFullLoadNeverTripsTheWatch) {
  const StudyResult r = run_toml("", {"topology.k=2", "topology.n=3", "traffic.load=1.0", "simulation.trials=2",
                                      "simulation.warmup_ns=0", "simulation.duration_ns=2.5e7"});  // 150 k cycles
  for (const auto& t : r.trials) EXPECT_EQ(metric_of(t, "deadlocked"), 0.0);
}

}  // namespace
}  // namespace saturn
