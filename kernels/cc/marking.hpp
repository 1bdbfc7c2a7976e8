// Switch-side congestion detection (PAPERS-SPEC M22-M25), called from the switch phases
// (switch_cc_lanes.hpp, and switch_grant.hpp at departure) for one switch of one trial. Occupancy counts whole packets from header arrival to tail departure
// (U5, U13); "full" = the VC buffer cannot take one more MTU packet once a tail has arrived (M8).
//   naive (M23):        a full input buffer marks the packets waiting in it;
//   input (M24):        a full input buffer makes every output one of its waiting packets wants
//                       congested: cnt2 <- cnt1, and the output marks its next cnt2 departures;
//   input_output (M25): also an arrival that leaves an output's cnt1 above the output threshold
//                       (">"; level-triggered, or edge: only the arrival that crosses it):
//                       cnt2 <- max(cnt2, cnt1);
//   CCA (M22):          an output with more than the threshold of packets waiting, sending at
//                       line rate (no wait for credits since its last departure), is a root and
//                       FECN-marks one departure in every marking period.
// Control packets (ACK, BECN) are neither counted nor marked.
#pragma once
#include <cstdint>

#include "kernels/cc/saa_probes.hpp"
#include "kernels/common/bits.hpp"
#include "kernels/common/index.hpp"
#include "kernels/state/engine_view.hpp"
#include "kernels/state/voq.hpp"

namespace saturn {

// The tail of packet `pk` (sent by local output o) left input gp of the switch whose ports start at base.
SATURN_INLINE void cc_packet_left(const EngineView& v, int gp, int base, int o, const Packet& pk, int t) {
  const ModelParams& m = v.model;
  const CcState& s = v.state.cc;
  const int T = m.trials;
  s.in_flits[at(static_cast<int64_t>(gp) * m.vcs + pk.vc(), t, T)] -= static_cast<uint16_t>(pk.size_flits());
  if (!pk.control()) s.out_cnt1[at(base + o, t, T)] -= 1;
}

// Header of `pk` arrived at input gp, routed to local output o. Returns the output-trigger bit.
SATURN_INLINE uint64_t cc_packet_arrived(const EngineView& v, int gp, int base, int o, const Packet& pk, int t,
                                         uint32_t c) {
  const ModelParams& m = v.model;
  const CcState& s = v.state.cc;
  const int T = m.trials;
  s.in_flits[at(static_cast<int64_t>(gp) * m.vcs + pk.vc(), t, T)] += static_cast<uint16_t>(pk.size_flits());
  s.in_tail_at[at(gp, t, T)] = c + pk.size_flits() - 1;
  s.in_tail_vc[at(gp, t, T)] = static_cast<uint8_t>(pk.vc());
  if (pk.control()) return 0;
  const int64_t oi = at(base + o, t, T);
  const uint16_t before = s.out_cnt1[oi];
  s.out_cnt1[oi] = static_cast<uint16_t>(before + 1);
  const int threshold = v.trial.output_threshold[t];  // a per-trial key
  const bool above = before + 1 > threshold;
  const bool fires = m.cc.marking == Marking::kInputOutput && above && (m.cc.output_level || before <= threshold);
  return fires ? 1ull << o : 0ull;
}

// A VC buffer holding more flits than this cannot take one more MTU packet: it is full.
SATURN_INLINE int cc_full_above(const ModelParams& m, int vc) { return vc_capacity(m, vc) - m.mtu_flits; }

SATURN_INLINE bool cc_input_full(const EngineView& v, int gp, int vc, int t) {
  const ModelParams& m = v.model;
  return v.state.cc.in_flits[at(static_cast<int64_t>(gp) * m.vcs + vc, t, m.trials)] > cc_full_above(m, vc);
}

// Input port gp after its arrivals this cycle: if a tail landed now and left the buffer full,
// apply the naive marks or return the outputs the input trigger makes congested. The packets it
// looks at are those waiting in the port's VOQs (kernels/state/voq.hpp): packets being sent
// cannot be marked.
SATURN_INLINE uint64_t cc_tail_marks(const EngineView& v, int gp, int t, uint32_t c) {
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials;
  const int64_t gi = at(gp, t, T);
  if (m.cc.marking == Marking::kNone || s.cc.in_tail_at[gi] != c) return 0;
  const int vc = s.cc.in_tail_vc[gi];
  if (!cc_input_full(v, gp, vc, t)) return 0;
  uint64_t congested = 0;
  for (uint64_t r = voq_outputs(v, gi); r != 0; r &= r - 1) {
    const int o = lowest_bit(r);
    for (int e = voq_head(v, voq_index(m, gp, o, vc), t); e != kNoEntry;
         e = s.ent_next[at(entry_index(v, gp, e), t, T)]) {
      const int64_t ei = at(entry_index(v, gp, e), t, T);
      Packet pk = s.ent_pkt[ei];
      if (pk.control()) continue;
      if (m.cc.marking != Marking::kNaive) {
        congested |= 1ull << o;
        break;
      }
      pk.add_flags(kFlagEcn);
      s.ent_pkt[ei] = pk;
    }
  }
  return congested;
}

// Port gp's per-cycle check: the full-buffer statistics (stats.per_link), then cc_tail_marks.
SATURN_INLINE uint64_t cc_tail_check(const EngineView& v, int gp, int t, uint32_t c) {
  const ModelParams& m = v.model;
  if (m.cc.full_stats && cc_input_full(v, gp, m.data_vc, t)) v.state.cc.st_full_cycles[at(gp, t, m.trials)] += 1;
  return cc_tail_marks(v, gp, t, c);
}

// After all inputs: the triggers of this cycle load the outputs' cnt2.
SATURN_INLINE void cc_apply_triggers(const EngineView& v, int base, uint64_t input_trigger, uint64_t output_trigger,
                                     int t) {
  const CcState& s = v.state.cc;
  const int T = v.model.trials;
  for (uint64_t r = input_trigger; r != 0; r &= r - 1) {
    const int64_t oi = at(base + lowest_bit(r), t, T);
    s.out_cnt2[oi] = s.out_cnt1[oi];  // re-trigger overwrites (U13)
  }
  for (uint64_t r = output_trigger & ~input_trigger; r != 0; r &= r - 1) {
    const int64_t oi = at(base + lowest_bit(r), t, T);
    if (s.out_cnt1[oi] > s.out_cnt2[oi]) s.out_cnt2[oi] = s.out_cnt1[oi];
  }
}

// Whether departures go through cc_departure: marks, CCA roots, SAA's link registers.
SATURN_INLINE bool cc_departure_hook(const ModelParams& m) {
  return m.cc.marking != Marking::kNone || m.cc.cca || m.cc.saa_probes;
}

// A packet starts to leave output go: SAA's packets visit the link's register; a data packet: mark it if the output owes marks or is a CCA root.
SATURN_INLINE void cc_departure(const EngineView& v, int go, Packet& sent, int t) {
  const ModelParams& m = v.model;
  const CcState& s = v.state.cc;
  if (m.cc.saa_probes) saa_departure(v, go, sent, t);  // (with no marking: the config allows neither with it)
  if (sent.control()) return;
  const int64_t oi = at(go, t, m.trials);
  if (m.cc.marking == Marking::kInput || m.cc.marking == Marking::kInputOutput) {
    if (s.out_cnt2[oi] > 0) {
      s.out_cnt2[oi] -= 1;
      sent.add_flags(kFlagEcn);
    }
  }
  if (m.cc.cca) {
    const bool root = s.out_cnt1[oi] > m.cc.cca_threshold_packets && s.out_stalled[oi] == 0;
    s.out_stalled[oi] = 0;
    if (root) {
      const uint16_t n = static_cast<uint16_t>(s.out_mark_count[oi] + 1);
      if (n >= m.cc.cca_marking_period) {
        sent.add_flags(kFlagEcn);
        s.out_mark_count[oi] = 0;
      } else {
        s.out_mark_count[oi] = n;
      }
    }
  }
}

}  // namespace saturn
