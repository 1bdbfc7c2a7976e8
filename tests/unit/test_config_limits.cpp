// Config limits (issue 9): sizes and times that would wrap in the engine's 32-bit counters,
// flows without both ends, long values in messages, file reads with limits, and the memory each
// table needs checked before it is built.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <initializer_list>
#include <string>
#include <vector>

#include "host/config/config.hpp"
#include "host/engine/memory_estimate.hpp"
#include "host/engine/model_setup.hpp"
#include "host/study/study.hpp"
#include "host/flow/flow_engine.hpp"
#include "tests/support/run_helpers.hpp"

namespace saturn {
namespace {

// Runs f expecting a ConfigError of one line containing every word; returns the message.
template <typename F>
std::string config_error(F&& f, std::initializer_list<std::string> words) {
  try {
    f();
  } catch (const ConfigError& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    for (const auto& w : words) EXPECT_NE(message.find(w), std::string::npos) << "'" << w << "' not in: " << message;
    return message;
  }
  ADD_FAILURE() << "no ConfigError";
  return "";
}

// build_model of the default config with overrides (a 4-ary 3-tree unless they say otherwise).
ModelSetup model(const std::vector<std::string>& overrides, size_t max_memory = 0) {
  return build_model(load_config_string("", "t.toml", overrides), "", ModelBuild{max_memory, true});
}

const char* kFlowsBase = "[traffic]\npattern = \"flows\"\n[[traffic.flows]]\n";

TEST(ConfigLimits, FlowNeedsBothEnds) {
  config_error([] { load_config_string(std::string(kFlowsBase) + "src = 1\nbytes = 4096\n", "t.toml"); },
               {"traffic.flows[0]", "dst is missing"});
  config_error([] { load_config_string(std::string(kFlowsBase) + "dst = 1\n", "t.toml"); },
               {"traffic.flows[0]", "src is missing"});
  config_error([] { load_config_string("", "t.toml", {"traffic.flows=[{src = 0, dst = 1}, {dst = 2}]"}); },
               {"traffic.flows[1]", "src is missing"});
  const Config ok = load_config_string(std::string(kFlowsBase) + "src = 0\ndst = 3\n", "t.toml");
  EXPECT_EQ(ok.flows.at(0).dst, 3);
}

// 2^43 bytes is 2^32 flits of 2048 bytes: it used to wrap to 0 flits (completion_time_ns = 0).
TEST(ConfigLimits, SizesWhoseFlitCountWrapsAreRefusedWithTheLimit) {
  const std::string max_bytes = "8796093018112";  // (2^32 - 2) flits of 2048 bytes
  config_error([] { model({"traffic.phase_bytes=8796093022208"}); },
               {"traffic.phase_bytes", "8796093022208 bytes", "8796093018112 bytes", "link.flit_bytes = 2048"});
  config_error([] { model({"traffic.pattern=\"flows\"", "traffic.flows=[{src = 0, dst = 1, bytes = 8796093024256}]"}); },
               {"traffic.flows[0].bytes", "8796093018112"});
  config_error([] { model({"link.flit_bytes=1", "endpoint.mtu_bytes=1", "switch.buffer_bytes=32",
                           "traffic.message_bytes=[1e12]"}); },
               {"traffic.message_bytes", "4294967294 bytes"});
  // The largest size that fits is accepted, and kept exactly.
  EXPECT_EQ(model({"traffic.phase_bytes=" + max_bytes}).phase_flits, 4294967294u);
}

TEST(ConfigLimits, TimesThatWouldWrapThe32BitCycleCounterAreRefused) {
  config_error([] { model({"link.latency_ns=1e15"}); }, {"link.latency_ns", "65535 cycles"});
  config_error([] { model({"switch.router_delay_ns=1e15"}); }, {"switch.router_delay_ns", "cycles"});
  config_error([] { model({"traffic.on_off_mean_ns=1e15"}); }, {"traffic.on_off_mean_ns", "2000000000 cycles"});
  config_error([] { model({"stats.series_interval_ns=1e15"}); }, {"stats.series_interval_ns", "cycles"});
  config_error([] { model({"traffic.pattern=\"flows\"", "traffic.flows=[{src = 0, dst = 1, start_ns = 1e15}]"}); },
               {"traffic.flows[0].start_ns"});
  config_error([] { model({"traffic.pattern=\"flows\"", "traffic.flows=[{src = 0, dst = 1, stop_ns = 1e15}]"}); },
               {"traffic.flows[0].stop_ns"});
  config_error([] { model({"traffic.pattern=\"flows\"", "traffic.flows=[{src = 0, dst = 1, rate = 1e-6}]"}); },
               {"traffic.flows[0].rate", "smallest rate"});
  // 2^32 + 8 flits per VC used to pass the 65535 check after an int cast (as 8 flits).
  config_error([] { model({"link.flit_bytes=1", "endpoint.mtu_bytes=1", "traffic.message_bytes=[1]",
                           "switch.buffer_bytes=4294967304"}); },
               {"switch.buffer_bytes", "65535 flits"});
  // A sample interval longer than the run is harmless (one sample at the end), not a wrap.
  EXPECT_GE(model({"simulation.sample_interval_ns=1e15"}).sample_cycles, model({}).total_cycles());
}

TEST(ConfigLimits, LongValuesAreClippedInMessages) {
  const std::string huge(100000, 'x');
  const std::string m = config_error([&] { load_config_string("", "t.toml", {"switch.speedup=" + huge}); },
                                     {"switch.speedup", "xxxx..."});
  EXPECT_LT(m.size(), 200u);
  EXPECT_LT(config_error([&] { load_config_string("", "t.toml", {huge + "=1"}); }, {"unknown key"}).size(), 200u);
  EXPECT_LT(config_error([&] { load_config_string("", "t.toml", {huge}); }, {"--set"}).size(), 200u);
}

TEST(ConfigLimits, SeedRangeIsQuotedAsIntegers) {
  config_error([] { load_config_string("", "t.toml", {"simulation.seed=-1"}); }, {"[0, 9223372036854775807]"});
  EXPECT_EQ(load_config_string("", "t.toml", {"simulation.seed=9223372036854775807"}).get_int("simulation.seed"),
            9223372036854775807LL);
}

TEST(ConfigLimits, ConfigFileIsReadWithALimit) {
  // A regular file past the limit (sparse: nothing written) is refused after 16 MiB are read.
  const std::string big = test::make_temp_dir("saturn_cfg_big") + "/big.toml";
  test::write_file(big, "# big\n");
  ASSERT_EQ(truncate(big.c_str(), off_t{17} << 20), 0);
  config_error([&] { load_config_file(big); }, {"big.toml", "larger than 16 MiB"});
}

// Issue 65 item 2: a FIFO as the config blocked open() forever; devices and directories are no
// configs either. All are refused from stat() alone, before anything is opened.
TEST(ConfigLimits, ConfigFileMustBeARegularFile) {
  config_error([] { load_config_file("/dev/zero"); }, {"config '/dev/zero'", "not a regular file", "device"});
  const std::string dir = test::make_temp_dir("saturn_cfg_special");
  config_error([&] { load_config_file(dir); }, {"not a regular file", "directory"});
  const std::string fifo = dir + "/study.toml";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  config_error([&] { load_config_file(fifo); }, {"study.toml", "not a regular file", "FIFO"});
}

TEST(ConfigLimits, TopologyFileMustBeARegularFileOfBoundedSize) {
  const auto file_model = [](const std::string& path) {
    return model({"topology.kind=\"file\"", "topology.file=\"" + path + "\"", "routing.algorithm=\"table\""});
  };
  config_error([&] { file_model("/dev/zero"); }, {"/dev/zero", "not a regular file"});
  config_error([&] { file_model("/dev/urandom"); }, {"not a regular file"});
  const std::string dir = test::make_temp_dir("saturn_topo");
  config_error([&] { file_model(dir); }, {"not a regular file", "directory"});
  const std::string fifo = dir + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  config_error([&] { file_model(fifo); }, {"not a regular file", "FIFO"});
  // A sparse file over the limit is refused from its size alone (nothing is read).
  const std::string big = dir + "/big.topo";
  test::write_file(big, "switch s0\n");
  ASSERT_EQ(truncate(big.c_str(), off_t{65} << 20), 0);
  config_error([&] { file_model(big); }, {"65 MiB", "at most 64 MiB"});
}

TEST(ConfigLimits, ByteSizes) {
  EXPECT_EQ(parse_byte_size("8GiB", "--max-memory"), size_t{8} << 30);
  EXPECT_EQ(parse_byte_size("8 G", "--max-memory"), size_t{8} << 30);
  EXPECT_EQ(parse_byte_size("512MiB", "--max-memory"), size_t{512} << 20);
  EXPECT_EQ(parse_byte_size("2GB", "--max-memory"), size_t{2000000000});
  EXPECT_EQ(parse_byte_size("1e9", "--max-memory"), size_t{1000000000});
  for (const char* bad : {"", "0", "-1GiB", "8XB", "GiB", "nan", "1e30"})
    config_error([&] { parse_byte_size(bad, "--max-memory"); }, {"--max-memory"});
}

TEST(ConfigLimits, ClosedFormShapeMatchesTheBuiltNetwork) {
  for (const auto& o : std::vector<std::vector<std::string>>{
           {"topology.k=4", "topology.n=3"}, {"topology.k=3", "topology.n=1"},
           {"topology.k=2", "topology.n=4", "topology.horizontal_width=2"},
           {"topology.kind=\"zdornov_fig1\"", "routing.algorithm=\"table\""},
           {"topology.kind=\"santos_fig1\"", "routing.algorithm=\"table\"", "topology.local_flows=7"},
           {"topology.kind=\"dragonfly\"", "routing.algorithm=\"table\""},
           {"topology.kind=\"dragonfly\"", "routing.algorithm=\"table\"", "topology.dragonfly_p=2",
            "topology.dragonfly_a=4", "topology.dragonfly_h=2", "topology.dragonfly_g=5"},
           {"topology.kind=\"rlft\"", "topology.rlft_radix=12"}}) {
    const Config c = load_config_string("", "t.toml", o);
    NetworkShape closed;
    ASSERT_TRUE(closed_form_shape(c, &closed));
    const NetworkShape built = shape_of(make_topology(c, ""));
    EXPECT_EQ(closed.switches, built.switches) << o.front();
    EXPECT_EQ(closed.ports, built.ports) << o.front();
    EXPECT_EQ(closed.endpoints, built.endpoints) << o.front();
  }
}

// k = 4, n = 8 is in range, but its routing tables hold 131072 x 65536 entries: refused before
// anything is built, naming what is needed and what is available.
TEST(ConfigLimits, TablesAreCheckedAgainstTheMemoryLimitBeforeTheyAreBuilt) {
  config_error([] { model({"topology.k=4", "topology.n=8"}, size_t{8} << 30); },
               {"t.toml", "needs about", "routing tables", "8.0 GiB available (--max-memory)"});
  // 384 GiB of tables: the CPU backend counts them twice in host memory (the host's copy and the
  // engine's), the CUDA backend once (the engine's copy is on the GPU). The first GPU run of the
  // suite failed here when the test expected the CPU figure on both.
#if defined(SATURN_BACKEND_CUDA)
  config_error([] { model({"topology.k=32", "topology.n=4"}, size_t{8} << 30); }, {"routing tables", "384.0 GiB"});
#else
  config_error([] { model({"topology.k=32", "topology.n=4"}, size_t{8} << 30); }, {"routing tables", "768.0 GiB"});
#endif
  // A dragonfly and an RLFT are estimated before they are built too (31,776 switches x 31,776
  // endpoints of tables), and a parameter set the builder refuses is refused by the estimate.
  config_error([] {
    model({"topology.kind=\"dragonfly\"", "routing.algorithm=\"table\"", "topology.dragonfly_p=1",
           "topology.dragonfly_a=32", "topology.dragonfly_h=31", "topology.dragonfly_g=993"},
          size_t{1} << 30);
  }, {"t.toml", "routing tables", "1.0 GiB available"});
  config_error([] {
    model({"topology.kind=\"dragonfly\"", "routing.algorithm=\"table\"", "topology.dragonfly_g=34"}, size_t{1} << 30);
  }, {"t.toml", "topology.dragonfly_g", "a*h+1 = 33"});
  config_error([] { model({"topology.kind=\"rlft\"", "topology.rlft_radix=13"}, size_t{1} << 30); },
               {"t.toml", "topology.rlft_radix", "even switch radix"});
  // The default network fits easily.
  EXPECT_TRUE(model({}, size_t{1} << 30).has_routes);
}

TEST(ConfigLimits, ValidateBuildsNoRoutingTablesButChecksTheirSize) {
  StudyOptions options;
  options.check_only = true;
  options.max_memory = size_t{64} << 20;
  // 16 x 65536 entries x 3 bytes (twice on the CPU) = 6 MiB: fits 64 MiB, and validates.
  validate_study(load_config_string("", "t.toml", {"topology.k=16", "topology.n=3"}), options);
  options.max_memory = size_t{4} << 20;
  config_error([&] { validate_study(load_config_string("", "t.toml", {"topology.k=16", "topology.n=3"}), options); },
               {"routing tables", "4.0 MiB available"});
  // Results count too: a million trials at each of 8 points.
  options.max_memory = size_t{1} << 30;
  config_error([&] {
    validate_study(load_config_string("", "t.toml", {"simulation.trials=1000000", "sweep.traffic.load=[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]"}),
                   options);
  }, {"results"});
}

// A million points, each a full config copy (~12 GB): refused before the sweep is expanded.
TEST(ConfigLimits, SweepPointsAreCheckedBeforeTheSweepIsExpanded) {
  std::string loads = "[", vcs_limits = "[";
  for (int i = 0; i < 1000; ++i) {
    loads += (i ? ", " : "") + std::to_string(i / 1000.0);
    vcs_limits += (i ? ", " : "") + std::to_string(i % 256);
  }
  const Config c = load_config_string("", "t.toml", {"sweep.traffic.load=" + loads + "]",
                                                     "sweep.switch.bypass_limit=" + vcs_limits + "]"});
  StudyOptions options;
  options.check_only = true;
  options.max_memory = size_t{1} << 30;
  config_error([&] { validate_study(c, options); }, {"sweep points (1000000)", "1.0 GiB available"});
  const Config flow = load_config_string("", "t.toml", {"simulation.mode=\"flow\"", "traffic.pattern=\"permutation\"",
                                                        "sweep.traffic.load=" + loads + "]",
                                                        "sweep.switch.bypass_limit=" + vcs_limits + "]"});
  config_error([&] { validate_study(flow, options); }, {"sweep points"});
}

TEST(ConfigLimits, FlowModeRefusesTooManyFlowsBeforeBuildingTheNetwork) {
  const Config c = load_config_string("", "t.toml", {"simulation.mode=\"flow\"", "traffic.pattern=\"permutation\"",
                                                     "topology.k=32", "topology.n=4"});
  config_error([&] { build_flow_setup(c, "", 0, true); }, {"traffic.permutations", "65535"});
}

}  // namespace
}  // namespace saturn
