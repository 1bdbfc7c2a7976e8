// Unit tests for the trace replay input (host/trace/trace_format.*, docs/traces.md): traces from
// scripts/gen_traces.py parse, the structure is what the file says, and each kind of bad input is
// refused with one line naming file:line and what is allowed.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "host/config/config_error.hpp"
#include "host/trace/trace_format.hpp"

namespace saturn {
namespace {

// A small trace as gen_traces.py writes it (used where python3 is missing, and for structure checks).
const char* kSmall =
    "saturn_trace 1\n"
    "# two nodes exchange once, then node 0 computes\n"
    "nodes 3\n"
    "stream 2 0 3000000 103000000 100\n"
    "node 1\n"
    "0 compute 1500\n"
    "1 send 0 65536 after 0\n"
    "2 recv 0 4096 after 0\n"
    "node 0   # blocks may come in any order\n"
    "5 compute 10 after 7,6\n"  // forward references
    "6 send 1 4096\n"
    "7 recv 1 65536\n";

// Runs gen_traces.py with `args` into a temporary file; "" when python3 cannot run it.
std::string generate(const std::string& args, const std::string& name) {
  const std::string out = testing::TempDir() + name;
  const std::string cmd = "python3 " SATURN_SOURCE_DIR "/scripts/gen_traces.py " + args + " --out " + out + " 2>/dev/null";
  if (std::system(cmd.c_str()) != 0) return "";
  return out;
}

std::string error_of(const std::string& text) {
  try {
    parse_trace(text, "t.trace");
  } catch (const ConfigError& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;  // one line
    return m;
  }
  ADD_FAILURE() << "accepted:\n" << text;
  return "";
}

#define EXPECT_REFUSED(text, expected)                                                        \
  do {                                                                                        \
    const std::string m_ = error_of(text);                                                    \
    EXPECT_NE(m_.find(expected), std::string::npos) << "got: " << m_ << "\nwanted: " << (expected); \
  } while (0)

TEST(TraceFormat, SmallTraceStructure) {
  const Trace t = parse_trace(kSmall, "small.trace");
  EXPECT_EQ(t.nodes, 3u);
  ASSERT_EQ(t.node_first, (std::vector<uint32_t>{0, 3, 6, 6}));  // node 0 first, node 2 idle
  const TraceEvent& c0 = t.events[0];
  EXPECT_EQ(c0.op, TraceOp::kCompute);
  EXPECT_EQ(c0.id, 5u);
  EXPECT_EQ(c0.amount, 10u);
  ASSERT_EQ(c0.dep_count, 2u);
  EXPECT_EQ(t.deps[c0.dep_begin], 2u);  // event 7 of node 0
  EXPECT_EQ(t.deps[c0.dep_begin + 1], 1u);
  // Node 1's send of 65536 B matches node 0's recv of 65536 B, and the other way round.
  EXPECT_EQ(t.events[4].op, TraceOp::kSend);
  EXPECT_EQ(t.events[4].match, 2);
  EXPECT_EQ(t.events[2].match, 4);
  EXPECT_EQ(t.events[1].match, 5);
  EXPECT_EQ(t.messages, 2u);
  EXPECT_EQ(t.total_message_bytes, 65536u + 4096u);
  ASSERT_EQ(t.streams.size(), 1u);
  EXPECT_EQ(t.streams[0].src, 2u);
  EXPECT_EQ(t.streams[0].stop_ns, 103000000u);
  EXPECT_STREQ(trace_op_name(t.events[3].op), "compute");
}

TEST(TraceFormat, GeneratedPtransTraceParses) {
  const std::string path = generate("ptrans --nodes 16 --phases 5 --incast hs10 --seed 3", "ptrans16.trace");
  if (path.empty()) {
    EXPECT_NO_THROW(parse_trace(kSmall, "small.trace"));  // no python3: the checked-in trace
    return;
  }
  const Trace t = load_trace(path);
  EXPECT_EQ(t.nodes, 16u);
  EXPECT_EQ(t.messages, 16u * 5u);  // every node sends once per phase
  EXPECT_EQ(t.events.size(), 16u * 5u * 3u);
  EXPECT_EQ(t.streams.size(), 2u);  // 10% of 16 nodes, rounded
  for (const TraceStream& s : t.streams) {
    EXPECT_EQ(s.dst, 4u);
    EXPECT_EQ(s.start_ns, 3000000u);
    EXPECT_EQ(s.stop_ns, 103000000u);
  }
  std::remove(path.c_str());
}

TEST(TraceFormat, GeneratedCnnTraceParses) {
  const std::string path = generate("cnn --nodes 8 --ranks 10 --iterations 2 --layer-groups 2 --incast hs25", "cnn8.trace");
  if (path.empty()) {
    EXPECT_NO_THROW(parse_trace(kSmall, "small.trace"));
    return;
  }
  const Trace t = load_trace(path);
  EXPECT_EQ(t.nodes, 8u);
  // Ring all-reduce: every rank sends 2 (R - 1) chunks per group and iteration.
  EXPECT_EQ(t.messages, 10u * 2u * 2u * 2u * 9u);
  EXPECT_EQ(t.streams.size(), 2u);  // 25% of 8 nodes
  EXPECT_EQ(t.streams[0].stop_ns - t.streams[0].start_ns, 400000000u);
  // Nodes 0 and 1 host two ranks each: twice the events of the others.
  EXPECT_EQ(t.node_first[1] - t.node_first[0], 2 * (t.node_first[3] - t.node_first[2]));
  std::remove(path.c_str());
}

// --round-bytes 4096 (Fig. 8 with the isolation techniques, which count whole 4 KB packets): every
// all-reduce message is rounded up to a multiple of 4096 bytes. 1000 parameters over 2 groups and
// 10 ranks are 200-byte chunks: 4096 bytes each once rounded.
TEST(TraceFormat, GeneratedCnnTraceRoundsMessagesToWholePackets) {
  const std::string path = generate("cnn --nodes 8 --ranks 10 --iterations 1 --layer-groups 2 --params 1000 "
                                    "--round-bytes 4096", "cnn8r.trace");
  if (path.empty()) {
    EXPECT_NO_THROW(parse_trace(kSmall, "small.trace"));
    return;
  }
  const Trace t = load_trace(path);
  EXPECT_EQ(t.messages, 10u * 2u * 1u * 18u);
  EXPECT_EQ(t.total_message_bytes, static_cast<uint64_t>(t.messages) * 4096u);
  std::remove(path.c_str());
}

const std::string kHead = "saturn_trace 1\nnodes 4\nnode 0\n";

TEST(TraceFormat, RefusesBadHeaderAndNodeCount) {
  EXPECT_REFUSED("", "t.trace:1: empty trace");
  EXPECT_REFUSED("nodes 4\n", "t.trace:1: expected the header 'saturn_trace 1'");
  EXPECT_REFUSED("saturn_trace 2\n", "format version 1");
  EXPECT_REFUSED("saturn_trace 1\n", "no 'nodes N' line");
  EXPECT_REFUSED("saturn_trace 1\nnodes 0\n", "t.trace:2: node count '0' is not allowed (an integer from 1 to 1048576)");
  EXPECT_REFUSED("saturn_trace 1\nnodes 4\nnodes 4\n", "t.trace:3: 'nodes' given twice");
  EXPECT_REFUSED("saturn_trace 1\nnode 0\n", "t.trace:2: 'nodes N' must come right after the header");
  EXPECT_REFUSED("saturn_trace 1\nnodes 4\nlink 0 1\n", "t.trace:3: unknown directive 'link'");
}

TEST(TraceFormat, RefusesNodesOutOfRange) {
  EXPECT_REFUSED("saturn_trace 1\nnodes 4\nnode 4\n", "t.trace:3: block node '4' is not allowed (an integer from 0 to 3)");
  EXPECT_REFUSED(kHead + "0 send 9 100\n", "t.trace:4: destination node '9' is not allowed (an integer from 0 to 3)");
  EXPECT_REFUSED(kHead + "0 recv -1 100\n", "t.trace:4: source node '-1' is not allowed");
  EXPECT_REFUSED(kHead + "0 send 0 100\n", "t.trace:4: node 0 sends to itself");
  EXPECT_REFUSED("saturn_trace 1\nnodes 4\nstream 1 7 0 10 100\n", "t.trace:3: destination node '7'");
  EXPECT_REFUSED("saturn_trace 1\nnodes 4\nnode 1\nnode 1\n", "t.trace:4: node 1 already has a block (at line 3)");
}

TEST(TraceFormat, RefusesBadSizesAndTimes) {
  EXPECT_REFUSED(kHead + "0 send 1 0\n", "t.trace:4: message size (bytes) '0' is not allowed (an integer from 1 to 1073741824)");
  EXPECT_REFUSED(kHead + "0 send 1 2000000000\n", "message size (bytes) '2000000000' is not allowed");
  EXPECT_REFUSED(kHead + "0 recv 1 12k\n", "message size (bytes) '12k' is not allowed");
  EXPECT_REFUSED(kHead + "0 compute 1.5\n", "compute time (ns) '1.5' is not allowed");
  EXPECT_REFUSED("saturn_trace 1\nnodes 4\nstream 1 2 10 10 100\n", "t.trace:3: stream stops at or before it starts");
  EXPECT_REFUSED("saturn_trace 1\nnodes 4\nstream 1 2 0 10 0\n", "stream rate (percent of the link) '0' is not allowed (an integer from 1 to 100)");
  EXPECT_REFUSED("saturn_trace 1\nnodes 4\nstream 1 1 0 10 50\n", "to itself (SRC and DST must differ)");
}

TEST(TraceFormat, RefusesMalformedEvents) {
  EXPECT_REFUSED("saturn_trace 1\nnodes 4\n0 compute 5\n", "t.trace:3: event outside a node block");
  EXPECT_REFUSED(kHead + "0 sleep 5\n", "t.trace:4: unknown event 'sleep' (allowed: compute, send, recv)");
  EXPECT_REFUSED(kHead + "0 send 1\n", "t.trace:4: expected 'ID send DST BYTES'");
  EXPECT_REFUSED(kHead + "0 compute 5 before 1\n", "expected 'after ID,ID,...'");
  EXPECT_REFUSED(kHead + "0 compute 5 after 1, 2\n", "t.trace:4: expected 'after ID,ID,...' (comma-separated event ids of this node, no spaces)");
  EXPECT_REFUSED(kHead + "0 compute 5\n0 compute 6\n", "t.trace:5: event id 0 repeated in node 0");
  EXPECT_REFUSED(kHead + "0 compute 5\n1 compute 6 after 0,4\n", "t.trace:5: event 1 waits on event 4, which node 0 does not have");
}

TEST(TraceFormat, RefusesCycles) {
  EXPECT_REFUSED(kHead + "0 compute 5 after 1\n1 compute 5 after 0\n", "dependency cycle through node 0 event");
  EXPECT_REFUSED(kHead + "0 compute 5 after 0\n", "t.trace:4: dependency cycle through node 0 event 0");
  // Through the matches: each node's send waits on its recv, which waits on the other's send.
  EXPECT_REFUSED(kHead + "0 recv 1 100\n1 send 1 100 after 0\nnode 1\n0 recv 0 100\n1 send 0 100 after 0\n",
                 "dependency cycle through node");
  // The same exchange with the sends first is fine.
  EXPECT_NO_THROW(parse_trace(kHead + "0 send 1 100\n1 recv 1 100\nnode 1\n0 send 0 100\n1 recv 0 100 after 0\n", "ok"));
}

TEST(TraceFormat, RefusesUnmatchedMessages) {
  EXPECT_REFUSED(kHead + "0 send 1 100\n", "t.trace:4: send from node 0 to node 1 has no matching recv");
  EXPECT_REFUSED(kHead + "0 recv 2 100\n", "t.trace:4: recv at node 0 from node 2 has no matching send (node 2 sends node 0 0 message(s)");
  EXPECT_REFUSED(kHead + "0 send 1 100\nnode 1\n0 recv 0 200\n",
                 "t.trace:6: recv of 200 bytes matches the send of 100 bytes at line 4 (matched sizes must be equal)");
  // Order decides the match: the 2nd send matches the 2nd recv.
  EXPECT_REFUSED(kHead + "0 send 1 100\n1 send 1 200\nnode 1\n0 recv 0 200\n1 recv 0 100\n", "matched sizes must be equal");
}

TEST(TraceFormat, LoadNamesTheFile) {
  try {
    load_trace("/nonexistent/x.trace");
    ADD_FAILURE();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot read trace file '/nonexistent/x.trace'"), std::string::npos);
  }
  const std::string path = testing::TempDir() + "bad.trace";
  std::FILE* f = std::fopen(path.c_str(), "w");
  std::fputs("saturn_trace 1\nnodes 2\nnode 0\n0 send 1 0\n", f);
  std::fclose(f);
  try {
    load_trace(path);
    ADD_FAILURE();
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(path + ":4: message size", 0), 0u) << e.what();
  }
  std::remove(path.c_str());
}

}  // namespace
}  // namespace saturn
