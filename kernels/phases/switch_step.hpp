// One switch of one trial for one cycle (owner computes: writes only this switch's ports, its
// outgoing link slots and its inputs' credit channels). Order inside the cycle:
//   1. per port: free the entries whose tail has left (found through the outputs sending them,
//      kernels/state/voq.hpp), note the credits of tails leaving now, accept the arriving header
//      into a free entry, route it and append it to its VOQ (virtual cut-through: whole-packet
//      space was reserved by credits), add the credits the downstream returned, note whether the
//      output is idle;
//   2. allocation: every idle output picks one eligible VOQ head (output_key.hpp), subject to the
//      input's read ports (crossbar speedup) and downstream credits for the packet's VC;
//   3. transmission: winners go on the link (one slot written per output every cycle), and each
//      input returns the credits of the packets whose tail leaves its buffer in this cycle.
// Models PAPERS-SPEC M7 (input-buffered, shared VOQ buffer, FCFS, infinite speedup), M8's
// speedup 1 and FIFO with bounded bypass, M11 (credit VCT: credits return as the tail leaves),
// M12 (VC priority classes), and the congestion marking of kernels/cc/marking.hpp.
#pragma once
#include <cstdint>

#include "kernels/arbiters/fifo_bypass.hpp"
#include "kernels/arbiters/output_key.hpp"
#include "kernels/cc/marking.hpp"
#include "kernels/common/bits.hpp"
#include "kernels/common/hash.hpp"
#include "kernels/common/index.hpp"
#include "kernels/routing/route.hpp"
#include "kernels/state/engine_view.hpp"
#include "kernels/state/ring_marks.hpp"
#include "kernels/state/voq.hpp"

namespace saturn {

// Per-(switch, trial) working state of one step; kVcs as in switch_port_update.
template <int kVcs>
struct SwitchScratch {
  uint64_t sending[kMaxRadix];         // bit o: output o is sending a packet of input p (tail not yet out)
  uint64_t best_key[kMaxRadix];
  uint32_t freed[kMaxRadix][kVcs > 0 ? kVcs : kMaxVcs];  // flits whose tail leaves input p now, per VC
  uint64_t head_key[kMaxRadix];        // kFifoBypass: the oldest packet waiting for each output
  int32_t head_id[kMaxRadix];          // its input << 16 | entry, -1 = none
  int8_t reserved_by[kMaxRadix];       // kFifoBypass: the output an input must serve next, -1 = none
  uint64_t input_trigger, output_trigger;  // outputs made congested this cycle (marking.hpp)
  int8_t best_input[kMaxRadix];
  int8_t best_vc[kMaxRadix];
  uint16_t best_entry[kMaxRadix];      // kNoEntry = the head of VOQ (best_input, o, best_vc)
  uint16_t best_prev[kMaxRadix];       // the entry before it in its VOQ, kNoEntry = it is the head
  int8_t read_ports[kMaxRadix];        // sends an input may still start this cycle
  uint8_t peer_type[kMaxRadix];
};

// Step 1 for port p: its input side and the credits/idleness of its output side.
// kVcs > 0 fixes the VC count at compile time (the common single-VC case); 0 = m.vcs.
// `type` is what lies beyond port gp and `up` the ring row of the link into it.
template <int kVcs, bool kCc>
SATURN_INLINE bool switch_port_update(const EngineView& v, SwitchScratch<kVcs>& w, int sw, int p, int gp, uint8_t type,
                                      int64_t up, int t, uint32_t c) {
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials;
  const int V = kVcs > 0 ? kVcs : m.vcs;
  const int base = gp - p;
  const int64_t gi = at(gp, t, T);
  uint32_t* freed = w.freed[p];
  for (int vc = 0; vc < (kVcs > 0 ? kVcs : kMaxVcs); ++vc) freed[vc] = 0;
  // Packets of this input being sent: credits go back as the tail leaves, the entry is freed after.
  for (uint64_t d = w.sending[p]; d != 0; d &= d - 1) {
    const int o = lowest_bit(d);
    const int64_t oi = at(base + o, t, T);
    const uint32_t free_at = s.out_busy_until[oi];
    if (free_at > c + 1) continue;
    const int e = static_cast<int>(s.out_src[oi] & 0xFFFFu);
    if (free_at == c + 1) {  // the tail leaves in this cycle: return its credits now
      const Packet pk = s.ent_pkt[at(entry_index(v, gp, e), t, T)];
      freed[pk.vc()] += pk.size_flits();
    } else {  // (the packet itself is read only where needed: a cache miss per departure)
      if (kCc && m.cc.track_occupancy) cc_packet_left(v, gp, base, o, s.ent_pkt[at(entry_index(v, gp, e), t, T)], t);
      voq_release(v, gp, e, t);
      s.out_src[oi] = kNoSource;
      w.sending[p] &= ~(1ull << o);
    }
  }
  w.peer_type[p] = type;
  bool idle = false;
  if (type != static_cast<uint8_t>(PeerType::kNone)) {
    const bool from_switch = type == static_cast<uint8_t>(PeerType::kSwitch);
    if ((from_switch ? s.link_mark : s.inj_mark)[at(up, t, T)] != 0) {  // marked: it holds a packet (ring_marks.hpp)
      const Packet in = from_switch ? s.link[at(up, t, T)] : s.inj_link[at(up, t, T)];
      const int e = voq_alloc(v, gp, t);
      if (e == kNoEntry) {
        s.st_port_violations[gi] += 1;  // credits make this impossible; count it rather than corrupt state
      } else {
        const int64_t ei = at(entry_index(v, gp, e), t, T);
        s.ent_pkt[ei] = in;
        const int o = route_output(v, sw, in.src(), in.dst(), in.flags(), t, gp, gp - base, c);
        const uint32_t ready = c + static_cast<uint32_t>(m.router_delay);
        const uint32_t tie = m.arbitration != Arbitration::kRoundRobin ? tie_hash(v.trial.seed[t], gp, c) : 0u;
        s.ent_time[ei] = ready;
        s.ent_tie[ei] = tie;
        voq_push(v, gp, o, static_cast<int>(in.vc()), e, t, ready, tie);
        if (kCc && m.cc.track_occupancy) w.output_trigger |= cc_packet_arrived(v, gp, base, o, in, t, c);
      }
    }
    if (kCc && m.cc.track_occupancy) w.input_trigger |= cc_tail_check(v, gp, t, c);
    if (type == static_cast<uint8_t>(PeerType::kSwitch)) {
      // The peer port is also the downstream input of our output: its credits come back on `up`.
      add_marked_credits<ScalarLanes>(s, m, up, out_books(s), gp, V, t);
    }
    idle = s.out_busy_until[at(gp, t, T)] <= c;
    if (kCc && m.arbitration == Arbitration::kFifoBypass) {
      const int r = fifo_bypass_reserved_input(m, s.cc, at(gp, t, T));
      if (r >= 0) w.reserved_by[r] = static_cast<int8_t>(p);
    }
  }
  w.read_ports[p] = static_cast<int8_t>(m.speedup == 0 ? kMaxRadix : m.speedup - popcount64(w.sending[p]));
  w.best_key[p] = ~0ull;
  w.best_input[p] = -1;
  if (kCc) {
    w.head_key[p] = ~0ull;
    w.head_id[p] = -1;
  }
  return idle;
}

// Best candidate per output among inputs that still have a read port (only_output < 0: all): the
// VOQ heads, or where a head is short of credits the first packet behind it that fits (voq.hpp).
template <int kVcs, bool kCc>
SATURN_INLINE void switch_scan(const EngineView& v, SwitchScratch<kVcs>& w, int base, int radix, int t, uint32_t c,
                               uint64_t idle_outputs, int only_output) {
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials;
  const int V = kVcs > 0 ? kVcs : m.vcs;
  const bool fcfs = m.arbitration != Arbitration::kRoundRobin;
  const bool vc_rr = m.vc_arbitration == VcArbitration::kRoundRobin;
  // FIFO with bypass also looks at busy inputs, to find each output's head packet.
  const bool find_head = kCc && m.arbitration == Arbitration::kFifoBypass && only_output < 0;
  if (only_output >= 0) idle_outputs &= 1ull << only_output;
  for (int i = 0; i < radix; ++i) {
    const bool can_send = w.read_ports[i] > 0;
    if (!can_send && !find_head) continue;
    const int gp = base + i;
    uint64_t want = voq_outputs(v, at(gp, t, T)) & idle_outputs;
    if (kCc && m.arbitration == Arbitration::kFifoBypass && w.reserved_by[i] >= 0) want &= 1ull << w.reserved_by[i];
    for (; want != 0; want &= want - 1) {
      const int o = lowest_bit(want);
      const int go = base + o;
      for (int vc = 0; vc < V; ++vc) {
        const int64_t q = voq_index(m, gp, o, vc);
        const int64_t qi = at(q, t, T);
        uint32_t ready = s.voq_ready[qi];
        if (ready > c) continue;  // empty, or its head (hence every packet) not ready yet
        int e = kNoEntry, prev = kNoEntry;  // kNoEntry: the head (its index is read only if needed)
        uint32_t tie = fcfs ? s.voq_tie[qi] : 0u;
        if (w.peer_type[o] == static_cast<uint8_t>(PeerType::kSwitch)) {
          const int32_t credits = s.out_credits[at(static_cast<int64_t>(go) * V + vc, t, T)];
          if (!voq_head_fits(v, gp, q, t, credits)) {
            if (kCc && m.cc.cca) s.cc.out_stalled[at(go, t, T)] = 1;  // waiting for credits: not at line rate
            if (!m.mixed_sizes) continue;
            e = voq_find_fit(v, gp, q, t, c, credits, &prev);
            if (e == kNoEntry) continue;
            const int64_t ei = at(entry_index(v, gp, e), t, T);
            ready = s.ent_time[ei];
            tie = s.ent_tie[ei];
          } else if (kCc && m.cc.cca && m.mixed_sizes && voq_any_short(v, gp, q, t, c, credits)) {
            s.cc.out_stalled[at(go, t, T)] = 1;
          }
        }
        const uint64_t key = output_key(m, vc, vc_rr ? s.out_vc_rr[at(go, t, T)] : 0, i,
                                        fcfs ? 0 : s.out_rr[out_rr_index(m, go, vc, t)], radix, ready, fcfs ? tie : 0u);
        if (find_head && key < w.head_key[o]) {
          w.head_key[o] = key;
          w.head_id[o] = i << 16 | (e == kNoEntry ? voq_head(v, q, t) : e);
        }
        if (!can_send) continue;
        if (key < w.best_key[o]) {
          w.best_key[o] = key;
          w.best_input[o] = static_cast<int8_t>(i);
          w.best_vc[o] = static_cast<int8_t>(vc);
          w.best_entry[o] = static_cast<uint16_t>(e);
          w.best_prev[o] = static_cast<uint16_t>(prev);
        }
      }
    }
  }
}

// Steps 2 and 3 for one trial: allocation, transmission, write-back of the credits.
template <int kVcs, bool kCc>
SATURN_INLINE void switch_allocate(const EngineView& v, SwitchScratch<kVcs>& w, int base, int radix, int t, uint32_t c,
                                   int wslot, uint64_t idle_outputs) {
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials;
  const int V = kVcs > 0 ? kVcs : m.vcs;
  if (idle_outputs != 0) switch_scan<kVcs, kCc>(v, w, base, radix, t, c, idle_outputs, -1);

  // Grant in a rotating output order so no output is always first to claim a shared input.
  // FIFO with bypass: oldest candidate first, so an input that two outputs want sends its older packet.
  const bool by_age = kCc && m.arbitration == Arbitration::kFifoBypass;
  int8_t order[kMaxRadix];
  if (by_age) {
    for (int n = 0, o = static_cast<int>(c % static_cast<uint32_t>(radix)); n < radix; ++n, o = o + 1 == radix ? 0 : o + 1)
      order[n] = static_cast<int8_t>(o);
    for (int n = 1; n < radix; ++n)  // insertion sort by key (stable: ties keep the rotating order)
      for (int j = n; j > 0 && w.best_key[order[j]] < w.best_key[order[j - 1]]; --j) {
        const int8_t x = order[j];
        order[j] = order[j - 1];
        order[j - 1] = x;
      }
  }
  int rotating = static_cast<int>(c % static_cast<uint32_t>(radix));
  for (int n = 0; n < radix; ++n, rotating = rotating + 1 == radix ? 0 : rotating + 1) {
    const int o = by_age ? order[n] : rotating;
    const int go = base + o;
    if (w.peer_type[o] == static_cast<uint8_t>(PeerType::kNone)) continue;
    Packet sent = Packet::empty();
    if ((idle_outputs >> o) & 1ull) {
      if (w.best_input[o] >= 0 && w.read_ports[w.best_input[o]] <= 0) {
        // The input this output wanted used its last read port on an earlier output: rescan.
        w.best_key[o] = ~0ull;
        w.best_input[o] = -1;
        switch_scan<kVcs, kCc>(v, w, base, radix, t, c, 1ull << o, o);
      }
      int i = w.best_input[o];
      if (i >= 0 && w.best_entry[o] == kNoEntry)  // a head: which entry it is
        w.best_entry[o] = static_cast<uint16_t>(voq_head(v, voq_index(m, base + i, o, w.best_vc[o]), t));
      if (i >= 0 && kCc && m.arbitration == Arbitration::kFifoBypass &&
          !fifo_bypass_grant(m, s.cc, at(go, t, T), w.head_id[o], i << 16 | w.best_entry[o]))
        i = -1;  // FIFO with bounded bypass (M8, kernels/arbiters/fifo_bypass.hpp): wait for the head
      if (i >= 0) {
        const int e = w.best_entry[o];
        const int vc = w.best_vc[o];
        sent = s.ent_pkt[at(entry_index(v, base + i, e), t, T)];
        const uint32_t size = sent.size_flits();
        voq_remove(v, base + i, o, vc, e, w.best_prev[o], t);
        w.read_ports[i] -= 1;
        if (size == 1) w.freed[i][vc] += 1;  // the tail leaves in this very cycle
        const int64_t go_i = at(go, t, T);
        s.out_src[go_i] = static_cast<uint32_t>(i) << 16 | static_cast<uint32_t>(e);  // its entry is freed once the tail has left
        s.out_busy_until[go_i] = c + size;
        s.out_busy_cycles[go_i] += size;
        if (m.arbitration == Arbitration::kRoundRobin)
          s.out_rr[out_rr_index(m, go, vc, t)] = static_cast<uint8_t>(i + 1 == radix ? 0 : i + 1);
        if (m.vc_arbitration == VcArbitration::kRoundRobin)
          s.out_vc_rr[go_i] = static_cast<uint8_t>(vc + 1 == V ? 0 : vc + 1);
        if (w.peer_type[o] == static_cast<uint8_t>(PeerType::kSwitch))
          s.out_credits[at(static_cast<int64_t>(go) * V + vc, t, T)] -= static_cast<int32_t>(size);
        if (kCc && cc_departure_hook(m)) cc_departure(v, go, sent, t);
      }
    }
    store_link_slot(s, at(static_cast<int64_t>(go) * m.link_depth + wslot, t, T), sent);
  }

  for (int p = 0; p < radix; ++p) {
    const int gp = base + p;
    if (w.peer_type[p] != static_cast<uint8_t>(PeerType::kNone)) {
      const int64_t slot = static_cast<int64_t>(gp) * m.link_depth + wslot;
      s.credit_mark[at(slot, t, T)] = 1;  // every VC's counter written (ring_marks.hpp)
      for (int vc = 0; vc < V; ++vc) s.credit[at(slot * V + vc, t, T)] = static_cast<uint16_t>(w.freed[p][vc]);
    }
  }
}

// One switch of one trial for one cycle. kCc = false compiles out every congestion-control path
// (bounded bypass, marking, CCA): the launch layer picks it when the model uses none of them.
template <int kVcs, bool kCc>
SATURN_INLINE void switch_step(const EngineView& v, int sw, int t, uint32_t c) {
  const ModelParams& m = v.model;
  const int base = v.net.sw_port_base[sw];
  const int radix = v.net.sw_port_base[sw + 1] - base;
  const int wslot = static_cast<int>(c % static_cast<uint32_t>(m.link_depth));
  const int rslot = static_cast<int>((c + 1u) % static_cast<uint32_t>(m.link_depth));  // written L = D-1 ago

  SwitchScratch<kVcs> w;
  w.input_trigger = 0;
  w.output_trigger = 0;
  if (kCc && m.arbitration == Arbitration::kFifoBypass)
    for (int p = 0; p < radix; ++p) w.reserved_by[p] = -1;
  for (int p = 0; p < radix; ++p) w.sending[p] = 0;
  for (int o = 0; o < radix; ++o) {  // which outputs are sending which input's packets
    const uint32_t src = v.state.out_src[at(base + o, t, m.trials)];
    if (src != kNoSource) w.sending[src >> 16] |= 1ull << o;
  }
  uint64_t idle = 0;
  for (int p = 0; p < radix; ++p) {
    const int gp = base + p;
    const uint8_t type = v.net.peer_type[gp];
    const int64_t up = type == static_cast<uint8_t>(PeerType::kNone)
                           ? 0
                           : static_cast<int64_t>(v.net.peer[gp]) * m.link_depth + rslot;
    if (switch_port_update<kVcs, kCc>(v, w, sw, p, gp, type, up, t, c)) idle |= 1ull << p;
  }
  if ((w.input_trigger | w.output_trigger) != 0) cc_apply_triggers(v, base, w.input_trigger, w.output_trigger, t);
  switch_allocate<kVcs, kCc>(v, w, base, radix, t, c, wslot, idle);
}

}  // namespace saturn
