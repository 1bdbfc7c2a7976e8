// The one exception type for bad user input (config, --set, trace, edge-list file): exit code 2.
#pragma once
#include <stdexcept>
#include <string>

namespace saturn {

class ConfigError : public std::runtime_error {
 public:
  explicit ConfigError(const std::string& message) : std::runtime_error(message) {}
};

// User text quoted in an error (a value, key, path or token): its first 60 characters and "...",
// so that a 100,000-character value still gives a one-line message a person can read.
inline std::string clip_for_message(const std::string& text, size_t keep = 60) {
  return text.size() <= keep ? text : text.substr(0, keep) + "...";
}

}  // namespace saturn
