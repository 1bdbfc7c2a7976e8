// Reading a study configuration: the TOML file, its [sweep] and [[traffic.flows]], and --set overrides.

// toml++ 3.3.0 (Debian 12) asserts a parser precondition that input such as "[{a]" or "[[[a]]]"
// breaks (found by tests/fuzz; fixed upstream in marzer/tomlplusplus#301): an abort wherever
// NDEBUG is not defined (Debug and sanitizer builds), and under clang with NDEBUG a
// __builtin_assume of something false, which is undefined behaviour. Right after the check its
// parser reports such input as an ordinary parse error (line:column), which is what g++ release
// builds already do, so the library's internal checks are compiled out in every build type.
#pragma push_macro("NDEBUG")
#undef NDEBUG
#define TOML_ASSERT(expr) static_cast<void>(0)
#include <toml++/toml.h>
#pragma pop_macro("NDEBUG")

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>
#include <set>
#include <tuple>

#include "host/config/config.hpp"
#include "host/config/config_detail.hpp"

namespace saturn {
using namespace config_detail;

namespace {

const std::string kSweepPrefix = "sweep.";
const std::string kFlowsKey = "traffic.flows";

bool starts_with(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

std::string indexed(const std::string& key, size_t i) { return key + "[" + std::to_string(i) + "]"; }

const char* node_kind(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a float";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::date: return "a date";
    case toml::node_type::time: return "a time";
    case toml::node_type::date_time: return "a date-time";
    default: return "nothing";
  }
}

// Converts a TOML value to the parameter's type and checks it; `key` is how errors name it.
ParamValue node_value(const toml::node& n, const ParamSpec& spec, const std::string& source, const std::string& key) {
  ParamValue v;
  if (const auto* i = n.as_integer()) {
    v = i->get();
  } else if (const auto* f = n.as_floating_point()) {
    v = f->get();
  } else if (const auto* b = n.as_boolean()) {
    v = b->get();
  } else if (const auto* s = n.as_string()) {
    v = s->get();
  } else if (const auto* a = n.as_array(); a && spec.type == ParamType::kFloatList) {
    std::vector<double> list;
    for (size_t i = 0; i < a->size(); ++i) {
      const toml::node& e = *a->get(i);
      if (const auto* ei = e.as_integer()) list.push_back(static_cast<double>(ei->get()));
      else if (const auto* ef = e.as_floating_point()) list.push_back(ef->get());
      else fail_type(source, indexed(key, i), "a number", node_kind(e));
    }
    v = std::move(list);
  } else {
    fail_type(source, key, expected_kind(spec.type), node_kind(n));
  }
  return check_value(v, spec, source, key);
}

SweepAxis parse_axis(const toml::node& n, const ParamSpec& spec, const std::string& source,
                     const std::string& shown_key) {
  const toml::array* a = n.as_array();
  if (!a) fail_type(source, shown_key, "an array of values", node_kind(n));
  if (a->empty()) fail(source + ": key '" + shown_key + "': the list of sweep values is empty");
  if (spec.key == "simulation.mode")
    fail(source + ": key '" + shown_key + "': cannot be swept (one engine per study: run packet and flow studies separately)");
  SweepAxis axis{spec.key, {}};
  for (size_t i = 0; i < a->size(); ++i)
    axis.values.push_back(node_value(*a->get(i), spec, source, indexed(shown_key, i)));
  return axis;
}

[[noreturn]] void fail_unknown_sweep_key(const std::string& source, const std::string& inner) {
  std::string guess = suggest_key(inner, known_keys());
  if (guess == kFlowsKey) guess.clear();  // flows are a list of tables, not a sweepable value
  fail_unknown_key(source, kSweepPrefix + inner, guess.empty() ? "" : kSweepPrefix + guess);
}

const std::vector<std::string>& flow_keys() {
  static const std::vector<std::string> keys = {"src", "dst", "bytes", "start_ns", "stop_ns", "rate", "vc", "dynamic"};
  return keys;
}

int64_t flow_count(const toml::node& n, const std::string& source, const std::string& key) {
  const auto* i = n.as_integer();
  if (!i) fail_type(source, key, "an integer", node_kind(n));
  if (i->get() < 0) fail(source + ": key '" + key + "': " + std::to_string(i->get()) + " must be >= 0");
  return i->get();
}

double flow_number(const toml::node& n, const std::string& source, const std::string& key) {
  if (const auto* i = n.as_integer()) return static_cast<double>(i->get());
  if (const auto* f = n.as_floating_point()) return f->get();
  fail_type(source, key, "a number", node_kind(n));
}

double flow_time(const toml::node& n, const std::string& source, const std::string& key) {
  double t = flow_number(n, source, key);
  if (!(t >= 0 && std::isfinite(t)))
    fail(source + ": key '" + key + "': " + format_number(t) + " must be a finite number >= 0");
  return t;
}

std::vector<FlowSpec> parse_flows(const toml::node& n, const std::string& source) {
  const toml::array* a = n.as_array();
  if (!a) fail_type(source, kFlowsKey, "an array of tables", node_kind(n));
  std::vector<FlowSpec> flows;
  for (size_t i = 0; i < a->size(); ++i) {
    const std::string where = indexed(kFlowsKey, i);
    const toml::table* t = a->get(i)->as_table();
    if (!t) fail_type(source, where, "a table", node_kind(*a->get(i)));
    FlowSpec flow;
    for (auto&& [k, v] : *t) {
      const std::string name(k.str());
      const std::string key = where + "." + name;
      if (name == "src") {
        flow.src = flow_count(v, source, key);
      } else if (name == "dst") {
        flow.dst = flow_count(v, source, key);
      } else if (name == "bytes") {
        flow.bytes = flow_count(v, source, key);
      } else if (name == "start_ns") {
        flow.start_ns = flow_time(v, source, key);
      } else if (name == "stop_ns") {
        flow.stop_ns = flow_time(v, source, key);
      } else if (name == "vc") {
        flow.vc = flow_count(v, source, key);
      } else if (name == "dynamic") {
        const auto* b = v.as_boolean();
        if (!b) fail_type(source, key, "true or false", node_kind(v));
        flow.dynamic = b->get();
      } else if (name == "rate") {
        flow.rate = flow_number(v, source, key);
        if (!(flow.rate > 0 && flow.rate <= 1))
          fail(source + ": key '" + key + "': " + format_number(flow.rate) + " is out of range (0, 1]");
      } else {
        std::string guess = suggest_key(name, flow_keys());
        fail_unknown_key(source, key, guess.empty() ? "" : where + "." + guess);
      }
    }
    flows.push_back(flow);
  }
  return flows;
}

// True for paths that hold one value: a parameter, the flow list, or a swept parameter.
bool is_leaf(const std::string& path) {
  if (path == kFlowsKey || find_param(path)) return true;
  return starts_with(path, kSweepPrefix) && find_param(path.substr(kSweepPrefix.size()));
}

// True for section names ("switch", "sweep", "sweep.traffic"), which may appear as empty tables.
bool is_section(const std::string& path) {
  std::string inner = path;
  if (path == "sweep") return true;
  if (starts_with(path, kSweepPrefix)) inner = path.substr(kSweepPrefix.size());
  for (const auto& key : known_keys())
    if (starts_with(key, inner + ".")) return true;
  return false;
}

struct Entry {
  uint32_t line = 0, column = 0;
  std::string path;  // dotted key; quoted keys containing dots flatten the same way
  const toml::node* node = nullptr;
};

void flatten(const toml::table& table, const std::string& prefix, std::vector<Entry>& out) {
  for (auto&& [k, v] : table) {
    std::string path = prefix.empty() ? std::string(k.str()) : prefix + "." + std::string(k.str());
    const toml::table* sub = v.as_table();
    if (sub && !sub->empty() && !is_leaf(path)) {
      flatten(*sub, path, out);
    } else {
      out.push_back({v.source().begin.line, v.source().begin.column, std::move(path), &v});
    }
  }
}

void apply_document(Config& config, const toml::table& root, const std::string& source) {
  std::vector<Entry> entries;
  flatten(root, "", entries);
  // toml++ tables are sorted by key; file order makes sweep axes and the first reported error predictable.
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return std::tie(a.line, a.column) < std::tie(b.line, b.column);
  });
  std::set<std::string> seen;
  for (const Entry& e : entries) {
    const toml::node& n = *e.node;
    if (is_leaf(e.path) && !seen.insert(e.path).second) {
      fail(source + ": key '" + e.path + (starts_with(e.path, kSweepPrefix) ? "' is swept twice" : "' is set twice"));
    }
    if (e.path == kFlowsKey) {
      config.flows = parse_flows(n, source);
    } else if (const ParamSpec* spec = find_param(e.path)) {
      config.values[e.path] = node_value(n, *spec, source, e.path);
    } else if (starts_with(e.path, kSweepPrefix) && find_param(e.path.substr(kSweepPrefix.size()))) {
      config.sweeps.push_back(parse_axis(n, *find_param(e.path.substr(kSweepPrefix.size())), source, e.path));
    } else if (e.path == "sweep" && !n.is_table()) {
      fail_type(source, "sweep", "a table", node_kind(n));
    } else if (n.is_table() && is_section(e.path)) {
      // an empty section is harmless
    } else if (starts_with(e.path, kSweepPrefix)) {
      fail_unknown_sweep_key(source, e.path.substr(kSweepPrefix.size()));
    } else {
      fail_unknown_key(source, e.path, suggest_key(e.path, known_keys()));
    }
  }
}

void apply_override(Config& config, const std::string& text) {
  const std::string source = "--set";
  const size_t eq = text.find('=');
  const std::string key = eq == std::string::npos ? "" : trim(text.substr(0, eq));
  if (key.empty()) fail("--set '" + text + "': expected KEY=VALUE");
  const std::string raw = trim(text.substr(eq + 1));

  // VALUE is TOML when it parses as TOML; otherwise it is taken as an unquoted string.
  std::optional<toml::table> doc;
  try {
    const std::string wrapped = "v = " + raw;
    doc = toml::parse(std::string_view(wrapped), std::string_view(source));
  } catch (const toml::parse_error&) {
  }
  const toml::node* parsed = doc && doc->size() == 1 ? doc->get("v") : nullptr;
  const toml::value<std::string> bare(raw);
  const toml::node& node = parsed ? *parsed : static_cast<const toml::node&>(bare);

  if (key == kFlowsKey) {
    config.flows = parse_flows(node, source);
    return;
  }
  if (starts_with(key, kSweepPrefix)) {
    const std::string inner = key.substr(kSweepPrefix.size());
    const ParamSpec* spec = find_param(inner);
    if (!spec) fail_unknown_sweep_key(source, inner);
    SweepAxis axis = parse_axis(node, *spec, source, key);
    auto it = std::find_if(config.sweeps.begin(), config.sweeps.end(),
                           [&](const SweepAxis& a) { return a.key == inner; });
    if (it != config.sweeps.end()) *it = std::move(axis);
    else config.sweeps.push_back(std::move(axis));
    return;
  }
  const ParamSpec* spec = find_param(key);
  if (!spec) fail_unknown_key(source, key, suggest_key(key, known_keys()));
  // For a string key, text that TOML reads as another type (2, true, a date) is still meant as text.
  const bool as_text = spec->type == ParamType::kString && !node.is_string();
  config.values[key] = node_value(as_text ? bare : node, *spec, source, key);
}

}  // namespace

Config load_config_string(const std::string& toml_text, const std::string& source_name,
                          const std::vector<std::string>& overrides) {
  Config config;
  config.source = source_name;
  for (const auto& p : param_table()) config.values[p.key] = p.default_value;
  toml::table root;
  try {
    root = toml::parse(std::string_view(toml_text), std::string_view(source_name));
  } catch (const toml::parse_error& e) {
    fail(source_name + ":" + std::to_string(e.source().begin.line) + ":" + std::to_string(e.source().begin.column) +
         ": " + std::string(e.description()));
  }
  apply_document(config, root, source_name);
  for (const auto& o : overrides) apply_override(config, o);
  return config;
}

Config load_config_file(const std::string& path, const std::vector<std::string>& overrides) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) fail("cannot read config '" + path + "': " + std::strerror(errno));
  std::string text;
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  const int err = std::ferror(f) ? errno : 0;  // a directory opens but fails here with EISDIR
  std::fclose(f);
  if (err) fail("cannot read config '" + path + "': " + std::strerror(err));
  return load_config_string(text, path, overrides);
}

}  // namespace saturn
