// Dragonfly builder (PAPERS-SPEC M4, the 1056-node network of 001) and its path helpers; the
// wiring is documented at build_dragonfly in topology.hpp.
#include "host/topology/dragonfly.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "host/config/config_error.hpp"
#include "kernels/common/rng.hpp"

namespace saturn {

namespace {

// Routing tables hold switches x endpoints entries: the same bound as the k-ary n-tree builder.
constexpr long long kMaxDragonflyEndpoints = 1LL << 20;

}  // namespace

void validate_dragonfly(const DragonflyParams& d) {
  auto bad = [](const std::string& key, const std::string& what) {
    throw ConfigError("key 'topology.dragonfly_" + key + "': " + what);
  };
  if (d.p < 1) bad("p", "needs at least 1 endpoint per switch (got " + std::to_string(d.p) + ")");
  if (d.a < 1) bad("a", "needs at least 1 switch per group (got " + std::to_string(d.a) + ")");
  if (d.h < 0) bad("h", "must be >= 0 (got " + std::to_string(d.h) + ")");
  if (d.g < 1) bad("g", "needs at least 1 group (got " + std::to_string(d.g) + ")");
  if (d.g > 1 && d.h < 1) bad("h", "must be >= 1 when there is more than one group");
  if (d.g > d.a * d.h + 1)
    bad("g", std::to_string(d.g) + " groups is over a*h+1 = " + std::to_string(d.a * d.h + 1) +
                 " (each group has a*h global channels, one per other group at least)");
  if (df_radix(d) > 64)
    bad("h", "switches of p + a - 1 + h = " + std::to_string(df_radix(d)) + " ports; at most 64");
  if (static_cast<long long>(d.p) * d.a * d.g > kMaxDragonflyEndpoints)
    bad("g", "p*a*g = " + std::to_string(static_cast<long long>(d.p) * d.a * d.g) + " endpoints is over " +
                 std::to_string(kMaxDragonflyEndpoints));
}

namespace {

int full_rounds(const DragonflyParams& d) { return d.g > 1 ? d.a * d.h / (d.g - 1) : 0; }

}  // namespace

int df_channel_target(const DragonflyParams& d, int group, int c) {
  if (d.g < 2 || c < 0 || c / (d.g - 1) >= full_rounds(d)) return -1;
  return (group + c % (d.g - 1) + 1) % d.g;
}

int df_channel_landing(const DragonflyParams& d, int c) {
  const int r = c / (d.g - 1), o = c % (d.g - 1) + 1;
  return r * (d.g - 1) + (d.g - 1 - o);
}

std::vector<int> df_channels_between(const DragonflyParams& d, int from_group, int to_group) {
  std::vector<int> out;
  if (from_group == to_group || d.g < 2) return out;
  const int o = ((to_group - from_group) % d.g + d.g) % d.g;  // 1..g-1
  for (int r = 0; r < full_rounds(d); ++r) out.push_back(r * (d.g - 1) + o - 1);
  return out;
}

namespace {

// Hops and first-hop mask of the minimal paths from switch s to switch t of another group.
int other_group_paths(const DragonflyParams& d, int s, int t, uint64_t* mask) {
  const int gs = df_group_of_switch(d, s), gt = df_group_of_switch(d, t);
  const int is = s % d.a, it = t % d.a;
  int best = 1 << 30;
  uint64_t m = 0;
  for (const int c : df_channels_between(d, gs, gt)) {
    const int x = c / d.h, y = df_channel_landing(d, c) / d.h;
    const int len = (x != is) + 1 + (y != it);
    const uint64_t port = 1ULL << (x == is ? df_global_port(d, c % d.h) : df_local_port(d, is, x));
    if (len < best) best = len, m = 0;
    if (len == best) m |= port;
  }
  if (m == 0) throw std::logic_error("dragonfly: no global channel between groups " + std::to_string(gs) + " and " +
                                     std::to_string(gt));
  if (mask) *mask = m;
  return best;
}

}  // namespace

int df_min_hops(const DragonflyParams& d, int s, int t) {
  if (s == t) return 0;
  if (df_group_of_switch(d, s) == df_group_of_switch(d, t)) return 1;
  return other_group_paths(d, s, t, nullptr);
}

uint64_t df_min_port_mask(const DragonflyParams& d, int s, int t) {
  if (s == t) return 0;
  if (df_group_of_switch(d, s) == df_group_of_switch(d, t)) return 1ULL << df_local_port(d, s % d.a, t % d.a);
  uint64_t m = 0;
  other_group_paths(d, s, t, &m);
  return m;
}

int df_valiant_hops(const DragonflyParams& d, int s, int mid_group, int t) {
  const int gs = df_group_of_switch(d, s);
  if (mid_group == gs) throw std::logic_error("dragonfly: Valiant intermediate group is the source group");
  int best = 1 << 30;
  for (const int c : df_channels_between(d, gs, mid_group)) {
    const int x = c / d.h;
    const int landing = mid_group * d.a + df_channel_landing(d, c) / d.h;
    best = std::min(best, (x != s % d.a) + 1 + df_min_hops(d, landing, t));
  }
  return best;
}

int df_intermediate_group(uint32_t word, int src_group, int dst_group, int g) {
  const int excluded = src_group == dst_group ? 1 : 2;
  if (g - excluded < 1) throw std::logic_error("dragonfly: no group left for a Valiant intermediate");
  int r = static_cast<int>(uniform_below(word, static_cast<uint32_t>(g - excluded)));
  // Step over the excluded groups in ascending order so the result is uniform over the rest.
  const int lo = std::min(src_group, dst_group), hi = std::max(src_group, dst_group);
  if (r >= lo) ++r;
  if (excluded == 2 && r >= hi) ++r;
  return r;
}

TopologyCounts dragonfly_counts(const DragonflyParams& d) {
  const double switches = static_cast<double>(d.a) * d.g;
  return {switches, switches * df_radix(d), switches * d.p};
}

TopologyCounts rlft_counts(int radix) {
  const double k = radix / 2.0;
  return {5 * k * k, 5 * k * k * radix, 2 * k * k * k};
}

Topology build_dragonfly(const DragonflyParams& d) {
  validate_dragonfly(d);
  Topology topo;
  topo.name = "dragonfly (p=" + std::to_string(d.p) + ", a=" + std::to_string(d.a) + ", h=" + std::to_string(d.h) +
              ", g=" + std::to_string(d.g) + ")";
  topo.dragonfly = d;
  const int ns = d.a * d.g, radix = df_radix(d);
  topo.num_endpoints = ns * d.p;
  topo.ports.assign(ns, std::vector<PortPeer>(radix));
  topo.port_class.assign(ns, std::vector<LinkClass>(radix, LinkClass::kEndpoint));
  topo.class_latency_ns[static_cast<int>(LinkClass::kLocal)] = 50.0;     // 001 §4
  topo.class_latency_ns[static_cast<int>(LinkClass::kGlobal)] = 1000.0;  // 001 §4
  topo.switch_names.resize(ns);
  topo.up_port_first.assign(ns, 0);  // no up/down structure
  topo.up_port_count.assign(ns, 0);
  for (int s = 0; s < ns; ++s) {
    const int grp = s / d.a, i = s % d.a;
    topo.switch_names[s] = "G" + std::to_string(grp) + ".S" + std::to_string(i);
    for (int t = 0; t < d.a; ++t) {  // full graph inside the group
      if (t == i) continue;
      const int port = df_local_port(d, i, t);
      topo.ports[s][port] = PortPeer{PeerKind::kSwitch, grp * d.a + t, df_local_port(d, t, i)};
      topo.port_class[s][port] = LinkClass::kLocal;
    }
    for (int j = 0; j < d.h; ++j) {
      const int port = df_global_port(d, j);
      topo.port_class[s][port] = LinkClass::kGlobal;
      const int c = i * d.h + j;
      const int target = df_channel_target(d, grp, c);
      if (target < 0) continue;  // incomplete last round: unconnected
      const int landing = df_channel_landing(d, c);
      topo.ports[s][port] = PortPeer{PeerKind::kSwitch, target * d.a + landing / d.h, df_global_port(d, landing % d.h)};
    }
  }
  attach_endpoints_in_order(topo, 0, d.p);  // switch e / p, port e % p
  return topo;
}

}  // namespace saturn
