// State dumps (stats.state_dump_ns, host/io/state_dump.cpp): what a dump shows agrees with the
// engine's own counts, a run that dumps gives the same results as one that does not, and bad keys
// are refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "host/config/config.hpp"
#include "host/config/config_error.hpp"
#include "host/engine/engine.hpp"
#include "host/engine/model_setup.hpp"
#include "host/io/state_dump.hpp"
#include "host/study/study.hpp"
#include "kernels/launch/engine_launch.hpp"
#include "tests/support/config_errors.hpp"
#include "tests/support/run_helpers.hpp"

namespace saturn {
namespace {

// 54-node RLFT with ARN + AFI and an incast at endpoint 4 (as test_isolation.cpp), 2 trials.
const char* const kIsolationToml = R"(
[simulation]
trials = 2
warmup_ns = 0
duration_ns = 2e5
[topology]
kind = "rlft"
rlft_radix = 6
[link]
flit_bytes = 4096
latency_ns = 30
[endpoint]
mtu_bytes = 4096
[switch]
arbitration = "round_robin"
vc_arbitration = "round_robin"
buffer_bytes = 98304
vcs = 2
[traffic]
load = 1.0
message_bytes = [4096]
pattern = "hotspot_window"
hotspot_nodes = [4]
hotspot_fraction = 0.1
hotspot_start_ns = 0
hotspot_rate = 1.0
[isolation]
technique = "arn_afi"
queue_scheme = "1q"
crt_ns = 2000
arn_ttl_ns = 20000
)";

// A CSV file as rows of named fields.
std::vector<std::map<std::string, std::string>> read_csv(const std::string& path) {
  std::ifstream f(path);
  EXPECT_TRUE(f.good()) << path;
  std::string line;
  std::getline(f, line);
  std::vector<std::string> header;
  std::stringstream hs(line);
  for (std::string h; std::getline(hs, h, ',');) header.push_back(h);
  std::vector<std::map<std::string, std::string>> rows;
  while (std::getline(f, line)) {
    std::map<std::string, std::string> row;
    std::stringstream ls(line);
    std::string field;
    for (size_t i = 0; i < header.size(); ++i) {
      if (!std::getline(ls, field, ',')) field.clear();
      row[header[i]] = field;
    }
    rows.push_back(row);
  }
  return rows;
}

// A line's whitespace-separated words.
std::vector<std::string> words(const std::string& line) {
  std::stringstream fields(line);
  std::vector<std::string> f;
  for (std::string w; fields >> w;) f.push_back(w);
  return f;
}

// A script of scripts/ run on a dump: its stdout lines (the test fails if it exits non-zero).
std::vector<std::string> run_script(const std::string& script, const std::string& args) {
  const std::string command = "/usr/bin/python3 " + test::source_path("scripts/" + script) + " " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  EXPECT_NE(pipe, nullptr) << command;
  std::vector<std::string> lines;
  if (pipe == nullptr) return lines;
  for (char buf[4096]; fgets(buf, sizeof buf, pipe) != nullptr;) lines.push_back(buf);
  EXPECT_EQ(pclose(pipe), 0) << command;
  return lines;
}

TEST(StateDump, PacketsAndPortsAgreeWithTheEngineCounts) {
  // The golden case rlft_arn_afi_short: 432 nodes, H10-4, ARN + AFI, hot spots from 0.2 ms; by
  // 0.7 ms the AFC holds a few hundred adapted packets.
  const std::string path = test::source_path("configs/papers/rocher2021/fig6_h10_4_1q_arn_afi.toml");
  const ModelSetup setup = build_model(
      load_config_file(path, {"simulation.trials=2", "simulation.duration_ns=1e6", "traffic.hotspot_start_ns=2e5",
                              "traffic.hotspot_stop_ns=8e5", "isolation.crt_ns=2e5"}),
      path.substr(0, path.rfind('/')));
  std::vector<TrialSpec> specs;
  for (int t = 0; t < 2; ++t) specs.push_back(TrialSpec{0, t, trial_seed(1, 0, t), 1.0, 1.0});
  Engine engine(build_engine_spec(setup, specs));
  const std::string dir = test::make_temp_dir("saturn_dump");

  // Cycle 0: nothing buffered, every switch-to-switch output holds its whole VC buffer in credits.
  write_state_dump(engine.snapshot(), 0, setup.topology, dir + "/c0");
  EXPECT_TRUE(read_csv(dir + "/c0_packets.csv").empty());
  const auto ports0 = read_csv(dir + "/c0_ports.csv");
  ASSERT_EQ(ports0.size(), static_cast<size_t>(setup.topology.total_ports()) * 2);
  const int vc_flits = engine.view_for_tests().model.vc_flits;
  for (const auto& r : ports0) {
    EXPECT_EQ(r.at("in_packets"), "0");
    const bool to_switch = r.at("peer").find(':') != std::string::npos;
    if (to_switch) EXPECT_EQ(std::stoi(r.at("out_credits")), vc_flits) << r.at("switch") << " port " << r.at("port");
  }

  LaunchOptions opt;
  opt.threads = 2;
  engine.advance(2136, opt);  // 0.70 ms of 327.68 ns cycles (4 KB flits at 100 Gb/s)
  const Counters c = engine.read_counters();
  for (int t = 0; t < 2; ++t) {
    SCOPED_TRACE("trial " + std::to_string(t));
    const std::string prefix = dir + "/t" + std::to_string(t);
    const std::vector<std::string> files = write_state_dump(engine.snapshot(), t, setup.topology, prefix);
    EXPECT_EQ(files.size(), 4u) << "packets, ports, endpoints, ARN tables";
    // Packets in the VOQs per VC, by walking every FIFO, against the detector's own counters
    // (voq_packets, kept by the step) and against the ports' sums from both sides.
    std::vector<uint64_t> voq_rows(2, 0);
    uint64_t adapted_rows = 0;
    for (const auto& r : read_csv(prefix + "_packets.csv"))
      if (r.at("where") == "voq") {
        ++voq_rows[std::stoi(r.at("vc"))];
        adapted_rows += (std::stoul(r.at("flags"), nullptr, 16) & 32u) != 0 ? 1 : 0;
      }
    EXPECT_GT(voq_rows[0], 1000u) << "the hot spots must have filled buffers";
    EXPECT_GT(voq_rows[1], 100u) << "ARN + AFI must have adapted packets into the AFC by now";
    EXPECT_EQ(adapted_rows, voq_rows[1]) << "every packet in an AFC VOQ is an adapted one, and no other";
    std::vector<uint64_t> in_sum(2, 0), waiting_sum(2, 0), detector_sum(2, 0);
    for (const auto& r : read_csv(prefix + "_ports.csv")) {
      const int vc = std::stoi(r.at("vc"));
      in_sum[vc] += std::stoul(r.at("in_packets"));
      waiting_sum[vc] += std::stoul(r.at("out_waiting"));
      detector_sum[vc] += std::stoul(r.at("voq_packets_to"));
    }
    for (int vc = 0; vc < 2; ++vc) {
      EXPECT_EQ(voq_rows[vc], c.voq_vc[static_cast<size_t>(vc) * 2 + t]) << "VC " << vc;
      EXPECT_EQ(in_sum[vc], voq_rows[vc]) << "VC " << vc;
      EXPECT_EQ(waiting_sum[vc], voq_rows[vc]) << "VC " << vc;
      EXPECT_EQ(detector_sum[vc], voq_rows[vc]) << "VC " << vc;
    }
    // The endpoints' counters are the engine's.
    uint64_t injected = 0, delivered = 0;
    for (const auto& r : read_csv(prefix + "_endpoints.csv")) {
      injected += std::stoull(r.at("injected_packets"));
      delivered += std::stoull(r.at("delivered_packets"));
    }
    EXPECT_EQ(injected, c.inj_packets[t]);
    EXPECT_EQ(delivered, c.del_packets[t]);
    // Config #1's hot spots are endpoints 4, 120, 244 and 431: ARN entries name them.
    bool names_hot = false;
    for (const auto& r : read_csv(prefix + "_arn.csv"))
      names_hot = names_hot || r.at("destination") == "4" || r.at("destination") == "431";
    EXPECT_TRUE(names_hot) << "an ARN entry for a hot spot";
  }
  // scripts/state_chain.py follows the credit waits hop by hop: each "credits" hop goes on at the
  // input its output's peer names, and the chain ends with a reason.
  const std::vector<std::string> lines = run_script("state_chain.py", dir + "/t0 --from n17");
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.front().rfind("S1.", 0), 0u) << "n17's leaf switch first: " << lines.front();
  EXPECT_GE(lines.size(), 3u) << "at 0.7 ms n17's packets wait behind a hot spot's tree";
  for (size_t i = 0; i + 1 < lines.size(); ++i) {
    ASSERT_NE(lines[i].find(": credits: output"), std::string::npos) << "only credit waits continue: " << lines[i];
    const size_t open = lines[i].find(" (", lines[i].find("for output")), comma = lines[i].find(',', open);
    const std::string peer = lines[i].substr(open + 2, comma - open - 2);  // "S2.P0.5:2" or "n431"
    const std::string next = peer.find(':') == std::string::npos
                                 ? peer + ":"
                                 : peer.substr(0, peer.find(':')) + " input " + peer.substr(peer.find(':') + 1) + " ";
    EXPECT_EQ(lines[i + 1].rfind(next, 0), 0u) << lines[i] << " -> " << lines[i + 1];
  }
  // scripts/state_summary.py: its packet table adds up to every buffered packet of the dump, and its
  // first output is the one with the most packets waiting (ports summed over VCs).
  const std::vector<std::string> summary = run_script("state_summary.py", dir + "/t0 --dst 4 --dst 431 --top 1");
  const auto packets = read_csv(dir + "/t0_packets.csv");
  ASSERT_GE(summary.size(), 4u);
  EXPECT_EQ(summary[0], "packets: " + std::to_string(packets.size()) + " buffered\n");
  uint64_t listed = 0, to_hot = 0;
  size_t line = 2;
  for (; line < summary.size() && summary[line].rfind("outputs:", 0) != 0; ++line) {
    const std::vector<std::string> f = words(summary[line]);
    listed += std::stoull(f.back());
    if (f[f.size() - 2] == "--dst") to_hot += std::stoull(f.back());  // "to --dst" splits into two words
  }
  EXPECT_EQ(listed, packets.size());
  uint64_t hot_rows = 0;
  for (const auto& r : packets) hot_rows += r.at("dst") == "4" || r.at("dst") == "431";
  EXPECT_EQ(to_hot, hot_rows);
  std::map<std::string, uint64_t> waiting;
  for (const auto& r : read_csv(dir + "/t0_ports.csv"))
    waiting[r.at("switch") + ":" + r.at("port")] += std::stoull(r.at("out_waiting"));
  uint64_t most = 0;
  for (const auto& [port, n] : waiting) most = std::max(most, n);
  ASSERT_LT(line + 2, summary.size());
  uint64_t first_waiting = 0;  // --top 1: one output, a line per VC, then the endpoints
  for (size_t k = line + 2; k < summary.size() && summary[k].rfind("endpoints", 0) != 0; ++k)
    first_waiting += std::stoull(words(summary[k])[3]);
  EXPECT_EQ(first_waiting, most) << summary[line + 2];
  if (!HasFailure()) std::filesystem::remove_all(dir);
  else std::cerr << "dumps kept in " << dir << "\n";
}

// scripts/hotspot_growth.py on two dumps of Jiang's transient (ECN) on the 72-node dragonfly of
// test_ecn.cpp with one hot spot: its packet counts are the dumps' rows, and the hot sources'
// injection between the dumps is their injected packets' difference in flits per cycle.
TEST(StateDump, HotspotGrowthCountsWhatTheDumpsHold) {
  const std::string path = test::source_path("configs/papers/jiang2015/transient_ecn.toml");
  const Config cfg = load_config_file(path, {"topology.dragonfly_p=2", "topology.dragonfly_a=4", "topology.dragonfly_h=2",
                                             "topology.dragonfly_g=9", "simulation.trials=1", "traffic.hotspot_nodes=[27]",
                                             "traffic.hotspot_start_ns=0"});
  const ModelSetup setup = build_model(cfg, path.substr(0, path.rfind('/')));
  const double load = cfg.get_float("traffic.load");
  Engine engine(build_engine_spec(setup, {TrialSpec{0, 0, trial_seed(1, 0, 0), load, load}}));
  const std::string dir = test::make_temp_dir("saturn_growth");
  LaunchOptions opt;
  std::vector<std::string> prefixes;
  for (const uint32_t cycle : {6000u, 9000u}) {  // 1 ns cycles: the prefix names the time
    engine.advance(cycle - (prefixes.empty() ? 0u : 6000u), opt);
    prefixes.push_back(dir + "/p0_t0_" + std::to_string(cycle) + "ns");
    write_state_dump(engine.snapshot(), 0, setup.topology, prefixes.back());
  }
  const std::vector<std::string> lines =
      run_script("hotspot_growth.py", prefixes[0] + " " + prefixes[1] + " --dst 27 --p 2 --a 4");
  std::map<std::string, bool> hot_source;  // a packet to the hot spot in either dump
  for (const std::string& prefix : prefixes)
    for (const auto& r : read_csv(prefix + "_packets.csv"))
      if (r.at("dst") == "27") hot_source[r.at("src")] = true;
  ASSERT_FALSE(hot_source.empty()) << "packets to the hot spot at 6 us";
  double expected_rate = 0;
  {
    std::map<std::string, int64_t> before;
    for (const auto& r : read_csv(prefixes[0] + "_endpoints.csv")) before[r.at("endpoint").substr(1)] = std::stoll(r.at("injected_packets"));
    for (const auto& r : read_csv(prefixes[1] + "_endpoints.csv")) {
      const std::string e = r.at("endpoint").substr(1);
      if (hot_source.count(e)) expected_rate += (std::stoll(r.at("injected_packets")) - before[e]) * 4.0 / 3000.0;  // 4-flit packets
    }
  }
  int dumps_read = 0;
  for (const std::string& line : lines) {
    const size_t at_us = line.find(" us: ");
    if (at_us == std::string::npos || line.find("packets buffered") == std::string::npos) continue;
    const auto packets = read_csv(prefixes[dumps_read] + "_packets.csv");
    uint64_t to_hot = 0, others = 0;
    for (const auto& r : packets) {
      if (r.at("dst") == "27") ++to_hot;
      else if ((std::stoul(r.at("flags"), nullptr, 16) & 4u) == 0) ++others;  // data only
    }
    const std::vector<std::string> f = words(line.substr(at_us + 5));
    EXPECT_EQ(std::stoull(f[0]), to_hot) << line;
    EXPECT_EQ(std::stoull(f[7]), others) << line;
    if (dumps_read == 1) {
      const size_t since = line.find("since the last dump: ");
      ASSERT_NE(since, std::string::npos) << line;
      EXPECT_NEAR(std::stod(line.substr(since + 21)), expected_rate, 0.006) << line;
    }
    ++dumps_read;
  }
  EXPECT_EQ(dumps_read, 2) << "one line per dump";
  if (!HasFailure()) std::filesystem::remove_all(dir);
  else std::cerr << "dumps kept in " << dir << "\n";
}

TEST(StateDump, DumpingChangesNoResultAndWritesTheChosenTrial) {
  const Config plain = load_config_string(kIsolationToml, "dump");
  const Config dumping =
      load_config_string(kIsolationToml, "dump", {"stats.state_dump_ns=[0, 5e4, 1e5]", "stats.state_dump_trial=1"});
  const std::string dir = test::make_temp_dir("saturn_dump");
  StudyOptions options;
  options.state_dir = dir;
  const StudyResult a = test::run_config(plain);
  const StudyResult b = run_study(dumping, options);
  ASSERT_EQ(a.trials.size(), b.trials.size());
  for (size_t i = 0; i < a.trials.size(); ++i) {
    ASSERT_EQ(a.trials[i].metrics.size(), b.trials[i].metrics.size());
    for (size_t k = 0; k < a.trials[i].metrics.size(); ++k)
      EXPECT_EQ(a.trials[i].metrics[k].value, b.trials[i].metrics[k].value) << a.trials[i].metrics[k].name;
  }
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    ++files;
    EXPECT_EQ(entry.path().filename().string().rfind("p0_t1_", 0), 0u) << entry.path();
  }
  EXPECT_EQ(files, 3 * 4) << "three times, four files each, trial 1 only";
  std::filesystem::remove_all(dir);
}

TEST(StateDump, BadKeysAreRefused) {
  const std::string base = kIsolationToml;
  test::expect_config_error(base + "[stats]\nstate_dump_ns = [3e5]\n", "stats.state_dump_ns");
  test::expect_config_error(base + "[stats]\nstate_dump_ns = [1e3]\nstate_dump_trial = 2\n", "stats.state_dump_trial");
  test::expect_config_error(base + "[stats]\nstate_dump_ns = [-1]\n", "stats.state_dump_ns[0]");
  // The flow engine has no buffers to dump.
  try {
    test::run_toml("[simulation]\nmode = \"flow\"\n[stats]\nstate_dump_ns = [0]\n");
    ADD_FAILURE() << "flow mode accepted stats.state_dump_ns";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("'stats.state_dump_ns'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace saturn
