// `saturn list`: the modelled families (topologies, switches, routing, congestion control,
// traffic, metrics, ...) with their choices, keys and defaults, printed from the parameter table.
#pragma once
#include <string>
#include <vector>

namespace saturn {

struct MetricInfo {
  std::string name;     // as in trials.csv; "link_util[A->B]" stands for one metric per link
  std::string engine;   // "packet" or "flow"
  std::string meaning;
};

// The whole catalog (family empty) or one family; an unknown family is a ConfigError naming them.
std::string catalog_text(const std::string& family = "");

std::vector<std::string> catalog_families();
std::vector<std::string> catalog_family_keys(const std::string& family);  // parameter keys, table order
const std::vector<MetricInfo>& catalog_metrics();

}  // namespace saturn
