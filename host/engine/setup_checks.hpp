// The checks every model set-up step shares (model_setup.cpp and the *_setup.cpp files of each
// family): one ConfigError line naming the key, and times and sizes converted to cycles and flits
// only after checking that they fit the engine's uint32 counters.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

#include "host/config/config.hpp"
#include "host/engine/memory_estimate.hpp"
#include "kernels/common/macros.hpp"
#include "kernels/state/engine_view.hpp"

namespace saturn::setup {

// Host memory for the routing tables: the CPU backend's engine keeps its own copy beside the host's.
inline double host_routing_bytes(const NetworkShape& shape) {
  return routing_table_bytes(shape) * (kCpuBackend ? 2 : 1);
}

[[noreturn]] inline void fail(const std::string& source, const std::string& key, const std::string& what) {
  throw ConfigError(source + ": key '" + key + "': " + what);
}

inline std::string num(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.10g", x);
  return buf;
}

// The packet engine counts cycles in uint32 and kUnlimited (2^32 - 1) means "never": every time
// converted to cycles must stay below kMaxCycles, checked in double before any cast can wrap.
constexpr double kMaxCycles = 2.0e9;

inline uint32_t to_cycles(double ns, double cycle_ns) { return static_cast<uint32_t>(std::llround(ns / cycle_ns)); }

// A time key converted to cycles: fails unless it is at most max_cycles cycles.
inline uint32_t checked_cycles(const Config& cfg, const std::string& key, double ns, double cycle_ns,
                               double max_cycles = kMaxCycles) {
  if (!(std::round(ns / cycle_ns) <= max_cycles))
    fail(cfg.source, key, num(ns) + " ns is more than " + num(max_cycles) + " cycles of " + num(cycle_ns) +
                              " ns (at most " + num(std::floor(max_cycles) * cycle_ns) + " ns)");
  return to_cycles(ns, cycle_ns);
}

// Sizes in flits are uint32 with kUnlimited = "no limit", so a flow or message has at most
// kUnlimited - 1 flits; a larger size would wrap to a small one.
constexpr double kMaxSizeFlits = static_cast<double>(kUnlimited) - 1;

inline double bytes_to_flits(double bytes, int flit_bytes) { return std::ceil(bytes / flit_bytes); }

inline std::string whole(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.0f", x);
  return buf;
}

inline uint32_t checked_flits(const Config& cfg, const std::string& key, double bytes, int flit_bytes,
                              const char* what = "a flow") {
  const double flits = bytes_to_flits(bytes, flit_bytes);
  if (!(flits <= kMaxSizeFlits))
    fail(cfg.source, key, whole(bytes) + " bytes is more than the " + whole(kMaxSizeFlits) + " flits " + what +
                              " may have: at most " + whole(kMaxSizeFlits * flit_bytes) +
                              " bytes with link.flit_bytes = " + std::to_string(flit_bytes));
  return static_cast<uint32_t>(flits);
}

// Flits of the last packet of a message (the smallest packet it produces).
inline uint32_t last_packet_flits(uint32_t message_flits, uint32_t mtu_flits) {
  const uint32_t r = message_flits % mtu_flits;
  return r == 0 ? mtu_flits : r;
}

}  // namespace saturn::setup
