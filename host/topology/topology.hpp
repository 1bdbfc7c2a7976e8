// Host-side network graph shared by every trial of a batch: switches, ports, endpoints, names.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace saturn {

enum class PeerKind : uint8_t { kNone = 0, kSwitch = 1, kEndpoint = 2 };

// What sits at the far end of a switch port (links are bidirectional, one link per port).
struct PortPeer {
  PeerKind kind = PeerKind::kNone;
  int32_t index = -1;  // switch id or endpoint id
  int32_t port = -1;   // the peer switch's port number (kSwitch only)
};

// Class of the link behind a switch port (M4: dragonfly local links are 50 ns, global 1 us).
enum class LinkClass : uint8_t { kEndpoint = 0, kLocal = 1, kGlobal = 2, kCount };

// Dragonfly parameters (M4): p endpoints, a switches per group, h global ports per switch, g groups.
struct DragonflyParams {
  int p = 0, a = 0, h = 0, g = 0;
};

struct Topology {
  std::string name;                           // e.g. "4-ary 3-tree"
  int num_endpoints = 0;
  std::vector<std::vector<PortPeer>> ports;   // [switch][port]
  std::vector<int> endpoint_switch;           // [endpoint] the switch it attaches to
  std::vector<int> endpoint_port;             // [endpoint] the port on that switch
  std::vector<std::string> switch_names;      // [switch]
  std::vector<std::string> endpoint_names;    // [endpoint]

  // Up/down structure (fat trees): ports [up_first, up_first + up_count) lead towards the
  // roots; every destination not below a switch is reached minimally through any of them.
  // up_count = 0 where the topology has no such structure (file topologies, roots).
  std::vector<int> up_port_first;             // [switch]
  std::vector<int> up_port_count;             // [switch]
  int tree_k = 0, tree_n = 0;                 // k-ary n-tree parameters, 0 otherwise
  int tree_width = 0;                         // horizontal width of a modified k-ary n-tree (M2)
  int rlft_k = 0;                             // K = radix / 2 of a 3-stage real-life fat tree (M3), 0 otherwise
  DragonflyParams dragonfly;                  // all 0 unless a dragonfly (M4)

  // Per-port link class and each class's propagation delay as the paper gives it. Empty where
  // every link is alike. The packet engine does NOT use these yet: it applies link.latency_ns to
  // every link; they are recorded for the per-class latency it will need (dragonfly: 50 ns local,
  // 1000 ns global; endpoint links are not given by 001 and stay at -1 = unspecified).
  std::vector<std::vector<LinkClass>> port_class;  // [switch][port]
  double class_latency_ns[static_cast<int>(LinkClass::kCount)] = {-1, -1, -1};

  int num_switches() const { return static_cast<int>(ports.size()); }
  int radix(int sw) const { return static_cast<int>(ports[sw].size()); }
  int max_radix() const;
  int total_ports() const;
  int connected_ports() const;                // ports with a peer
  // "A->B" style name of the link leaving port p of switch s, "" if unconnected.
  std::string link_name(int s, int p) const;
};

// k-ary n-tree (Petrini-Vanneschi; PAPERS-SPEC M1). k^n endpoints, n levels of k^(n-1)
// switches of 2k ports. Switch id = level * k^(n-1) + w (w = base-k integer of (w_0..w_{n-2}),
// w_0 most significant); level 0 = roots, n-1 = leaves. Ports 0..k-1 down, k..2k-1 up
// (root up ports unconnected). Down port j of <w,l> goes to <w with digit l := j, l+1>, arriving
// on that switch's up port k + w_l. Endpoint p attaches to leaf w = p / k on down port p % k.
//
// Modified k-ary n-tree (M2), horizontal_width > 0: on levels 0..n-2 the switches of one logical
// node (same w_0..w_{l-1}) form a chain ordered by w (the base-k integer of w_l..w_{n-2}); adjacent
// switches w, w+1 are joined by `horizontal_width` parallel links. Such switches have 2k + 2*width
// ports: 2k..2k+width-1 lead left (to w-1), 2k+width..2k+2*width-1 right (to w+1); a chain's end
// switch leaves its outer lanes unconnected. Leaves (one-switch logical nodes) get none. Tree
// routing (D-mod-K, random, BFS tables) never uses them; the flow engine's adaptive routing does.
Topology build_kary_ntree(int k, int n, int horizontal_width = 0);

// Zdornov-Birk Fig. 1 (M6): switches sw1, sw2 joined by one link; sources s1..s4 on sw1,
// s5, s6 on sw2; destinations d1, d2 on sw2. Endpoint ids: s1..s6 = 0..5, d1 = 6, d2 = 7.
Topology build_zdornov_fig1();

// Santos et al. Fig. 1 (M5): switches A and B joined by one link; R remote sources and the
// victim source A_V on A; L local sources, the root destination B_C and the victim destination
// B_V on B. Endpoint ids: local 0..L-1, remote L..L+R-1, A_V = L+R, B_C = L+R+1, B_V = L+R+2.
Topology build_santos_fig1(int local_flows, int remote_flows);

// Dragonfly (Kim et al.; PAPERS-SPEC M4), g groups of a switches, each switch with p endpoint,
// a - 1 local and h global ports. Switch id = group * a + index; ports 0..p-1 endpoints,
// p..p+a-2 local (port p + (t < s ? t : t - 1) leads to switch t of the group), p+a-1..p+a+h-2
// global. Endpoint id = switch * p + port, so a group holds a*p consecutive endpoints.
// Global links, the "consecutive" arrangement M4 suggests: global port j of switch s is channel
// c = s*h + j of its group; with r = c / (g-1) and o = c % (g-1) + 1 it leads to group
// (group + o) mod g, landing on channel r*(g-1) + (g-1-o) there (symmetric; for g = a*h+1 this
// is M4's "group + c + 1, landing on a*h - 1 - c"). Channels of an incomplete last round
// (a*h not a multiple of g-1) stay unconnected. Needs 1 <= g <= a*h+1, radix p+a-1+h <= 64.
Topology build_dragonfly(const DragonflyParams& params);

// Real-life fat tree, 3 stages of radix 2K switches (Rocher-Gonzalez; PAPERS-SPEC M3):
// N = 2K^3 endpoints in 2K pods. Switch ids: leaves 0..2K^2-1 (pod*K + i), stage 2
// 2K^2 + pod*K + j, top 4K^2 + j*K + u (group j, index u). Leaves and stage 2: ports 0..K-1 down,
// K..2K-1 up; leaf (pod, i) up port K+j -> stage-2 (pod, j) down port i; stage-2 (pod, j) up
// port K+u -> top (j, u) port pod. Endpoint D = pod*K^2 + i*K + port sits on leaf (pod, i).
Topology build_rlft(int radix);

// The regular builders' endpoint numbering: endpoint e attaches to switch first_switch + e /
// per_switch on port e % per_switch and is named "n<e>" (topo.num_endpoints endpoints).
void attach_endpoints_in_order(Topology& topo, int first_switch, int per_switch);

// Edge-list file (format in docs/model/topologies.md): throws ConfigError with file:line on malformed input.
Topology load_edge_list(const std::string& path);

// Sanity checks every builder's result passes (every link symmetric, every endpoint attached
// once, radix <= 64, port_class empty or shaped like ports with both ends of a link alike); throws std::logic_error naming the first violation.
void check_topology(const Topology& topo);

enum class RoutingAlgorithm : uint8_t { kDmodK = 0, kRandom = 1, kTable = 2, kCount };

// Per (switch, destination) routes shared by all trials. det_port is the deterministic choice;
// choice_masks[choice_id] is the set of minimal output ports (bit p = port p), from which
// oblivious routing draws uniformly. Index = switch * num_endpoints + destination.
struct RoutingTables {
  int num_switches = 0, num_endpoints = 0;
  std::vector<uint8_t> det_port;
  std::vector<uint16_t> choice_id;
  std::vector<uint64_t> choice_masks;
};

// kDmodK needs a tree (tree_k > 0) or a real-life fat tree (rlft_k > 0, M14: leaf up port
// D mod K, stage 2 floor(D/K) mod K); kRandom uses the minimal up sets there. On a dragonfly
// kTable and kRandom both give minimal local-global-local routes (dragonfly.hpp), never BFS:
// BFS would take two-global-hop shortcuts through a third group. kTable uses BFS shortest paths
// (deterministic port = the (d mod n)-th of the n minimal ports); kRandom uses the minimal sets.
// Throws ConfigError when the algorithm does not apply to the topology.
RoutingTables build_routes(const Topology& topo, RoutingAlgorithm algo);

}  // namespace saturn
