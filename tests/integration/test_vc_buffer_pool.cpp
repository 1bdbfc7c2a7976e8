// switch.vc_buffer = "shared" (kernels/state/credit_pool.hpp, docs/model/switch.md): an input
// port's buffer as a pool with a per-VC minimum, against the static equal split.
//
// The behaviour: one greedy flow on VC 0 of a 2-VC port whose credit round trip (two 50-cycle links)
// is longer than the buffer (64 packets). Its rate is then the flits its VC may hold over the round
// trip: buffer / 2 = 32 packets under the split, min + pool = 64 - min under the shared buffer (the
// other VC keeps its minimum). The ratio of the two rates is the ratio of the two holdings, whatever
// the exact round trip: 63 / 32 with a minimum of one packet, 52 / 32 with a minimum of 12.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "tests/support/config_errors.hpp"
#include "tests/support/run_helpers.hpp"

namespace saturn {
namespace {

using test::expect_config_error;
using test::metric_mean;
using test::metric_values;
using test::run_toml;

// One switch, two endpoints, 2 KB packets of one flit (163.84 ns), links of 50 cycles.
std::string one_flow(const std::string& vc_buffer) {
  return "[simulation]\ntrials = 2\nwarmup_ns = 200000\nduration_ns = 2000000\ncheck_invariants = true\n"
         "[topology]\nk = 2\nn = 1\n[link]\nlatency_ns = 8192\n"
         "[switch]\nvcs = 2\nbuffer_bytes = 131072\n" + vc_buffer +
         "[traffic]\npattern = \"flows\"\n[[traffic.flows]]\nsrc = 0\ndst = 1\nbytes = 0\n";
}

double flow_rate(const StudyResult& r) {
  for (double v : metric_values(r, "invariant_violations")) EXPECT_EQ(v, 0.0);
  return metric_mean(r, "flow_rate[n0->n1]");
}

TEST(VcBufferPool, OneVcHoldsThePoolAndItsRateGrowsByTheSameRatio) {
  const double split = flow_rate(run_toml(one_flow("")));
  const double shared = flow_rate(run_toml(one_flow("vc_buffer = \"shared\"\n")));
  const double shared_min12 = flow_rate(run_toml(one_flow("vc_buffer = \"shared\"\nvc_min_bytes = 24576\n")));
  std::printf("flow rate: split %.4f, shared %.4f, shared with a 12-packet minimum %.4f\n", split, shared, shared_min12);
  ASSERT_LT(shared, 0.95) << "the round trip should be longer than the buffer: the rate is credit-bound";
  // 2%: the rates are whole packets over a window of ~12,000 cycles.
  EXPECT_NEAR(shared / split, 63.0 / 32.0, 0.02 * 63.0 / 32.0) << "split " << split << ", shared " << shared;
  EXPECT_NEAR(shared_min12 / split, 52.0 / 32.0, 0.02 * 52.0 / 32.0)
      << "split " << split << ", shared with a 12-packet minimum " << shared_min12;
}

// Two flows of one source on different VCs share the injection link's buffer: under the shared
// buffer as under the split their sum is the whole buffer over the round trip.
TEST(VcBufferPool, TwoVcsTogetherHoldTheWholeBufferEitherWay) {
  auto two_flows = [](const std::string& vc_buffer) {
    std::string toml = one_flow(vc_buffer) + "[[traffic.flows]]\nsrc = 0\ndst = 2\nbytes = 0\nvc = 1\n";
    toml.replace(toml.find("k = 2\n"), 6, "k = 3\n");  // a third endpoint
    return run_toml(toml);
  };
  const StudyResult split = two_flows("");
  const StudyResult shared = two_flows("vc_buffer = \"shared\"\n");
  for (const StudyResult* r : {&split, &shared})
    for (double v : metric_values(*r, "invariant_violations")) EXPECT_EQ(v, 0.0);
  auto sum = [](const StudyResult& r) { return metric_mean(r, "flow_rate[n0->n1]") + metric_mean(r, "flow_rate[n0->n2]"); };
  ASSERT_LT(sum(split), 0.95) << "credit-bound";
  EXPECT_NEAR(sum(shared), sum(split), 0.02 * sum(split));
}

TEST(VcBufferPool, BadKeysAreRefusedByName) {
  const std::string net = "[topology]\nk = 2\nn = 2\n[switch]\nvcs = 2\nbuffer_bytes = 16384\n";
  expect_config_error(net + "vc_min_bytes = 4096\n", "switch.vc_min_bytes");  // only with shared
  expect_config_error(net + "vc_buffer = \"shared\"\nvc_min_bytes = 1024\n", "switch.vc_min_bytes");  // < one MTU
  expect_config_error(net + "vc_buffer = \"shared\"\nvc_min_bytes = 8192\n", "switch.vc_min_bytes");  // no pool left
  expect_config_error(net + "vc_buffer = \"pooled\"\n", "switch.vc_buffer");
  expect_config_error("[topology]\nkind = \"dragonfly\"\n[switch]\nvcs = 2\nvc_buffer = \"shared\"\n"
                      "[routing]\nalgorithm = \"minimal\"\n",
                      "switch.vc_buffer");
}

}  // namespace
}  // namespace saturn
