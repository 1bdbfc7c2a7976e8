// Memory a study needs, estimated from its parameters before any large table is built, and the
// memory it may use (--max-memory, else MemAvailable): too much is one ConfigError line (exit 2).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "host/config/config.hpp"
#include "host/topology/topology.hpp"

namespace saturn {

// How much memory the process may use and where that number comes from.
struct MemoryLimit {
  double bytes = 0;     // 0 = unknown: no check
  std::string source;   // "--max-memory 8GiB" or "MemAvailable"
};

// --max-memory when given (> 0), else the smaller of MemAvailable (/proc/meminfo) and the address-space
// limit (ulimit -v), else no limit.
MemoryLimit memory_limit(size_t max_memory);

// "8GiB", "512 MiB", "2GB", "16G", "1e9" -> bytes. KiB/MiB/GiB/TiB and bare K/M/G/T are powers
// of 1024, kB/MB/GB/TB powers of 1000. Throws ConfigError naming `what` on anything else.
size_t parse_byte_size(const std::string& text, const std::string& what);

std::string human_bytes(double bytes);

// Switches, ports and endpoints of a network: enough to size every table.
struct NetworkShape {
  double switches = 0, ports = 0, endpoints = 0;
};
NetworkShape shape_of(const Topology& topo);
// In closed form from topology.* for the built-in kinds; false for topology.kind = "file".
bool closed_form_shape(const Config& config, NetworkShape* shape);

double topology_bytes(const NetworkShape& shape);
double routing_table_bytes(const NetworkShape& shape);  // switches x endpoints entries

// Items that must fit in memory together; check() throws one line naming the largest ones.
class MemoryNeed {
 public:
  void add(const std::string& what, double bytes);
  double total() const;
  void check(const std::string& source, const MemoryLimit& limit) const;
  const std::vector<std::pair<std::string, double>>& items() const { return items_; }

 private:
  std::vector<std::pair<std::string, double>> items_;
};

// A study's memory, item by item (saturn validate --memory): filled by the study's memory check.
struct MemoryReport {
  std::vector<std::pair<std::string, double>> items;  // what must fit together, as the check adds them
  MemoryLimit limit;
  // Packet engine: one trial's engine state column by column (bytes, largest first, empty columns
  // left out) for the sweep's largest shape, and which point that is. Empty for the flow engine.
  std::vector<std::pair<std::string, double>> state_columns;
  int state_point = -1;
  // Its packet entries: the most one input port has (switch.packet_descriptors), and the most
  // packets of the smallest size one input port's buffers hold.
  int64_t port_entries = 0, buffer_packets = 0;
};

// Per-trial results held until the study ends (metrics, and time-series samples).
double results_bytes(double trials, double metrics_per_trial, double samples_per_trial = 0);

}  // namespace saturn
