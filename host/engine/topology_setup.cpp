// The network of a config (topology.* keys), for the packet and the flow engine (make_topology,
// model_setup.hpp): limits checked first, then a closed-form network's memory before it is built.
#include <cmath>

#include "host/engine/model_setup.hpp"
#include "host/engine/setup_checks.hpp"
#include "host/topology/dragonfly.hpp"

namespace saturn {

using namespace setup;  // fail, num, host_routing_bytes (setup_checks.hpp)

Topology make_topology(const Config& cfg, const std::string& config_dir, const TopologyBuild& how) {
  const std::string& kind = cfg.get_string("topology.kind");
  const int64_t width = cfg.get_int("topology.horizontal_width");
  if (width > 0 && kind != "kary_ntree")
    fail(cfg.source, "topology.horizontal_width", "applies only to topology.kind = \"kary_ntree\" (got \"" + kind + "\")");
  if (kind == "kary_ntree") {
    const int64_t k = cfg.get_int("topology.k"), n = cfg.get_int("topology.n");
    if (std::pow(static_cast<double>(k), static_cast<double>(n)) > static_cast<double>(kMaxNodes))
      fail(cfg.source, "topology.n", "k^n = " + num(std::pow(k, n)) + " endpoints is over the limit of " +
                                         std::to_string(kMaxNodes));
    if (2 * k + 2 * width > kMaxRadix)
      fail(cfg.source, "topology.horizontal_width", std::to_string(width) + " gives switches of " +
                                                        std::to_string(2 * k + 2 * width) + " ports; at most " +
                                                        std::to_string(kMaxRadix) + " (width <= " +
                                                        std::to_string((kMaxRadix - 2 * k) / 2) + " for k = " +
                                                        std::to_string(k) + ")");
  }
  NetworkShape shape;
  if (closed_form_shape(cfg, &shape)) {
    MemoryNeed need;
    need.add("topology", topology_bytes(shape));
    if (how.with_routes) need.add("routing tables", host_routing_bytes(shape));
    need.check(cfg.source, how.limit);
    // A dragonfly or an RLFT is built even for its shape: its traffic checks read the built
    // topology (groups, K), and the builders are cheap once the memory check has passed.
    if (how.shape_only && kind != "dragonfly" && kind != "rlft") {
      Topology t;
      t.name = kind + " (shape only)";
      t.num_endpoints = static_cast<int>(shape.endpoints);
      if (kind == "kary_ntree") {
        t.tree_k = static_cast<int>(cfg.get_int("topology.k"));
        t.tree_n = static_cast<int>(cfg.get_int("topology.n"));
        t.tree_width = static_cast<int>(width);
      }
      return t;
    }
  }
  if (kind == "kary_ntree") {
    const int64_t k = cfg.get_int("topology.k"), n = cfg.get_int("topology.n");
    return build_kary_ntree(static_cast<int>(k), static_cast<int>(n), static_cast<int>(width));
  }
  if (kind == "zdornov_fig1") return build_zdornov_fig1();
  try {  // the builders name their key; the config file names the source
    if (kind == "dragonfly")
      return build_dragonfly({static_cast<int>(cfg.get_int("topology.dragonfly_p")),
                              static_cast<int>(cfg.get_int("topology.dragonfly_a")),
                              static_cast<int>(cfg.get_int("topology.dragonfly_h")),
                              static_cast<int>(cfg.get_int("topology.dragonfly_g"))});
    if (kind == "rlft") return build_rlft(static_cast<int>(cfg.get_int("topology.rlft_radix")));
  } catch (const ConfigError& e) {
    throw ConfigError(cfg.source + ": " + e.what());
  }
  if (kind == "santos_fig1")
    return build_santos_fig1(static_cast<int>(cfg.get_int("topology.local_flows")),
                             static_cast<int>(cfg.get_int("topology.remote_flows")));
  std::string path = cfg.get_string("topology.file");
  if (path.empty()) fail(cfg.source, "topology.file", "is required when topology.kind = \"file\"");
  if (path[0] != '/' && !config_dir.empty()) path = config_dir + "/" + path;
  return load_edge_list(path);
}

}  // namespace saturn
