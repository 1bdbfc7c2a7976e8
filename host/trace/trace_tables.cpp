// Engine tables of a trace (see trace_tables.hpp).
#include "host/trace/trace_tables.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "host/config/config_error.hpp"
#include "kernels/state/engine_view.hpp"

namespace saturn {

namespace {

uint32_t message_flits(uint64_t bytes, int flit_bytes) {
  return static_cast<uint32_t>((bytes + static_cast<uint64_t>(flit_bytes) - 1) / static_cast<uint64_t>(flit_bytes));
}

}  // namespace

TraceTables build_trace_tables(const Trace& trace, const TraceUnits& u) {
  if (trace.nodes > static_cast<uint32_t>(u.endpoints))
    throw ConfigError(trace.path + ": the trace has " + std::to_string(trace.nodes) + " nodes, the network " +
                      std::to_string(u.endpoints) + " endpoints (trace node i runs on endpoint i; at most as many nodes as endpoints)");
  if (trace.events.size() >= kTraceIndexLimit)
    throw ConfigError(trace.path + ": " + std::to_string(trace.events.size()) + " events; the engine replays at most " +
                      std::to_string(kTraceIndexLimit - 1));
  TraceTables t;
  t.path = trace.path;
  t.trace_nodes = trace.nodes;
  const uint32_t n = static_cast<uint32_t>(trace.events.size());
  const int N = u.endpoints;
  t.node_first.assign(N + 1, n);
  for (uint32_t e = 0; e < trace.nodes; ++e) t.node_first[e] = trace.node_first[e];
  t.op.resize(n);
  t.arg.assign(n, 0);
  t.peer.assign(n, 0);
  t.match.assign(n, 0);
  t.wait.assign(n, 0);
  std::vector<uint32_t> dependents(n, 0);
  for (uint32_t i = 0; i < n; ++i) {
    const TraceEvent& ev = trace.events[i];
    t.op[i] = static_cast<uint8_t>(ev.op);
    t.wait[i] = ev.dep_count;
    for (uint32_t k = ev.dep_begin; k < ev.dep_begin + ev.dep_count; ++k) ++dependents[trace.deps[k]];
    if (ev.op == TraceOp::kCompute) {
      const double cycles = std::round(static_cast<double>(ev.amount) / u.cycle_ns);
      if (!(cycles <= u.max_cycles))
        throw ConfigError(trace.path + ":" + std::to_string(ev.line) + ": compute of " + std::to_string(ev.amount) +
                          " ns is more than the engine's " + std::to_string(static_cast<int64_t>(u.max_cycles)) +
                          " cycles (at most " + std::to_string(static_cast<int64_t>(u.max_cycles * u.cycle_ns)) + " ns)");
      t.arg[i] = static_cast<uint32_t>(cycles);
    } else {
      const uint32_t flits = message_flits(ev.amount, u.flit_bytes);
      if (ev.op == TraceOp::kSend) {
        t.arg[i] = flits;
        t.peer[i] = static_cast<uint32_t>(ev.peer);
        t.match[i] = static_cast<uint32_t>(ev.match);
        const uint32_t last = flits % u.mtu_flits == 0 ? u.mtu_flits : flits % u.mtu_flits;
        t.min_last_packet_flits = t.min_last_packet_flits == 0 ? last : std::min(t.min_last_packet_flits, last);
        t.message_flits += flits;
      } else {
        t.wait[i] += flits;
      }
    }
  }
  // Dependents lists (reverse of the 'after' lists; all within one node).
  t.succ_first.assign(n + 1, 0);
  for (uint32_t i = 0; i < n; ++i) t.succ_first[i + 1] = t.succ_first[i] + dependents[i];
  t.succ.assign(t.succ_first[n], 0);
  std::vector<uint32_t> fill(t.succ_first.begin(), t.succ_first.end() - 1);
  for (uint32_t i = 0; i < n; ++i) {
    const TraceEvent& ev = trace.events[i];
    for (uint32_t k = ev.dep_begin; k < ev.dep_begin + ev.dep_count; ++k) t.succ[fill[trace.deps[k]]++] = i;
  }
  // Per node: the heap region (computes and recvs), then the FIFO region (sends); the initial state.
  t.fifo_base.assign(N, n);
  t.heap_n.assign(N, 0);
  t.fifo_tail.assign(N, 0);
  t.wake.assign(N, kUnlimited);
  t.slots.assign(n, 0);
  for (int e = 0; e < N; ++e) {
    const uint32_t first = t.node_first[e], end = t.node_first[e + 1];
    uint32_t sends = 0;
    for (uint32_t i = first; i < end; ++i) sends += t.op[i] == static_cast<uint8_t>(TraceOp::kSend) ? 1 : 0;
    t.fifo_base[e] = end - sends;
    std::vector<uint64_t> heap;
    for (uint32_t i = first; i < end; ++i) {
      if (t.wait[i] != 0) continue;  // (a recv always waits for its flits)
      if (t.op[i] == static_cast<uint8_t>(TraceOp::kSend)) t.slots[t.fifo_base[e] + t.fifo_tail[e]++] = i;
      else heap.push_back(static_cast<uint64_t>(t.arg[i]) << 32 | i);
    }
    std::sort(heap.begin(), heap.end());  // a sorted array is a min-heap
    for (size_t k = 0; k < heap.size(); ++k) t.slots[first + k] = heap[k];
    t.heap_n[e] = static_cast<uint32_t>(heap.size());
    if (!heap.empty() || t.fifo_tail[e] > 0) t.wake[e] = 0;
  }
  return t;
}

void check_trace_tables(const TraceTables& t, int endpoints) {
  auto bad = [&](const std::string& what) { throw std::logic_error("trace tables of " + t.path + ": " + what); };
  const uint32_t n = t.events();
  const size_t N = static_cast<size_t>(endpoints);
  if (t.node_first.size() != N + 1 || t.fifo_base.size() != N || t.heap_n.size() != N || t.fifo_tail.size() != N ||
      t.wake.size() != N)
    bad("per-endpoint tables do not have one entry per endpoint");
  if (t.arg.size() != n || t.peer.size() != n || t.match.size() != n || t.wait.size() != n || t.slots.size() != n ||
      t.succ_first.size() != static_cast<size_t>(n) + 1)
    bad("per-event tables differ in length");
  if (t.node_first[0] != 0 || t.node_first[N] != n) bad("node regions do not cover the events");
  if (t.succ_first[0] != 0 || t.succ_first[n] != t.succ.size()) bad("dependents lists do not cover tr_succ");
  std::vector<uint32_t> node_of(n, 0);
  for (size_t e = 0; e < N; ++e) {
    const uint32_t first = t.node_first[e], end = t.node_first[e + 1];
    if (first > end) bad("node " + std::to_string(e) + "'s region runs backwards");
    if (t.fifo_base[e] < first || t.fifo_base[e] > end) bad("node " + std::to_string(e) + "'s FIFO is outside its region");
    if (t.heap_n[e] > t.fifo_base[e] - first || t.fifo_tail[e] > end - t.fifo_base[e])
      bad("node " + std::to_string(e) + "'s initial heap or FIFO overflows its region");
    uint32_t sends = 0;
    for (uint32_t i = first; i < end; ++i) {
      node_of[i] = static_cast<uint32_t>(e);
      sends += t.op[i] == static_cast<uint8_t>(TraceOp::kSend) ? 1 : 0;
    }
    if (end - t.fifo_base[e] != sends) bad("node " + std::to_string(e) + "'s FIFO region is not its sends");
  }
  for (uint32_t i = 0; i < n; ++i) {
    if (t.op[i] >= static_cast<uint8_t>(TraceOp::kCount)) bad("event " + std::to_string(i) + " has an unknown op");
    if (t.succ_first[i] > t.succ_first[i + 1]) bad("event " + std::to_string(i) + "'s dependents run backwards");
    for (uint32_t k = t.succ_first[i]; k < t.succ_first[i + 1]; ++k)
      if (t.succ[k] >= n || node_of[t.succ[k]] != node_of[i])
        bad("event " + std::to_string(i) + " has a dependent outside its node");
    if (t.op[i] != static_cast<uint8_t>(TraceOp::kSend)) continue;
    const uint32_t r = t.match[i];
    if (t.peer[i] >= N || t.peer[i] == node_of[i]) bad("send " + std::to_string(i) + " goes to no other endpoint");
    if (t.arg[i] == 0) bad("send " + std::to_string(i) + " has no flits");
    if (r >= n || t.op[r] != static_cast<uint8_t>(TraceOp::kRecv) || node_of[r] != t.peer[i])
      bad("send " + std::to_string(i) + " matches no recv at its destination");
    if (r >= kTraceIndexLimit) bad("recv " + std::to_string(r) + " does not fit in a packet's birth word");
  }
  // Every recv's flits: what its dependencies leave of its initial wait, matched by one send.
  std::vector<uint64_t> incoming(n, 0);
  for (uint32_t i = 0; i < n; ++i)
    if (t.op[i] == static_cast<uint8_t>(TraceOp::kSend)) incoming[t.match[i]] += t.arg[i];
  std::vector<uint32_t> deps(n, 0);
  for (uint32_t k = 0; k < t.succ.size(); ++k) ++deps[t.succ[k]];
  for (uint32_t i = 0; i < n; ++i) {
    const uint64_t want = deps[i] + (t.op[i] == static_cast<uint8_t>(TraceOp::kRecv) ? incoming[i] : 0);
    if (t.wait[i] != want) bad("event " + std::to_string(i) + "'s initial wait is not its dependencies and flits");
    if (t.op[i] == static_cast<uint8_t>(TraceOp::kRecv) && incoming[i] == 0)
      bad("recv " + std::to_string(i) + " has no matching send");
  }
}

}  // namespace saturn
