// SAA by control packets in the packet engine (injection.rates = "saa_probes";
// kernels/cc/saa_probes.hpp; PAPERS-SPEC M29, Algorithm 1, issue 12 item 2): the protocol's
// registers follow Algorithm 1; on D-mod-K and on adaptive routes every flow ends at exactly the
// central SAA rate of its route (the rule of kernels/flow/fluid.hpp that injection.rates = "saa"
// gives at t = 0), every AnnounceEnd takes back what its AnnounceStart added, nothing is lost, and
// the phase costs the protocol's start-up and nothing like a lost rate.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "kernels/cc/saa_probes.hpp"
#include "tests/support/cli_helpers.hpp"
#include "tests/support/config_errors.hpp"
#include "tests/support/run_helpers.hpp"

namespace saturn {
namespace {

using test::metric_values;

// Algorithm 1's loop body on one link: AnnounceStart adds w_f and takes the running maximum,
// ProbeLinks only takes it, AnnounceEnd only subtracts.
TEST(SaaProbes, LinkRegisterFollowsAlgorithmOne) {
  uint32_t wl = 300;
  Packet announce = Packet::make(1, 2, 1, 0, kFlagControl | kSaaAnnounce, 200, 0);
  saa_visit_link(wl, announce);
  EXPECT_EQ(wl, 500u);
  EXPECT_EQ(announce.birth_cycle, 500u);
  Packet probe = Packet::make(1, 2, 1, 0, kFlagControl | kSaaProbe, 200, 700);
  saa_visit_link(wl, probe);
  EXPECT_EQ(wl, 500u);
  EXPECT_EQ(probe.birth_cycle, 700u) << "a probe keeps the larger maximum of an earlier link";
  Packet end = Packet::make(1, 2, 1, 0, kFlagControl | kSaaEnd, 200, 0);
  saa_visit_link(wl, end);
  EXPECT_EQ(wl, 300u);
  EXPECT_EQ(end.birth_cycle, 0u) << "AnnounceEnd carries no maximum";
}

// P superposed permutations of equal 100-packet flows with Periodic Selection; `routing` adds the
// route keys, `extra` more injection keys. Invariants checked every cycle.
std::string phase(int permutations, const std::string& rates, const std::string& routing = "",
                  const std::string& extra = "") {
  return "[simulation]\ntrials = 4\nwarmup_ns = 0\nduration_ns = 1000\ntime_limit_ns = 2e7\ncheck_invariants = true\n"
         "[topology]\nk = 4\nn = 3\n" + routing +
         "[link]\nflit_bytes = 256\n[switch]\nbuffer_bytes = 16384\n[endpoint]\nmtu_bytes = 2048\nactive_queues = 8\n"
         "[traffic]\npattern = \"permutation\"\npermutations = " + std::to_string(permutations) +
         "\nphase_bytes = 204800\n[injection]\nscheduler = \"ps\"\nrates = \"" + rates + "\"\n" + extra;
}

const std::string kAdaptive = "horizontal_width = 2\n[routing]\nalgorithm = \"adaptive\"\n";

void expect_protocol_clean(const StudyResult& r, const std::string& what) {
  for (double v : metric_values(r, "saa_flows_never_central")) EXPECT_EQ(v, 0.0) << what << ": a flow never sent at its SAA rate";
  for (double v : metric_values(r, "saa_link_weight_left")) EXPECT_EQ(v, 0.0) << what << ": W_l left after every AnnounceEnd";
  for (double v : metric_values(r, "acks_dropped")) EXPECT_EQ(v, 0.0) << what << ": a control packet was lost";
  for (double v : metric_values(r, "invariant_violations")) EXPECT_EQ(v, 0.0) << what;
  for (double v : metric_values(r, "completion_time_ns")) EXPECT_FALSE(std::isnan(v)) << what << ": unfinished";
  for (double v : metric_values(r, "control_packets")) EXPECT_GT(v, 0.0) << what;
}

// Every flow's rate converges to the central one, on the tree's D-mod-K routes and on the adaptive
// routes of the modified tree (the probes follow each flow's PRC route: a probe on another path
// would read other registers and end off the central rate).
TEST(SaaProbes, RatesConvergeToTheCentralRates) {
  for (int p : {1, 3}) {
    expect_protocol_clean(test::run_toml(phase(p, "saa_probes")), "D-mod-K, P = " + std::to_string(p));
    expect_protocol_clean(test::run_toml(phase(p, "saa_probes", kAdaptive)), "adaptive, P = " + std::to_string(p));
  }
}

// Four superposed permutations of 16 nodes give about six twin pairs (two flows of one source to
// one destination) a trial. The twins take turns with their packets: a twin that probes back to
// back must not keep the other from announcing until it ends (before that rule, flows of twin
// pairs ended without ever sending at their central rate).
TEST(SaaProbes, TwinFlowsOfOnePairTakeTurns) {
  const std::string toml =
      "[simulation]\ntrials = 4\nwarmup_ns = 0\nduration_ns = 1000\ntime_limit_ns = 2e7\ncheck_invariants = true\n"
      "[topology]\nk = 4\nn = 2\n[link]\nflit_bytes = 256\n[switch]\nbuffer_bytes = 16384\n"
      "[endpoint]\nmtu_bytes = 2048\nactive_queues = 4\n"
      "[traffic]\npattern = \"permutation\"\npermutations = 4\nphase_bytes = 204800\n"
      "[injection]\nscheduler = \"ps\"\n";
  const StudyResult probes = test::run_toml(toml + "rates = \"saa_probes\"\n");
  expect_protocol_clean(probes, "twins");
  // The cost of finding the rates: each flow's AnnounceStart round trip before its data, and the
  // probes' flits on the sources' injection links, which SAA keeps busy. A regression check of the
  // measured value, 1.082 (bound: 2 points above it); 000 gives no figure, only that the overhead
  // is small for flows over 100 kbit (these are 1.6 Mbit, on a 16-node tree with 4 flows a source).
  const StudyResult given = test::run_toml(toml + "rates = \"saa\"\n");
  const double ratio = test::metric_mean(probes, "completion_time_ns") / test::metric_mean(given, "completion_time_ns");
  EXPECT_GE(ratio, 1.0);
  EXPECT_LE(ratio, 1.10);
}

// injection.saa_first_rate: Algorithm 1 as written gives a flow the rate its AnnounceStart brings
// back, which misses the flows on its links that announce after it, so flows start above their
// central rate; with "probe" the first rate comes from a probe sent once the AnnounceStart is back,
// which sees every flow of a phase that starts at t = 0 here (one permutation: none starts above).
// Both end every flow at its central rate.
TEST(SaaProbes, FirstRateAfterOneProbeIsNeverAboveTheCentralRate) {
  const StudyResult announce = test::run_toml(phase(1, "saa_probes"));
  const StudyResult probe = test::run_toml(phase(1, "saa_probes", "", "saa_first_rate = \"probe\"\n"));
  expect_protocol_clean(announce, "first rate at the announce");
  expect_protocol_clean(probe, "first rate after a probe");
  EXPECT_GT(test::metric_mean(announce, "saa_flows_above_central"), 0.0)
      << "an announce sees only the flows announced before it: some flows start above their central rate";
  for (double v : metric_values(probe, "saa_flows_above_central")) EXPECT_EQ(v, 0.0);
}

using test::expect_config_error;

TEST(SaaProbes, BadCombinationsAreRefused) {
  const std::string flows = "[traffic]\nphase_bytes = 4096\n";
  expect_config_error(flows + "[injection]\nrates = \"saa_probes\"\n", "injection.scheduler");  // round robin
  expect_config_error(flows + "[injection]\nscheduler = \"ps\"\nsaa_probe_interval_ns = 100\n",
                      "injection.saa_probe_interval_ns");
  expect_config_error(flows + "[injection]\nscheduler = \"ps\"\nsaa_first_rate = \"probe\"\n", "injection.saa_first_rate");
  expect_config_error(flows + "[injection]\nscheduler = \"ps\"\nrates = \"saa_probes\"\n[cc]\nresponse = \"aimd\"\n",
                      "injection.scheduler");  // no congestion control beside the probes
  expect_config_error(flows + "[injection]\nscheduler = \"ps\"\nrates = \"saa_probes\"\n[cc]\nack_bytes = 4096\n",
                      "cc.ack_bytes");
  expect_config_error(flows + "[injection]\nscheduler = \"ps\"\nrates = \"saa_probes\"\n[cc]\nack_queue = 1\n",
                      "cc.ack_queue");
  expect_config_error(flows + "[routing]\nalgorithm = \"random\"\n[injection]\nscheduler = \"ps\"\nrates = \"saa_probes\"\n",
                      "injection.rates");
  // Known once the flow table is built (per trial): one error line naming the key, exit 2.
  const std::string dir = test::make_temp_dir("saa_probes");
  test::write_file(dir + "/few_queues.toml",
                   "[topology]\nk = 4\nn = 2\n[endpoint]\nactive_queues = 1\n[traffic]\npattern = \"permutation\"\n"
                   "permutations = 2\nphase_bytes = 4096\n[injection]\nscheduler = \"ps\"\nrates = \"saa_probes\"\n");
  const test::CliRun r = test::saturn_cli({"run", dir + "/few_queues.toml", "--out", dir + "/out"});
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_EQ(test::line_count(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("'endpoint.active_queues'"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace saturn
