// Unit tests for the topology builders, the edge-list loader and check_topology (hand-computed cases).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <stdexcept>
#include <string>

#include "host/config/config_error.hpp"
#include "host/topology/topology.hpp"

namespace saturn {
namespace {

void expect_link(const Topology& t, int s, int p, int peer_s, int peer_p) {
  const PortPeer& peer = t.ports[s][p];
  EXPECT_EQ(peer.kind, PeerKind::kSwitch) << "switch " << s << " port " << p;
  EXPECT_EQ(peer.index, peer_s) << "switch " << s << " port " << p;
  EXPECT_EQ(peer.port, peer_p) << "switch " << s << " port " << p;
}

TEST(KaryNtree, Counts2Ary3Tree) {
  const Topology t = build_kary_ntree(2, 3);
  EXPECT_EQ(t.name, "2-ary 3-tree");
  EXPECT_EQ(t.tree_k, 2);
  EXPECT_EQ(t.tree_n, 3);
  EXPECT_EQ(t.num_switches(), 12);  // n * k^(n-1) = 3 * 4
  EXPECT_EQ(t.num_endpoints, 8);    // k^n
  EXPECT_EQ(t.max_radix(), 4);
  EXPECT_EQ(t.total_ports(), 48);
  // 8 endpoint ports + 2 link levels * 8 links * 2 ends; the 4 roots' 8 up ports stay free.
  EXPECT_EQ(t.connected_ports(), 40);
  EXPECT_NO_THROW(check_topology(t));
}

TEST(KaryNtree, Counts4Ary3Tree) {
  const Topology t = build_kary_ntree(4, 3);
  EXPECT_EQ(t.num_switches(), 48);
  EXPECT_EQ(t.num_endpoints, 64);
  EXPECT_EQ(t.total_ports(), 384);
  EXPECT_EQ(t.connected_ports(), 64 + 2 * 2 * 64);
  EXPECT_NO_THROW(check_topology(t));
}

TEST(KaryNtree, Counts16Ary3Tree) {
  const Topology t = build_kary_ntree(16, 3);
  EXPECT_EQ(t.num_switches(), 768);
  EXPECT_EQ(t.num_endpoints, 4096);
  EXPECT_EQ(t.max_radix(), 32);
  EXPECT_EQ(t.total_ports(), 24576);
  EXPECT_EQ(t.connected_ports(), 20480);  // PAPERS-SPEC M1
  EXPECT_NO_THROW(check_topology(t));
}

TEST(KaryNtree, SingleLevelIsOneSwitch) {
  const Topology t = build_kary_ntree(5, 1);
  EXPECT_EQ(t.num_switches(), 1);
  EXPECT_EQ(t.num_endpoints, 5);
  EXPECT_EQ(t.radix(0), 5);
  EXPECT_EQ(t.up_port_count[0], 0);
  EXPECT_EQ(t.connected_ports(), 5);
  EXPECT_NO_THROW(check_topology(t));
}

TEST(KaryNtree, NamesAndUpPorts) {
  const Topology t = build_kary_ntree(4, 3);
  EXPECT_EQ(t.switch_names[0], "L0.S0");
  EXPECT_EQ(t.switch_names[17], "L1.S1");
  EXPECT_EQ(t.switch_names[37], "L2.S5");
  EXPECT_EQ(t.endpoint_names[17], "n17");
  for (int s = 0; s < t.num_switches(); ++s) {
    EXPECT_EQ(t.up_port_first[s], 4);
    EXPECT_EQ(t.up_port_count[s], s < 16 ? 0 : 4);
  }
}

// Node 13 of the 4-ary 3-tree is (0,3,1) in base 4: leaf w = (0,3) = 3, id 2*16 + 3 = 35, down
// port 1. Up port k+1 = 5 rewrites digit 1 to 1: middle <(0,1),1> = id 17, reached on its
// down port 3 (the leaf's w_1). Its up port k+2 = 6 rewrites digit 0 to 2: root <(2,1),0> =
// id 9, reached on down port w_0 = 0 of (0,1).
TEST(KaryNtree, HandComputedLinks4Ary3Tree) {
  const Topology t = build_kary_ntree(4, 3);
  EXPECT_EQ(t.endpoint_switch[13], 35);
  EXPECT_EQ(t.endpoint_port[13], 1);
  EXPECT_EQ(t.ports[35][1].kind, PeerKind::kEndpoint);
  EXPECT_EQ(t.ports[35][1].index, 13);
  expect_link(t, 35, 5, 17, 3);
  expect_link(t, 17, 3, 35, 5);
  expect_link(t, 17, 6, 9, 0);
  expect_link(t, 9, 0, 17, 6);
  // Root up ports are unconnected.
  EXPECT_EQ(t.ports[9][4].kind, PeerKind::kNone);
  EXPECT_EQ(t.link_name(35, 5), "L2.S3->L1.S1");
  EXPECT_EQ(t.link_name(35, 1), "L2.S3->n13");
  EXPECT_EQ(t.link_name(9, 4), "");
  EXPECT_EQ(t.link_name(99, 0), "");
}

TEST(KaryNtree, RejectsBadParameters) {
  EXPECT_THROW(build_kary_ntree(0, 3), ConfigError);
  EXPECT_THROW(build_kary_ntree(4, 0), ConfigError);
  EXPECT_THROW(build_kary_ntree(33, 2), ConfigError);  // 66 ports
  EXPECT_THROW(build_kary_ntree(32, 5), ConfigError);  // 2^25 endpoints
  EXPECT_NO_THROW(build_kary_ntree(32, 2));
}

TEST(CheckTopology, CatchesAsymmetricLinkAndBadAttachment) {
  Topology t = build_kary_ntree(2, 3);
  t.ports[4][0].port = 3;  // one end of a leaf-middle link now points at the wrong port
  EXPECT_THROW(check_topology(t), std::logic_error);

  Topology u = build_kary_ntree(2, 3);
  u.endpoint_port[0] = 1;  // endpoint 0 claims endpoint 1's port
  EXPECT_THROW(check_topology(u), std::logic_error);

  Topology v = build_zdornov_fig1();
  v.ports[0].resize(65);
  EXPECT_THROW(check_topology(v), std::logic_error);
}

TEST(Scenarios, ZdornovFig1) {
  const Topology t = build_zdornov_fig1();
  EXPECT_NO_THROW(check_topology(t));
  ASSERT_EQ(t.num_switches(), 2);
  ASSERT_EQ(t.num_endpoints, 8);
  EXPECT_EQ(t.switch_names[0], "sw1");
  EXPECT_EQ(t.switch_names[1], "sw2");
  const char* names[] = {"s1", "s2", "s3", "s4", "s5", "s6", "d1", "d2"};
  const int sw[] = {0, 0, 0, 0, 1, 1, 1, 1};
  const int port[] = {0, 1, 2, 3, 0, 1, 2, 3};
  for (int e = 0; e < 8; ++e) {
    EXPECT_EQ(t.endpoint_names[e], names[e]);
    EXPECT_EQ(t.endpoint_switch[e], sw[e]);
    EXPECT_EQ(t.endpoint_port[e], port[e]);
  }
  EXPECT_EQ(t.radix(0), 5);
  EXPECT_EQ(t.radix(1), 5);
  expect_link(t, 0, 4, 1, 4);
  EXPECT_EQ(t.link_name(0, 4), "sw1->sw2");
  EXPECT_EQ(t.link_name(1, 4), "sw2->sw1");
  EXPECT_EQ(t.link_name(1, 3), "sw2->d2");
  EXPECT_EQ(t.up_port_count[0], 0);
  EXPECT_EQ(t.up_port_count[1], 0);
  EXPECT_EQ(t.tree_k, 0);
}

TEST(Scenarios, SantosFig1) {
  const Topology t = build_santos_fig1(5, 3);
  EXPECT_NO_THROW(check_topology(t));
  ASSERT_EQ(t.num_endpoints, 5 + 3 + 3);
  EXPECT_EQ(t.switch_names[0], "A");
  EXPECT_EQ(t.switch_names[1], "B");
  EXPECT_EQ(t.endpoint_names[0], "L1");
  EXPECT_EQ(t.endpoint_names[4], "L5");
  EXPECT_EQ(t.endpoint_names[5], "R1");
  EXPECT_EQ(t.endpoint_names[7], "R3");
  EXPECT_EQ(t.endpoint_names[8], "A_V");
  EXPECT_EQ(t.endpoint_names[9], "B_C");
  EXPECT_EQ(t.endpoint_names[10], "B_V");
  // A: R1..R3 on ports 0..2, A_V on 3, link on 4. B: L1..L5 on 0..4, B_C 5, B_V 6, link 7.
  EXPECT_EQ(t.radix(0), 5);
  EXPECT_EQ(t.radix(1), 8);
  EXPECT_EQ(t.endpoint_switch[5], 0);
  EXPECT_EQ(t.endpoint_port[8], 3);
  EXPECT_EQ(t.endpoint_switch[9], 1);
  EXPECT_EQ(t.endpoint_port[9], 5);
  expect_link(t, 0, 4, 1, 7);
  EXPECT_EQ(t.link_name(0, 4), "A->B");
  EXPECT_EQ(t.link_name(1, 7), "B->A");
  EXPECT_EQ(t.link_name(1, 5), "B->B_C");
  EXPECT_EQ(t.link_name(1, 6), "B->B_V");
}

TEST(Scenarios, SantosRejectsBadCounts) {
  EXPECT_THROW(build_santos_fig1(-1, 5), ConfigError);
  EXPECT_THROW(build_santos_fig1(62, 5), ConfigError);
  EXPECT_NO_THROW(build_santos_fig1(61, 62));
}

// Writes `text` to a fresh file under the test temp dir and returns its path.
std::string write_temp(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / "saturn_topology_tests";
  std::filesystem::create_directories(dir);
  const auto path = dir / name;
  std::ofstream(path) << text;
  return path.string();
}

TEST(EdgeList, ParsesSmallFile) {
  const std::string path = write_temp("ok.txt",
                                      "# a three-switch line\n"
                                      "switch S0\n"
                                      "switch S1   # middle\n"
                                      "\n"
                                      "switch S2\r\n"
                                      "endpoint e0 S0\n"
                                      "link S0 S1 2\n"
                                      "\tlink S1 S2\n"
                                      "endpoint e1 S2\n"
                                      "endpoint e2 S1\n");
  const Topology t = load_edge_list(path);
  EXPECT_NO_THROW(check_topology(t));
  ASSERT_EQ(t.num_switches(), 3);
  ASSERT_EQ(t.num_endpoints, 3);
  EXPECT_EQ(t.switch_names[2], "S2");
  EXPECT_EQ(t.endpoint_names[1], "e1");
  // S0: e0 port 0, links on 1, 2. S1: links to S0 on 0, 1, link to S2 on 2, e2 on 3.
  EXPECT_EQ(t.radix(0), 3);
  EXPECT_EQ(t.radix(1), 4);
  EXPECT_EQ(t.radix(2), 2);
  expect_link(t, 0, 1, 1, 0);
  expect_link(t, 0, 2, 1, 1);
  expect_link(t, 1, 2, 2, 0);
  EXPECT_EQ(t.endpoint_switch[2], 1);
  EXPECT_EQ(t.endpoint_port[2], 3);
  EXPECT_EQ(t.endpoint_port[1], 1);
  EXPECT_EQ(t.link_name(1, 2), "S1->S2");
  EXPECT_EQ(t.link_name(1, 3), "S1->e2");
  EXPECT_EQ(t.up_port_count[0], 0);
}

// Loads `text` and expects a ConfigError whose message contains every one of `keys`.
void expect_edge_error(const std::string& name, const std::string& text,
                       std::initializer_list<std::string> keys) {
  const std::string path = write_temp(name, text);
  try {
    load_edge_list(path);
    ADD_FAILURE() << name << ": no error";
  } catch (const ConfigError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    EXPECT_NE(msg.find("topology file '" + path + "'"), std::string::npos) << msg;
    for (const std::string& key : keys) EXPECT_NE(msg.find(key), std::string::npos) << msg;
  }
}

TEST(EdgeList, Errors) {
  expect_edge_error("unknown_switch.txt", "switch S0\nendpoint e0 S0\n\nlink S0 S9\n",
                    {"line 4", "unknown switch 'S9'"});
  expect_edge_error("dup.txt", "switch S0\nswitch S0\n", {"line 2", "duplicate", "'S0'"});
  expect_edge_error("dup_kind.txt", "switch S0\nendpoint S0 S0\n", {"line 2", "duplicate", "'S0'"});
  expect_edge_error("directive.txt", "switch S0\nrouter R1\n", {"line 2", "unknown directive 'router'"});
  expect_edge_error("none.txt", "# nothing\nswitch S0\n", {"no endpoints"});
  expect_edge_error("self.txt", "switch S0\nendpoint e0 S0\nlink S0 S0\n", {"line 3", "itself"});
  expect_edge_error("count.txt", "switch S0\nswitch S1\nlink S0 S1 x\n", {"line 3", "count"});
  expect_edge_error("zero.txt", "switch S0\nswitch S1\nlink S0 S1 0\n", {"line 3", "count"});
  expect_edge_error("arity.txt", "switch S0 extra\n", {"line 1", "switch NAME"});
  expect_edge_error("ep_arity.txt", "switch S0\nendpoint e0\n", {"line 2", "endpoint NAME SWITCHNAME"});
  expect_edge_error("ep_not_switch.txt", "switch S0\nendpoint e0 S0\nendpoint e1 e0\n",
                    {"line 3", "'e0'", "not a switch"});
  expect_edge_error("radix.txt", "switch S0\nswitch S1\nendpoint e0 S0\nlink S0 S1 63\nlink S0 S1 2\n",
                    {"line 5", "more than 64 ports"});
  expect_edge_error("disconnected.txt",
                    "switch S0\nswitch S1\nswitch S2\nendpoint e0 S0\nlink S0 S1\nendpoint e1 S1\n"
                    "endpoint e3 S2\n",
                    {"endpoint 'e3' cannot reach endpoint 'e0'"});
  expect_edge_error("isolated.txt", "switch S0\nswitch S9\nendpoint e0 S0\n",
                    {"switch 'S9' cannot reach endpoint 'e0'"});
}

TEST(EdgeList, MissingFile) {
  const std::string path = (std::filesystem::path(::testing::TempDir()) / "no_such_topology.txt").string();
  try {
    load_edge_list(path);
    ADD_FAILURE() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), "cannot read topology file '" + path + "': No such file or directory");
  }
}

TEST(EdgeList, RadixExactly64IsFine) {
  const std::string path = write_temp("radix64.txt", "switch S0\nswitch S1\nendpoint e0 S0\nlink S0 S1 63\n");
  const Topology t = load_edge_list(path);
  EXPECT_EQ(t.radix(0), 64);
  EXPECT_NO_THROW(check_topology(t));
}

}  // namespace
}  // namespace saturn
