// Flow-level adaptive routing with its setup and teardown packets in flight (routing.route_setup =
// "packets"; kernels/routing/route_setup.hpp; PAPERS-SPEC M17, issue 12 item 1): every connection
// is set up once and torn down once, leaves no cache entry and no flow count behind, its packets
// arrive in order, a setup costs its source exactly one round trip before data, and the
// combinations it does not support are refused with the key named.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "host/config/config.hpp"
#include "host/config/config_error.hpp"
#include "host/engine/model_setup.hpp"
#include "tests/support/config_errors.hpp"
#include "tests/support/run_helpers.hpp"

namespace saturn {
namespace {

using test::metric_values;
using test::run_toml;

// P superposed permutations of 20-packet flows on the modified 4-ary 3-tree (64 nodes, width 2),
// 1 KB packets of 4 flits, invariants checked every cycle.
std::string modified_tree(int permutations, int cache_entries, int active_queues = 8, const std::string& switch_keys = "") {
  return "[simulation]\ntrials = 3\nwarmup_ns = 0\nduration_ns = 100\ntime_limit_ns = 1e8\ncheck_invariants = true\n"
         "[topology]\nk = 4\nn = 3\nhorizontal_width = 2\n[routing]\nalgorithm = \"adaptive\"\nroute_setup = \"packets\"\n"
         "route_cache_entries = " + std::to_string(cache_entries) +
         "\n[switch]\nbuffer_bytes = 8192\n" + switch_keys + "[link]\nflit_bytes = 256\n[endpoint]\nmtu_bytes = 1024\nactive_queues = " +
         std::to_string(active_queues) + "\n"
         "[traffic]\npattern = \"permutation\"\npermutations = " + std::to_string(permutations) +
         "\nphase_bytes = 20480\n";
}

void expect_clean(const StudyResult& r, const std::string& what) {
  const auto setups = metric_values(r, "route_setups");
  const auto teardowns = metric_values(r, "route_teardowns");
  ASSERT_EQ(setups.size(), teardowns.size()) << what;
  for (size_t i = 0; i < setups.size(); ++i) {
    EXPECT_GT(setups[i], 0.0) << what;
    EXPECT_EQ(setups[i], teardowns[i]) << what << ": every connection set up is torn down";
  }
  for (double v : metric_values(r, "route_state_left")) EXPECT_EQ(v, 0.0) << what << ": a stale PRC entry or flow count";
  for (double v : metric_values(r, "packets_out_of_order")) EXPECT_EQ(v, 0.0) << what << ": a flow changed path";
  for (double v : metric_values(r, "acks_dropped")) EXPECT_EQ(v, 0.0) << what << ": a control packet was lost";
  for (double v : metric_values(r, "invariant_violations")) EXPECT_EQ(v, 0.0) << what;
  for (double v : metric_values(r, "completion_time_ns")) EXPECT_FALSE(std::isnan(v)) << what << ": unfinished";
}

// Unlimited and 1-entry caches, one and three permutations: clean, in order, and one connection
// per (source, destination) pair (a permutation has 64; three have fewer pairs than flows where
// two of them map a source alike, the twins that share a connection).
TEST(RouteSetupPackets, EveryConnectionIsSetUpOnceAndTornDownWithoutTrace) {
  for (const int p : {1, 3})
    for (const int cache : {0, 1}) {
      const std::string what = "P = " + std::to_string(p) + ", cache " + std::to_string(cache);
      const StudyResult r = run_toml(modified_tree(p, cache));
      expect_clean(r, what);
      for (double v : metric_values(r, "route_setups")) {
        if (p == 1) EXPECT_EQ(v, 64.0) << what;
        else EXPECT_LE(v, 192.0) << what;
        if (p == 3) EXPECT_GT(v, 160.0) << what << ": only twins share a connection";
      }
      // the host sizes an unlimited cache to twice what the instant setup needs: it was enough
      if (cache == 0)
        for (double v : metric_values(r, "route_cache_full")) EXPECT_EQ(v, 0.0) << what;
    }
  // (1-entry caches refuse entries: some setup found one full with an alternate on offer)
  double full = 0;
  for (double v : metric_values(run_toml(modified_tree(3, 1)), "route_cache_full")) full += v;
  EXPECT_GT(full, 0.0) << "one-entry caches at P = 3 never filled: the refusal path was not exercised";
}

// The setups on a control VC of their own with strict priority (fig6probes' fabric): the
// teardowns still follow the data on the data's VC, whose input buffers then hold 1-flit packets
// among 4-flit ones (entries for the smallest packet: no input runs out of them, which the
// invariant check would count).
TEST(RouteSetupPackets, SetupsOnAPriorityClassTeardownsBehindTheData) {
  const std::string toml =
      modified_tree(3, 0, 8, "vcs = 2\nvc_arbitration = \"priority\"\n") + "[cc]\nack_buffer_packets = 4\n";
  const ModelSetup setup = build_model(load_config_string(toml, "control_vc"), ".");
  ASSERT_TRUE(setup.model.cc.ack_vc_separate);
  EXPECT_EQ(setup.model.entries, setup.model.vc_flits + 4) << "an entry per flit of the data VC, and the 4 ACK-class packets";
  expect_clean(run_toml(toml), "control VC");
}

// One flow from node 0 to node 63 on an idle network (six links each way, one cycle each): its p_s
// reaches the destination in 6 cycles, is turned back the next cycle and is home 6 cycles later,
// 13 cycles; the data then take the same time as with the instant setup, so completion is later
// by exactly that round trip. A 1-flit packet's one-way time is measured, not assumed.
TEST(RouteSetupPackets, ASetupCostsItsSourceOneRoundTripBeforeData) {
  const auto one_flow = [](const std::string& setup, int bytes) {
    return "[simulation]\ntrials = 1\nwarmup_ns = 0\nduration_ns = 100\ntime_limit_ns = 1e7\ncheck_invariants = true\n"
           "[topology]\nk = 4\nn = 3\nhorizontal_width = 2\n[routing]\nalgorithm = \"adaptive\"\nroute_setup = \"" +
           setup + "\"\n[switch]\nbuffer_bytes = 8192\n[link]\nflit_bytes = 256\n[endpoint]\nmtu_bytes = 1024\n"
           "active_queues = 2\n[traffic]\npattern = \"flows\"\n[[traffic.flows]]\nsrc = 0\ndst = 63\nbytes = " +
           std::to_string(bytes) + "\n";
  };
  const double cycle_ns = 256.0 * 8.0 / 100.0;  // a 256-byte flit at 100 Gb/s
  const StudyResult packets = run_toml(one_flow("packets", 20480));
  const StudyResult instant = run_toml(one_flow("instant", 20480));
  const double one_way = metric_values(run_toml(one_flow("instant", 20)), "completion_time_ns")[0] / cycle_ns;
  expect_clean(packets, "one flow");
  const double rtt = metric_values(packets, "route_setup_ns")[0] / cycle_ns;
  EXPECT_NEAR(one_way, 6.0, 1e-9) << "a 1-flit packet over six 1-cycle links";
  EXPECT_NEAR(rtt, 2.0 * one_way + 1.0, 1e-9) << "out, one cycle at the destination, back on the default path";
  EXPECT_NEAR(metric_values(packets, "completion_time_ns")[0] - metric_values(instant, "completion_time_ns")[0],
              rtt * cycle_ns, 1e-6)
      << "the data wait for the setup to come back, then take the instant setup's time";
}

// Flows that start later than t = 0 (refused with the instant setup) set up when they start.
TEST(RouteSetupPackets, FlowsThatStartLaterSetUpWhenTheyStart) {
  const std::string flows =
      "[simulation]\ntrials = 2\nwarmup_ns = 0\nduration_ns = 100\ntime_limit_ns = 1e7\ncheck_invariants = true\n"
      "[topology]\nk = 4\nn = 3\nhorizontal_width = 1\n[routing]\nalgorithm = \"adaptive\"\nroute_setup = \"packets\"\n"
      "[link]\nflit_bytes = 256\n[endpoint]\nmtu_bytes = 1024\nactive_queues = 2\n[traffic]\npattern = \"flows\"\n"
      "[[traffic.flows]]\nsrc = 0\ndst = 60\nbytes = 20000\n"
      "[[traffic.flows]]\nsrc = 0\ndst = 59\nbytes = 8192\nstart_ns = 3000\n"
      "[[traffic.flows]]\nsrc = 1\ndst = 61\nbytes = 30000\nstart_ns = 50\n"
      "[[traffic.flows]]\nsrc = 2\ndst = 61\nbytes = 30000\nstart_ns = 60\n";
  const StudyResult r = run_toml(flows);
  expect_clean(r, "later flows");
  for (double v : metric_values(r, "route_setups")) EXPECT_EQ(v, 4.0);
  for (double v : metric_values(r, "flow_done_ns[n0->n59]")) EXPECT_GT(v, 3000.0);
  test::expect_config_error(
      "[topology]\nk = 4\nn = 3\n[routing]\nalgorithm = \"adaptive\"\n[traffic]\npattern = \"flows\"\n"
      "[[traffic.flows]]\nsrc = 0\ndst = 5\nbytes = 2000\nstart_ns = 10\n",
      "traffic.flows");
}

TEST(RouteSetupPackets, CombinationsItDoesNotSupportAreRefused) {
  const std::string base = modified_tree(1, 0);
  test::expect_config_error(
      "[topology]\nk = 4\nn = 3\n[routing]\nroute_setup = \"packets\"\n[traffic]\npattern = \"permutation\"\n"
      "phase_bytes = 2048\n",
      "routing.route_setup");
  test::expect_config_error(base + "[injection]\nscheduler = \"ps\"\nrates = \"saa\"\n", "injection.rates");
  test::expect_config_error(base + "[injection]\nscheduler = \"ps\"\nrates = \"saa_probes\"\n", "injection.rates");
  test::expect_config_error(base + "[cc]\nwindow = 2\n", "routing.route_setup");
  test::expect_config_error(base + "[cc]\nack_bytes = 512\n", "cc.ack_bytes");
  EXPECT_THROW(run_toml(modified_tree(3, 0, 2)), ConfigError)
      << "three flows a source need three send queues (a connection's owner keeps its queue)";
}

}  // namespace
}  // namespace saturn
