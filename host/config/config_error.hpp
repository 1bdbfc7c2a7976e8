// The one exception type for bad user input (config, --set, trace, edge-list file): exit code 2.
#pragma once
#include <stdexcept>
#include <string>

namespace saturn {

class ConfigError : public std::runtime_error {
 public:
  explicit ConfigError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace saturn
