// Config accessors, value validation against the parameter table, sweep expansion and printing.
#include "host/config/config.hpp"
#include "host/config/config_detail.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <nlohmann/json.hpp>

namespace saturn {
namespace config_detail {

// Messages travel as one log/terminal line, so control characters are escaped.
std::string one_line(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else out += c;
  }
  return out;
}

void fail(const std::string& message) { throw ConfigError(one_line(message)); }

std::string format_number(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.10g", x);
  return buf;
}

namespace {

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string suffix_of(const std::string& key) {
  size_t dot = key.rfind('.');
  return dot == std::string::npos ? key : key.substr(dot + 1);
}

const char* kind_of(const ParamValue& v) {
  switch (v.index()) {
    case 0: return "an integer";
    case 1: return "a float";
    case 2: return "a boolean";
    case 3: return "a string";
    default: return "an array";
  }
}

// Integer keys show their bounds as integers (a seed's 9223372036854775807, not 9.2e+18).
std::string bound_text(double x, const ParamSpec& spec) {
  if (spec.type != ParamType::kInt) return format_number(x);
  if (x >= 0x1p63) return std::to_string(std::numeric_limits<int64_t>::max());
  return std::to_string(static_cast<int64_t>(x));
}

void check_range(double x, const std::string& text, const ParamSpec& spec, const std::string& source,
                 const std::string& key) {
  // Written as a negation so that NaN is rejected too.
  if (!(x >= spec.min && x <= spec.max))
    fail(source + ": key '" + key + "': " + clip_for_message(text) + " is out of range [" + bound_text(spec.min, spec) +
         ", " + bound_text(spec.max, spec) + "]");
}

std::string choices_text(const std::vector<std::string>& choices) {
  std::string out;
  for (size_t i = 0; i < choices.size(); ++i) out += (i ? ", " : "") + choices[i];
  return out;
}

}  // namespace

std::string suggest_key(const std::string& key, const std::vector<std::string>& candidates) {
  const std::string* best = nullptr;
  size_t best_distance = 3;
  for (const auto& c : candidates) {
    size_t d = edit_distance(key, c);
    if (d < best_distance) best = &c, best_distance = d;
  }
  if (best) return *best;
  // A right name in the wrong section ("traffic.vcs") is a common slip.
  const std::string suffix = suffix_of(key);
  for (const auto& c : candidates)
    if (suffix_of(c) == suffix) return c;
  return "";
}

const std::vector<std::string>& known_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k;
    for (const auto& p : param_table()) k.push_back(p.key);
    k.push_back("traffic.flows");
    return k;
  }();
  return keys;
}

void fail_unknown_key(const std::string& source, const std::string& shown_key, const std::string& suggestion) {
  std::string message = source + ": unknown key '" + clip_for_message(shown_key) + "'";
  if (!suggestion.empty()) message += " (did you mean '" + suggestion + "'?)";
  fail(message);
}

void fail_type(const std::string& source, const std::string& key, const std::string& expected,
               const std::string& got) {
  fail(source + ": key '" + key + "': expected " + expected + ", got " + got);
}

std::string expected_kind(ParamType type) {
  switch (type) {
    case ParamType::kInt: return "an integer";
    case ParamType::kFloat: return "a number";
    case ParamType::kBool: return "a boolean";
    case ParamType::kString: return "a string";
    case ParamType::kFloatList: return "an array of numbers";
  }
  return "?";
}

ParamValue check_value(const ParamValue& value, const ParamSpec& spec, const std::string& source,
                       const std::string& key) {
  switch (spec.type) {
    case ParamType::kInt: {
      // An integral float is still refused: "4.0 VCs" almost always means a wrong key or unit.
      const int64_t* i = std::get_if<int64_t>(&value);
      if (!i) fail_type(source, key, expected_kind(spec.type), kind_of(value));
      check_range(static_cast<double>(*i), std::to_string(*i), spec, source, key);
      return *i;
    }
    case ParamType::kFloat: {
      double x;
      if (const int64_t* i = std::get_if<int64_t>(&value)) x = static_cast<double>(*i);
      else if (const double* d = std::get_if<double>(&value)) x = *d;
      else fail_type(source, key, expected_kind(spec.type), kind_of(value));
      check_range(x, format_number(x), spec, source, key);
      return x;
    }
    case ParamType::kBool: {
      const bool* b = std::get_if<bool>(&value);
      if (!b) fail_type(source, key, expected_kind(spec.type), kind_of(value));
      return *b;
    }
    case ParamType::kString: {
      std::string s;
      if (const std::string* p = std::get_if<std::string>(&value)) {
        s = *p;
      } else if (const int64_t* i = std::get_if<int64_t>(&value);
                 i && !spec.choices.empty() &&
                 std::find(spec.choices.begin(), spec.choices.end(), std::to_string(*i)) != spec.choices.end()) {
        s = std::to_string(*i);  // switch.speedup = 2 reads naturally unquoted
      } else {
        fail_type(source, key, expected_kind(spec.type), kind_of(value));
      }
      if (!spec.choices.empty() && std::find(spec.choices.begin(), spec.choices.end(), s) == spec.choices.end())
        fail(source + ": key '" + key + "': \"" + clip_for_message(s) + "\" is not one of " +
             choices_text(spec.choices));
      return s;
    }
    case ParamType::kFloatList: {
      const auto* list = std::get_if<std::vector<double>>(&value);
      if (!list) fail_type(source, key, expected_kind(spec.type), kind_of(value));
      for (size_t i = 0; i < list->size(); ++i)
        check_range((*list)[i], format_number((*list)[i]), spec, source, key + "[" + std::to_string(i) + "]");
      return *list;
    }
  }
  throw std::logic_error("check_value: bad ParamType");
}

}  // namespace config_detail

using namespace config_detail;

namespace {

// A default-constructed Config has no values yet; the table defaults stand in for them.
const ParamValue& lookup(const Config& config, const std::string& key, const char* getter) {
  const ParamSpec* spec = find_param(key);
  if (!spec) throw std::logic_error(std::string("Config::") + getter + ": unknown key '" + key + "'");
  auto it = config.values.find(key);
  return it != config.values.end() ? it->second : spec->default_value;
}

[[noreturn]] void wrong_type(const std::string& key, const char* getter) {
  throw std::logic_error(std::string("Config::") + getter + ": key '" + key + "' has another type");
}

nlohmann::json value_to_json(const ParamValue& v) {
  return std::visit([](const auto& x) { return nlohmann::json(x); }, v);
}

// Sweeps multiply; past this the study is almost certainly a typo and would exhaust memory.
constexpr size_t kMaxSweepPoints = 1000000;

}  // namespace

int64_t Config::get_int(const std::string& key) const {
  const ParamValue& v = lookup(*this, key, "get_int");
  if (const int64_t* i = std::get_if<int64_t>(&v)) return *i;
  wrong_type(key, "get_int");
}

double Config::get_float(const std::string& key) const {
  const ParamValue& v = lookup(*this, key, "get_float");
  if (const double* d = std::get_if<double>(&v)) return *d;
  if (const int64_t* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
  wrong_type(key, "get_float");
}

bool Config::get_bool(const std::string& key) const {
  const ParamValue& v = lookup(*this, key, "get_bool");
  if (const bool* b = std::get_if<bool>(&v)) return *b;
  wrong_type(key, "get_bool");
}

const std::string& Config::get_string(const std::string& key) const {
  const ParamValue& v = lookup(*this, key, "get_string");
  if (const std::string* s = std::get_if<std::string>(&v)) return *s;
  wrong_type(key, "get_string");
}

const std::vector<double>& Config::get_list(const std::string& key) const {
  const ParamValue& v = lookup(*this, key, "get_list");
  if (const auto* l = std::get_if<std::vector<double>>(&v)) return *l;
  wrong_type(key, "get_list");
}

void Config::set(const std::string& key, const ParamValue& value) {
  const ParamSpec* spec = find_param(key);
  if (!spec) fail_unknown_key("--set", key, suggest_key(key, known_keys()));
  values[key] = check_value(value, *spec, "--set", key);
}

nlohmann::json Config::to_json() const {
  nlohmann::json j;
  j["values"] = nlohmann::json::object();
  for (const auto& p : param_table()) j["values"][p.key] = value_to_json(lookup(*this, p.key, "to_json"));
  j["sweep"] = nlohmann::json::object();
  for (const auto& axis : sweeps) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& v : axis.values) list.push_back(value_to_json(v));
    for (size_t i = 0; i < axis.cases.size(); ++i) {
      nlohmann::json one = nlohmann::json::object();
      one["name"] = axis.cases[i].name;
      for (const auto& [key, value] : axis.cases[i].values) one[key] = value_to_json(value);
      list[i] = one;
    }
    j["sweep"][axis.key] = list;
  }
  j["flows"] = nlohmann::json::array();
  for (const auto& f : flows)
    j["flows"].push_back({{"src", f.src}, {"dst", f.dst}, {"bytes", f.bytes}, {"start_ns", f.start_ns},
                          {"stop_ns", f.stop_ns}, {"rate", f.rate}, {"vc", f.vc}, {"dynamic", f.dynamic}});
  return j;
}

// Point configs carry no sweeps of their own: each one is a single, fully resolved configuration.
std::vector<SweepPoint> expand_sweep(const Config& config) {
  size_t total = 1;
  for (const auto& axis : config.sweeps) {
    if (axis.values.empty()) throw std::logic_error("expand_sweep: sweep axis '" + axis.key + "' is empty");
    if (total > kMaxSweepPoints / axis.values.size())
      fail(config.source + ": the sweep has more than " + std::to_string(kMaxSweepPoints) + " points");
    total *= axis.values.size();
  }
  Config base = config;
  base.sweeps.clear();
  std::vector<SweepPoint> points(total);
  std::vector<size_t> digit(config.sweeps.size());
  for (size_t index = 0; index < total; ++index) {
    size_t rest = index;
    for (size_t a = config.sweeps.size(); a-- > 0;) {  // last axis fastest
      digit[a] = rest % config.sweeps[a].values.size();
      rest /= config.sweeps[a].values.size();
    }
    SweepPoint& point = points[index];
    point.index = static_cast<int>(index);
    point.config = base;
    for (size_t a = 0; a < config.sweeps.size(); ++a) {
      const SweepAxis& axis = config.sweeps[a];
      if (!axis.is_case())
        point.value_index = point.value_index * static_cast<int>(axis.values.size()) + static_cast<int>(digit[a]);
      point.labels.emplace_back(axis.key, value_to_string(axis.values[digit[a]]));
      if (axis.is_case()) {
        for (const auto& [key, value] : axis.cases[digit[a]].values) {
          point.assignments.emplace_back(key, value);
          point.config.set(key, value);
        }
      } else {
        point.assignments.emplace_back(axis.key, axis.values[digit[a]]);
        point.config.set(axis.key, axis.values[digit[a]]);
      }
    }
  }
  return points;
}

std::string value_to_string(const ParamValue& value) {
  struct Printer {
    std::string operator()(int64_t i) const { return std::to_string(i); }
    std::string operator()(double d) const { return format_number(d); }
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(const std::string& s) const { return s; }
    std::string operator()(const std::vector<double>& l) const {
      std::string out = "[";
      for (size_t i = 0; i < l.size(); ++i) out += (i ? ", " : "") + format_number(l[i]);
      return out + "]";
    }
  };
  return std::visit(Printer{}, value);
}

}  // namespace saturn
