// Issue 65 ("bad input, round three"), the config side: keys that do not apply to the chosen model
// are errors that say so (item 6), sweeps included; validation refuses what a run would (item 3:
// a send queue per flow); a dragonfly refusal names the key that asked for it (item 8).
#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <vector>

#include "host/config/config.hpp"
#include "host/engine/model_setup.hpp"
#include "host/study/study.hpp"
#include "tests/support/run_helpers.hpp"

namespace saturn {
namespace {

// What `saturn validate` says of the TOML text with overrides: "" when it is accepted.
std::string validate_error(const std::string& toml, const std::vector<std::string>& sets = {}) {
  try {
    StudyOptions options;
    options.check_only = true;
    validate_study(load_config_string(toml, "t.toml", sets), options);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

void expect_refused(const std::string& toml, const std::vector<std::string>& sets,
                    std::initializer_list<std::string> words) {
  const std::string message = validate_error(toml, sets);
  ASSERT_FALSE(message.empty()) << "accepted: " << toml;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  for (const auto& w : words) EXPECT_NE(message.find(w), std::string::npos) << "'" << w << "' not in: " << message;
}

const std::string kSmall = "[simulation]\ntrials = 1\n[topology]\nk = 2\nn = 2\n";

TEST(ConfigApplies, KeysOfAnotherTopologyAreRefused) {
  expect_refused(kSmall, {"topology.dragonfly_p=2"},
                 {"key 'topology.dragonfly_p': does not apply to topology.kind = \"kary_ntree\" (only to \"dragonfly\")"});
  expect_refused(kSmall, {"topology.rlft_radix=8"}, {"'topology.rlft_radix'", "only to \"rlft\""});
  expect_refused(kSmall, {"topology.file=\"x.topo\""}, {"'topology.file'", "only to \"file\""});
  expect_refused("[topology]\nkind = \"zdornov_fig1\"\nk = 8\n", {}, {"'topology.k'", "only to \"kary_ntree\""});
  expect_refused("[topology]\nkind = \"zdornov_fig1\"\n", {"topology.local_flows=3"}, {"only to \"santos_fig1\""});
}

TEST(ConfigApplies, KeysOfAnotherPatternAreRefused) {
  expect_refused(kSmall + "[traffic]\npattern = \"hotspot\"\nhotspot_sources = 2\nhotspot_nodes = [1]\n", {},
                 {"key 'traffic.hotspot_nodes': does not apply to traffic.pattern = \"hotspot\"", "\"hotspot_window\""});
  expect_refused(kSmall, {"traffic.root=3"}, {"'traffic.root'", "only to \"all_to_one\""});
  expect_refused(kSmall, {"traffic.permutations=2"}, {"'traffic.permutations'", "only to \"permutation\""});
  expect_refused(kSmall, {"traffic.wc_offset=2"}, {"'traffic.wc_offset'", "only to \"worst_case\""});
  expect_refused(kSmall, {"traffic.trace_file=\"missing.trace\""}, {"'traffic.trace_file'", "only to \"trace\""});
  expect_refused(kSmall, {"traffic.background_load=0.2"}, {"'traffic.background_load'", "only to \"hotspot\""});
  // A flow list outside pattern "flows", even one naming an endpoint the network lacks.
  expect_refused(kSmall + "[[traffic.flows]]\nsrc = 0\ndst = 99\n", {},
                 {"key 'traffic.flows': does not apply to traffic.pattern = \"uniform\" (only to \"flows\")"});
}

// cc.ipd_steps shapes the discrete rate grid only, and must keep the grid's gaps exact.
TEST(ConfigApplies, IpdStepsNeedDiscreteRatesAndAPowerOfTwo) {
  expect_refused(kSmall, {"cc.ipd_steps=4"},
                 {"key 'cc.ipd_steps': does not apply to cc.rates = \"continuous\" (only to \"discrete\" and \"discrete_nearest\")"});
  EXPECT_EQ(validate_error(kSmall, {"cc.rates=discrete", "cc.ipd_steps=4"}), "");
  expect_refused(kSmall, {"cc.rates=discrete", "cc.ipd_steps=3"}, {"cc.ipd_steps", "power of two"});
}

TEST(ConfigApplies, SwitchAndStatsKeysOfAnotherChoiceAreRefused) {
  expect_refused(kSmall, {"switch.bypass_limit=2"},
                 {"key 'switch.bypass_limit': does not apply to switch.arbitration = \"fcfs\" (only to \"fifo_bypass\")"});
  expect_refused(kSmall, {"switch.bypass_reading=wait"}, {"'switch.bypass_reading'", "\"fifo_bypass\""});
  EXPECT_EQ(validate_error(kSmall, {"switch.arbitration=fifo_bypass", "switch.bypass_limit=2"}), "");
  expect_refused(kSmall, {"simulation.trials=2", "stats.state_dump_trial=1"},
                 {"key 'stats.state_dump_trial': does not apply to stats.state_dump_ns = [] (only to a list of dump times)"});
}

TEST(ConfigApplies, KeysOfAnotherRoutingOrProtocolAreRefused) {
  expect_refused(kSmall, {"routing.heuristic=flow_weight"},
                 {"key 'routing.heuristic': does not apply to routing.algorithm = \"dmodk\" (only to \"adaptive\")"});
  expect_refused(kSmall, {"routing.route_cache_entries=4"}, {"'routing.route_cache_entries'", "\"adaptive\""});
  expect_refused(kSmall, {"cc.srp_messages=8"}, {"'cc.srp_messages'", "cc.protocol = \"baseline\""});
  expect_refused(kSmall, {"cc.lhrp_threshold_flits=100"}, {"'cc.lhrp_threshold_flits'", "cc.protocol = \"baseline\""});
  expect_refused(kSmall, {"cc.lhrp_outstanding=8"}, {"'cc.lhrp_outstanding'"});
  expect_refused(kSmall, {"cc.spec_timeout_ns=500"}, {"'cc.spec_timeout_ns'"});
  expect_refused(kSmall, {"cc.ecn_scope=source"}, {"'cc.ecn_scope'", "only to \"ecn\""});
  expect_refused(kSmall, {"cc.output_threshold=2"}, {"'cc.output_threshold'", "cc.marking = \"none\""});
  expect_refused(kSmall, {"cca.threshold=0.25"},
                 {"key 'cca.threshold': does not apply to cca.enabled = false (only to true (or cc.protocol = \"ecn\"))"});
  expect_refused(kSmall, {"cca.marking_period=4"}, {"'cca.marking_period'", "cca.enabled = false"});
  EXPECT_EQ(validate_error(kSmall, {"cca.enabled=true", "cca.threshold=0.25", "cca.marking_period=4"}), "");
}

TEST(ConfigApplies, EngineKeysOfTheOtherModeAreRefused) {
  const std::string flow = "[simulation]\nmode = \"flow\"\ntrials = 1\n[topology]\nk = 2\nn = 2\n[traffic]\n"
                           "pattern = \"permutation\"\n";
  EXPECT_EQ(validate_error(flow), "");
  expect_refused(flow, {"cc.protocol=srp"},
                 {"key 'cc.protocol': does not apply to simulation.mode = \"flow\" (a packet-engine key)"});
  expect_refused(flow, {"isolation.technique=arn"}, {"'isolation.technique'", "simulation.mode = \"flow\""});
  expect_refused(flow, {"traffic.trace_file=\"missing.trace\""}, {"'traffic.trace_file'", "simulation.mode = \"flow\""});
  expect_refused(flow, {"simulation.duration_ns=5000"}, {"'simulation.duration_ns'", "simulation.mode = \"flow\""});
  expect_refused(kSmall, {"flow.maxmin=false"},
                 {"key 'flow.maxmin': does not apply to simulation.mode = \"packet\" (a flow-engine key)"});
}

// A key applies to the study when it applies at one of its points: a sweep over the selector may
// carry the keys of each of its values (configs/default.toml sweeps uniform and hotspot).
TEST(ConfigApplies, SweptSelectorsAndSweptKeys) {
  const std::string hot = kSmall + "[traffic]\nhotspot_sources = 2\nbackground = \"uniform\"\n";
  EXPECT_EQ(validate_error(hot + "[sweep]\ntraffic.pattern = [\"uniform\", \"hotspot\"]\n"), "");
  expect_refused(hot + "[sweep]\ntraffic.pattern = [\"uniform\", \"permutation\"]\n", {},
                 {"key 'traffic.hotspot_sources': does not apply to any swept traffic.pattern (only to \"hotspot\")"});
  // A swept key that applies nowhere, even with its default among the values.
  expect_refused(kSmall + "[sweep]\ntopology.dragonfly_p = [4, 2]\n", {}, {"'topology.dragonfly_p'", "\"dragonfly\""});
  EXPECT_EQ(validate_error(kSmall + "[sweep]\ncc.protocol = [\"baseline\"]\n"), "");
  // Every committed config validates (tests/integration/test_all_configs.cpp runs them all).
  EXPECT_EQ(validate_error(test::read_file(std::string(SATURN_SOURCE_DIR) + "/configs/default.toml")), "");
}

// Item 3: validate said ok where the run refused: one send queue per flow of a source.
// Case axes (a figure's curves): a key a case sets must apply where that case is chosen; a file
// key applies where some case selects its family.
TEST(ConfigApplies, CaseKeysApplyWhereTheirCaseIsChosen) {
  const std::string cases =
      "sweep.pattern=[{name = \"rnd\", traffic.pattern = \"uniform\"}, {name = \"hot\", traffic.pattern = "
      "\"hotspot_window\", traffic.hotspot_nodes = [1], traffic.hotspot_fraction = 0.25}]";
  EXPECT_EQ(validate_error(kSmall, {cases}), "");
  expect_refused(kSmall, {"sweep.pattern=[{name = \"rnd\", traffic.pattern = \"uniform\", traffic.hotspot_fraction = 0.25}]"},
                 {"key 'traffic.hotspot_fraction': does not apply to traffic.pattern = \"uniform\"", "\"hotspot_window\"",
                  "in the case \"rnd\" of sweep axis 'pattern'"});
  // Its selector set by another case axis counts: the key applies at the points where both are chosen.
  EXPECT_EQ(validate_error(kSmall, {"sweep.p=[{name = \"w\", traffic.pattern = \"hotspot_window\", traffic.hotspot_nodes = [1]}]",
                                    "sweep.f=[{name = \"a\", traffic.hotspot_fraction = 0.25}]"}),
            "");
  // A file key that only some case's pattern reads.
  EXPECT_EQ(validate_error(kSmall + "[traffic]\nhotspot_stop_ns = 3000\n", {cases}), "");
}

TEST(ConfigApplies, QueuePerFlowIsCheckedWhenValidating) {
  const std::string phase = "[topology]\nk = 4\nn = 2\n[endpoint]\nactive_queues = 1\n[traffic]\npattern = "
                            "\"permutation\"\npermutations = 2\nphase_bytes = 4096\n";
  expect_refused(phase + "[injection]\nscheduler = \"ps\"\nrates = \"saa_probes\"\n", {},
                 {"key 'endpoint.active_queues': 1 is below the 2 flows of a source",
                  "injection.rates = \"saa_probes\" needs a send queue per flow (endpoint.active_queues >= 2)"});
  EXPECT_EQ(validate_error(phase + "[injection]\nscheduler = \"ps\"\nrates = \"saa_probes\"\n", {"endpoint.active_queues=2"}), "");
  const std::string adaptive = "[topology]\nk = 4\nn = 3\nhorizontal_width = 2\n[routing]\nalgorithm = \"adaptive\"\n"
                               "route_setup = \"packets\"\n[link]\nflit_bytes = 256\n[endpoint]\nmtu_bytes = 1024\n"
                               "active_queues = 2\n[traffic]\npattern = \"permutation\"\npermutations = 3\nphase_bytes = 20480\n";
  expect_refused(adaptive, {}, {"'endpoint.active_queues'", "routing.route_setup = \"packets\" needs a send queue per flow"});
  EXPECT_EQ(validate_error(adaptive, {"endpoint.active_queues=3"}), "");
}

// Item 8: on a dragonfly, per-link statistics and fifo_bypass were refused as cc.marking's fault.
TEST(ConfigApplies, DragonflyRefusalsNameTheirKey) {
  const std::string df = test::read_file(std::string(SATURN_SOURCE_DIR) + "/configs/examples/dragonfly_minimal.toml");
  const std::vector<std::string> minimal{"routing.algorithm=minimal", "switch.vcs=2"};
  EXPECT_EQ(validate_error(df, minimal), "");
  const auto with = [&](const std::string& set) {
    std::vector<std::string> sets = minimal;
    sets.push_back(set);
    return sets;
  };
  expect_refused(df, with("stats.per_link=true"), {"key 'stats.per_link'", "per-link buffer statistics"});
  expect_refused(df, with("switch.arbitration=fifo_bypass"), {"key 'switch.arbitration'", "\"fifo_bypass\""});
  expect_refused(df, with("cc.marking=naive"), {"key 'cc.marking'", "no marking"});
}

}  // namespace
}  // namespace saturn
