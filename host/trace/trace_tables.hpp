// A parsed trace (trace_format.hpp) as the packet engine replays it (kernels/traffic/trace_replay.hpp):
// the shared event tables in cycles and flits, node by node over the network's endpoints, and one
// trial's initial replay state (every trial starts from the same). Built by build_model for
// traffic.pattern = "trace"; uploaded by engine.cu into the columns of kernels/state/state_columns.def.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "host/trace/trace_format.hpp"

namespace saturn {

// A trace packet's birth word is kTraceTag | its recv's index (trace_replay.hpp): indices stay below this.
constexpr uint32_t kTraceIndexLimit = 0x80000000u;

struct TraceTables {
  std::string path;
  uint32_t trace_nodes = 0;             // nodes of the trace (endpoints from there on have no events)
  // Shared tables (state_columns.def tr_node_first .. tr_succ).
  std::vector<uint32_t> node_first;     // endpoints + 1
  std::vector<uint32_t> fifo_base;      // endpoints: where the node's ready-send FIFO starts (after its heap)
  std::vector<uint8_t> op;              // events
  std::vector<uint32_t> arg, peer, match;  // events: compute cycles or send flits; send destination; its recv
  std::vector<uint32_t> succ_first;     // events + 1
  std::vector<uint32_t> succ;           // dependents, same node
  // One trial's initial state (tr_wait, tr_slots, tr_heap_n, tr_fifo_tail, tr_wake).
  std::vector<uint32_t> wait;           // events: dependencies (+ a recv's flits)
  std::vector<uint64_t> slots;          // events: the heap of computes ready at 0, the FIFO of sends ready at 0
  std::vector<uint32_t> heap_n, fifo_tail, wake;  // endpoints
  uint32_t min_last_packet_flits = 0;   // the smallest packet a trace message produces (0 = no message)
  uint64_t message_flits = 0;           // all messages together
  uint32_t events() const { return static_cast<uint32_t>(op.size()); }
  uint32_t node_events(int e) const { return node_first[e + 1] - node_first[e]; }
};

// How a trace's times and sizes become cycles and flits.
struct TraceUnits {
  int endpoints = 0;
  double cycle_ns = 1;
  int flit_bytes = 1;
  uint32_t mtu_flits = 1;
  double max_cycles = 2.0e9;  // every compute must be shorter (one ConfigError line naming the file and line)
};

// Throws ConfigError "FILE:LINE: ..." for an event the engine cannot replay (a compute longer than
// max_cycles), or "FILE: ..." when the trace has more nodes than the network has endpoints.
TraceTables build_trace_tables(const Trace& trace, const TraceUnits& units);

// Every index of the tables is in range and every count consistent (node regions, dependents,
// matches: a send's recv is a recv at its destination with the same flits). The kernels trust
// these; a table that fails throws std::logic_error naming the first problem.
void check_trace_tables(const TraceTables& tables, int endpoints);

}  // namespace saturn
