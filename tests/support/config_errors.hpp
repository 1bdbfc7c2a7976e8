// Checking that bad configs are refused: the one-line ConfigError of a run's planning (keys that apply,
// build_model), and that it names the key at fault. Header-only.
#pragma once
#include <gtest/gtest.h>

#include <string>

#include "host/config/config.hpp"
#include "host/config/config_error.hpp"
#include "host/engine/key_scope.hpp"
#include "host/engine/model_setup.hpp"

namespace saturn {
namespace test {

// The error of loading a config (make() returns it: a bad --set fails there), checking that its
// keys apply, and building its model, as a run's planning does; or "" if all accept it.
template <class MakeConfig>
inline std::string model_error(const MakeConfig& make, const std::string& config_dir = "") {
  try {
    const Config config = make();
    check_keys_apply(config);
    build_model(config, config_dir);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

// The TOML text is refused, and the message names `key` (quoted, as every ConfigError does).
inline void expect_config_error(const std::string& toml, const std::string& key) {
  const std::string message = model_error([&] { return load_config_string(toml, "bad"); }, ".");
  if (message.empty()) {
    ADD_FAILURE() << "accepted: " << toml;
    return;
  }
  EXPECT_NE(message.find("'" + key + "'"), std::string::npos) << message;
}

}  // namespace test
}  // namespace saturn
