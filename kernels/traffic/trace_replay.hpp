// Trace replay (traffic.pattern = "trace"; docs/traces.md, PAPERS-SPEC items 50 and 51): each
// endpoint executes its events of the trace. An event waits in tr_wait for its dependencies (the
// `after` list, all events of the same node) and, for a recv, for the flits of its message:
//   - a compute that becomes ready completes NS cycles later (a timed entry in the node's heap);
//   - a recv completes when both its dependencies and its message are in: at the later of the
//     cycle its last dependency completes and the cycle its message's last flit arrives;
//   - a send that becomes ready joins the node's FIFO of ready sends, takes the first free send
//     queue in FIFO order (endpoint_activate: the NIC segments it into MTU packets and sends the
//     queues round-robin per packet, with the streams), and completes in the cycle after the NIC
//     started its last packet.
// Every packet of a trace message carries, in its birth word, kTraceTag | the global index of the
// matching recv, so a receiver attributes each packet to its recv whatever the order of arrival.
// The run's execution time is the latest completion over all nodes (tr_finish).
//
// Owner-computes: every function here writes only node e's state of trial t (its events' tr_wait,
// its region of tr_slots, its per-node columns and send queues). Everything is per lane, scalar:
// the lane phase (endpoint_lanes.hpp) calls it for the lanes with work, so a 16-lane pack and the
// scalar lane run the same code in the same order.
#pragma once
#include <cstdint>

#include "kernels/common/index.hpp"
#include "kernels/phases/endpoint_step.hpp"
#include "kernels/state/engine_view.hpp"

namespace saturn {

constexpr uint32_t kTraceTag = 0x80000000u;  // birth word of a trace packet: tag | recv index (cycles stay below 2^31)
constexpr uint32_t kTraceNone = kUnlimited;  // tr_slot_ev of a send queue without a trace send
constexpr uint8_t kTraceCompute = 0, kTraceSend = 1, kTraceRecv = 2;  // TraceOp (host/trace/trace_format.hpp)

// Node e's heap of timed completions: keys (cycle << 32 | event) in tr_slots[base, base + n).
SATURN_INLINE void trace_heap_push(const EngineView& v, int e, int t, uint64_t key) {
  const StateView& s = v.state;
  const int T = v.model.trials;
  const int64_t base = v.trial.tr_node_first[e];
  uint32_t i = s.tr_heap_n[at(e, t, T)];
  s.tr_heap_n[at(e, t, T)] = i + 1;
  while (i > 0) {
    const uint32_t parent = (i - 1) / 2;
    const uint64_t above = s.tr_slots[at(base + parent, t, T)];
    if (above <= key) break;
    s.tr_slots[at(base + i, t, T)] = above;
    i = parent;
  }
  s.tr_slots[at(base + i, t, T)] = key;
}

SATURN_INLINE uint64_t trace_heap_pop(const EngineView& v, int e, int t) {
  const StateView& s = v.state;
  const int T = v.model.trials;
  const int64_t base = v.trial.tr_node_first[e];
  const uint32_t n = s.tr_heap_n[at(e, t, T)] - 1;
  s.tr_heap_n[at(e, t, T)] = n;
  const uint64_t top = s.tr_slots[at(base, t, T)];
  const uint64_t last = s.tr_slots[at(base + n, t, T)];
  uint32_t i = 0;
  for (;;) {
    uint32_t child = 2 * i + 1;
    if (child >= n) break;
    uint64_t key = s.tr_slots[at(base + child, t, T)];
    if (child + 1 < n) {
      const uint64_t right = s.tr_slots[at(base + child + 1, t, T)];
      if (right < key) {
        key = right;
        ++child;
      }
    }
    if (last <= key) break;
    s.tr_slots[at(base + i, t, T)] = key;
    i = child;
  }
  if (n > 0) s.tr_slots[at(base + i, t, T)] = last;
  return top;
}

// Event i (of node e) has nothing left to wait for at cycle `now`.
SATURN_INLINE void trace_ready(const EngineView& v, int e, int t, uint32_t i, uint32_t now) {
  const StateView& s = v.state;
  const int T = v.model.trials;
  const uint8_t op = v.trial.tr_ev_op[i];
  if (op == kTraceSend) {
    const int64_t fi = at(e, t, T);
    const uint32_t tail = s.tr_fifo_tail[fi];
    s.tr_slots[at(static_cast<int64_t>(v.trial.tr_fifo_base[e]) + tail, t, T)] = i;
    s.tr_fifo_tail[fi] = tail + 1;
    return;
  }
  const uint64_t at_cycle = op == kTraceCompute ? static_cast<uint64_t>(now) + v.trial.tr_ev_arg[i] : now;
  trace_heap_push(v, e, t, at_cycle << 32 | i);
}

// Event i of node e completed at cycle `now`: its dependents may become ready.
SATURN_INLINE void trace_complete(const EngineView& v, int e, int t, uint32_t i, uint32_t now) {
  const StateView& s = v.state;
  const int T = v.model.trials;
  const int64_t ei = at(e, t, T);
  s.tr_done[ei] += 1;
  if (now > s.tr_finish[ei]) s.tr_finish[ei] = now;
  const uint32_t last = v.trial.tr_succ_first[i + 1];
  for (uint32_t k = v.trial.tr_succ_first[i]; k < last; ++k) {
    const uint32_t j = v.trial.tr_succ[k];
    const int64_t wi = at(j, t, T);
    if (--s.tr_wait[wi] == 0) trace_ready(v, e, t, j, now);
  }
}

// A data packet of `size` flits whose header arrived at e in cycle c, birth word `birth`: a trace
// packet counts toward its recv (the recv's message is in when its last flit has arrived).
SATURN_INLINE void trace_arrive(const EngineView& v, int e, int t, uint32_t c, uint32_t birth, uint32_t size) {
  const StateView& s = v.state;
  const int T = v.model.trials;
  const uint32_t r = birth & ~kTraceTag;
  // The host checked the tables (trace_tables.cpp); a packet that names no recv of this node is a
  // bug, skipped rather than read out of range.
  if (r < v.trial.tr_node_first[e] || r >= v.trial.tr_node_first[e + 1]) return;
  const int64_t wi = at(r, t, T);
  if (s.tr_wait[wi] < size) return;
  s.tr_wait[wi] -= size;
  if (s.tr_wait[wi] != 0) return;
  const uint32_t tail = c + size - 1;  // one flit per cycle after the header
  trace_heap_push(v, e, t, static_cast<uint64_t>(tail) << 32 | r);
  const int64_t ei = at(e, t, T);
  if (tail < s.tr_wake[ei]) s.tr_wake[ei] = tail;
}

// The replay of node e in cycle c (the source phase, before injection): sends whose last packet
// left, completions due, then ready sends into free send queues. Runs where tr_wake <= c.
template <bool kCc>
SATURN_INLINE void trace_step(const EngineView& v, int e, int t, uint32_t c) {
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials;
  const int A = m.active_queues;
  const int64_t ei = at(e, t, T);
  bool sending = false;
  for (int a = 0; a < A; ++a) {
    const int64_t si = at(static_cast<int64_t>(e) * A + a, t, T);
    const uint32_t ev = s.tr_slot_ev[si];
    if (ev == kTraceNone) continue;
    if (s.act_left[at(static_cast<int64_t>(e) * A + a, t, T)] != 0) {
      sending = true;
      continue;
    }
    s.tr_slot_ev[si] = kTraceNone;
    trace_complete(v, e, t, ev, c);
  }
  while (s.tr_heap_n[ei] > 0) {
    const uint64_t top = s.tr_slots[at(static_cast<int64_t>(v.trial.tr_node_first[e]), t, T)];
    if ((top >> 32) > c) break;
    trace_heap_pop(v, e, t);
    trace_complete(v, e, t, static_cast<uint32_t>(top), static_cast<uint32_t>(top >> 32));
  }
  while (s.tr_fifo_head[ei] < s.tr_fifo_tail[ei]) {
    int free_queue = -1;
    for (int a = 0; a < A && free_queue < 0; ++a)
      if (endpoint_slot_free<kCc>(v, at(static_cast<int64_t>(e) * A + a, t, T))) free_queue = a;
    if (free_queue < 0) break;
    const uint32_t head = s.tr_fifo_head[ei];
    const uint32_t ev = static_cast<uint32_t>(s.tr_slots[at(static_cast<int64_t>(v.trial.tr_fifo_base[e]) + head, t, T)]);
    s.tr_fifo_head[ei] = head + 1;
    // endpoint_activate takes the first free queue: free_queue.
    endpoint_activate<kCc>(v, e, t, v.trial.tr_ev_peer[ev], v.trial.tr_ev_arg[ev], kTraceTag | v.trial.tr_ev_match[ev],
                           kUnlimited, 1u << 16, static_cast<uint32_t>(m.data_vc), false, c);
    s.tr_slot_ev[at(static_cast<int64_t>(e) * A + free_queue, t, T)] = ev;
    sending = true;
  }
  uint32_t wake = kUnlimited;
  if (s.tr_heap_n[ei] > 0)
    wake = static_cast<uint32_t>(s.tr_slots[at(static_cast<int64_t>(v.trial.tr_node_first[e]), t, T)] >> 32);
  if (sending || s.tr_fifo_head[ei] < s.tr_fifo_tail[ei]) wake = c + 1;  // watch the send queues every cycle
  s.tr_wake[ei] = wake;
}

// Debug invariants of the replay for trial t (simulation.check_invariants): per node, completed
// events within its count, heap and FIFO within their regions, and every send queue's trace send
// a send event of that node. Returns the number of violations.
SATURN_INLINE uint64_t trace_invariants(const EngineView& v, int t) {
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials;
  uint64_t bad = 0;
  for (int e = 0; e < v.net.num_endpoints; ++e) {
    const int64_t ei = at(e, t, T);
    const uint32_t first = v.trial.tr_node_first[e], end = v.trial.tr_node_first[e + 1];
    const uint32_t fifo = v.trial.tr_fifo_base[e];
    if (s.tr_done[ei] > end - first) ++bad;
    if (s.tr_heap_n[ei] > fifo - first) ++bad;
    if (s.tr_fifo_head[ei] > s.tr_fifo_tail[ei] || s.tr_fifo_tail[ei] > end - fifo) ++bad;
    for (int a = 0; a < m.active_queues; ++a) {
      const uint32_t ev = s.tr_slot_ev[at(static_cast<int64_t>(e) * m.active_queues + a, t, T)];
      if (ev != kTraceNone && (ev < first || ev >= end || v.trial.tr_ev_op[ev] != kTraceSend)) ++bad;
    }
  }
  return bad;
}

}  // namespace saturn
