// Congestion isolation set-up: see isolation_setup.hpp and docs/model/isolation.md.
#include "host/engine/isolation_setup.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "host/config/config_error.hpp"
#include "host/config/params.hpp"
#include "host/engine/key_scope.hpp"

namespace saturn {

namespace {

[[noreturn]] void fail(const Config& cfg, const std::string& key, const std::string& what) {
  throw ConfigError(cfg.source + ": key '" + key + "': " + what);
}

uint32_t cycles_of(const Config& cfg, const std::string& key, double cycle_ns) {
  const double c = std::round(cfg.get_float(key) / cycle_ns);
  if (!(c <= 2.0e9)) fail(cfg, key, "is more than 2e9 cycles");
  return static_cast<uint32_t>(c);
}

// Keys that do not apply to the technique must keep their defaults (they would be silently ignored;
// key_scope.hpp has the rule for every family): with "none" every other isolation.* key; the
// detector and ARN keys outside ARN; the Adaptive-Th threshold outside Adaptive-Th; what adapted
// packets do to ARN tables outside ARN + AFI.
bool key_applies(const std::string& key, const std::string& tech) {
  if (tech == "none") return false;
  if (key == "isolation.queue_scheme" || key == "isolation.vftree_source" || key == "isolation.flow2sl_source")
    return true;  // (the two mappings are checked against the scheme in setup_isolation)
  if (key == "isolation.adaptive_th_pct") return tech.rfind("adaptive_th", 0) == 0;
  // Only ARN + AFI marks packets adapted and watches an AFC.
  if (key == "isolation.adapted_arns" || key == "isolation.detector_vcs") return tech == "arn_afi";
  return tech.rfind("arn", 0) == 0;
}

void check_unused(const Config& cfg, const std::string& tech) {
  for (const ParamSpec& p : param_table())
    if (p.key.rfind("isolation.", 0) == 0 && p.key != "isolation.technique" && !key_applies(p.key, tech))
      refuse_unless_default(cfg, p.key, "isolation.technique = \"" + tech + "\"");
}

}  // namespace

void setup_isolation(const Config& cfg, ModelSetup& s) {
  ModelParams& m = s.model;
  IsolationParams& ip = m.iso;
  ip = IsolationParams{};
  const std::string& tech = cfg.get_string("isolation.technique");
  check_unused(cfg, tech);
  if (tech == "none") return;
  ip.technique = tech == "dmodk"                                    ? IsoTechnique::kDmodk
                 : tech == "oblivious"                              ? IsoTechnique::kOblivious
                 : tech == "adaptive_th" || tech == "adaptive_th_afi" ? IsoTechnique::kAdaptiveTh
                                                                    : IsoTechnique::kArn;
  ip.afi = tech == "adaptive_th_afi" || tech == "arn_afi";
  const std::string& scheme = cfg.get_string("isolation.queue_scheme");
  ip.scheme = scheme == "dbbm"     ? QueueScheme::kDbbm
              : scheme == "vftree" ? QueueScheme::kVftree
              : scheme == "flow2sl" ? QueueScheme::kFlow2sl
                                   : QueueScheme::k1Q;
  const Topology& topo = s.topology;
  if (topo.up_port_count.empty() || topo.rlft_k + topo.tree_k == 0)
    fail(cfg, "isolation.technique", "needs a fat tree (topology.kind = \"rlft\" or \"kary_ntree\")");
  ip.geometry.endpoints = static_cast<uint32_t>(topo.num_endpoints);
  ip.geometry.endpoints_per_leaf = static_cast<uint32_t>(topo.rlft_k > 0 ? topo.rlft_k : topo.tree_k);
  ip.geometry.vftree_source = cfg.get_bool("isolation.vftree_source");
  ip.geometry.flow2sl_source = cfg.get_bool("isolation.flow2sl_source");
  if (!ip.geometry.vftree_source && ip.scheme != QueueScheme::kVftree)
    fail(cfg, "isolation.vftree_source", "applies to isolation.queue_scheme = \"vftree\" (got \"" + scheme + "\")");
  if (ip.geometry.flow2sl_source && ip.scheme != QueueScheme::kFlow2sl)
    fail(cfg, "isolation.flow2sl_source", "applies to isolation.queue_scheme = \"flow2sl\" (got \"" + scheme + "\")");
  const int vcs = scheme_total_vcs(ip.scheme, ip.geometry, ip.afi);
  if (m.vcs != vcs)
    fail(cfg, "switch.vcs", "is " + std::to_string(m.vcs) + "; isolation.queue_scheme = \"" + scheme +
                                "\" with isolation.technique = \"" + tech + "\" needs " + std::to_string(vcs) +
                                " (the scheme's VCs" + (ip.afi ? " plus the AFC)" : ")"));
  if (cfg.get_int("traffic.vc") != 0)
    fail(cfg, "traffic.vc", "must be 0 with isolation.technique: the queuing scheme chooses every message's VC");
  if (m.cc.ack_vc_separate || model_uses_cc(m))
    fail(cfg, "isolation.technique", "has no congestion-control version: it needs no cc.* or cca.* feature, "
                                     "switch.arbitration other than \"fifo_bypass\" and stats.per_link = false");
  if (m.input_queue != InputQueue::kVoq || m.allocator != Allocator::kGreedy)
    fail(cfg, "isolation.technique", "runs with switch.input_queue = \"voq\" and switch.allocator = \"greedy\" only");
  if (m.mixed_sizes)
    fail(cfg, "isolation.technique", "needs one packet size (traffic.message_bytes multiples of the MTU): the "
                                     "detector counts MTU packets");
  if (m.max_radix > 64) fail(cfg, "isolation.technique", "supports switches of at most 64 ports");
  ip.vc_packets = m.vc_flits / m.mtu_flits;
  ip.detector.hcd_pct = static_cast<uint32_t>(cfg.get_int("isolation.hcd_pct"));
  ip.detector.lcd_pct = static_cast<uint32_t>(cfg.get_int("isolation.lcd_pct"));
  ip.detector.fc_pct = static_cast<uint32_t>(cfg.get_int("isolation.fc_pct"));
  if (ip.detector.lcd_pct > ip.detector.hcd_pct)
    fail(cfg, "isolation.lcd_pct", "must not exceed isolation.hcd_pct (" + std::to_string(ip.detector.hcd_pct) + ")");
  ip.detector.crt_cycles = cycles_of(cfg, "isolation.crt_ns", s.cycle_ns);
  const std::string& reading = cfg.get_string("isolation.incast_reading");
  ip.arn.incast = reading == "r2"   ? IncastReading::kEarlyDetection
                  : reading == "r3" ? IncastReading::kFirstStage
                                    : IncastReading::kLiteral;
  ip.detector = detector_params_for(ip.detector, ip.arn.incast);
  ip.arn.afi = ip.afi;
  ip.arn.ttl_cycles = std::max<uint32_t>(1, cycles_of(cfg, "isolation.arn_ttl_ns", s.cycle_ns));
  ip.arn.arn_gap_cycles = cycles_of(cfg, "isolation.arn_gap_ns", s.cycle_ns);
  ip.arn.full_policy = cfg.get_string("isolation.arn_full") == "evict_oldest" ? ArnFullPolicy::kEvictOldest
                                                                              : ArnFullPolicy::kDropNew;
  // §P1.9-6: an adapted packet refreshes the entry of its original VC (the pseudo-code); "text" also
  // lets it create entries and propagate ARNs (docs/model/isolation.md).
  ip.arn.adapted_creates_entries = cfg.get_string("isolation.adapted_arns") == "text";
  ip.detector_skips_afc = cfg.get_string("isolation.detector_vcs") == "regular";
  ip.arn_entries = static_cast<int>(cfg.get_int("isolation.arn_table_entries"));
  ip.adaptive_th_pct = static_cast<uint32_t>(cfg.get_int("isolation.adaptive_th_pct"));
  ip.detector_period = static_cast<uint32_t>(cfg.get_int("isolation.detector_period_cycles"));
}

std::vector<uint8_t> isolation_switch_stages(const Topology& topo) {
  const int S = topo.num_switches();
  std::vector<uint8_t> stage(S, 0);
  std::vector<int> frontier;
  for (int e = 0; e < topo.num_endpoints; ++e) {
    const int sw = topo.endpoint_switch[e];
    if (stage[sw] == 0) {
      stage[sw] = 1;
      frontier.push_back(sw);
    }
  }
  while (!frontier.empty()) {
    std::vector<int> next;
    for (int sw : frontier)
      for (const PortPeer& pp : topo.ports[sw])
        if (pp.kind == PeerKind::kSwitch && stage[pp.index] == 0) {
          stage[pp.index] = static_cast<uint8_t>(std::min(255, stage[sw] + 1));
          next.push_back(pp.index);
        }
    frontier.swap(next);
  }
  return stage;
}

std::vector<uint8_t> isolation_port_up(const Topology& topo) {
  std::vector<uint8_t> up;
  for (int sw = 0; sw < topo.num_switches(); ++sw)
    for (int p = 0; p < topo.radix(sw); ++p) {
      const bool has = sw < static_cast<int>(topo.up_port_count.size());
      const int first = has ? topo.up_port_first[sw] : 0, count = has ? topo.up_port_count[sw] : 0;
      up.push_back(p >= first && p < first + count ? 1 : 0);
    }
  return up;
}

}  // namespace saturn
