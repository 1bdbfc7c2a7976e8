// switch.packet_descriptors (docs/model/switch.md; issue 61 item 4): the packet entries one input
// port may hold, below the number of smallest packets its buffers could take. On the 72-node
// dragonfly of tests/support/small_dragonfly.hpp with 001's baseline (PAR, every data packet ACKed
// by a 1-flit ACK on a class of its own), whose ports' buffers hold up to 150 packets:
//   - a port's pool is the smaller of the limit and its buffers' bound, on a dragonfly's pools per
//     link class and on a fat tree's one size for every port;
//   - a limit the run never reaches gives the same bits as none, in less memory per trial;
//   - a limit the run reaches stops it with one error line naming the key, where and the bound;
//   - at 65535 packets the error for too large a buffer points to the key, which lifts it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "host/config/config_error.hpp"
#include "host/engine/model_setup.hpp"
#include "tests/support/run_helpers.hpp"
#include "tests/support/small_dragonfly.hpp"

namespace saturn {
namespace {

using namespace saturn::test;

// 001's baseline on the small dragonfly, uniform at full load, 2 trials of 5 + 10 us.
const std::vector<std::string> kBaseline = {"routing.algorithm=par", "switch.vcs=8",  "cc.acks=true",
                                            "cc.ack_vc=4",            "cc.ack_bytes=100", "traffic.load=1.0",
                                            "simulation.warmup_ns=5000", "simulation.duration_ns=10000"};

// kBaseline and `more`.
std::vector<std::string> baseline(std::vector<std::string> more = {}) {
  more.insert(more.begin(), kBaseline.begin(), kBaseline.end());
  return more;
}

ModelSetup setup_with(const std::string& toml, const std::vector<std::string>& overrides) {
  return build_model(load_config_string(toml, "test", overrides), "");
}

std::string run_error(const std::vector<std::string>& overrides) {
  try {
    run_toml(kSmallDragonfly, baseline(overrides));
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(PacketDescriptors, APortTakesTheLimitOrItsBuffersBoundWhicheverIsSmaller) {
  const ModelSetup full = setup_with(kSmallDragonfly, baseline({}));
  EXPECT_EQ(full.packet_descriptors, 0);
  EXPECT_EQ(full.buffer_packets, 150);  // the largest of the link classes' pools
  EXPECT_EQ(full.model.entries, 150);
  const ModelSetup limited = setup_with(kSmallDragonfly, baseline({"switch.packet_descriptors=24"}));
  EXPECT_EQ(limited.buffer_packets, 150);
  EXPECT_EQ(limited.model.entries, 24);
  for (int k = 0; k < 3; ++k) {
    EXPECT_LE(limited.model.class_entries[k], 24) << "link class " << k;
    EXPECT_EQ(limited.model.class_entries[k], std::min(24, full.model.class_entries[k])) << "link class " << k;
  }
  EXPECT_LT(limited.bytes_per_trial(), full.bytes_per_trial());
  // A fat tree's ports share one size.
  const char* tree = "[topology]\nk = 2\nn = 3\n";
  const ModelSetup tree_full = setup_with(tree, {});
  ASSERT_GT(tree_full.model.entries, 3);
  const ModelSetup tree_limited = setup_with(tree, {"switch.packet_descriptors=3"});
  EXPECT_EQ(tree_limited.model.entries, 3);
  EXPECT_EQ(tree_limited.buffer_packets, tree_full.model.entries);
  // Above the bound: the bound.
  EXPECT_EQ(setup_with(tree, {"switch.packet_descriptors=60000"}).model.entries, tree_full.model.entries);
}

// Uniform traffic at full load: a port holds at most 11-16 packets at once (a limit of 10 runs
// out, 16 does not), far from the 150 its buffers could take in ACKs.
TEST(PacketDescriptors, ALimitNeverReachedGivesTheSameBits) {
  const StudyResult full = run_toml(kSmallDragonfly, baseline({"simulation.check_invariants=true"}));
  const StudyResult limited =
      run_toml(kSmallDragonfly, baseline({"simulation.check_invariants=true", "switch.packet_descriptors=24"}));
  ASSERT_EQ(full.trials.size(), limited.trials.size());
  for (size_t i = 0; i < full.trials.size(); ++i) {
    const auto& a = full.trials[i].metrics;
    const auto& b = limited.trials[i].metrics;
    ASSERT_EQ(a.size(), b.size());
    for (size_t m = 0; m < a.size(); ++m) {
      EXPECT_EQ(a[m].name, b[m].name);
      EXPECT_TRUE(a[m].value == b[m].value || (std::isnan(a[m].value) && std::isnan(b[m].value)))
          << "trial " << i << " " << a[m].name << ": " << a[m].value << " against " << b[m].value;
    }
    EXPECT_EQ(metric_of(limited.trials[i], "invariant_violations"), 0.0);
  }
  EXPECT_GT(metric_mean(full, "packets_delivered"), 0.0);
}

TEST(PacketDescriptors, ALimitReachedStopsTheRunNamingTheKey) {
  const std::string what = run_error({"switch.packet_descriptors=6"});
  EXPECT_NE(what.find("test: key 'switch.packet_descriptors': 6 per input port ran out by "), std::string::npos)
      << what;
  EXPECT_NE(what.find("in trial "), std::string::npos) << what;
  EXPECT_NE(what.find("the buffers hold up to 150 packets"), std::string::npos) << what;
  EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  EXPECT_EQ(run_error({"switch.packet_descriptors=24"}), "");
}

TEST(PacketDescriptors, TheLimitLiftsTheBuffersCapOf65535Packets) {
  const char* tree = "[topology]\nk = 2\nn = 2\n[switch]\nvcs = 2\nbuffer_bytes = 163840000\n";
  std::string what;
  try {
    setup_with(tree, {});
  } catch (const ConfigError& e) {
    what = e.what();
  }
  EXPECT_NE(what.find("switch.buffer_bytes"), std::string::npos) << what;
  EXPECT_NE(what.find("switch.packet_descriptors"), std::string::npos) << what;
  EXPECT_EQ(setup_with(tree, {"switch.packet_descriptors=1024"}).model.entries, 1024);
}

}  // namespace
}  // namespace saturn
