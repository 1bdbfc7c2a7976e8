// Config -> FlowSetup for the flow engine, with the flow-mode checks (one ConfigError line each).
#include <cmath>
#include <string>

#include "host/engine/model_setup.hpp"
#include "host/flow/flow_engine.hpp"

namespace saturn {

namespace {

[[noreturn]] void fail(const std::string& source, const std::string& key, const std::string& what) {
  throw ConfigError(source + ": key '" + key + "': " + what);
}

constexpr const char* kMetricNames[kFmCount] = {
    "contention_max",       "contention_mean",    "link_load_max",   "hops_mean",
    "horizontal_hops_mean", "completion_lower_bound", "saa_completion", "saa_rate_min",
    "saa_link_util_max",    "maxmin_completion",  "maxmin_rate_min",
    "saa_protocol_mismatches",       "saa_protocol_announce_mismatches", "saa_protocol_late_changes",
    "saa_protocol_probes_to_final",  "saa_protocol_converged_steps",     "saa_protocol_residual",
    "saa_protocol_acks",             "saa_protocol_steps",
};

int64_t check_permutation_flows(const Config& cfg, int64_t nodes) {
  const int64_t permutations = cfg.get_int("traffic.permutations");
  const int64_t flows = nodes * permutations;
  if (flows > 65535)
    fail(cfg.source, "traffic.permutations", std::to_string(permutations) + " permutations of " + std::to_string(nodes) +
                                                 " nodes make " + std::to_string(flows) +
                                                 " flows; flow mode allows at most 65535 per trial");
  return flows;
}

}  // namespace

const char* flow_metric_name(int metric) { return metric >= 0 && metric < kFmCount ? kMetricNames[metric] : ""; }

FlowTree make_flow_tree(int k, int n, int width) {
  FlowTree t;
  t.k = k;
  t.n = n;
  t.width = width;
  int64_t s = 1;
  for (int i = 0; i + 1 < n; ++i) s *= k;
  t.per_level = static_cast<int32_t>(s);
  t.nodes = static_cast<int32_t>(s * k);
  for (int i = n - 2, v = 1; i >= 0; --i, v *= k) t.place[i] = v;
  const int64_t N = t.nodes;
  t.up_base = 2 * N;
  t.down_base = t.up_base + (n - 1) * N;
  t.hz_base = t.down_base + (n - 1) * N;
  t.num_links = t.hz_base + static_cast<int64_t>(n - 1) * s * 2 * width;
  return t;
}

FlowSetup build_flow_setup(const Config& cfg, const std::string& config_dir, size_t max_memory, bool check_only) {
  const std::string& kind = cfg.get_string("topology.kind");
  if (kind != "kary_ntree")
    fail(cfg.source, "topology.kind", "simulation.mode = \"flow\" needs \"kary_ntree\" (got \"" + kind + "\")");
  if (!cfg.get_list("stats.state_dump_ns").empty())
    fail(cfg.source, "stats.state_dump_ns", "state dumps are a packet-engine feature (simulation.mode = \"packet\")");
  FlowSetup s;
  const MemoryLimit limit = memory_limit(max_memory);
  // At most 65535 flows: checked in closed form first, so that validate refuses a permutation on
  // a million nodes without building them (k^n over the endpoint limit is make_topology's error).
  const double nodes =
      std::pow(static_cast<double>(cfg.get_int("topology.k")), static_cast<double>(cfg.get_int("topology.n")));
  if (cfg.get_string("traffic.pattern") == "permutation" && nodes <= (1 << 20))
    check_permutation_flows(cfg, static_cast<int64_t>(nodes));
  s.topology = make_topology(cfg, config_dir, TopologyBuild{limit, /*with_routes=*/false, /*shape_only=*/check_only});
  const int k = s.topology.tree_k, n = s.topology.tree_n, width = s.topology.tree_width;
  s.tree = make_flow_tree(k, n, width);
  s.switch_ports = s.topology.connected_ports();
  s.switch_ports_unmodified = s.tree.nodes * (2 * n - 1);  // leaf down ports + both ends of every tree link

  FlowParams& p = s.params;
  const std::string& algo = cfg.get_string("routing.algorithm");
  if (algo == "dmodk") p.routing = FlowRouting::kDmodK;
  else if (algo == "random") p.routing = FlowRouting::kRandom;
  else if (algo == "adaptive") p.routing = FlowRouting::kAdaptive;
  else fail(cfg.source, "routing.algorithm", "flow mode routes with dmodk, random or adaptive (got \"" + algo + "\")");
  p.heuristic = cfg.get_string("routing.heuristic") == "flow_weight" ? FlowHeuristic::kFlowWeight : FlowHeuristic::kFlowCount;
  p.route_cache = static_cast<int>(cfg.get_int("routing.route_cache_entries"));
  p.random_sizes = cfg.get_string("flow.sizes") == "uniform";
  p.maxmin = cfg.get_bool("flow.maxmin");
  p.saa_protocol = cfg.get_bool("flow.saa_protocol");
  p.saa_stagger_steps = static_cast<int>(cfg.get_int("flow.saa_stagger_steps"));
  p.saa_flow_time_steps = static_cast<int>(cfg.get_int("flow.saa_flow_time_steps"));

  const std::string& pattern = cfg.get_string("traffic.pattern");
  int64_t flows = 0;
  if (pattern == "permutation") {
    p.permutations = static_cast<int>(cfg.get_int("traffic.permutations"));
    flows = check_permutation_flows(cfg, s.tree.nodes);
  } else if (pattern == "flows") {
    if (cfg.flows.empty()) fail(cfg.source, "traffic.flows", "traffic.pattern = \"flows\" needs [[traffic.flows]] entries");
    if (cfg.flows.size() > 65535) fail(cfg.source, "traffic.flows", "flow mode allows at most 65535 flows per trial");
    for (size_t i = 0; i < cfg.flows.size(); ++i) {
      const FlowSpec& f = cfg.flows[i];
      if (f.src >= s.tree.nodes || f.dst >= s.tree.nodes)
        fail(cfg.source, "traffic.flows[" + std::to_string(i) + "]",
             "endpoint ids must be below " + std::to_string(s.tree.nodes) + " for this topology");
      s.fixed_src.push_back(static_cast<uint32_t>(f.src));
      s.fixed_dst.push_back(static_cast<uint32_t>(f.dst));
    }
    flows = static_cast<int64_t>(cfg.flows.size());
  } else {
    fail(cfg.source, "traffic.pattern", "flow mode supports \"permutation\" and \"flows\" (got \"" + pattern + "\")");
  }
  p.num_flows = static_cast<int32_t>(flows);
  MemoryNeed need;
  NetworkShape shape = shape_of(s.topology);
  closed_form_shape(cfg, &shape);  // the same numbers, also when only the shape was made
  need.add("topology", topology_bytes(shape));
  need.add("one trial's flow-engine scratch", static_cast<double>(s.bytes_per_trial()));
  need.check(cfg.source, limit);
  return s;
}

}  // namespace saturn
