// Loader for user-supplied topologies in the plain-text edge-list format described below.
//
// Edge-list topology file format
// ------------------------------
// Plain text, one directive per line. '#' starts a comment that runs to the end of the line;
// blank lines are ignored. Tokens are separated by spaces or tabs. Directives:
//
//   switch NAME                 declare a switch
//   endpoint NAME SWITCHNAME    attach an endpoint to the next free port of a declared switch
//   link SWA SWB [COUNT]        add COUNT (default 1) parallel bidirectional links between two
//                               different declared switches, each on the next free port of both
//
// Switch and endpoint names share one namespace and must be unique. Switch ids, endpoint ids and
// each switch's port numbers follow the order of appearance in the file. A switch has at most 64
// ports. There must be at least one endpoint, and every switch must be reachable from every
// other (the network is connected). Such topologies have no up/down structure, so they are
// routed with routing.algorithm = "table" (or "random" over the same minimal sets).
//
// Example:
//   switch S0
//   switch S1
//   endpoint e0 S0      # S0 port 0
//   endpoint e1 S1      # S1 port 0
//   link S0 S1 2        # S0 ports 1,2 <-> S1 ports 1,2
//
// Errors are reported as a single line: "topology file 'x.txt' line 7: unknown switch 'S9'".
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "host/config/config_error.hpp"
#include "host/topology/topology.hpp"

namespace saturn {

namespace {

constexpr int kMaxRadix = 64;
// The engine's limits on endpoints (kMaxNodes) and, as generously, switches; and a file size far
// above any network within them, so that reading and parsing stay within a few hundred MiB.
constexpr int kMaxEndpoints = 1 << 20;
constexpr int kMaxSwitches = 1 << 20;
constexpr size_t kMaxFileBytes = size_t{64} << 20;

std::string read_whole_file(const std::string& path) {
  const std::string shown = clip_for_message(path);
  // Only regular files: /dev/zero or /dev/urandom would never end, a FIFO may block forever.
  struct stat st {};
  if (stat(path.c_str(), &st) != 0)
    throw ConfigError("cannot read topology file '" + shown + "': " + std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    throw ConfigError("topology file '" + shown + "' is not a regular file (" +
                      (S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ? "a FIFO" : "a device or socket") + ")");
  if (static_cast<size_t>(st.st_size) > kMaxFileBytes)
    throw ConfigError("topology file '" + shown + "' is " + std::to_string(st.st_size >> 20) + " MiB; at most " +
                      std::to_string(kMaxFileBytes >> 20) + " MiB are read");
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw ConfigError("cannot read topology file '" + shown + "': " + std::strerror(errno));
  std::string text;
  char buf[65536];
  size_t got;
  // The file may have grown since stat: stop past the limit all the same.
  while (text.size() <= kMaxFileBytes && (got = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, got);
  const bool bad = std::ferror(f) != 0;
  const int err = errno;
  std::fclose(f);
  if (bad) throw ConfigError("cannot read topology file '" + shown + "': " + std::strerror(err));
  if (text.size() > kMaxFileBytes)
    throw ConfigError("topology file '" + shown + "' is larger than " + std::to_string(kMaxFileBytes >> 20) + " MiB");
  return text;
}

struct NameInfo {
  bool is_switch;
  int id;
  int line;
};

class Parser {
 public:
  explicit Parser(const std::string& path) : path_(path) {
    topo_.name = "edge list '" + path + "'";
  }

  Topology parse(const std::string& text) {
    std::istringstream lines(text);
    std::string raw;
    while (std::getline(lines, raw)) {
      ++line_;
      const size_t hash = raw.find('#');
      if (hash != std::string::npos) raw.erase(hash);
      std::istringstream in(raw);
      std::vector<std::string> tok;
      for (std::string t; in >> t;) tok.push_back(t);
      if (tok.empty()) continue;
      if (tok[0] == "switch") {
        directive_switch(tok);
      } else if (tok[0] == "endpoint") {
        directive_endpoint(tok);
      } else if (tok[0] == "link") {
        directive_link(tok);
      } else {
        error("unknown directive '" + clip_for_message(tok[0]) + "' (expected switch, endpoint or link)");
      }
    }
    if (topo_.num_endpoints == 0) throw ConfigError(file_prefix() + ": no endpoints");
    check_connected();
    const int ns = topo_.num_switches();
    topo_.up_port_first.assign(ns, 0);
    topo_.up_port_count.assign(ns, 0);
    return std::move(topo_);
  }

 private:
  std::string file_prefix() const { return "topology file '" + clip_for_message(path_) + "'"; }

  [[noreturn]] void error(const std::string& what) const {
    throw ConfigError(file_prefix() + " line " + std::to_string(line_) + ": " + what);
  }

  void declare(const std::string& name, bool is_switch, int id) {
    auto it = names_.find(name);
    if (it != names_.end())
      error("duplicate name '" + clip_for_message(name) + "' (already a " + (it->second.is_switch ? "switch" : "endpoint") +
            " on line " + std::to_string(it->second.line) + ")");
    names_[name] = NameInfo{is_switch, id, line_};
  }

  int lookup_switch(const std::string& name) const {
    auto it = names_.find(name);
    if (it == names_.end()) error("unknown switch '" + clip_for_message(name) + "'");
    if (!it->second.is_switch) error("'" + clip_for_message(name) + "' is an endpoint, not a switch");
    return it->second.id;
  }

  void need_ports(int s, int count) const {
    if (topo_.radix(s) + count > kMaxRadix)
      error("switch '" + topo_.switch_names[s] + "' would have more than " + std::to_string(kMaxRadix) +
            " ports");
  }

  void directive_switch(const std::vector<std::string>& tok) {
    if (tok.size() != 2) error("expected 'switch NAME'");
    const int id = topo_.num_switches();
    if (id >= kMaxSwitches) error("more than " + std::to_string(kMaxSwitches) + " switches");
    declare(tok[1], true, id);
    topo_.switch_names.push_back(tok[1]);
    topo_.ports.emplace_back();
  }

  void directive_endpoint(const std::vector<std::string>& tok) {
    if (tok.size() != 3) error("expected 'endpoint NAME SWITCHNAME'");
    const int s = lookup_switch(tok[2]);
    need_ports(s, 1);
    if (topo_.num_endpoints >= kMaxEndpoints) error("more than " + std::to_string(kMaxEndpoints) + " endpoints");
    const int e = topo_.num_endpoints++;
    declare(tok[1], false, e);
    topo_.endpoint_names.push_back(tok[1]);
    topo_.endpoint_switch.push_back(s);
    topo_.endpoint_port.push_back(topo_.radix(s));
    topo_.ports[s].push_back(PortPeer{PeerKind::kEndpoint, e, -1});
  }

  void directive_link(const std::vector<std::string>& tok) {
    if (tok.size() != 3 && tok.size() != 4) error("expected 'link SWA SWB [COUNT]'");
    const int a = lookup_switch(tok[1]);
    const int b = lookup_switch(tok[2]);
    if (a == b) error("link from switch '" + clip_for_message(tok[1]) + "' to itself");
    int count = 1;
    if (tok.size() == 4) {
      const std::string& c = tok[3];
      // Digits only and short, so the value cannot overflow; the radix check bounds it anyway.
      if (c.empty() || c.size() > 3 || c.find_first_not_of("0123456789") != std::string::npos ||
          std::stoi(c) < 1)
        error("bad link count '" + clip_for_message(c) + "' (expected a positive integer)");
      count = std::stoi(c);
    }
    need_ports(a, count);
    need_ports(b, count);
    for (int i = 0; i < count; ++i) {
      const int pa = topo_.radix(a);
      const int pb = topo_.radix(b);
      topo_.ports[a].push_back(PortPeer{PeerKind::kSwitch, b, pb});
      topo_.ports[b].push_back(PortPeer{PeerKind::kSwitch, a, pa});
    }
  }

  // BFS over switches from endpoint 0's switch; every endpoint (and every switch, since an
  // isolated switch is almost certainly a typo) must be reached.
  void check_connected() const {
    const int ns = topo_.num_switches();
    std::vector<char> seen(ns, 0);
    std::deque<int> queue{topo_.endpoint_switch[0]};
    seen[queue.front()] = 1;
    while (!queue.empty()) {
      const int s = queue.front();
      queue.pop_front();
      for (const PortPeer& peer : topo_.ports[s])
        if (peer.kind == PeerKind::kSwitch && !seen[peer.index]) {
          seen[peer.index] = 1;
          queue.push_back(peer.index);
        }
    }
    const std::string& e0 = topo_.endpoint_names[0];
    for (int e = 1; e < topo_.num_endpoints; ++e)
      if (!seen[topo_.endpoint_switch[e]])
        throw ConfigError(file_prefix() + ": endpoint '" + topo_.endpoint_names[e] +
                          "' cannot reach endpoint '" + e0 + "'");
    for (int s = 0; s < ns; ++s)
      if (!seen[s])
        throw ConfigError(file_prefix() + ": switch '" + topo_.switch_names[s] +
                          "' cannot reach endpoint '" + e0 + "'");
  }

  std::string path_;
  int line_ = 0;
  Topology topo_;
  std::map<std::string, NameInfo> names_;
};

}  // namespace

Topology load_edge_list(const std::string& path) {
  const std::string text = read_whole_file(path);
  return Parser(path).parse(text);
}

}  // namespace saturn
