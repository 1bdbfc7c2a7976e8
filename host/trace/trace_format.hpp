// Trace replay input: the plain-text application trace of docs/traces.md (per node, compute
// delays and messages with sizes, destinations and dependencies; plus timed background streams
// such as the incast 003 injects on top of its traces), parsed and checked into flat arrays.
//
// A trace that loads is guaranteed to replay to completion: every node and size is in range,
// every send has exactly one matching recv of the same size (the k-th send from A to B matches
// the k-th recv at B from A, in file order), and the events with their dependencies and the
// send -> recv matches form a directed acyclic graph. Bad input throws ConfigError with one line
// "FILE:LINE: what is wrong (what is allowed)"; the CLI turns that into exit code 2.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace saturn {

enum class TraceOp : uint8_t { kCompute = 0, kSend, kRecv, kCount };

// Limits of the format (docs/traces.md).
constexpr uint32_t kTraceMaxNodes = 1u << 20;              // the engine's kMaxNodes
constexpr uint64_t kTraceMaxMessageBytes = 1ull << 30;     // 1 GiB per message
constexpr uint64_t kTraceMaxComputeNs = 1000000000000ull;  // 1000 s per compute event
constexpr uint64_t kTraceMaxTimeNs = 10000000000000ull;    // 10^4 s: stream start and stop times
constexpr uint32_t kTraceMaxEventId = 0x7FFFFFFFu;

struct TraceEvent {
  TraceOp op = TraceOp::kCompute;
  uint32_t id = 0;       // the event's id in the file (unique within its node)
  int32_t peer = -1;     // send: destination node; recv: source node; compute: -1
  uint64_t amount = 0;   // compute: nanoseconds; send / recv: bytes
  uint32_t dep_begin = 0, dep_count = 0;  // its dependencies: Trace::deps[dep_begin, +dep_count)
  int64_t match = -1;    // send: global index of the matching recv; recv: of the matching send
  int line = 0;
};

// Background traffic independent of the events: src sends MTU packets to dst at rate_pct of its
// link rate during [start_ns, stop_ns) of simulated time (003: the HS10 tree on top of a trace).
struct TraceStream {
  uint32_t src = 0, dst = 0;
  uint64_t start_ns = 0, stop_ns = 0;
  uint32_t rate_pct = 100;
  int line = 0;
};

// Events of node n are events[node_first[n], node_first[n + 1]) in file order; dependencies and
// matches are global event indices.
struct Trace {
  std::string path;
  uint32_t nodes = 0;
  std::vector<uint32_t> node_first;  // nodes + 1 entries
  std::vector<TraceEvent> events;
  std::vector<uint32_t> deps;
  std::vector<TraceStream> streams;
  uint64_t total_message_bytes = 0;
  uint64_t messages = 0;
};

// Parses `text` as the trace file named `name` (the name only labels errors).
Trace parse_trace(const std::string& text, const std::string& name);

// Reads and parses a trace file (regular files only, at most 2 GiB).
Trace load_trace(const std::string& path);

const char* trace_op_name(TraceOp op);

}  // namespace saturn
