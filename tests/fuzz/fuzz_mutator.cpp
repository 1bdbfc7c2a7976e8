// Mutation operators of the portable fuzz driver: bytes, lines and tokens drawn from the parameter table.
#include "tests/fuzz/fuzz_mutator.hpp"

#include <algorithm>
#include <cstdio>

#include "host/config/params.hpp"

namespace saturn {
namespace fuzz {

namespace {

std::string number_text(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

std::string int_text(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.0f", x);
  return buf;
}

std::vector<std::string> values_for(const ParamSpec& p) {
  std::vector<std::string> v;
  switch (p.type) {
    case ParamType::kInt:
      for (double x : {p.min, p.max, p.min + 1, p.max - 1, p.min - 1, p.max + 1,
                       static_cast<double>(std::get<int64_t>(p.default_value)), 2.0, 3.0, 4.0, 8.0, 64.0})
        v.push_back(int_text(x));
      break;
    case ParamType::kFloat: {
      const double def = std::get<double>(p.default_value);
      for (double x : {p.min, p.max, def, def * 2, def / 2, 1.0, 0.0, 0.25, 0.99, -1.0, p.max * 10})
        v.push_back(number_text(x));
      break;
    }
    case ParamType::kBool:
      v = {"true", "false"};
      break;
    case ParamType::kString:
      for (const auto& c : p.choices) v.push_back("\"" + c + "\"");
      if (p.choices.empty()) v = {"\"leaf_spine.topo\"", "\"ring.topo\"", "\"two_switches.topo\"", "\"\"", "\"..\""};
      break;
    case ParamType::kFloatList:
      v = {"[" + number_text(p.min) + "]", "[" + number_text(p.max) + "]", "[]", "[1, 2048, 65536]", "[2048, 4096]",
           "[0.5, 0.5]", "[1, 2, 3]"};
      break;
  }
  return v;
}

Dictionary build_dictionary() {
  Dictionary d;
  d.numbers = {"0", "-0", "1", "-1", "2", "3", "7", "8", "9", "16", "31", "32", "33", "63", "64", "65", "255", "256",
               "4096", "65535", "65536", "1000000", "1000001", "16777216", "2147483647", "2147483648",
               "4294967295", "4294967296", "8796093022208", "9007199254740993", "9223372036854775807",
               "9223372036854775808", "-9223372036854775808", "99999999999999999999999", "1e15", "1e16", "1e300",
               "1e308", "1.8e308", "-1e308", "5e-324", "1e-320", "0.0", "-0.0", "0.5", "1.0000000000000002",
               "inf", "+inf", "-inf", "nan", "-nan", "0x7fffffff", "0xffffffffffffffff", "0o777", "0b1011", "1_000",
               "1e", "1.", ".5", "--1", "1e+", "00", "007"};
  std::vector<std::string> sections;
  for (const ParamSpec& p : param_table()) {
    d.keys.push_back(p.key);
    d.keys.push_back("sweep." + p.key);
    d.key_values[p.key] = values_for(p);
    const std::string section = p.key.substr(0, p.key.find('.'));
    if (std::find(sections.begin(), sections.end(), section) == sections.end()) sections.push_back(section);
    for (const auto& c : p.choices) d.values.push_back("\"" + c + "\"");
    if (p.type == ParamType::kInt || p.type == ParamType::kFloat || p.type == ParamType::kFloatList) {
      // The range's edges and the first values outside it.
      for (double x : {p.min, p.max}) {
        if (p.type == ParamType::kInt) {
          for (double y : {x - 1, x, x + 1}) d.numbers.push_back(number_text(y));
        } else {
          d.numbers.push_back(number_text(x));
          d.numbers.push_back(number_text(x * 1.000001 + (x == 0 ? -1e-9 : 0)));
        }
      }
    }
  }
  d.keys.insert(d.keys.end(), {"traffic.flows", "sweep", "flows", "sweep.traffic.flows", "topology", "k", "n",
                               "src", "dst", "bytes", "start_ns", "stop_ns", "rate", "vc", "dynamic", "a.b.c.d",
                               "\"topology.k\"", "'sweep'", "\"\"", "traffic.load.x", "sweep.sweep.traffic.load"});
  for (const auto& s : sections) {
    d.headers.push_back("[" + s + "]");
    d.headers.push_back("[sweep." + s + "]");
  }
  d.headers.insert(d.headers.end(), {"[sweep]", "[[traffic.flows]]", "[[sweep]]", "[traffic.flows]", "[[topology]]",
                                     "[]", "[a.b]", "[topology.k]"});
  d.values.insert(d.values.end(), d.numbers.begin(), d.numbers.end());
  d.values.insert(d.values.end(),
                  {"true", "false", "\"\"", "''", "\"x\"", "[]", "[[]]", "[1, 2]", "[0.1, 0.9]", "[\"a\", 1]",
                   "[1e308, -1]", "[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]", "{}", "{ src = 0, dst = 1 }",
                   "[{ src = 0, dst = 1, bytes = 4096 }]", "[{ src = 0 }]", "[{ dst = 99999999 }]",
                   "1979-05-27T07:32:00Z", "07:32:00", "1979-05-27", "'''a\nb'''", "\"\\u0000\"", "\"\\n\"",
                   "\"leaf_spine.topo\"", "\"/dev/null\"", "\"..\"", "\".\"", "\"missing.topo\"",
                   "\"" + std::string(5000, 'a') + "\""});
  d.edge_tokens = {"switch", "endpoint", "link", "S0", "S1", "S2", "e0", "e1", "#", "0", "1", "2", "63", "64", "65",
                   "999", "1000", "-1", "01", "+1", "1e3", "\t", "switchx", std::string(300, 'n')};
  return d;
}

const std::string& pick(const std::vector<std::string>& v, Rng& rng) { return v[rng.below(v.size())]; }

std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> lines;
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t end = s.find('\n', pos);
    if (end == std::string::npos) end = s.size();
    lines.push_back(s.substr(pos, end - pos));
    pos = end + 1;
  }
  return lines;
}

std::string join_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) out += (i ? "\n" : "") + lines[i];
  return out;
}

// A random line holding '=' (a key/value pair), or npos.
size_t pick_assignment(const std::vector<std::string>& lines, Rng& rng) {
  std::vector<size_t> with;
  for (size_t i = 0; i < lines.size(); ++i)
    if (lines[i].find('=') != std::string::npos) with.push_back(i);
  return with.empty() ? std::string::npos : with[rng.below(with.size())];
}

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

// The dotted key an assignment line sets: its own text, prefixed by the [section] above it.
std::string full_key(const std::vector<std::string>& lines, size_t i) {
  const std::string key = trim(lines[i].substr(0, lines[i].find('=')));
  if (find_param(key)) return key;
  for (size_t j = i; j-- > 0;) {
    const std::string h = trim(lines[j]);
    if (h.size() > 2 && h.front() == '[' && h.back() == ']' && h[1] != '[') {
      std::string section = h.substr(1, h.size() - 2);
      if (section.rfind("sweep", 0) == 0) section = section.size() > 6 ? section.substr(6) : "";
      return section.empty() ? key : section + "." + key;
    }
  }
  return key;
}

// Byte ranges of whitespace-separated tokens.
std::vector<std::pair<size_t, size_t>> tokens(const std::string& s) {
  std::vector<std::pair<size_t, size_t>> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) ++i;
    const size_t b = i;
    while (i < s.size() && !(s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) ++i;
    if (i > b) out.emplace_back(b, i - b);
  }
  return out;
}

const char kSpecial[] = {'"', '\'', '[', ']', '{', '}', '=', '.', ',', '#', '\n', '\r', '\t', ' ', '\\', '\0',
                         '\x7f', '\xff', '\xc3', '0', '9', '-', '+', 'e', '_', ':'};

std::string random_assignment(const Dictionary& d, Rng& rng) {
  std::string key = pick(d.keys, rng);
  // Inside a section the suffix is what a user writes; sometimes keep the dotted form.
  if (rng.chance(40) && key.find('.') != std::string::npos) key = key.substr(key.rfind('.') + 1);
  return key + " = " + pick(d.values, rng);
}

// Inserts 1-8 consecutive lines of another input at a random place; false when there is none.
bool splice_other_input(std::vector<std::string>& lines, const std::vector<std::string>& others, Rng& rng) {
  if (others.empty()) return false;
  const std::vector<std::string> other = split_lines(pick(others, rng));
  const size_t from = rng.below(other.size()), count = 1 + rng.below(8);
  const size_t at = rng.below(lines.size() + 1);
  for (size_t k = 0; k < count && from + k < other.size(); ++k)
    lines.insert(lines.begin() + static_cast<long>(at + k), other[from + k]);
  return true;
}

void mutate_config_once(std::string& s, const std::vector<std::string>& others, Rng& rng) {
  const Dictionary& d = dictionary();
  std::vector<std::string> lines = split_lines(s);
  switch (rng.below(14)) {
    case 0:  // flip one bit
      if (!s.empty()) s[rng.below(s.size())] ^= static_cast<char>(1u << rng.below(8));
      return;
    case 1:  // overwrite or insert a character TOML cares about
      if (!s.empty() && rng.chance(50)) s[rng.below(s.size())] = kSpecial[rng.below(sizeof kSpecial)];
      else s.insert(s.begin() + static_cast<long>(rng.below(s.size() + 1)), kSpecial[rng.below(sizeof kSpecial)]);
      return;
    case 2:  // cut a range out
      if (!s.empty()) {
        const size_t at = rng.below(s.size());
        s.erase(at, 1 + rng.below(std::min<size_t>(64, s.size() - at)));
      }
      return;
    case 3:  // truncate
      s.resize(rng.below(s.size() + 1));
      return;
    case 4: {  // duplicate a line: duplicate keys, repeated headers
      const size_t i = rng.below(lines.size());
      lines.insert(lines.begin() + static_cast<long>(rng.below(lines.size() + 1)), lines[i]);
      break;
    }
    case 5:  // drop a line
      lines.erase(lines.begin() + static_cast<long>(rng.below(lines.size())));
      break;
    case 6:  // move a line, possibly into another section
      std::swap(lines[rng.below(lines.size())], lines[rng.below(lines.size())]);
      break;
    case 7: {  // swap a key for another key of the table
      const size_t i = pick_assignment(lines, rng);
      if (i == std::string::npos) return;
      std::string key = pick(d.keys, rng);
      if (rng.chance(50) && key.find('.') != std::string::npos) key = key.substr(key.rfind('.') + 1);
      lines[i] = key + " " + lines[i].substr(lines[i].find('='));
      break;
    }
    case 8: {  // swap a value for another value (the key's own edges mostly; else any, of any type)
      const size_t i = pick_assignment(lines, rng);
      if (i == std::string::npos) return;
      const auto own = d.key_values.find(full_key(lines, i));
      const std::string& value = own != d.key_values.end() && rng.chance(70) ? pick(own->second, rng) : pick(d.values, rng);
      lines[i] = lines[i].substr(0, lines[i].find('=') + 1) + " " + value;
      break;
    }
    case 9:  // a new key/value line, a header, or a --set override
      if (rng.chance(20)) {
        lines.insert(lines.begin() + static_cast<long>(rng.below(lines.size() + 1)), pick(d.headers, rng));
      } else if (rng.chance(50)) {
        // An override of a real key, mostly with a value of its own: reaches the cross-key checks.
        const ParamSpec& p = param_table()[rng.below(param_table().size())];
        const std::string& value = rng.chance(80) ? pick(d.key_values.at(p.key), rng) : pick(d.values, rng);
        lines.push_back(std::string(kSetDirective) + p.key + "=" + value);
      } else {
        lines.insert(lines.begin() + static_cast<long>(rng.below(lines.size() + 1)), random_assignment(d, rng));
      }
      break;
    case 10: {  // splice lines of another input
      if (!splice_other_input(lines, others, rng)) return;
      break;
    }
    case 11: {  // replace one number in the text with an edge-of-range one
      const auto toks = tokens(s);
      std::vector<std::pair<size_t, size_t>> nums;
      for (const auto& t : toks)
        if (s[t.first] == '-' || (s[t.first] >= '0' && s[t.first] <= '9')) nums.push_back(t);
      if (nums.empty()) return;
      auto [b, n] = nums[rng.below(nums.size())];
      while (n > 0 && (s[b + n - 1] == ',' || s[b + n - 1] == ']')) --n;  // keep array punctuation
      s.replace(b, n, pick(d.numbers, rng));
      return;
    }
    case 12: {  // a long string or a long key
      const size_t i = pick_assignment(lines, rng);
      const std::string big(1000 + rng.below(20000), static_cast<char>('a' + rng.below(26)));
      if (i == std::string::npos || rng.chance(30)) lines.push_back(big + " = 1");
      else lines[i] = lines[i].substr(0, lines[i].find('=') + 1) + " \"" + big + "\"";
      break;
    }
    default: {  // a sweep axis over a random key, with a random list
      const std::string& key = param_table()[rng.below(param_table().size())].key;
      const std::vector<std::string>& own = d.key_values.at(key);
      std::string list = "[";
      const size_t n = 1 + rng.below(5);
      for (size_t k = 0; k < n; ++k) list += (k ? ", " : "") + (rng.chance(80) ? pick(own, rng) : pick(d.values, rng));
      lines.push_back(rng.chance(50) ? "[sweep]\n" + key + " = " + list + "]"
                                     : std::string(kSetDirective) + "sweep." + key + "=" + list + "]");
      break;
    }
  }
  s = join_lines(lines);
}

void mutate_edge_list_once(std::string& s, const std::vector<std::string>& others, Rng& rng) {
  const Dictionary& d = dictionary();
  auto toks = tokens(s);
  std::vector<std::string> lines = split_lines(s);
  switch (rng.below(9)) {
    case 0:
      if (!s.empty()) s[rng.below(s.size())] ^= static_cast<char>(1u << rng.below(8));
      return;
    case 1:
      s.insert(s.begin() + static_cast<long>(rng.below(s.size() + 1)), kSpecial[rng.below(sizeof kSpecial)]);
      return;
    case 2:
      s.resize(rng.below(s.size() + 1));
      return;
    case 3: {  // a token becomes another token of the file or of the directive vocabulary
      if (toks.empty()) return;
      const auto [b, n] = toks[rng.below(toks.size())];
      std::string with;
      if (rng.chance(50)) {
        const auto [ob, on] = toks[rng.below(toks.size())];
        with = s.substr(ob, on);
      } else {
        with = pick(d.edge_tokens, rng);
      }
      s.replace(b, n, with);
      return;
    }
    case 4: {
      const size_t i = rng.below(lines.size());
      lines.insert(lines.begin() + static_cast<long>(rng.below(lines.size() + 1)), lines[i]);
      break;
    }
    case 5:
      lines.erase(lines.begin() + static_cast<long>(rng.below(lines.size())));
      break;
    case 6:
      std::swap(lines[rng.below(lines.size())], lines[rng.below(lines.size())]);
      break;
    case 7: {  // a new directive over names already used (or fresh ones)
      std::vector<std::string> names;
      for (const auto& [b, n] : toks) {
        const std::string t = s.substr(b, n);
        if (t != "switch" && t != "endpoint" && t != "link") names.push_back(t);
      }
      if (names.empty()) names.push_back("S0");
      const std::string a = pick(names, rng), b = rng.chance(20) ? "N" + std::to_string(rng.below(100)) : pick(names, rng);
      const char* forms[] = {"switch ", "endpoint ", "link "};
      const size_t f = rng.below(3);
      std::string line = forms[f] + a;
      if (f > 0) line += " " + b;
      if (f == 2 && rng.chance(50)) line += " " + pick(d.edge_tokens, rng);
      lines.insert(lines.begin() + static_cast<long>(rng.below(lines.size() + 1)), line);
      break;
    }
    default: {
      if (!splice_other_input(lines, others, rng)) return;
      break;
    }
  }
  s = join_lines(lines);
}

}  // namespace

const Dictionary& dictionary() {
  static const Dictionary d = build_dictionary();
  return d;
}

std::string mutate(const std::string& input, Target target, const std::vector<std::string>& others, Rng& rng,
                   const MutatorOptions& options) {
  std::string s = input;
  // Mostly one mutation, so that many mutants still parse and reach the cross-key checks.
  const int n = rng.chance(50) ? 1 : 1 + static_cast<int>(rng.below(static_cast<size_t>(std::max(1, options.max_stack))));
  for (int i = 0; i < n; ++i) {
    if (target == Target::kConfig) mutate_config_once(s, others, rng);
    else mutate_edge_list_once(s, others, rng);
    if (s.size() > options.max_size) s.resize(options.max_size);
  }
  return s;
}

}  // namespace fuzz
}  // namespace saturn
