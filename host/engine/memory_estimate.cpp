// Memory estimates from parameters (see memory_estimate.hpp). Sizes are doubles: the products of
// in-range parameters (switches x endpoints, trials x points) overflow 64-bit integers.
#include "host/engine/memory_estimate.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <sys/resource.h>

#include "host/config/config_error.hpp"
#include "host/topology/dragonfly.hpp"

namespace saturn {

namespace {

MemoryLimit read_mem_available() {
  std::ifstream meminfo("/proc/meminfo");
  std::string line;
  while (std::getline(meminfo, line)) {
    if (line.rfind("MemAvailable:", 0) != 0) continue;
    std::istringstream in(line.substr(13));
    double kib = 0;
    if (in >> kib && kib > 0) return {kib * 1024.0, "MemAvailable"};
  }
  return {};
}

// The smaller of MemAvailable and the process's address-space limit (ulimit -v, as batch
// schedulers set it): past either, an allocation fails however much the machine has free.
MemoryLimit read_available() {
  MemoryLimit limit = read_mem_available();
  struct rlimit as {};
  if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) {
    const double bytes = static_cast<double>(as.rlim_cur);
    if (limit.bytes <= 0 || bytes < limit.bytes) limit = {bytes, "the address-space limit (ulimit -v)"};
  }
  return limit;
}

}  // namespace

MemoryLimit memory_limit(size_t max_memory) {
  if (max_memory > 0) return {static_cast<double>(max_memory), "--max-memory"};
  // Read once per process: a sweep asks once per shape or point, and an estimate needs no more.
  static const MemoryLimit available = read_available();
  return available;
}

size_t parse_byte_size(const std::string& text, const std::string& what) {
  const auto bad = [&] {
    return ConfigError(what + " '" + clip_for_message(text) +
                       "': expected a size such as 8GiB, 512MiB, 2GB or 1e9 (bytes), above 0");
  };
  const char* begin = text.c_str();
  char* end = nullptr;
  const double number = std::strtod(begin, &end);
  if (end == begin || !(number > 0) || !std::isfinite(number)) throw bad();
  std::string unit(end);
  unit.erase(std::remove_if(unit.begin(), unit.end(), [](unsigned char c) { return std::isspace(c); }), unit.end());
  static const std::pair<const char*, double> kUnits[] = {
      {"", 1},           {"B", 1},        {"K", 0x1p10},    {"KiB", 0x1p10}, {"kB", 1e3},  {"KB", 1e3},
      {"M", 0x1p20},     {"MiB", 0x1p20}, {"MB", 1e6},      {"G", 0x1p30},   {"GiB", 0x1p30}, {"GB", 1e9},
      {"T", 0x1p40},     {"TiB", 0x1p40}, {"TB", 1e12}};
  for (const auto& [name, scale] : kUnits) {
    if (unit != name) continue;
    const double bytes = std::floor(number * scale);
    if (!(bytes >= 1) || bytes > 0x1p62) throw bad();
    return static_cast<size_t>(bytes);
  }
  throw bad();
}

std::string human_bytes(double bytes) {
  char buf[48];
  if (bytes >= 0x1p40) std::snprintf(buf, sizeof buf, "%.1f TiB", bytes / 0x1p40);
  else if (bytes >= 0x1p30) std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / 0x1p30);
  else if (bytes >= 0x1p20) std::snprintf(buf, sizeof buf, "%.1f MiB", bytes / 0x1p20);
  else std::snprintf(buf, sizeof buf, "%.1f KiB", bytes / 0x1p10);
  return buf;
}

NetworkShape shape_of(const Topology& topo) {
  return {static_cast<double>(topo.num_switches()), static_cast<double>(topo.total_ports()),
          static_cast<double>(topo.num_endpoints)};
}

bool closed_form_shape(const Config& cfg, NetworkShape* shape) {
  const std::string& kind = cfg.get_string("topology.kind");
  if (kind == "kary_ntree") {
    // As build_kary_ntree: n levels of k^(n-1) switches of 2k ports (k for n = 1), and 2 * width
    // horizontal ports on every switch of levels 0..n-2.
    const double k = static_cast<double>(cfg.get_int("topology.k"));
    const double n = static_cast<double>(cfg.get_int("topology.n"));
    const double width = static_cast<double>(cfg.get_int("topology.horizontal_width"));
    const double per_level = std::pow(k, n - 1);
    shape->endpoints = per_level * k;
    shape->switches = n * per_level;
    shape->ports = shape->switches * (n == 1 ? k : 2 * k) + (n - 1) * per_level * 2 * width;
    return true;
  }
  if (kind == "zdornov_fig1") {
    *shape = {2, 10, 8};
    return true;
  }
  if (kind == "dragonfly" || kind == "rlft") {
    // Checked before counting, so that a parameter set the builder would refuse is refused here,
    // before its memory is estimated (and before a giant network is built).
    TopologyCounts counts;
    try {
      if (kind == "dragonfly") {
        const DragonflyParams d{static_cast<int>(cfg.get_int("topology.dragonfly_p")),
                                static_cast<int>(cfg.get_int("topology.dragonfly_a")),
                                static_cast<int>(cfg.get_int("topology.dragonfly_h")),
                                static_cast<int>(cfg.get_int("topology.dragonfly_g"))};
        validate_dragonfly(d);
        counts = dragonfly_counts(d);
      } else {
        const int radix = static_cast<int>(cfg.get_int("topology.rlft_radix"));
        validate_rlft_radix(radix);
        counts = rlft_counts(radix);
      }
    } catch (const ConfigError& e) {
      throw ConfigError(cfg.source + ": " + e.what());
    }
    *shape = {counts.switches, counts.ports, counts.endpoints};
    return true;
  }
  if (kind == "santos_fig1") {
    const double endpoints =
        static_cast<double>(cfg.get_int("topology.local_flows") + cfg.get_int("topology.remote_flows") + 3);
    *shape = {2, endpoints + 2, endpoints};
    return true;
  }
  return false;
}

double topology_bytes(const NetworkShape& s) {
  // Per switch: its port vector (header and allocation), name, up-port fields; per port one
  // PortPeer; per endpoint its attachment and name.
  return s.switches * 96 + s.ports * 12 + s.endpoints * 48;
}

double routing_table_bytes(const NetworkShape& s) {
  // det_port (1 byte) and choice_id (2 bytes) per (switch, destination), and at most 65535 masks.
  return s.switches * s.endpoints * 3 + 65535.0 * 8;
}

void MemoryNeed::add(const std::string& what, double bytes) {
  if (bytes > 0) items_.emplace_back(what, bytes);
}

double MemoryNeed::total() const {
  double sum = 0;
  for (const auto& item : items_) sum += item.second;
  return sum;
}

void MemoryNeed::check(const std::string& source, const MemoryLimit& limit) const {
  const double need = total();
  if (limit.bytes <= 0 || need <= limit.bytes) return;
  std::vector<std::pair<std::string, double>> largest = items_;
  std::stable_sort(largest.begin(), largest.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string parts;
  for (size_t i = 0; i < largest.size() && i < 3; ++i)
    parts += (i ? ", " : "") + largest[i].first + " " + human_bytes(largest[i].second);
  throw ConfigError(source + ": needs about " + human_bytes(need) + " of memory (" + parts + "), more than the " +
                    human_bytes(limit.bytes) + " available (" + limit.source +
                    "); make the network, trials or sweep smaller, or raise --max-memory");
}

double results_bytes(double trials, double metrics_per_trial, double samples_per_trial) {
  // Measured peak (maximum RSS) of `saturn run` on tiny networks, 10^3 against 10^5 trials of 12
  // metrics and 2 * 10^4 trials of 32: about 1 KB per metric of a trial, as the metric names,
  // values, summary and CSV text all hold a copy until the files are written.
  constexpr double kPerMetric = 1000, kPerRecord = 256;
  return trials * (1 + samples_per_trial) * (kPerRecord + metrics_per_trial * kPerMetric);
}

}  // namespace saturn
