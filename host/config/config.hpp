// A study configuration: TOML file + --set overrides, checked against the parameter table.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json_fwd.hpp>  // to_json()'s callers include <nlohmann/json.hpp>

#include "host/config/config_error.hpp"
#include "host/config/params.hpp"

namespace saturn {

// One explicitly listed flow ([[traffic.flows]] array of tables).
struct FlowSpec {
  int64_t src = 0;          // endpoint id
  int64_t dst = 0;          // endpoint id
  int64_t bytes = 0;        // 0 = unlimited (greedy until stop_ns)
  double start_ns = 0.0;
  double stop_ns = 0.0;     // 0 = never stops (until the run ends)
  double rate = 1.0;        // injection rate limit as a fraction of link bandwidth, (0, 1]
  int64_t vc = 0;           // virtual channel (traffic class) of its packets, < switch.vcs
  bool dynamic = false;     // ON/OFF: exponential periods of mean traffic.on_off_mean_ns (PAPERS-SPEC item 39)
};

// One value of a case axis: keys set together, under a name.
struct SweepCase {
  std::string name;
  std::vector<std::pair<std::string, ParamValue>> values;  // key -> value, in file order
};

// A sweep axis: a swept parameter (key, its values in file order), or a case axis (a name that is
// no parameter, whose values are named cases that each set several keys together; `values` then
// holds the case names, which label the points).
struct SweepAxis {
  std::string key;
  std::vector<ParamValue> values;
  std::vector<SweepCase> cases;  // case axis: one per value, same order
  bool is_case() const { return !cases.empty(); }
};

struct Config {
  std::string source;                            // file path or "<string>"
  std::map<std::string, ParamValue> values;      // every key of the table, defaults filled in
  std::vector<SweepAxis> sweeps;                 // [sweep] section, in file order
  std::vector<FlowSpec> flows;                   // [[traffic.flows]]

  int64_t get_int(const std::string& key) const;
  double get_float(const std::string& key) const;   // also accepts int-typed keys
  bool get_bool(const std::string& key) const;
  const std::string& get_string(const std::string& key) const;
  const std::vector<double>& get_list(const std::string& key) const;
  void set(const std::string& key, const ParamValue& value);  // checked like a file value

  nlohmann::json to_json() const;  // resolved values, sweeps and flows
};

// Parse and validate. Overrides are "section.key=VALUE" with VALUE in TOML syntax
// (strings may be unquoted); "sweep.section.key=[...]" adds or replaces a sweep axis.
// Every error is a ConfigError with one line naming the key and what is allowed.
Config load_config_file(const std::string& path, const std::vector<std::string>& overrides = {});
Config load_config_string(const std::string& toml_text, const std::string& source_name,
                          const std::vector<std::string>& overrides = {});

// One point of the sweep: the cartesian product of all sweep axes (first axis slowest).
struct SweepPoint {
  int index = 0;
  int value_index = 0;  // index in the grid of the value axes alone (case axes skipped; last fastest)
  std::vector<std::pair<std::string, ParamValue>> assignments;  // key -> value of this point (cases expanded)
  std::vector<std::pair<std::string, std::string>> labels;      // axis -> its value (a case's name), per axis
  Config config;                                                // base config with them applied
};
std::vector<SweepPoint> expand_sweep(const Config& config);

std::string value_to_string(const ParamValue& value);

}  // namespace saturn
