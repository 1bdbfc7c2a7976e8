// Link delays and VC buffers per link class, and dragonfly routing (fabric_setup.hpp).
#include "host/engine/fabric_setup.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "host/config/config_error.hpp"
#include "kernels/routing/dragonfly_route.hpp"

namespace saturn {

namespace {

[[noreturn]] void fail(const Config& cfg, const std::string& key, const std::string& what) {
  throw ConfigError(cfg.source + ": key '" + key + "': " + what);
}

bool is_dragonfly(const ModelSetup& s) { return s.topology.dragonfly.a > 0; }

// routing.algorithm names one of the dragonfly's routings (setup_dragonfly_routing).
bool dragonfly_routing(const Config& cfg) {
  const std::string& algo = cfg.get_string("routing.algorithm");
  return algo == "minimal" || algo == "valiant" || algo == "ugal" || algo == "par";
}

void need_dragonfly(const Config& cfg, const ModelSetup& s, const std::string& key, const std::string& value) {
  if (!is_dragonfly(s))
    fail(cfg, key, value + " applies to topology.kind = \"dragonfly\" (got \"" + cfg.get_string("topology.kind") + "\")");
}

}  // namespace

void setup_link_classes(const Config& cfg, ModelSetup& s) {
  ModelParams& m = s.model;
  for (int k = 0; k < 3; ++k) m.class_latency[k] = m.link_latency;
  const char* keys[2] = {"link.local_latency_ns", "link.global_latency_ns"};
  for (int k = 0; k < 2; ++k) {
    const double ns = cfg.get_float(keys[k]);
    if (ns == -1.0) continue;
    if (ns < 0) fail(cfg, keys[k], "must be >= 0, or -1 for link.latency_ns");
    need_dragonfly(cfg, s, keys[k], "a per-class delay");
    const double cycles = std::round(ns / s.cycle_ns);
    if (!(cycles <= 65534)) fail(cfg, keys[k], std::to_string(ns) + " ns is more than 65534 cycles");
    m.class_latency[static_cast<int>(LinkClass::kLocal) + k] = 1 + static_cast<int>(cycles);
  }
  m.per_port_links = false;
  for (int k = 0; k < 3; ++k) m.per_port_links = m.per_port_links || m.class_latency[k] != m.link_latency;
}

int setup_buffer_classes(const Config& cfg, ModelSetup& s, int data_vcs, int flit_bytes) {
  ModelParams& m = s.model;
  for (int k = 0; k < 3; ++k) m.class_vc_flits[k] = m.vc_flits;
  m.per_port_buffers = false;
  const int64_t bytes = cfg.get_int("switch.global_buffer_bytes");
  if (bytes == 0) return m.vc_flits;
  need_dragonfly(cfg, s, "switch.global_buffer_bytes", "a global-link buffer");
  const int64_t per_vc = bytes / flit_bytes / data_vcs;
  if (per_vc < m.mtu_flits)
    fail(cfg, "switch.global_buffer_bytes", "each of the " + std::to_string(data_vcs) + " VCs gets " +
                                                std::to_string(per_vc) + " flits, less than one MTU packet (" +
                                                std::to_string(m.mtu_flits) + " flits)");
  if (per_vc > 65535) fail(cfg, "switch.global_buffer_bytes", "more than 65535 flits per VC");
  if (m.cc.ack_vc_separate)
    fail(cfg, "switch.global_buffer_bytes", "needs ACKs on a data-sized VC (a separate ACK VC's buffer, "
                                            "cc.ack_buffer_packets, has no per-class size)");
  m.class_vc_flits[static_cast<int>(LinkClass::kGlobal)] = static_cast<int>(per_vc);
  m.per_port_buffers = per_vc != m.vc_flits;
  return per_vc > m.vc_flits ? static_cast<int>(per_vc) : m.vc_flits;
}

int64_t setup_vc_pool(const Config& cfg, ModelSetup& s, int data_vcs, int flit_bytes, int64_t buffer_flits,
                      uint32_t min_packet) {
  ModelParams& m = s.model;
  m.vc_min_flits = 0;
  m.pool_flits = 0;
  const bool shared = cfg.get_string("switch.vc_buffer") == "shared";
  const int64_t min_bytes = cfg.get_int("switch.vc_min_bytes");
  if (!shared) {
    if (min_bytes != 0) fail(cfg, "switch.vc_min_bytes", "applies to switch.vc_buffer = \"shared\"");
    return 0;
  }
  // Readers that take a counter for a VC's occupancy (UGAL's queue estimate) or buffers that are
  // not one size per port have no pool version.
  if (dragonfly_routing(cfg))
    fail(cfg, "switch.vc_buffer", "\"shared\" is not built for dragonfly routing (routing.algorithm = \"" +
                                      cfg.get_string("routing.algorithm") +
                                      "\": UGAL and PAR read a VC's credits as its queue); use \"split\"");
  if (cfg.get_int("switch.global_buffer_bytes") != 0)
    fail(cfg, "switch.vc_buffer", "\"shared\" needs one buffer size per port (switch.global_buffer_bytes = 0)");
  if (m.cc.ack_vc_separate)
    fail(cfg, "switch.vc_buffer", "\"shared\" needs ACKs on a data VC (a separate ACK VC has its own buffer, "
                                  "cc.ack_buffer_packets)");
  const int64_t min_flits = min_bytes == 0 ? m.mtu_flits : min_bytes / flit_bytes;
  if (min_flits < m.mtu_flits)
    fail(cfg, "switch.vc_min_bytes", std::to_string(min_bytes) + " bytes is less than one MTU packet (" +
                                         std::to_string(m.mtu_flits * flit_bytes) + " bytes): a VC could not send");
  const int64_t pool = buffer_flits - data_vcs * min_flits;
  if (pool <= 0)
    fail(cfg, "switch.vc_min_bytes", "leaves no shared pool: " + std::to_string(data_vcs) + " VCs x " +
                                         std::to_string(min_flits * flit_bytes) + " bytes >= switch.buffer_bytes (" +
                                         std::to_string(buffer_flits * flit_bytes) + "); use vc_buffer = \"split\"");
  if (min_flits + pool > 65535) fail(cfg, "switch.buffer_bytes", "more than 65535 flits per VC");
  m.vc_min_flits = static_cast<int>(min_flits);
  m.pool_flits = static_cast<int>(pool);
  m.vc_flits = static_cast<int>(min_flits + pool);
  return buffer_flits / min_packet;
}

bool dragonfly_ack_class(const Config& cfg, ModelSetup& s) {
  if (!dragonfly_routing(cfg) || !s.model.cc.answers()) return false;
  s.model.cc.ack_vc_separate = false;
  s.model.cc.ack_vc_flits = 0;
  return true;
}

void setup_dragonfly_routing(const Config& cfg, ModelSetup& s) {
  ModelParams& m = s.model;
  m.df = DfEngine{};
  const std::string& algo = cfg.get_string("routing.algorithm");
  const int64_t threshold = cfg.get_int("routing.ugal_threshold");
  const bool less_rtt = cfg.get_string("routing.ugal_queue") == "credits_less_rtt";
  // The UGAL keys where the algorithm does not read them: refused by check_keys_apply (key_scope.cpp)
  // where they apply at no point of the study, and zeroed here, so that such a point's model is the
  // one its config without them gives (a figure's minimal-routing curve beside its PAR ones).
  const bool reads_ugal = algo == "ugal" || algo == "par";
  if (algo != "minimal" && algo != "valiant" && algo != "ugal" && algo != "par") return;
  need_dragonfly(cfg, s, "routing.algorithm", "\"" + algo + "\"");
  DfEngine& df = m.df;
  df.on = true;
  df.routing = algo == "minimal" ? DfRouting::kMinimal
               : algo == "valiant" ? DfRouting::kValiant
               : algo == "ugal"    ? DfRouting::kUgal
                                   : DfRouting::kPar;
  const DragonflyParams& t = s.topology.dragonfly;
  df.geom = DfGeom{t.p, t.a, t.h, t.g};
  df.route_vcs = df_local_vcs(df.routing, DfVcScheme::kCompact);
  df.ugal_threshold = reads_ugal ? static_cast<int>(threshold) : 0;
  df.queue_less_rtt = reads_ugal && less_rtt;
  if (df.routing != DfRouting::kMinimal && t.g < 3)
    fail(cfg, "routing.algorithm", "\"" + algo + "\" needs an intermediate group: topology.dragonfly_g >= 3 (got " +
                                       std::to_string(t.g) + ")");
  const int classes = m.cc.answers() ? 2 : 1;
  const int want = classes * df.route_vcs;
  if (m.vcs != want)
    fail(cfg, "switch.vcs", "routing.algorithm = \"" + algo + "\" needs " + std::to_string(df.route_vcs) +
                                " VCs per traffic class (" + std::to_string(df.route_vcs) + " local, " +
                                std::to_string(df_global_vcs(df.routing)) + " global)" +
                                (classes == 2 ? ", and ACKs a class of their own: " : ": ") + "set switch.vcs = " +
                                std::to_string(want) + " (got " + std::to_string(m.vcs) + ")");
  if (m.data_vc != 0 || !s.flows.empty())
    for (size_t i = 0; i <= s.flows.size(); ++i) {
      const int vc = i < s.flows.size() ? s.flows[i].vc : m.data_vc;
      if (vc != 0)
        fail(cfg, i < s.flows.size() ? "traffic.flows[" + std::to_string(i) + "].vc" : std::string("traffic.vc"),
             "dragonfly routing puts data on VC 0 (its class's first VC; got " + std::to_string(vc) + ")");
    }
  if (classes == 2 && m.cc.ack_vc != df.route_vcs)
    fail(cfg, "cc.ack_vc", "dragonfly routing puts ACKs on VC " + std::to_string(df.route_vcs) +
                               " (the first VC of their class; -1 = the highest is " + std::to_string(m.vcs - 1) + ")");
  if (m.input_queue != InputQueue::kVoq)
    fail(cfg, "switch.input_queue", "dragonfly routing queues a packet by the VC it leaves on: needs \"voq\"");
  // Each refusal names the key that asked for it (track_occupancy has three causes).
  const std::string none_yet = "dragonfly routing (routing.algorithm = \"" + algo + "\") has no ";
  if (m.cc.marking != Marking::kNone) fail(cfg, "cc.marking", none_yet + "marking yet: use \"none\"");
  if (m.cc.cca) fail(cfg, "cca.enabled", none_yet + "InfiniBand CCA yet: use false (cc.protocol = \"ecn\" is its ECN)");
  if (m.cc.full_stats) fail(cfg, "stats.per_link", none_yet + "per-link buffer statistics yet: use false");
  if (m.arbitration == Arbitration::kFifoBypass)
    fail(cfg, "switch.arbitration", none_yet + "\"fifo_bypass\" yet: use \"fcfs\" or \"round_robin\"");
  if (m.cc.track_occupancy) fail(cfg, "cc.marking", none_yet + "buffer occupancy tracking yet");
}

void setup_entry_pools(const Config& cfg, ModelSetup& s, uint32_t data_min_packet, uint32_t min_packet) {
  ModelParams& m = s.model;
  if (!m.per_port_buffers) return;
  int largest = 0;
  int64_t buffer_packets = 0;
  for (int k = 0; k < static_cast<int>(LinkClass::kCount); ++k) {
    const int64_t cap = m.class_vc_flits[k];
    int64_t n = 0;
    if (m.df.on) {
      // VCs per class an input of this link class receives on: an endpoint's first, a global
      // link's df_global_vcs, a local link's all R.
      const int used = k == static_cast<int>(LinkClass::kEndpoint) ? 1
                       : k == static_cast<int>(LinkClass::kGlobal) ? df_global_vcs(m.df.routing)
                                                                    : m.df.route_vcs;
      n = used * (cap / data_min_packet);
      if (m.cc.answers()) n += used * (cap / m.cc.ack_flits);
    } else {
      n = static_cast<int64_t>(m.vcs) * (cap / min_packet);
    }
    buffer_packets = std::max(buffer_packets, n);
    n = s.port_entries(n);  // switch.packet_descriptors (read by setup_buffers)
    if (n > kMaxPortPackets)
      fail(cfg, k == static_cast<int>(LinkClass::kGlobal) ? "switch.global_buffer_bytes" : "switch.buffer_bytes",
           "an input port would hold " + std::to_string(n) + " packets of the smallest size; at most " +
               std::to_string(kMaxPortPackets) + " (or set switch.packet_descriptors)");
    m.class_entries[k] = static_cast<int>(n);
    largest = n > largest ? static_cast<int>(n) : largest;
  }
  m.entries = largest;
  s.buffer_packets = buffer_packets;
}

}  // namespace saturn
