// `saturn list`: every parameter belongs to exactly one family, every choice and default is
// printed, every metric a run reports is catalogued, and an unknown family is one error line.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "host/config/catalog.hpp"
#include "host/config/params.hpp"
#include "tests/support/cli_helpers.hpp"

namespace saturn {
namespace {

TEST(List, EveryParameterBelongsToExactlyOneFamily) {
  std::map<std::string, int> owners;
  for (const std::string& family : catalog_families())
    for (const std::string& key : catalog_family_keys(family)) ++owners[key];
  for (const ParamSpec& p : param_table()) EXPECT_EQ(owners[p.key], 1) << p.key;
}

TEST(List, PrintsEveryKeyWithItsDefaultAndEveryChoice) {
  const test::CliRun r = test::saturn_cli({"list"});
  ASSERT_EQ(r.rc, 0) << r.err;
  for (const ParamSpec& p : param_table()) {
    EXPECT_NE(r.out.find(p.key + " = " + format_default(p)), std::string::npos) << p.key;
    for (const std::string& choice : p.choices) EXPECT_NE(r.out.find(" " + choice), std::string::npos) << choice;
  }
  for (const char* family : {"topologies:", "switches:", "routing:", "congestion-control:", "traffic:", "metrics:"})
    EXPECT_NE(r.out.find(std::string("\n") + family), std::string::npos) << family;
  EXPECT_NE(r.out.find("topology.kind: kary_ntree zdornov_fig1 santos_fig1 dragonfly rlft file  (default \"kary_ntree\")"),
            std::string::npos);
}

TEST(List, OneFamily) {
  const test::CliRun r = test::saturn_cli({"list", "routing"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out.rfind("routing: ", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("routing.algorithm: dmodk"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("topology.k"), std::string::npos);
}

TEST(List, UnknownFamilyIsOneErrorLine) {
  const test::CliRun r = test::saturn_cli({"list", "wormholes"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_EQ(test::line_count(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("unknown family 'wormholes'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("routing"), std::string::npos) << r.err;
}

bool catalogued(const std::string& metric) {
  for (const MetricInfo& m : catalog_metrics()) {
    const auto bracket = m.name.find('[');
    if (bracket == std::string::npos ? metric == m.name : metric.compare(0, bracket + 1, m.name, 0, bracket + 1) == 0)
      return true;
  }
  return false;
}

// Every metric the packet engine (with ACKs, explicit flows, per-link statistics and trace replay) and the flow
// engine (with max-min rates and the SAA protocol) report is in the catalog.
TEST(List, EveryReportedMetricIsCatalogued) {
  const StudyResult packet = test::run_file(test::source_path("configs/papers/santos2002/fig2b.toml"),
                                            {"simulation.trials=1", "simulation.warmup_ns=0",
                                             "simulation.duration_ns=50000", "stats.per_link=true"});
  const StudyResult flow = test::run_file(test::source_path("configs/papers/zdornov2009/saa_protocol.toml"),
                                          {"simulation.trials=1", "flow.maxmin=true"});
  const StudyResult trace = test::run_file(test::source_path("configs/examples/trace_small.toml"), {"simulation.trials=1"});
  std::set<std::string> seen;
  for (const StudyResult* r : {&packet, &flow, &trace})
    for (const auto& trial : r->trials)
      for (const MetricValue& metric : trial.metrics) seen.insert(metric.name);
  EXPECT_GT(seen.size(), 20u);
  for (const std::string& metric : seen) EXPECT_TRUE(catalogued(metric)) << metric << " is missing from saturn list";
}

}  // namespace
}  // namespace saturn
