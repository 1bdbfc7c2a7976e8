// Unit tests for the config loader: defaults, validation messages, --set, [sweep], flows and JSON.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <initializer_list>
#include <string>
#include <nlohmann/json.hpp>

#include "host/config/config.hpp"

namespace saturn {
namespace {

// Loads `text` expecting a ConfigError; checks it is one line containing every word, and returns it.
std::string load_error(const std::string& text, std::initializer_list<std::string> words,
                       const std::vector<std::string>& overrides = {}) {
  try {
    load_config_string(text, "t.toml", overrides);
  } catch (const ConfigError& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    for (const auto& w : words) EXPECT_NE(message.find(w), std::string::npos) << "'" << w << "' not in: " << message;
    return message;
  }
  ADD_FAILURE() << "no ConfigError for: " << text;
  return "";
}

std::string temp_file(const std::string& content) {
  char name[] = "/tmp/saturn_cfg_XXXXXX";
  int fd = mkstemp(name);
  EXPECT_GE(fd, 0);
  close(fd);
  std::ofstream(name) << content;
  return name;
}

TEST(ConfigLoad, DefaultsFilledIn) {
  Config c = load_config_string("", "empty");
  EXPECT_EQ(c.source, "empty");
  EXPECT_EQ(c.values.size(), param_table().size());
  for (const auto& p : param_table()) EXPECT_EQ(c.values.at(p.key), p.default_value) << p.key;
  EXPECT_EQ(c.get_int("switch.vcs"), 1);
  EXPECT_EQ(c.get_string("switch.arbitration"), "fcfs");
  EXPECT_TRUE(c.sweeps.empty());
  EXPECT_TRUE(c.flows.empty());
}

TEST(ConfigLoad, ValuesOfEveryType) {
  Config c = load_config_string(R"(
[switch]
vcs = 4
arbitration = "round_robin"
[traffic]
load = 0.75
message_bytes = [512, 4096.5]
[simulation]
check_invariants = true
)",
                                "t.toml");
  EXPECT_EQ(c.get_int("switch.vcs"), 4);
  EXPECT_EQ(c.get_string("switch.arbitration"), "round_robin");
  EXPECT_DOUBLE_EQ(c.get_float("traffic.load"), 0.75);
  EXPECT_EQ(c.get_list("traffic.message_bytes"), (std::vector<double>{512, 4096.5}));
  EXPECT_TRUE(c.get_bool("simulation.check_invariants"));
}

TEST(ConfigLoad, DottedAndQuotedKeysFlatten) {
  Config c = load_config_string("switch.vcs = 3\n\"topology.k\" = 8\n[link]\n", "t.toml");
  EXPECT_EQ(c.get_int("switch.vcs"), 3);
  EXPECT_EQ(c.get_int("topology.k"), 8);
  load_error("\"switch.vcs\" = 2\n[switch]\nvcs = 3\n", {"'switch.vcs'", "twice"});
}

TEST(ConfigLoad, IntAcceptedForFloat) {
  Config c = load_config_string("traffic.load = 1\nsimulation.duration_ns = 5000", "t.toml");
  EXPECT_TRUE(std::holds_alternative<double>(c.values.at("traffic.load")));
  EXPECT_DOUBLE_EQ(c.get_float("traffic.load"), 1.0);
  EXPECT_DOUBLE_EQ(c.get_float("simulation.duration_ns"), 5000.0);
}

TEST(ConfigErrors, UnknownKeyWithSuggestion) {
  std::string m = load_error("[switch]\nvcz = 2\n", {"t.toml", "unknown key 'switch.vcz'"});
  EXPECT_NE(m.find("(did you mean 'switch.vcs'?)"), std::string::npos) << m;
  // Same name, wrong section.
  load_error("[traffic]\nspeedup = 2\n", {"unknown key 'traffic.speedup'", "did you mean 'switch.speedup'"});
  // Wrong section name.
  load_error("[swich]\nvcs = 2\n", {"unknown key 'swich.vcs'", "did you mean 'switch.vcs'"});
  m = load_error("[switch]\nzzzzzzzz = 2\n", {"unknown key 'switch.zzzzzzzz'"});
  EXPECT_EQ(m.find("did you mean"), std::string::npos) << m;
}

TEST(ConfigErrors, TopLevelScalarIsUnknown) {
  load_error("foo = 1\n", {"t.toml", "unknown key 'foo'"});
  load_error("[nosuchsection]\n", {"unknown key 'nosuchsection'"});
}

TEST(ConfigErrors, WrongType) {
  load_error("[switch]\nvcs = \"two\"\n", {"t.toml: key 'switch.vcs': expected an integer, got a string"});
  load_error("[switch]\nvcs = 2.0\n", {"key 'switch.vcs': expected an integer, got a float"});
  load_error("traffic.load = true\n", {"key 'traffic.load'", "expected a number, got a boolean"});
  load_error("stats.per_link = 1\n", {"key 'stats.per_link'", "expected a boolean, got an integer"});
  load_error("switch.arbitration = 3\n", {"key 'switch.arbitration'", "expected a string, got an integer"});
  load_error("traffic.message_bytes = 2048\n", {"key 'traffic.message_bytes'", "expected an array of numbers"});
  load_error("traffic.message_bytes = [1, \"x\"]\n", {"key 'traffic.message_bytes[1]'", "expected a number, got a string"});
  load_error("[switch.vcs]\n", {"key 'switch.vcs'", "got a table"});
}

TEST(ConfigErrors, OutOfRange) {
  load_error("[switch]\nvcs = 12\n", {"t.toml: key 'switch.vcs': 12 is out of range [1, 8]"});
  load_error("traffic.load = 1.5\n", {"key 'traffic.load': 1.5 is out of range [0, 1]"});
  load_error("traffic.load = nan\n", {"key 'traffic.load'", "out of range"});
  load_error("traffic.message_bytes = [100, 0]\n", {"key 'traffic.message_bytes[1]': 0 is out of range"});
}

TEST(ConfigErrors, BadChoice) {
  load_error("[switch]\narbitration = \"lifo\"\n",
             {"t.toml: key 'switch.arbitration': \"lifo\" is not one of fcfs, round_robin"});
}

TEST(ConfigErrors, SyntaxError) {
  std::string m = load_error("[switch]\nvcs = = 2\n", {"t.toml:2:"});
  EXPECT_EQ(m.rfind("t.toml:2:", 0), 0u) << m;
}

TEST(ConfigErrors, MultiLineStringStaysOneLine) {
  load_error("topology.kind = \"\"\"a\nb\"\"\"\n", {"key 'topology.kind'", "is not one of"});
}

TEST(ConfigFile, MissingFile) {
  try {
    load_config_file("/nonexistent/dir/x.toml");
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "cannot read config '/nonexistent/dir/x.toml': No such file or directory");
  }
  EXPECT_THROW(load_config_file("/tmp"), ConfigError);  // a directory
}

TEST(ConfigFile, ReadsFileAndAppliesOverrides) {
  std::string path = temp_file("[switch]\nvcs = 2\n");
  Config c = load_config_file(path, {"switch.vcs=5"});
  EXPECT_EQ(c.source, path);
  EXPECT_EQ(c.get_int("switch.vcs"), 5);
  std::string bad = temp_file("[switch]\nvcs = 99\n");
  try {
    load_config_file(bad);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(bad + ": key 'switch.vcs'", 0), 0u) << e.what();
  }
  std::remove(path.c_str());
  std::remove(bad.c_str());
}

TEST(ConfigOverrides, EachType) {
  Config c = load_config_string("switch.vcs = 2\n", "t.toml",
                                {"switch.vcs=4", "traffic.load=0.25", "simulation.duration_ns=2000",
                                 "stats.per_link=true", "switch.arbitration=\"round_robin\"", "topology.kind=file",
                                 "topology.file=nets/a b.txt", "traffic.message_bytes=[64, 128]",
                                 "switch.speedup=2", " topology.k = 8 "});
  EXPECT_EQ(c.get_int("switch.vcs"), 4);
  EXPECT_DOUBLE_EQ(c.get_float("traffic.load"), 0.25);
  EXPECT_DOUBLE_EQ(c.get_float("simulation.duration_ns"), 2000.0);
  EXPECT_TRUE(c.get_bool("stats.per_link"));
  EXPECT_EQ(c.get_string("switch.arbitration"), "round_robin");
  EXPECT_EQ(c.get_string("topology.kind"), "file");
  EXPECT_EQ(c.get_string("topology.file"), "nets/a b.txt");
  EXPECT_EQ(c.get_list("traffic.message_bytes"), (std::vector<double>{64, 128}));
  EXPECT_EQ(c.get_string("switch.speedup"), "2");
  EXPECT_EQ(c.get_int("topology.k"), 8);
}

TEST(ConfigOverrides, LaterWins) {
  Config c = load_config_string("", "t.toml", {"switch.vcs=2", "switch.vcs=3"});
  EXPECT_EQ(c.get_int("switch.vcs"), 3);
}

TEST(ConfigOverrides, Errors) {
  load_error("", {"--set 'xyz': expected KEY=VALUE"}, {"xyz"});
  load_error("", {"--set '=3': expected KEY=VALUE"}, {"=3"});
  load_error("", {"--set: unknown key 'switch.vcz'", "did you mean 'switch.vcs'"}, {"switch.vcz=2"});
  load_error("", {"--set: key 'switch.vcs': expected an integer, got a string"}, {"switch.vcs=two"});
  load_error("", {"--set: key 'switch.vcs': 9 is out of range [1, 8]"}, {"switch.vcs=9"});
  load_error("", {"--set: key 'switch.arbitration': \"lifo\" is not one of"}, {"switch.arbitration=lifo"});
}

TEST(ConfigSet, ValidatesLikeAFileValue) {
  Config c = load_config_string("", "t.toml");
  c.set("switch.vcs", int64_t{3});
  EXPECT_EQ(c.get_int("switch.vcs"), 3);
  c.set("traffic.load", int64_t{1});
  EXPECT_DOUBLE_EQ(c.get_float("traffic.load"), 1.0);
  EXPECT_THROW(c.set("switch.vcs", int64_t{0}), ConfigError);
  EXPECT_THROW(c.set("switch.vcs", 2.0), ConfigError);
  EXPECT_THROW(c.set("no.such", int64_t{1}), ConfigError);
  EXPECT_THROW(c.set("switch.arbitration", std::string("lifo")), ConfigError);
}

TEST(ConfigGetters, ProgrammerErrorsAreLogicErrors) {
  Config c = load_config_string("", "t.toml");
  EXPECT_THROW(c.get_int("traffic.load"), std::logic_error);
  EXPECT_THROW(c.get_int("no.such"), std::logic_error);
  EXPECT_THROW(c.get_string("switch.vcs"), std::logic_error);
  EXPECT_THROW(c.get_list("switch.vcs"), std::logic_error);
  EXPECT_THROW(c.get_bool("switch.vcs"), std::logic_error);
  EXPECT_DOUBLE_EQ(c.get_float("switch.vcs"), 1.0);  // int keys read as float
}

TEST(ConfigSweep, ParseAndExpandFirstAxisSlowest) {
  // traffic.load comes first in the file although "switch" sorts before "traffic".
  Config c = load_config_string(R"(
[sweep]
traffic.load = [0.1, 0.2, 0.3]
switch.vcs = [1, 2]
)",
                                "t.toml");
  ASSERT_EQ(c.sweeps.size(), 2u);
  EXPECT_EQ(c.sweeps[0].key, "traffic.load");
  EXPECT_EQ(c.sweeps[1].key, "switch.vcs");
  auto points = expand_sweep(c);
  ASSERT_EQ(points.size(), 6u);
  const double loads[] = {0.1, 0.1, 0.2, 0.2, 0.3, 0.3};
  const int64_t vcs[] = {1, 2, 1, 2, 1, 2};
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(points[i].index, i);
    ASSERT_EQ(points[i].assignments.size(), 2u);
    EXPECT_EQ(points[i].assignments[0].first, "traffic.load");
    EXPECT_DOUBLE_EQ(points[i].config.get_float("traffic.load"), loads[i]);
    EXPECT_EQ(points[i].config.get_int("switch.vcs"), vcs[i]);
    EXPECT_TRUE(points[i].config.sweeps.empty());
  }
}

TEST(ConfigSweep, NoSweepIsOnePoint) {
  Config c = load_config_string("switch.vcs = 2\n", "t.toml");
  auto points = expand_sweep(c);
  ASSERT_EQ(points.size(), 1u);
  EXPECT_EQ(points[0].index, 0);
  EXPECT_TRUE(points[0].assignments.empty());
  EXPECT_EQ(points[0].config.values, c.values);
}

TEST(ConfigSweep, ListAndStringAxes) {
  Config c = load_config_string(R"(
[sweep.traffic]
message_bytes = [[64], [64, 2048]]
[sweep.switch]
arbitration = ["fcfs", "round_robin"]
)",
                                "t.toml");
  ASSERT_EQ(c.sweeps.size(), 2u);
  EXPECT_EQ(std::get<std::vector<double>>(c.sweeps[0].values[1]), (std::vector<double>{64, 2048}));
  auto points = expand_sweep(c);
  ASSERT_EQ(points.size(), 4u);
  EXPECT_EQ(points[3].config.get_string("switch.arbitration"), "round_robin");
  EXPECT_EQ(points[3].config.get_list("traffic.message_bytes").size(), 2u);
}

TEST(ConfigSweep, Errors) {
  load_error("[sweep]\ntraffic.load = 0.5\n", {"key 'sweep.traffic.load'", "expected an array of values, got a float"});
  load_error("[sweep]\ntraffic.load = []\n", {"key 'sweep.traffic.load'", "empty"});
  load_error("[sweep]\ntraffic.lod = [0.1]\n", {"unknown key 'sweep.traffic.lod'", "did you mean 'sweep.traffic.load'"});
  load_error("[sweep]\ntraffic.load = [0.1, \"x\"]\n", {"key 'sweep.traffic.load[1]'", "expected a number, got a string"});
  load_error("[sweep]\nswitch.vcs = [1, 9]\n", {"key 'sweep.switch.vcs[1]': 9 is out of range [1, 8]"});
  load_error("[sweep]\ntraffic.message_bytes = [64, 128]\n", {"key 'sweep.traffic.message_bytes[0]'", "expected an array"});
  load_error("[sweep]\n\"traffic.load\" = [0.1]\ntraffic.load = [0.2]\n", {"'sweep.traffic.load'", "swept twice"});
  load_error("sweep = 3\n", {"key 'sweep'", "expected a table"});
}

TEST(ConfigSweep, OverridesAddAndReplaceAxes) {
  Config c = load_config_string("[sweep]\ntraffic.load = [0.1, 0.2]\nswitch.vcs = [1, 2]\n", "t.toml",
                                {"sweep.traffic.load=[0.5]", "sweep.topology.k=[2, 4, 8]"});
  ASSERT_EQ(c.sweeps.size(), 3u);
  EXPECT_EQ(c.sweeps[0].key, "traffic.load");  // replaced in place
  EXPECT_EQ(c.sweeps[0].values.size(), 1u);
  EXPECT_EQ(c.sweeps[2].key, "topology.k");
  EXPECT_EQ(expand_sweep(c).size(), 6u);
  load_error("", {"--set: key 'sweep.switch.vcs'", "expected an array"}, {"sweep.switch.vcs=2"});
  load_error("", {"--set: unknown key 'sweep.switch.vcz'"}, {"sweep.switch.vcz=[2]"});
}

TEST(ConfigFlows, ParseWithDefaults) {
  Config c = load_config_string(R"(
[traffic]
pattern = "flows"
[[traffic.flows]]
src = 1
dst = 5
bytes = 4096
start_ns = 100
stop_ns = 2000.5
rate = 0.5
[[traffic.flows]]
src = 2
dst = 0
)",
                                "t.toml");
  ASSERT_EQ(c.flows.size(), 2u);
  EXPECT_EQ(c.flows[0].src, 1);
  EXPECT_EQ(c.flows[0].dst, 5);
  EXPECT_EQ(c.flows[0].bytes, 4096);
  EXPECT_DOUBLE_EQ(c.flows[0].start_ns, 100.0);
  EXPECT_DOUBLE_EQ(c.flows[0].stop_ns, 2000.5);
  EXPECT_DOUBLE_EQ(c.flows[0].rate, 0.5);
  EXPECT_EQ(c.flows[1].src, 2);
  EXPECT_EQ(c.flows[1].dst, 0);
  EXPECT_EQ(c.flows[1].bytes, 0);
  EXPECT_DOUBLE_EQ(c.flows[1].rate, 1.0);
}

TEST(ConfigFlows, Errors) {
  load_error("[[traffic.flows]]\nsrc = 1\nsize = 10\n", {"unknown key 'traffic.flows[0].size'"});
  load_error("[[traffic.flows]]\nsrc = 1\ndst = 2\n[[traffic.flows]]\ndts = 1\n",
             {"unknown key 'traffic.flows[1].dts'", "did you mean 'traffic.flows[1].dst'"});
  load_error("[[traffic.flows]]\nsrc = -1\n", {"key 'traffic.flows[0].src'", "-1", ">= 0"});
  load_error("[[traffic.flows]]\nsrc = 1.0\n", {"key 'traffic.flows[0].src'", "expected an integer, got a float"});
  load_error("[[traffic.flows]]\nbytes = -5\n", {"key 'traffic.flows[0].bytes'", ">= 0"});
  load_error("[[traffic.flows]]\nstart_ns = -1.5\n", {"key 'traffic.flows[0].start_ns'", ">= 0"});
  load_error("[[traffic.flows]]\nrate = 0\n", {"key 'traffic.flows[0].rate'", "out of range (0, 1]"});
  load_error("[[traffic.flows]]\nrate = 1.5\n", {"key 'traffic.flows[0].rate'", "out of range (0, 1]"});
  load_error("traffic.flows = 3\n", {"key 'traffic.flows'", "expected an array of tables"});
  load_error("traffic.flows = [1]\n", {"key 'traffic.flows[0]'", "expected a table"});
}

TEST(ConfigJson, RoundTrip) {
  Config c = load_config_string(R"(
switch.vcs = 3
traffic.load = 0.3
switch.arbitration = "round_robin"
traffic.message_bytes = [64, 128]
[sweep]
topology.k = [2, 4]
[[traffic.flows]]
src = 1
dst = 2
rate = 0.5
)",
                                "t.toml");
  nlohmann::json j = nlohmann::json::parse(c.to_json().dump());
  EXPECT_EQ(j["values"].size(), param_table().size());
  EXPECT_EQ(j["values"]["switch.vcs"].get<int64_t>(), 3);
  EXPECT_TRUE(j["values"]["switch.vcs"].is_number_integer());
  EXPECT_DOUBLE_EQ(j["values"]["traffic.load"].get<double>(), 0.3);
  EXPECT_EQ(j["values"]["switch.arbitration"], "round_robin");
  EXPECT_EQ(j["values"]["traffic.message_bytes"].get<std::vector<double>>(), (std::vector<double>{64, 128}));
  EXPECT_EQ(j["sweep"]["topology.k"], nlohmann::json::parse("[2, 4]"));
  ASSERT_EQ(j["flows"].size(), 1u);
  EXPECT_EQ(j["flows"][0]["dst"].get<int64_t>(), 2);
  EXPECT_DOUBLE_EQ(j["flows"][0]["rate"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(j["flows"][0]["stop_ns"].get<double>(), 0.0);
}

TEST(ConfigPrint, ValueToString) {
  EXPECT_EQ(value_to_string(int64_t{-42}), "-42");
  EXPECT_EQ(value_to_string(0.1), "0.1");
  EXPECT_EQ(value_to_string(1.0 / 3), "0.3333333333");
  EXPECT_EQ(value_to_string(1e20), "1e+20");
  EXPECT_EQ(value_to_string(true), "true");
  EXPECT_EQ(value_to_string(std::string("fcfs")), "fcfs");
  EXPECT_EQ(value_to_string(std::vector<double>{64, 0.5}), "[64, 0.5]");
  EXPECT_EQ(value_to_string(std::vector<double>{}), "[]");
}

}  // namespace
}  // namespace saturn
