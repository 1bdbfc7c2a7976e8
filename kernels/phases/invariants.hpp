// Debug-mode model invariants for one trial at the end of a cycle (simulation.check_invariants):
//   - credits never negative and never above the VC buffer (switch.wait_for_tail_credit: never more
//     than one packet's flits owed on a VC);
//   - no input VC holds more flits than its buffer;
//   - credit conservation on every link and VC: upstream credits + flits in the upstream's output
//     queue (CIOQ) + flits buffered downstream + flits on the wire + credits on the wire back = the
//     VC buffer size;
//   - packet conservation (data and control): injected = delivered + resident in buffers + on the wire;
//   - the VOQ structure of every input (kernels/state/voq.hpp): each FIFO's cached head key is its
//     head's, its tail ends it, ready cycles increase along it, in_voq_lo/hi say which are
//     non-empty, and every entry below the high-water mark is free, waiting or being sent.
//     Every cycle the walk reads the VOQs of the outputs in_voq_lo/hi list; every 16th cycle it
//     reads every VOQ, to check that an empty one's tail and cached key are reset too. A VOQ that
//     holds packets while its output is not listed is still caught every cycle: its packets and
//     flits are then missing from packet conservation and from its VC's credit equation.
//   - trace replay: each node's counts and queues within their regions (trace_replay.hpp).
//   - 001's ECN (kernels/cc/ib_ecn.hpp): each input VC's count of flits that arrived and have not
//     started to leave (ecn_waiting, which decides the marks) is the flits in its VOQs that
//     arrived on that VC;
//   - the speculative protocols (kernels/reservation/lhrp_engine.hpp): each endpoint port's
//     last-hop queue (lh_queued, which decides the drops) is the flits queued for it in its
//     switch: in every input's VOQs, and with output queues in its own.
// Each violated check adds one to st_violations[trial].
// The walk goes port by port. check_invariants does one trial (a GPU thread, the CPU element
// split); the CPU block drivers call check_invariants_block, which runs the same per-port checks for
// every trial of a block before moving on, so a port's rings and VOQs (trial-minor columns: all
// trials in the same cache lines) are read from memory once per cycle instead of once per trial.
#pragma once
#include <cstdint>

#include "kernels/common/bits.hpp"
#include "kernels/common/index.hpp"
#include "kernels/reservation/lhrp_engine.hpp"
#include "kernels/state/credit_pool.hpp"
#include "kernels/state/engine_view.hpp"
#include "kernels/state/link_ring.hpp"
#include "kernels/state/output_queue.hpp"
#include "kernels/state/voq.hpp"
#include "kernels/traffic/trace_replay.hpp"

namespace saturn {

// Cycles between walks of every VOQ of every input (c % kInvariantFullScan == 0); the cycles between
// walk only the VOQs of the outputs an input's in_voq_lo/hi list (a dragonfly input has up to
// 15 outputs x 20 VCs, mostly empty: their scan was most of a checked run's time).
constexpr uint32_t kInvariantFullScan = 16;

// One trial's running sums over the walk.
struct InvariantSums {
  uint64_t violations = 0;
  int64_t resident_packets = 0, wire_packets = 0;
};

// Output queues of port gp (output_queue.hpp), trial t: flits per VC and packets, and their
// structure (each ring within K, valid packets on their queue's VC, oq_count their sum).
SATURN_INLINE void output_queue_sums(const EngineView& v, int gp, int t, int64_t* flits, int64_t& packets,
                                     uint64_t& violations) {
  const ModelParams& m = v.model;
  uint32_t total = 0;
  for (int vc = 0; vc < m.vcs; ++vc) {
    flits[vc] = 0;
    const uint32_t n = oq_length(v, gp, vc, t);
    if (n > static_cast<uint32_t>(m.oq_packets)) {
      ++violations;
      continue;
    }
    for (uint32_t k = 0; k < n; ++k) {
      const Packet& pk = oq_at(v, gp, vc, k, t);
      if (!pk.valid() || static_cast<int>(pk.vc()) != vc) ++violations;
      flits[vc] += pk.size_flits();
    }
    total += n;
  }
  if (total != v.state.oq_count[at(gp, t, m.trials)]) ++violations;
  packets += total;
}

// Per ring: the slot already read this cycle is (c + 1) mod its depth (link_ring.hpp).
SATURN_INLINE int ring_slot_consumed(uint32_t c, int depth) {
  return static_cast<int>((c + 1u) % static_cast<uint32_t>(depth));
}

// The checks of input port gp (of switch sw, connected: peer_type not kNone) and of the link into
// it, for trial t.
SATURN_INLINE void check_port_invariants(const EngineView& v, int gp, int sw, int t, uint32_t c, InvariantSums& sums) {
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials, V = m.vcs;
  const auto consumed = [c](int depth) { return ring_slot_consumed(c, depth); };
  uint64_t violations = 0;
  int64_t resident_packets = 0, wire_packets = 0;
  const uint8_t type = v.net.peer_type[gp];
  // Packets on the wire leaving this output port for an endpoint. A ring into a switch input is
  // counted once, by that input below, with its flits (each ring is walked once a cycle).
  // With output queues, the same for the packets queued at it (a switch output's queue is counted
  // with the input it feeds, below, where its flits hold credits).
  const bool cioq = cioq_on(m);
  if (type == static_cast<uint8_t>(PeerType::kEndpoint)) {
    const int out_depth = ring_depth_of(v, gp);
    for (int k = 0; k < out_depth; ++k)
      if (k != consumed(out_depth) && s.link_mark[at(ring_first(v, gp) + k, t, T)] != 0) ++wire_packets;
    int64_t queued_flits[kMaxVcs];
    if (cioq) output_queue_sums(v, gp, t, queued_flits, resident_packets, violations);
  }
  // Buffered flits per VC at this input port: packets waiting in its VOQs ...
  int64_t buffered[kMaxVcs], waiting[kMaxVcs];  // waiting: in the VOQs only, by the VC they arrived on
  for (int vc = 0; vc < V; ++vc) buffered[vc] = waiting[vc] = 0;
  int64_t entries_in_use = 0;
  const int pool = port_entries(v, gp);
  const int base = v.net.sw_port_base[sw], radix = v.net.sw_port_base[sw + 1] - base;
  uint64_t non_empty = 0;
  // The VOQs of the outputs in_voq_lo/hi lists, every cycle; every VOQ every kInvariantFullScan
  // cycles (see the top: an unlisted VOQ holding packets breaks the sums every cycle anyway).
  const uint64_t listed = voq_outputs(v, at(gp, t, T));
  const bool full_scan = c % kInvariantFullScan == 0;
  for (int o = 0; o < m.max_radix; ++o) {
    if (!full_scan && ((listed >> o) & 1u) == 0) continue;
    for (int vc = 0; vc < V; ++vc) {
      const int64_t qi = at(voq_index(m, gp, o, vc), t, T);
      const int head = static_cast<int>(s.voq_ends[qi] & 0xFFFFu), tail = static_cast<int>(s.voq_ends[qi] >> 16);
      const bool listed_vc = ((s.voq_vcs[at(voq_vcs_index(m, gp, o), t, T)] >> vc) & 1u) != 0;
      if (listed_vc != (head != kNoEntry)) ++violations;  // voq_vcs lists exactly the FIFOs holding packets
      if (head == kNoEntry) {
        if (tail != kNoEntry || s.voq_ready[qi] != kEmptyReady || (m.mixed_sizes && s.voq_small[qi] != 0)) ++violations;
        continue;
      }
      non_empty |= 1ull << o;
      const int64_t hi = at(entry_index(v, gp, head), t, T);
      if (s.voq_ready[qi] != s.ent_time[hi] || (ties_stored(m) && s.voq_tie[qi] != s.ent_tie[hi])) ++violations;
      int last = kNoEntry;
      uint32_t previous_ready = 0;
      int64_t length = 0, small = 0;
      for (int e = head; e != kNoEntry && length <= pool; e = s.ent_next[at(entry_index(v, gp, e), t, T)]) {
        const int64_t ei = at(entry_index(v, gp, e), t, T);
        const Packet pk = s.ent_pkt[ei];
        small += is_small_packet(m, pk) ? 1 : 0;
        // Isolation: a packet adapted at this hop sits in its arrival VC, queued for the AFC;
        // dragonfly routing queues a packet on the VC it leaves on (dragonfly_engine.hpp).
        const bool adapted_here = iso_on(m.iso) && m.iso.afi && (pk.flags() & kFlagAdapted) != 0 && vc == V - 1;
        if ((!m.df.on && static_cast<int>(pk.vc()) != vc && !adapted_here) ||
            (length > 0 && s.ent_time[ei] <= previous_ready))
          ++violations;
        previous_ready = s.ent_time[ei];
        buffered[pk.vc()] += m.cc.speculative ? spec_buffer_flits(pk) : pk.size_flits();  // (lhrp_engine.hpp)
        waiting[pk.vc()] += pk.size_flits();
        ++resident_packets;
        ++length;
        last = e;
      }
      if (last != tail || length > pool) ++violations;
      if (m.mixed_sizes && s.voq_small[qi] != small) ++violations;  // voq_find_fit's filter
      if (iso_arn(m.iso) && s.voq_packets[qi] != length) ++violations;  // the detector's count
      entries_in_use += length;
    }
  }
  if (non_empty != listed) ++violations;
  if (m.cc.ecn)  // (ib_ecn.hpp: counted as the header arrives, off as the packet starts to leave)
    for (int vc = 0; vc < V; ++vc)
      if (static_cast<int64_t>(s.cc.ecn_waiting[at(static_cast<int64_t>(gp) * V + vc, t, T)]) != waiting[vc]) ++violations;
  // ... and packets being sent from it, recorded by the outputs of its switch. A departing
  // packet's credits went back in the cycle its tail left (free cycle - 1).
  for (int o = 0; o < radix; ++o) {
    const uint32_t src = s.out_src[at(base + o, t, T)];
    if (src == kNoSource || static_cast<int>(src >> 16) != gp - base) continue;
    const uint32_t free_at = xbar_busy_until(v)[at(base + o, t, T)];
    if (free_at <= c) ++violations;  // its entry should have been freed
    const Packet pk = s.ent_pkt[at(entry_index(v, gp, static_cast<int>(src & 0xFFFFu)), t, T)];
    if (free_at > c + 1) buffered[pk.vc()] += pk.size_flits();
    ++entries_in_use;
  }
  int64_t free_entries = 0;
  const uint32_t alloc = s.in_alloc[at(gp, t, T)];
  free_entries += popcount64(s.in_free_lo[at(gp, t, T)] & low_entries(pool));
  for (int e = static_cast<int>(alloc & 0xFFFFu); e != kNoEntry && free_entries <= pool;
       e = s.ent_next[at(entry_index(v, gp, e), t, T)])
    ++free_entries;
  const int64_t ever_used = (pool < 32 ? pool : 32) + static_cast<int64_t>(alloc >> 16);
  if (entries_in_use + free_entries != ever_used) ++violations;
  // The link into this input: from a switch output port or an endpoint.
  const int32_t up = v.net.peer[gp];
  const bool from_switch = type == static_cast<uint8_t>(PeerType::kSwitch);
  const int64_t up_first = from_switch ? ring_first(v, up) : inj_ring_first(v, up);
  const int up_depth = from_switch ? ring_depth_of(v, up) : ring_depth_of(v, gp);
  const int in_depth = ring_depth_of(v, gp);
  // One pass over the link ring for all VCs (a global link's ring is 1,000 slots deep).
  int64_t wire_flits[kMaxVcs], wire_credits[kMaxVcs], queued_flits[kMaxVcs];
  for (int vc = 0; vc < V; ++vc) wire_flits[vc] = queued_flits[vc] = 0;
  if (cioq && from_switch) output_queue_sums(v, up, t, queued_flits, resident_packets, violations);
  for (int k = 0; k < up_depth; ++k) {
    if (k == consumed(up_depth)) continue;
    if ((from_switch ? s.link_mark : s.inj_mark)[at(up_first + k, t, T)] == 0) continue;  // (ring_marks.hpp)
    const Packet pk = from_switch ? s.link[at(up_first + k, t, T)] : s.inj_link[at(up_first + k, t, T)];
    if (!pk.valid()) ++violations;  // a marked slot holds a packet
    ++wire_packets;
    if (static_cast<int>(pk.vc()) < V) wire_flits[pk.vc()] += pk.size_flits();
  }
  // Credits: every marked slot summed per VC (ring_marks.hpp), less the slot already read.
  const int64_t in_first = ring_first(v, gp);
  const int in_read = consumed(in_depth);
  for (int vc = 0; vc < V; ++vc) wire_credits[vc] = 0;
  for (int k = 0; k < in_depth; ++k) {
    if (k == in_read || s.credit_mark[at(in_first + k, t, T)] == 0) continue;
    for (int vc = 0; vc < V; ++vc) wire_credits[vc] += s.credit[at((in_first + k) * V + vc, t, T)];
  }
  const CreditBooks books = from_switch ? out_books(s) : ep_books(s);
  const int32_t used = pool_on(m) ? pool_used(m, books, up, t) : 0;
  if (used > m.pool_flits) ++violations;  // (0 without a pool)
  int64_t port_flits = 0;
  for (int vc = 0; vc < V; ++vc) {
    const int64_t bi = at(static_cast<int64_t>(up) * V + vc, t, T);
    const int64_t credits = books.credits[bi];
    const int capacity = port_vc_capacity(v, gp, vc);
    if (credits < 0 || credits > capacity) ++violations;
    if (buffered[vc] > capacity) ++violations;
    // switch.wait_for_tail_credit (vc_allocation.hpp): a VC is taken only with all its credits back,
    // so it never holds more than one packet between the sender and the downstream buffer.
    if (m.wait_tail_credit && capacity - credits > max_packet_flits(m)) ++violations;
    port_flits += buffered[vc];
    const int64_t held = queued_flits[vc] + buffered[vc] + wire_flits[vc] + wire_credits[vc];
    if (pool_on(m)) {  // the books (kernels/state/credit_pool.hpp): owed = what is held, counters derived
      const int32_t owed = books.owed[bi];
      if (owed < 0 || owed > capacity || held != owed || credits != pool_credits(m, owed, used)) ++violations;
    } else if (credits + held != capacity) {
      ++violations;
    }
  }
  if (pool_on(m) && port_flits > static_cast<int64_t>(V) * m.vc_min_flits + m.pool_flits) ++violations;
  sums.violations += violations;
  sums.resident_packets += resident_packets;
  sums.wire_packets += wire_packets;
}

// The speculative protocols' last-hop queues of switch sw, trial t (see the top): the violations.
SATURN_INLINE uint64_t last_hop_queue_violations(const EngineView& v, int sw, int t) {
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials;
  const int base = v.net.sw_port_base[sw], radix = v.net.sw_port_base[sw + 1] - base;
  uint64_t violations = 0;
  for (int o = 0; o < radix; ++o) {
    const int go = base + o;
    if (v.net.peer_type[go] != static_cast<uint8_t>(PeerType::kEndpoint)) continue;
    int64_t queued = 0;
    for (int i = 0; i < radix; ++i) {
      const int gp = base + i;
      if (v.net.peer_type[gp] == static_cast<uint8_t>(PeerType::kNone)) continue;
      const int pool = port_entries(v, gp);
      for (uint32_t vcs = s.voq_vcs[at(voq_vcs_index(m, gp, o), t, T)]; vcs != 0; vcs &= vcs - 1) {
        int length = 0;  // (bounded: a corrupted FIFO is the port walk's to report)
        for (int e = voq_head(v, voq_index(m, gp, o, lowest_bit(vcs)), t); e != kNoEntry && length <= pool;
             e = s.ent_next[at(entry_index(v, gp, e), t, T)], ++length)
          queued += s.ent_pkt[at(entry_index(v, gp, e), t, T)].size_flits();
      }
    }
    if (cioq_on(m)) {  // (the queue's structure is the port walk's to report)
      int64_t oq_flits[kMaxVcs], oq_packets = 0;
      uint64_t oq_structure = 0;
      output_queue_sums(v, go, t, oq_flits, oq_packets, oq_structure);
      for (int vc = 0; vc < m.vcs; ++vc) queued += oq_flits[vc];
    }
    if (queued != static_cast<int64_t>(s.cc.lh_queued[at(go, t, T)])) ++violations;
  }
  return violations;
}

// The endpoint checks and packet conservation, after every port of trial t was walked.
SATURN_INLINE void finish_invariants(const EngineView& v, int t, uint32_t c, const InvariantSums& sums) {
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials;
  const auto consumed = [c](int depth) { return ring_slot_consumed(c, depth); };
  uint64_t violations = sums.violations;
  int64_t wire_packets = sums.wire_packets;
  int64_t injected = 0, delivered = 0;
  for (int e = 0; e < v.net.num_endpoints; ++e) {
    injected += static_cast<int64_t>(s.st_inj_packets[at(e, t, T)] + s.cc.st_ctrl_injected[at(e, t, T)]);
    delivered += static_cast<int64_t>(s.st_del_packets[at(e, t, T)] + s.cc.st_ctrl_delivered[at(e, t, T)]);
    // An injection link into its switch port was counted with that input's ring above.
    const int port = v.net.ep_port[e];
    if (port >= 0 && v.net.peer_type[port] == static_cast<uint8_t>(PeerType::kEndpoint) && v.net.peer[port] == e)
      continue;
    const int depth = ring_depth_of(v, port);
    for (int k = 0; k < depth; ++k)
      if (k != consumed(depth) && s.inj_mark[at(inj_ring_first(v, e) + k, t, T)] != 0) ++wire_packets;
  }
  if (injected != delivered + sums.resident_packets + wire_packets) ++violations;
  if (m.trace) violations += trace_invariants(v, t);
  s.st_violations[t] += violations;
}

// Every connected port in switch order with its switch: visit(gp, sw).
template <class Visit>
SATURN_INLINE void for_each_connected_port(const EngineView& v, Visit&& visit) {
  int sw = 0;  // the switch of port gp (ports in switch order: sw only moves on)
  for (int gp = 0; gp < v.net.num_ports; ++gp) {
    if (v.net.peer_type[gp] == static_cast<uint8_t>(PeerType::kNone)) continue;
    while (v.net.sw_port_base[sw + 1] <= gp) ++sw;
    visit(gp, sw);
  }
}

SATURN_INLINE void check_invariants(const EngineView& v, int t, uint32_t c) {
  InvariantSums sums;
  for_each_connected_port(v, [&](int gp, int sw) { check_port_invariants(v, gp, sw, t, c, sums); });
  if (v.model.cc.speculative)
    for (int sw = 0; sw < v.net.num_switches; ++sw) sums.violations += last_hop_queue_violations(v, sw, t);
  finish_invariants(v, t, c, sums);
}

// CPU: trials [t0, t1) at once, port by port (see the top). The same checks and sums as
// check_invariants on each trial, so the same st_violations.
constexpr int kInvariantBlockTrials = 16;
inline void check_invariants_block(const EngineView& v, int t0, int t1, uint32_t c) {
  for (int b0 = t0; b0 < t1; b0 += kInvariantBlockTrials) {
    const int n = t1 - b0 < kInvariantBlockTrials ? t1 - b0 : kInvariantBlockTrials;
    InvariantSums sums[kInvariantBlockTrials];
    for_each_connected_port(v, [&](int gp, int sw) {
      for (int k = 0; k < n; ++k) check_port_invariants(v, gp, sw, b0 + k, c, sums[k]);
    });
    if (v.model.cc.speculative)
      for (int sw = 0; sw < v.net.num_switches; ++sw)
        for (int k = 0; k < n; ++k) sums[k].violations += last_hop_queue_violations(v, sw, b0 + k);
    for (int k = 0; k < n; ++k) finish_invariants(v, b0 + k, c, sums[k]);
  }
}

}  // namespace saturn
