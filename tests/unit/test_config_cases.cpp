// Case axes of a sweep: a named list of cases, each setting several keys together (one figure's
// curves in one config), their labels, expansion, JSON and the errors of a bad case.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "host/config/config.hpp"

namespace saturn {
namespace {

// Loading fails with a ConfigError whose message holds every part.
void load_error(const std::string& toml, const std::vector<std::string>& parts,
                const std::vector<std::string>& overrides = {}) {
  try {
    load_config_string(toml, "t.toml", overrides);
    ADD_FAILURE() << "accepted: " << toml;
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    for (const auto& p : parts) EXPECT_NE(what.find(p), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

const char* kScheme = R"(
[sweep]
traffic.load = [0.3, 0.6]
scheme = [
  { name = "1q", switch.vcs = 1, isolation.queue_scheme = "1q" },
  { name = "dbbm", switch = { vcs = 4 }, isolation.queue_scheme = "dbbm" },
]
)";

TEST(ConfigCases, ExpandTogetherWithLabelsByName) {
  const Config c = load_config_string(kScheme, "t.toml");
  ASSERT_EQ(c.sweeps.size(), 2u);
  EXPECT_EQ(c.sweeps[1].key, "scheme");
  ASSERT_TRUE(c.sweeps[1].is_case());
  EXPECT_EQ(c.sweeps[1].values.size(), 2u);
  const std::vector<SweepPoint> points = expand_sweep(c);
  ASSERT_EQ(points.size(), 4u);
  // First axis slowest; a case sets each of its keys, and labels its point by name.
  EXPECT_EQ(points[1].labels, (std::vector<std::pair<std::string, std::string>>{{"traffic.load", "0.3"}, {"scheme", "dbbm"}}));
  EXPECT_EQ(points[1].config.get_int("switch.vcs"), 4);
  EXPECT_EQ(points[1].config.get_string("isolation.queue_scheme"), "dbbm");
  EXPECT_EQ(points[2].config.get_int("switch.vcs"), 1);
  EXPECT_DOUBLE_EQ(points[2].config.get_float("traffic.load"), 0.6);
  ASSERT_EQ(points[1].assignments.size(), 3u);  // the load, then the case's two keys
  EXPECT_EQ(points[1].assignments[1].first, "switch.vcs");
  EXPECT_EQ(points[1].assignments[2].first, "isolation.queue_scheme");
}

// A case that sets no key runs the config as written (a figure's baseline curve). Each point also
// has its index over the value axes alone, which simulation.seeds = "common_across_cases" draws by.
TEST(ConfigCases, AnEmptyCaseRunsTheConfigAsWritten) {
  const Config c = load_config_string(R"(
[switch]
vcs = 2
[sweep]
curve = [{ name = "base" }, { name = "one", switch.vcs = 1 }, { name = "four", switch.vcs = 4 }]
traffic.load = [0.3, 0.6]
)", "t.toml");
  const std::vector<SweepPoint> points = expand_sweep(c);
  ASSERT_EQ(points.size(), 6u);
  EXPECT_EQ(points[1].config.get_int("switch.vcs"), 2);
  EXPECT_EQ(points[1].labels[0].second, "base");
  EXPECT_EQ(points[3].config.get_int("switch.vcs"), 1);
  for (const SweepPoint& p : points) EXPECT_EQ(p.value_index, p.index % 2) << p.index;
}

TEST(ConfigCases, JsonListsEachCaseWithItsKeys) {
  const nlohmann::json j = load_config_string(kScheme, "t.toml").to_json();
  ASSERT_EQ(j["sweep"]["scheme"].size(), 2u);
  EXPECT_EQ(j["sweep"]["scheme"][1]["name"], "dbbm");
  EXPECT_EQ(j["sweep"]["scheme"][1]["switch.vcs"], 4);
  EXPECT_EQ(j["sweep"]["scheme"][0]["isolation.queue_scheme"], "1q");
}

TEST(ConfigCases, SetFromTheCommandLine) {
  const Config c = load_config_string("", "t.toml", {"sweep.hot=[{name = \"a\", traffic.hotspot_fraction = 0.25}]"});
  ASSERT_EQ(c.sweeps.size(), 1u);
  EXPECT_TRUE(c.sweeps[0].is_case());
  EXPECT_DOUBLE_EQ(expand_sweep(c)[0].config.get_float("traffic.hotspot_fraction"), 0.25);
}

TEST(ConfigCases, Errors) {
  load_error("[sweep]\nx = [{ switch.vcs = 1 }]\n", {"key 'sweep.x[0].name'", "each case needs a name"});
  load_error("[sweep]\nx = [{ name = \"a\", switch.vcs = 1 }, { name = \"a\", switch.vcs = 2 }]\n",
             {"key 'sweep.x[1].name'", "names two cases"});
  load_error("[sweep]\nx = [{ name = \"a\", switch.vcz = 1 }]\n",
             {"unknown key 'sweep.x[0].switch.vcz'", "did you mean 'sweep.x[0].switch.vcs'"});
  load_error("[sweep]\nx = [{ name = \"a\", switch.vcs = 9 }]\n", {"key 'sweep.x[0].switch.vcs': 9 is out of range"});
  load_error("[sweep]\nx = [{ name = \"a\" }, { name = \"b\" }]\n", {"key 'sweep.x'", "no case sets a key"});
  load_error("[sweep]\nx = [{ name = \"a\", switch.vcs = 1 }, 3]\n", {"key 'sweep.x[1]'", "expected a table"});
  load_error("[sweep]\nx = [{ name = \"a\", simulation.mode = \"flow\" }]\n", {"'sweep.x[0].simulation.mode'", "cannot be swept"});
  load_error("[sweep]\nx = [{ name = \"a,b\", switch.vcs = 1 }]\n", {"key 'sweep.x[0].name'", "no comma"});
  // A key with one value per point: set by one axis only.
  load_error("[sweep]\nswitch.vcs = [1, 2]\nx = [{ name = \"a\", switch.vcs = 1 }]\n",
             {"key 'switch.vcs' is set by the sweep axes 'switch.vcs' and 'x'"});
  load_error("[sweep]\nx = [{ name = \"a\", switch.vcs = 1 }]\ny = [{ name = \"b\", switch.vcs = 2 }]\n",
             {"key 'switch.vcs' is set by the sweep axes 'x' and 'y'"});
  // A name that is a section or a parameter is no case axis; a plain list under a free name is an unknown key.
  load_error("[sweep]\npattern = [\"uniform\"]\n", {"unknown key 'sweep.pattern'", "did you mean 'sweep.traffic.pattern'"});
}

}  // namespace
}  // namespace saturn
