// Helpers shared by config.cpp (values, checks) and config_parse.cpp (TOML, --set); not public API.
#pragma once
#include <string>
#include <vector>

#include "host/config/config.hpp"

namespace saturn {
namespace config_detail {

std::string one_line(const std::string& text);
[[noreturn]] void fail(const std::string& message);
std::string format_number(double x);
std::string suggest_key(const std::string& key, const std::vector<std::string>& candidates);
const std::vector<std::string>& known_keys();
[[noreturn]] void fail_unknown_key(const std::string& source, const std::string& shown_key,
                                   const std::string& suggestion);
[[noreturn]] void fail_type(const std::string& source, const std::string& key, const std::string& expected,
                            const std::string& got);
std::string expected_kind(ParamType type);
// load_config_string, and whether the document set no value at all (when `empty` is given).
Config load_config_text(const std::string& toml_text, const std::string& source_name,
                        const std::vector<std::string>& overrides, bool* empty);
ParamValue check_value(const ParamValue& value, const ParamSpec& spec, const std::string& source,
                       const std::string& key);

}  // namespace config_detail
}  // namespace saturn
