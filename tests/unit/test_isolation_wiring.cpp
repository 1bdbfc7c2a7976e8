// The engine glue of congestion isolation (kernels/isolation/wiring.hpp) on a hand-built view:
// an ARN sent by a downstream switch crosses the link on the control lane and lands in the
// upstream switch's table (consumed there, Pseudo-code 2); a data packet that matches the
// consumed entry is re-routed to the alternative and, under AFI, moved to the AFC; and the
// isolation.* keys split the 84-packet input buffer equally among the scheme's VCs.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "host/config/config.hpp"
#include "host/config/config_error.hpp"
#include "host/engine/model_setup.hpp"
#include "kernels/isolation/wiring.hpp"

namespace saturn {
namespace {

// Three switches, one trial, link latency 1 (ring depth D = 2), two VCs (VC 1 = the AFC):
//   A (switch 0, stage 1): port 0 endpoint 0, port 1 -> B port 0, port 2 -> C port 0;
//   B (switch 1, stage 2): port 0 -> A port 1, port 1 endpoint 1, port 2 unused;
//   C (switch 2, stage 2): port 0 -> A port 2, ports 1, 2 unused.
// From A, endpoint 1 is reached minimally through B (port 1, D-mod-K) or C (port 2).
struct Toy {
  static constexpr int kSwitches = 3, kPorts = 9, kEndpoints = 2, kD = 2, kV = 2, kE = 4;
  std::vector<int32_t> base{0, 3, 6, 9}, peer{0, 3, 6, 1, 1, -1, 2, -1, -1};
  std::vector<uint8_t> peer_type{2, 1, 1, 1, 2, 0, 1, 0, 0};
  std::vector<uint8_t> route_det, stage{1, 2, 2}, up{0, 1, 1, 0, 0, 0, 0, 0, 0};
  std::vector<uint16_t> route_choice;
  std::vector<uint64_t> choice_masks{0b001, 0b110, 0b010, 0b001};
  std::vector<ArnEntry> entries = std::vector<ArnEntry>(kSwitches * kE);
  std::vector<uint64_t> arn_link = std::vector<uint64_t>(kPorts * kD, 0), sent = std::vector<uint64_t>(kPorts, 0),
                        refused = std::vector<uint64_t>(kSwitches, 0), adapted = std::vector<uint64_t>(kPorts, 0),
                        seed{5};
  std::vector<int32_t> credits = std::vector<int32_t>(kPorts * kV, 42);
  std::vector<uint16_t> voq_packets = std::vector<uint16_t>(kPorts * 3 * kV, 1);
  EngineView v{};

  Toy() {
    // [s * N + d]: A: d0 -> port 0 (mask 0b001), d1 -> port 1 of {1, 2}; B: d0 -> port 0, d1 -> port 1;
    // C: both -> port 0.
    route_det = {0, 1, 0, 1, 0, 0};
    route_choice = {0, 1, 3, 2, 3, 3};
    v.net.num_switches = kSwitches;
    v.net.num_ports = kPorts;
    v.net.num_endpoints = kEndpoints;
    v.net.sw_port_base = base.data();
    v.net.peer = peer.data();
    v.net.peer_type = peer_type.data();
    v.net.route_det = route_det.data();
    v.net.route_choice = route_choice.data();
    v.net.choice_masks = choice_masks.data();
    v.net.sw_stage = stage.data();
    v.net.port_up = up.data();
    v.state.arn_entry = entries.data();
    v.state.arn_link = arn_link.data();
    v.state.st_arn_sent = sent.data();
    v.state.st_arn_refused = refused.data();
    v.state.st_adapted = adapted.data();
    v.state.out_credits = credits.data();
    v.state.voq_packets = voq_packets.data();
    v.trial.seed = seed.data();
    ModelParams& m = v.model;
    m.trials = 1;
    m.link_depth = kD;
    m.link_latency = 1;
    m.vcs = kV;
    m.vc_flits = 42;
    m.mtu_flits = 1;
    m.max_radix = 3;
    m.iso.technique = IsoTechnique::kArn;
    m.iso.afi = true;
    m.iso.arn.afi = true;
    m.iso.arn.ttl_cycles = 1000;
    m.iso.arn.arn_gap_cycles = 0;
    m.iso.arn_entries = kE;
    m.iso.detector_period = 1;
  }
  ArnTable table(int sw) { return iso_table(v, sw, 0); }
};

TEST(IsolationWiring, ArnCrossesTheLinkAndIsConsumedUpstream) {
  Toy toy;
  // B holds an unconsumed entry for endpoint 1 in VC 0, as if its port 1 (the incast port's
  // neighbour in a larger tree) were a root whose ARN stage 1 consumes.
  ArnInfo root;
  root.destination = 1;
  root.vc = 0;
  root.port = 1;
  root.arn_id = arn_make_id(1, 1, 0);
  root.root_info = 1;
  int slot = -1;
  ASSERT_EQ(arn_add(toy.table(1), root, kNoPort, 10, 1000, ArnFullPolicy::kDropNew, &slot), ArnInsert::kInserted);

  // Cycle 10: a data packet from A arrives at B's port 0; B routes it down and sends an ARN back.
  Packet pk = Packet::make(0, 1, 1, 0, 0, 5, 5);
  int vc = -1;
  const int o = iso_route(toy.v, 1, 3, 0, &pk, 0, 10, &vc);
  EXPECT_EQ(o, 1);
  EXPECT_EQ(vc, 0);
  EXPECT_EQ(pk.flags() & kFlagAdapted, 0u);
  EXPECT_EQ(toy.sent[3], 1u) << "one ARN out of B's port 0";
  const uint64_t w = toy.arn_link[3 * Toy::kD + 10 % Toy::kD];
  ASSERT_TRUE((w >> 31) & 1u);
  EXPECT_EQ(iso_arn_info(w).destination, 1u);
  EXPECT_EQ(iso_arn_info(w).root_info, 1u);
  EXPECT_EQ(iso_arn_info(w).arn_id, root.arn_id);

  // Cycle 11 (one link latency later): A reads it at its port 1, the link from B.
  EXPECT_EQ(arn_live_count(toy.table(0), 11), 0);
  iso_arn_port(toy.v, 0, 0, 1, 0, 11);
  ASSERT_EQ(arn_live_count(toy.table(0), 11), 1);
  const ArnEntry& e = toy.table(0)[0];
  EXPECT_EQ(e.info.destination, 1u);
  EXPECT_EQ(e.info.port, 1) << "Port = the port the ARN arrived on";
  EXPECT_EQ(e.info.consumed, 1) << "stage 1 == congestionRootInfo 1: consumed";
  EXPECT_EQ(e.alt_port, 2) << "the only minimal port other than the deterministic one";
  // B's slot of cycle 12 starts empty (A's own port slots are cleared as A writes them).
  iso_arn_port(toy.v, 1, 3, 0, 0, 12);
  EXPECT_EQ(toy.arn_link[3 * Toy::kD + 12 % Toy::kD], 0u);

  // Cycle 12: a packet from endpoint 0 to endpoint 1 at A takes the alternative, adapted, in the AFC.
  Packet hot = Packet::make(0, 1, 1, 0, 0, 12, 12);
  const int o2 = iso_route(toy.v, 0, 0, 0, &hot, 0, 12, &vc);
  EXPECT_EQ(o2, 2);
  EXPECT_EQ(vc, afc_vc(Toy::kV));
  EXPECT_NE(hot.flags() & kFlagAdapted, 0u);
  EXPECT_EQ(hot.vc(), 0u) << "the header keeps the local VC until the packet departs";
  EXPECT_EQ(toy.adapted[0], 1u);
  // Departure rewrites its VC to the AFC (grant_depart's hook); the next switch routes it
  // deterministically in the AFC and sends no ARN for it.
  iso_departed(toy.v, 0, o2, vc, 0, &hot);
  EXPECT_EQ(hot.vc(), static_cast<uint32_t>(afc_vc(Toy::kV)));
  const uint64_t before = toy.sent[6];
  int vc3 = -1;
  EXPECT_EQ(iso_route(toy.v, 2, 6, 0, &hot, 0, 13, &vc3), 0);
  EXPECT_EQ(vc3, afc_vc(Toy::kV));
  EXPECT_EQ(toy.sent[6], before);

  // Plain ARN: the same re-route, but the packet stays in its VC.
  toy.v.model.iso.afi = false;
  toy.v.model.iso.arn.afi = false;
  Packet plain = Packet::make(0, 1, 1, 0, 0, 14, 14);
  EXPECT_EQ(iso_route(toy.v, 0, 0, 0, &plain, 0, 14, &vc), 2);
  EXPECT_EQ(vc, 0);
  EXPECT_EQ(plain.flags() & kFlagAdapted, 0u);
  // After the time-to-live the entry is gone and the route is D-mod-K again.
  EXPECT_EQ(iso_route(toy.v, 0, 0, 0, &plain, 0, 11 + 1000, &vc), 1);
}

TEST(IsolationWiring, FullTableRefusesAndCounts) {
  Toy toy;
  toy.v.model.iso.arn_entries = 1;
  ArnInfo a;
  a.destination = 0;
  a.arn_id = 7;
  a.root_info = 3;
  int slot = -1;
  ASSERT_EQ(arn_add(toy.table(0), a, kNoPort, 0, 1000, ArnFullPolicy::kDropNew, &slot), ArnInsert::kInserted);
  ArnInfo b;
  b.destination = 1;
  b.arn_id = 9;
  b.root_info = 3;
  toy.arn_link[3 * Toy::kD + 1] = iso_arn_word(b);  // B sent it at cycle 1; A reads it at cycle 2
  iso_arn_port(toy.v, 0, 0, 1, 0, 2);
  EXPECT_EQ(toy.refused[0], 1u);
}

std::string config(const std::string& technique, const std::string& scheme, int vcs) {
  return "[topology]\nkind = \"rlft\"\nrlft_radix = 12\n[link]\nflit_bytes = 4096\nlatency_ns = 30\n"
         "[endpoint]\nmtu_bytes = 4096\n[traffic]\nmessage_bytes = [4096]\n"
         "[switch]\nbuffer_bytes = 344064\nvcs = " +
         std::to_string(vcs) + "\n[isolation]\ntechnique = \"" + technique + "\"\nqueue_scheme = \"" + scheme + "\"\n";
}

TEST(IsolationWiring, VcSplitOfThe84PacketBuffer) {
  struct Case {
    const char* technique;
    const char* scheme;
    int vcs, packets_per_vc;
  };
  const Case cases[] = {{"dmodk", "1q", 1, 84},         {"arn_afi", "1q", 2, 42},   {"dmodk", "dbbm", 3, 28},
                        {"adaptive_th_afi", "vftree", 4, 21}, {"arn", "flow2sl", 3, 28}, {"arn_afi", "dbbm", 4, 21}};
  for (const Case& c : cases) {
    const ModelSetup s = build_model(load_config_string(config(c.technique, c.scheme, c.vcs), "split"), ".");
    EXPECT_EQ(s.model.vcs, c.vcs) << c.technique << " " << c.scheme;
    EXPECT_EQ(s.model.vc_flits, c.packets_per_vc) << c.technique << " " << c.scheme;
    EXPECT_EQ(s.model.iso.vc_packets, c.packets_per_vc);
    EXPECT_EQ(s.model.entries, 84) << "an input port holds 84 packets of 4 KB";
  }
  // The VC count must be the scheme's (+1 with AFI): one clear error naming switch.vcs.
  try {
    build_model(load_config_string(config("arn_afi", "dbbm", 3), "split"), ".");
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("switch.vcs"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("needs 4"), std::string::npos) << e.what();
  }
  // isolation.* keys without a technique are refused.
  EXPECT_THROW(build_model(load_config_string(config("none", "dbbm", 1), "split"), "."), ConfigError);
}

}  // namespace
}  // namespace saturn
