// The parameter table: every config key declared once with type, default, range, unit and help.
// It drives TOML parsing, --set, validation, `saturn params`, `saturn list` and docs/parameters.md.
#pragma once
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace saturn {

enum class ParamType { kInt, kFloat, kBool, kString, kFloatList };

using ParamValue = std::variant<int64_t, double, bool, std::string, std::vector<double>>;

struct ParamSpec {
  std::string key;                    // "section.name"
  ParamType type;
  ParamValue default_value;
  double min = 0.0, max = 0.0;        // inclusive numeric range (ints, floats, list elements)
  std::vector<std::string> choices;   // allowed strings (kString); empty = any string
  std::string unit;                   // "ns", "bytes", "fraction of link bandwidth", ...
  std::string help;
  bool per_trial = false;             // may differ between trials of one batch
};

const std::vector<ParamSpec>& param_table();
const ParamSpec* find_param(const std::string& key);  // nullptr if unknown

// Markdown table of all parameters (for docs/parameters.md and `saturn params`).
std::string params_markdown();

// A parameter's default as TOML text: 4, 0.5, true, "fcfs", [2048, 65536].
std::string format_default(const ParamSpec& p);

}  // namespace saturn
