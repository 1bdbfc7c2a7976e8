// Keys that do not apply to the chosen model: see key_scope.hpp.
#include "host/engine/key_scope.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "host/config/config_error.hpp"
#include "host/config/params.hpp"

namespace saturn {

namespace {

// A family of keys that apply only where `applies` holds; `selector` is the key whose value
// decides (quoted in the message) and `where` says where they do apply.
struct Scope {
  std::vector<std::string> keys;
  std::string selector;
  std::function<bool(const Config&)> applies;
  std::string where;
};

std::function<bool(const Config&)> one_of(const std::string& key, std::vector<std::string> values) {
  return [key, values](const Config& cfg) {
    return std::find(values.begin(), values.end(), cfg.get_string(key)) != values.end();
  };
}

// The keys each choice reads; the help texts of params.cpp say the same in words.
const std::vector<Scope>& scopes() {
  static const std::vector<Scope> list = {
      {{"topology.k", "topology.n"}, "topology.kind", one_of("topology.kind", {"kary_ntree"}), "\"kary_ntree\""},
      {{"topology.local_flows", "topology.remote_flows"}, "topology.kind", one_of("topology.kind", {"santos_fig1"}),
       "\"santos_fig1\""},
      {{"topology.dragonfly_p", "topology.dragonfly_a", "topology.dragonfly_h", "topology.dragonfly_g"},
       "topology.kind", one_of("topology.kind", {"dragonfly"}), "\"dragonfly\""},
      {{"topology.rlft_radix"}, "topology.kind", one_of("topology.kind", {"rlft"}), "\"rlft\""},
      {{"topology.file"}, "topology.kind", one_of("topology.kind", {"file"}), "\"file\""},
      {{"switch.bypass_limit", "switch.bypass_reading"}, "switch.arbitration",
       one_of("switch.arbitration", {"fifo_bypass"}), "\"fifo_bypass\""},
      {{"switch.wait_for_tail_credit"}, "switch.vc_allocation", one_of("switch.vc_allocation", {"per_hop"}),
       "\"per_hop\""},
      {{"stats.state_dump_trial"}, "stats.state_dump_ns",
       [](const Config& cfg) { return !cfg.get_list("stats.state_dump_ns").empty(); }, "a list of dump times"},
      {{"traffic.permutations"}, "traffic.pattern", one_of("traffic.pattern", {"permutation"}), "\"permutation\""},
      {{"traffic.hotspot_sources", "traffic.hotspot_destinations", "traffic.background", "traffic.background_load"},
       "traffic.pattern", one_of("traffic.pattern", {"hotspot"}), "\"hotspot\""},
      {{"traffic.root"}, "traffic.pattern", one_of("traffic.pattern", {"all_to_one"}), "\"all_to_one\""},
      {{"traffic.wc_offset", "traffic.wc_hot_nodes"}, "traffic.pattern", one_of("traffic.pattern", {"worst_case"}),
       "\"worst_case\""},
      {{"traffic.hotspot_nodes", "traffic.hotspot_fraction", "traffic.hotspot_start_ns", "traffic.hotspot_stop_ns",
        "traffic.hotspot_background", "traffic.hotspot_rate"},
       "traffic.pattern", one_of("traffic.pattern", {"hotspot_window"}), "\"hotspot_window\""},
      {{"traffic.trace_file", "traffic.trace_streams", "stats.trace_node_times"}, "traffic.pattern",
       one_of("traffic.pattern", {"trace"}), "\"trace\""},
      {{"injection.saa_probe_interval_ns", "injection.saa_first_rate"}, "injection.rates",
       one_of("injection.rates", {"saa_probes"}), "\"saa_probes\""},
      {{"routing.ugal_threshold", "routing.ugal_queue"}, "routing.algorithm", one_of("routing.algorithm", {"ugal", "par"}),
       "\"ugal\" and \"par\""},
      {{"routing.heuristic", "routing.route_cache_entries"}, "routing.algorithm",
       one_of("routing.algorithm", {"adaptive"}), "\"adaptive\""},
      {{"cc.output_threshold", "cc.output_trigger"}, "cc.marking", one_of("cc.marking", {"input_output"}),
       "\"input_output\""},
      {{"cc.ecn_scope", "cc.ecn_marking"}, "cc.protocol", one_of("cc.protocol", {"ecn"}), "\"ecn\""},
      {{"cc.ipd_steps"}, "cc.rates", one_of("cc.rates", {"discrete", "discrete_nearest"}),
       "\"discrete\" and \"discrete_nearest\""},
      {{"cc.srp_messages"}, "cc.protocol", one_of("cc.protocol", {"srp", "comprehensive"}), "\"srp\" and \"comprehensive\""},
      {{"cc.comprehensive_split_flits"}, "cc.protocol", one_of("cc.protocol", {"comprehensive"}), "\"comprehensive\""},
      {{"cc.spec_timeout_ns"}, "cc.protocol", one_of("cc.protocol", {"lhrp_fabric_drop", "smsrp", "srp"}),
       "\"lhrp_fabric_drop\", \"smsrp\" and \"srp\""},
      {{"cc.lhrp_threshold_flits"}, "cc.protocol", one_of("cc.protocol", {"lhrp", "lhrp_fabric_drop", "comprehensive"}),
       "\"lhrp\", \"lhrp_fabric_drop\" and \"comprehensive\""},
      {{"cc.lhrp_outstanding"}, "cc.protocol",
       one_of("cc.protocol", {"lhrp", "lhrp_fabric_drop", "smsrp", "srp", "comprehensive"}),
       "the speculative protocols (not \"baseline\" or \"ecn\")"},
      {{"cca.marking_period"}, "cca.enabled", [](const Config& cfg) { return cfg.get_bool("cca.enabled"); }, "true"},
      // cc.protocol = "ecn" takes these four as its own parameters (protocol_setup.cpp, setup_cc_protocol).
      {{"cca.threshold", "cca.ipd_step_flits", "cca.timer_flits", "cca.max_index"}, "cca.enabled",
       [](const Config& cfg) { return cfg.get_bool("cca.enabled") || cfg.get_string("cc.protocol") == "ecn"; },
       "true (or cc.protocol = \"ecn\")"},
  };
  return list;
}

// What the flow engine reads (host/flow/flow_setup.cpp); every other key is the packet engine's.
bool flow_engine_key(const std::string& key) {
  static const std::vector<std::string> keys = {
      "simulation.mode", "simulation.trials", "simulation.seed", "topology.kind", "topology.k", "topology.n",
      "topology.horizontal_width", "routing.algorithm", "routing.heuristic", "routing.route_cache_entries",
      "traffic.pattern", "traffic.permutations", "stats.state_dump_ns"};  // (dumps: refused with their own line)
  return key.rfind("flow.", 0) == 0 || std::find(keys.begin(), keys.end(), key) != keys.end();
}

std::string shown_value(const Config& cfg, const std::string& key) {
  const ParamSpec* spec = find_param(key);
  const std::string text = value_to_string(cfg.values.count(key) ? cfg.values.at(key) : spec->default_value);
  return spec->type == ParamType::kString ? "\"" + text + "\"" : text;
}

const SweepAxis* axis_of(const Config& cfg, const std::string& key) {
  for (const SweepAxis& axis : cfg.sweeps)
    if (axis.key == key) return &axis;
  return nullptr;
}

// The key is set away from its default somewhere in the study: in the file, or on its sweep axis.
bool set_anywhere(const Config& cfg, const std::string& key) {
  if (!at_default(cfg, key)) return true;
  const SweepAxis* axis = axis_of(cfg, key);
  return axis != nullptr &&
         std::any_of(axis->values.begin(), axis->values.end(),
                     [&](const ParamValue& v) { return !(v == find_param(key)->default_value); });
}

// `applies` holds at some point of the study: for the file's values, or with one swept key at one
// of its values. Only the selectors' axes matter, each value taken once (a sweep of 10^5 loads
// costs nothing here).
class StudyView {
 public:
  explicit StudyView(const Config& cfg) : cfg_(cfg) {}
  bool somewhere(const Scope& s) {
    if (s.applies(cfg_)) return true;
    for (const SweepAxis& axis : cfg_.sweeps) {
      if (!axis.is_case() && !is_selector(axis.key)) continue;
      if (!variant_) {  // the values only: the predicates read no sweep (which may be long)
        variant_ = std::make_unique<Config>();
        variant_->values = cfg_.values;
      }
      Config& v = *variant_;
      bool found = false;
      if (axis.is_case()) {  // one case at a time, all its keys
        for (size_t i = 0; i < axis.cases.size() && !found; ++i) {
          for (const auto& [key, value] : axis.cases[i].values) v.values[key] = value;
          found = s.applies(v);
          for (const auto& kv : axis.cases[i].values) v.values[kv.first] = cfg_.values.at(kv.first);
        }
      } else {
        const ParamValue saved = v.values[axis.key];
        for (size_t i = 0; i < axis.values.size() && !found; ++i) {
          v.values[axis.key] = axis.values[i];
          found = s.applies(v);
        }
        v.values[axis.key] = saved;
      }
      if (found) return true;
    }
    return false;
  }
  // 'traffic.pattern = "uniform"', or 'any swept traffic.pattern' where it is swept (by its axis or a case).
  std::string where_not(const std::string& selector) const {
    const bool swept = axis_of(cfg_, selector) != nullptr ||
                       std::any_of(cfg_.sweeps.begin(), cfg_.sweeps.end(), [&](const SweepAxis& a) {
                         return std::any_of(a.cases.begin(), a.cases.end(), [&](const SweepCase& c) {
                           return std::any_of(c.values.begin(), c.values.end(),
                                              [&](const auto& kv) { return kv.first == selector; });
                         });
                       });
    return swept ? "any swept " + selector : selector + " = " + shown_value(cfg_, selector);
  }

 private:
  static bool is_selector(const std::string& key) {
    return std::any_of(scopes().begin(), scopes().end(), [&](const Scope& s) { return s.selector == key; }) ||
           key == "cc.protocol";  // (the cca keys' second selector)
  }
  const Config& cfg_;
  std::unique_ptr<Config> variant_;  // the study's values with one swept selector changed, made once
};

// The keys a case of a case axis sets must each apply at some point where that case is chosen:
// over the product of the study's case axes (the plain axes' selectors one value at a time, as
// for the file's keys). A product of more than 10^5 cases is not checked (no study comes near).
void check_case_keys_apply(const Config& cfg) {
  std::vector<const SweepAxis*> axes;
  Config plain;  // the values, and the plain axes only: what StudyView tries beside the cases
  plain.source = cfg.source;
  for (const SweepAxis& a : cfg.sweeps) {
    if (a.is_case()) axes.push_back(&a);
    else plain.sweeps.push_back(a);
  }
  size_t combos = 1;
  for (const SweepAxis* a : axes)
    if ((combos *= a->cases.size()) > 100000) return;
  // (axis, case, key) -> the first "does not apply" context seen; erased once it applies somewhere.
  std::map<std::tuple<size_t, size_t, std::string>, std::string> missing;
  std::set<std::tuple<size_t, size_t, std::string>> applied;
  std::vector<size_t> pick(axes.size(), 0);
  for (size_t combo = 0; combo < combos; ++combo) {
    size_t rest = combo;
    for (size_t a = axes.size(); a-- > 0;) {
      pick[a] = rest % axes[a]->cases.size();
      rest /= axes[a]->cases.size();
    }
    plain.values = cfg.values;
    for (size_t a = 0; a < axes.size(); ++a)
      for (const auto& [key, value] : axes[a]->cases[pick[a]].values) plain.values[key] = value;
    StudyView view(plain);
    for (size_t a = 0; a < axes.size(); ++a)
      for (const auto& kv : axes[a]->cases[pick[a]].values)
        for (const Scope& s : scopes()) {
          if (std::find(s.keys.begin(), s.keys.end(), kv.first) == s.keys.end()) continue;
          const auto id = std::make_tuple(a, pick[a], kv.first);
          if (applied.count(id) != 0) continue;
          if (view.somewhere(s)) {
            applied.insert(id);
            missing.erase(id);
          } else if (missing.count(id) == 0) {
            missing[id] = view.where_not(s.selector) + " (only to " + s.where + ")";
          }
        }
  }
  if (!missing.empty()) {
    const auto& [id, context] = *missing.begin();
    const SweepAxis& axis = *axes[std::get<0>(id)];
    fail_not_applied(cfg, std::get<2>(id), context + ", in the case \"" + axis.cases[std::get<1>(id)].name +
                                               "\" of sweep axis '" + axis.key + "'");
  }
}

}  // namespace

bool at_default(const Config& cfg, const std::string& key) {
  const ParamSpec* spec = find_param(key);
  if (spec == nullptr) throw std::logic_error("at_default: unknown key '" + key + "'");
  const auto it = cfg.values.find(key);
  return it == cfg.values.end() || it->second == spec->default_value;  // (values are stored as their key's type)
}

void fail_not_applied(const Config& cfg, const std::string& key, const std::string& context) {
  throw ConfigError(cfg.source + ": key '" + key + "': does not apply to " + context);
}

void refuse_unless_default(const Config& cfg, const std::string& key, const std::string& context) {
  if (!at_default(cfg, key)) fail_not_applied(cfg, key, context);
}

void check_keys_apply(const Config& cfg) {
  const bool flow_mode = cfg.get_string("simulation.mode") == "flow";  // (never swept)
  for (const ParamSpec& p : param_table()) {
    if (flow_mode && !flow_engine_key(p.key) && set_anywhere(cfg, p.key))
      fail_not_applied(cfg, p.key, "simulation.mode = \"flow\" (a packet-engine key)");
    if (!flow_mode && p.key.rfind("flow.", 0) == 0 && set_anywhere(cfg, p.key))
      fail_not_applied(cfg, p.key, "simulation.mode = \"packet\" (a flow-engine key)");
  }
  StudyView study(cfg);
  for (const Scope& s : scopes())
    for (const std::string& key : s.keys)
      if (set_anywhere(cfg, key) && !study.somewhere(s))
        fail_not_applied(cfg, key, study.where_not(s.selector) + " (only to " + s.where + ")");
  // Any list, even one naming endpoints the network lacks: it would be ignored, not checked.
  const Scope flows{{}, "traffic.pattern", one_of("traffic.pattern", {"flows"}), "\"flows\""};
  if (!cfg.flows.empty() && !study.somewhere(flows))
    fail_not_applied(cfg, "traffic.flows", study.where_not("traffic.pattern") + " (only to \"flows\")");
  check_case_keys_apply(cfg);
}

}  // namespace saturn
