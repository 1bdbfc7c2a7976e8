// One switch of one trial for one cycle (owner computes: writes only this switch's ports, its
// outgoing link slots and its inputs' credit channels). Order inside the cycle:
//   1. per port: free slots whose tail has left, note the credits of tails leaving now, accept the
//      arriving header and route it (virtual cut-through: whole-packet space was reserved by
//      credits), add the credits the downstream returned, note whether the output is idle;
//   2. allocation: every idle output picks one eligible packet (output_key.hpp), subject to the
//      input's read ports (crossbar speedup) and downstream credits for the packet's VC;
//   3. transmission: winners go on the link (one slot written per output every cycle), and each
//      input returns the credits of the packets whose tail leaves its buffer in this cycle.
// Models PAPERS-SPEC M7 (input-buffered, shared VOQ buffer, FCFS, infinite speedup), M8's
// speedup 1 and FIFO with bounded bypass, M11 (credit VCT: credits return as the tail leaves),
// M12 (VC priority classes), and the congestion marking of kernels/cc/marking.hpp.
#pragma once
#include <cstdint>

#include "kernels/arbiters/output_key.hpp"
#include "kernels/cc/marking.hpp"
#include "kernels/common/bits.hpp"
#include "kernels/common/hash.hpp"
#include "kernels/common/index.hpp"
#include "kernels/routing/route.hpp"
#include "kernels/state/engine_view.hpp"

namespace saturn {

// Per-(switch, trial) working state of one step; kVcs as in switch_port_update.
template <int kVcs>
struct SwitchScratch {
  uint64_t occupied[kMaxRadix];
  uint64_t departing[kMaxRadix];
  uint64_t best_key[kMaxRadix];
  uint32_t freed[kMaxRadix][kVcs > 0 ? kVcs : kMaxVcs];  // flits whose tail leaves input p now, per VC
  uint64_t head_key[kMaxRadix];        // kFifoBypass: the oldest packet waiting for each output
  int16_t head_id[kMaxRadix];          // its input * 64 + slot, -1 = none
  int8_t reserved_by[kMaxRadix];       // kFifoBypass: the output an input must serve next, -1 = none
  uint64_t input_trigger, output_trigger;  // outputs made congested this cycle (marking.hpp)
  int8_t best_input[kMaxRadix];
  int8_t best_slot[kMaxRadix];
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
  const int64_t gi = at(gp, t, T);
  uint64_t occ = s.in_occupied[gi];
  uint64_t dep = s.in_departing[gi];
  uint32_t* freed = w.freed[p];
  for (int vc = 0; vc < (kVcs > 0 ? kVcs : kMaxVcs); ++vc) freed[vc] = 0;
  for (uint64_t d = dep; d != 0; d &= d - 1) {
    const int k = lowest_bit(d);
    const int64_t si = at(static_cast<int64_t>(gp) * m.slots + k, t, T);
    const uint32_t free_at = s.slot_time[si];
    if (free_at == c + 1) {  // the tail leaves in this cycle: return its credits now
      const Packet pk = s.slot_pkt[si];
      freed[pk.vc()] += pk.size_flits();
    } else if (free_at <= c) {
      if (kCc && m.cc.track_occupancy) cc_packet_left(v, gp, gp - p, s.slot_out[si], s.slot_pkt[si], t);
      occ &= ~(1ull << k);
      dep &= ~(1ull << k);
    }
  }
  w.peer_type[p] = type;
  bool idle = false;
  if (type != static_cast<uint8_t>(PeerType::kNone)) {
    const Packet in = type == static_cast<uint8_t>(PeerType::kSwitch) ? s.link[at(up, t, T)] : s.inj_link[at(up, t, T)];
    if (in.valid()) {
      const uint64_t free_slots = ~occ & (m.slots == 64 ? ~0ull : ((1ull << m.slots) - 1));
      if (free_slots == 0) {
        s.st_port_violations[gi] += 1;  // credits make this impossible; count it rather than corrupt state
      } else {
        const int k = lowest_bit(free_slots);
        const int64_t si = at(static_cast<int64_t>(gp) * m.slots + k, t, T);
        s.slot_pkt[si] = in;
        const int o = route_output(v, sw, in.dst(), t, gp, c);
        s.slot_out[si] = static_cast<uint8_t>(o);
        s.slot_time[si] = c + static_cast<uint32_t>(m.router_delay);
        if (m.arbitration != Arbitration::kRoundRobin) s.slot_tie[si] = tie_hash(v.trial.seed[t], gp, c);
        occ |= 1ull << k;
        if (kCc && m.cc.track_occupancy) w.output_trigger |= cc_packet_arrived(v, gp, gp - p, o, in, t, c);
      }
    }
    if (kCc && m.cc.track_occupancy) w.input_trigger |= cc_tail_check(v, gp, occ, dep, t, c);
    if (type == static_cast<uint8_t>(PeerType::kSwitch)) {
      // The peer port is also the downstream input of our output: its credits come back on `up`.
      for (int vc = 0; vc < V; ++vc)
        s.out_credits[at(static_cast<int64_t>(gp) * V + vc, t, T)] += s.credit[at(up * V + vc, t, T)];
    }
    idle = s.out_busy_until[at(gp, t, T)] <= c;
    if (kCc && m.arbitration == Arbitration::kFifoBypass && s.cc.out_bypass[at(gp, t, T)] >= m.cc.bypass_limit &&
        s.cc.out_head[at(gp, t, T)] != 0)
      w.reserved_by[(s.cc.out_head[at(gp, t, T)] - 1) / kMaxSlots] = static_cast<int8_t>(p);
  }
  w.occupied[p] = occ;
  w.departing[p] = dep;
  w.read_ports[p] = static_cast<int8_t>(m.speedup == 0 ? kMaxSlots : m.speedup - popcount64(dep));
  w.best_key[p] = ~0ull;
  w.best_input[p] = -1;
  if (kCc) {
    w.head_key[p] = ~0ull;
    w.head_id[p] = -1;
  }
  return idle;
}

// Best candidate per output among inputs that still have a read port (only_output < 0: all).
template <int kVcs, bool kCc>
SATURN_INLINE void switch_scan(const EngineView& v, SwitchScratch<kVcs>& w, int base, int radix, int t, uint32_t c,
                               uint64_t idle_outputs, int only_output) {
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials;
  const bool fcfs = m.arbitration != Arbitration::kRoundRobin;
  const bool vc_rr = m.vc_arbitration == VcArbitration::kRoundRobin;
  // FIFO with bypass also looks at busy inputs, to find each output's head packet.
  const bool find_head = kCc && m.arbitration == Arbitration::kFifoBypass && only_output < 0;
  for (int i = 0; i < radix; ++i) {
    const bool can_send = w.read_ports[i] > 0;
    if (!can_send && !find_head) continue;
    const int gp = base + i;
    for (uint64_t r = w.occupied[i] & ~w.departing[i]; r != 0; r &= r - 1) {
      const int k = lowest_bit(r);
      const int64_t si = at(static_cast<int64_t>(gp) * m.slots + k, t, T);
      const uint32_t ready = s.slot_time[si];
      if (ready > c) continue;
      const int o = s.slot_out[si];
      if (!((idle_outputs >> o) & 1ull) || (only_output >= 0 && o != only_output)) continue;
      if (kCc && m.arbitration == Arbitration::kFifoBypass && w.reserved_by[i] >= 0 && w.reserved_by[i] != o) continue;
      const Packet pk = s.slot_pkt[si];
      const int vc = static_cast<int>(pk.vc());
      const int go = base + o;
      if (w.peer_type[o] == static_cast<uint8_t>(PeerType::kSwitch) &&
          s.out_credits[at(static_cast<int64_t>(go) * m.vcs + vc, t, T)] < static_cast<int32_t>(pk.size_flits())) {
        if (kCc && m.cc.cca) s.cc.out_stalled[at(go, t, T)] = 1;  // waiting for credits: not at line rate
        continue;
      }
      const uint64_t key = output_key(m, vc, vc_rr ? s.out_vc_rr[at(go, t, T)] : 0, i,
                                      fcfs ? 0 : s.out_rr[at(go, t, T)], radix, ready, fcfs ? s.slot_tie[si] : 0u);
      if (find_head && key < w.head_key[o]) {
        w.head_key[o] = key;
        w.head_id[o] = static_cast<int16_t>(i * kMaxSlots + k);
      }
      if (!can_send) continue;
      if (key < w.best_key[o]) {
        w.best_key[o] = key;
        w.best_input[o] = static_cast<int8_t>(i);
        w.best_slot[o] = static_cast<int8_t>(k);
      }
    }
  }
}

// FIFO with bounded bypass (M8): may output o send its best candidate (w.best_*) now? Yes if it
// is the head (the oldest packet waiting for o); otherwise the head's input is busy and the
// candidate bypasses it, at most bypass_limit times per head. After that the output waits for
// the head, and the head's input serves no other output first (switch_port_update reserves it).
template <int kVcs>
SATURN_INLINE bool fifo_bypass_allows(const EngineView& v, const SwitchScratch<kVcs>& w, int go, int o, int t) {
  const CcState& s = v.state.cc;
  const int64_t oi = at(go, t, v.model.trials);
  const int head = w.head_id[o];
  if (head == w.best_input[o] * kMaxSlots + w.best_slot[o]) {
    s.out_head[oi] = 0;  // the head leaves
    s.out_bypass[oi] = 0;
    return true;
  }
  const uint16_t tag = static_cast<uint16_t>(head + 1);
  if (s.out_head[oi] != tag) {  // a new head: its count starts now
    s.out_head[oi] = tag;
    s.out_bypass[oi] = 0;
  }
  if (s.out_bypass[oi] >= v.model.cc.bypass_limit) return false;
  s.out_bypass[oi] += 1;
  return true;
}

// Steps 2 and 3 for one trial: allocation, transmission, write-back of the inputs and credits.
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
      if (i >= 0 && kCc && m.arbitration == Arbitration::kFifoBypass && !fifo_bypass_allows(v, w, go, o, t)) i = -1;
      if (i >= 0) {
        const int k = w.best_slot[o];
        const int64_t si = at(static_cast<int64_t>(base + i) * m.slots + k, t, T);
        sent = s.slot_pkt[si];
        const uint32_t size = sent.size_flits();
        const uint32_t vc = sent.vc();
        w.departing[i] |= 1ull << k;
        w.read_ports[i] -= 1;
        s.slot_time[si] = c + size;         // the slot is free once the tail has left
        if (size == 1) w.freed[i][vc] += 1;  // ... and the tail leaves in this very cycle
        const int64_t go_i = at(go, t, T);
        s.out_busy_until[go_i] = c + size;
        s.out_busy_cycles[go_i] += size;
        if (m.arbitration == Arbitration::kRoundRobin) s.out_rr[go_i] = static_cast<uint8_t>(i + 1 == radix ? 0 : i + 1);
        if (m.vc_arbitration == VcArbitration::kRoundRobin)
          s.out_vc_rr[go_i] = static_cast<uint8_t>(static_cast<int>(vc) + 1 == V ? 0 : vc + 1);
        if (w.peer_type[o] == static_cast<uint8_t>(PeerType::kSwitch))
          s.out_credits[at(static_cast<int64_t>(go) * V + vc, t, T)] -= static_cast<int32_t>(size);
        if (kCc && (m.cc.marking != Marking::kNone || m.cc.cca)) cc_departure(v, go, sent, t);
      }
    }
    s.link[at(static_cast<int64_t>(go) * m.link_depth + wslot, t, T)] = sent;
  }

  for (int p = 0; p < radix; ++p) {
    const int gp = base + p;
    const int64_t gi = at(gp, t, T);
    s.in_occupied[gi] = w.occupied[p];
    s.in_departing[gi] = w.departing[p];
    if (w.peer_type[p] != static_cast<uint8_t>(PeerType::kNone))
      for (int vc = 0; vc < V; ++vc)
        s.credit[at((static_cast<int64_t>(gp) * m.link_depth + wslot) * V + vc, t, T)] =
            static_cast<uint16_t>(w.freed[p][vc]);
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
