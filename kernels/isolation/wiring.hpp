// Congestion isolation wired into the packet phases (Rocher-Gonzalez et al. 2021; PAPERS-SPEC M10,
// M14-M16, M37-M40; docs/model/isolation.md "Wiring"): the engine glue around the tested
// components of this folder. Everything here runs per trial (scalar), only where
// ModelParams::iso.technique is not kNone; the phases call it through small hooks:
//   - endpoint_activate (endpoint_step.hpp): iso_message_vc, the scheme's VC at injection;
//   - switch_inputs, per port before the arrival: iso_arn_port (clear this cycle's ARN slot of the
//     port, take an ARN arriving from the peer switch into the table: Pseudo-code 4, first branch);
//   - switch_inputs, per arriving data packet: iso_route (D-mod-K, oblivious, Adaptive-Th(+AFI) or
//     ARN(+AFI) Pseudo-code 4), which returns the output and the VOQ's VC, and iso_enqueued;
//   - switch_inputs, at the end: iso_detect (the detector of every output, every period);
//   - grant_depart (switch_depart.hpp): iso_departed (VOQ count, the packet leaves in its VOQ's VC).
// VOQs are indexed by the packet's *next* VC (where it will sit downstream: the AFC once adapted);
// the entry keeps the packet as it arrived, so its header VC is the *local* VC (the buffer it
// occupies here) and credits return on it. The two differ only at the hop that adapts a packet.
#pragma once
#include <cstdint>

#include "kernels/common/bits.hpp"
#include "kernels/common/index.hpp"
#include "kernels/common/rng.hpp"
#include "kernels/isolation/afi.hpp"
#include "kernels/isolation/arn_table.hpp"
#include "kernels/isolation/detector.hpp"
#include "kernels/isolation/queue_schemes.hpp"
#include "kernels/state/engine_view.hpp"
#include "kernels/state/voq.hpp"

namespace saturn {

SATURN_INLINE ArnTable iso_table(const EngineView& v, int sw, int t) {
  const int T = v.model.trials, E = v.model.iso.arn_entries;
  return ArnTable{v.state.arn_entry + at(static_cast<int64_t>(sw) * E, t, T), T, E};
}

// ARN on the control lane (arn_link): dst | vc << 20 | info << 24 | 1 << 31 | ARNid << 32.
SATURN_INLINE uint64_t iso_arn_word(const ArnInfo& a) {
  return (a.destination & 0xFFFFFu) | static_cast<uint64_t>(a.vc & 0xFu) << 20 |
         static_cast<uint64_t>(a.root_info & 0x7Fu) << 24 | 1ull << 31 | static_cast<uint64_t>(a.arn_id) << 32;
}
SATURN_INLINE ArnInfo iso_arn_info(uint64_t w) {
  ArnInfo a;
  a.destination = static_cast<uint32_t>(w & 0xFFFFFu);
  a.vc = static_cast<uint8_t>((w >> 20) & 0xFu);
  a.root_info = static_cast<uint8_t>((w >> 24) & 0x7Fu);
  a.arn_id = static_cast<uint32_t>(w >> 32);
  return a;
}

// Candidate outputs of Pseudo-code 3 at switch sw for dst (U18): the minimal ports except the
// deterministic one and except `exclude` (the port toward the root the ARN names). Downward
// hops have one minimal port, so none.
SATURN_INLINE uint64_t iso_alternatives(const EngineView& v, int sw, uint32_t dst, int exclude) {
  const int64_t entry = static_cast<int64_t>(sw) * v.net.num_endpoints + dst;
  uint64_t mask = v.net.choice_masks[v.net.route_choice[entry]];
  mask &= ~(1ull << v.net.route_det[entry]);
  if (exclude >= 0) mask &= ~(1ull << exclude);
  return mask;
}

// The VC whose downstream credits a choice among outputs compares: the AFC under AFI, else vc.
SATURN_INLINE int iso_choice_vc(const ModelParams& m, int vc) { return m.iso.afi ? afc_vc(m.vcs) : vc; }

// Output credits of switch `base`'s ports in VC vc for trial t: element p at [p * stride].
SATURN_INLINE const int32_t* iso_credits(const EngineView& v, int base, int vc, int t, int64_t* stride) {
  *stride = static_cast<int64_t>(v.model.vcs) * v.model.trials;
  return v.state.out_credits + at(static_cast<int64_t>(base) * v.model.vcs + vc, t, v.model.trials);
}

// Before port gp's arrival (ARN techniques): this cycle's ARN slot of the port starts empty, and
// an ARN the peer switch sent D - 1 cycles ago enters the table (Port = this port).
SATURN_INLINE void iso_arn_port(const EngineView& v, int sw, int base, int p, int t, uint32_t c) {
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials, D = m.link_depth;
  const int gp = base + p;
  const int wslot = static_cast<int>(c % static_cast<uint32_t>(D));
  const int rslot = static_cast<int>((c + 1u) % static_cast<uint32_t>(D));
  s.arn_link[at(static_cast<int64_t>(gp) * D + wslot, t, T)] = 0;
  if (v.net.peer_type[gp] != static_cast<uint8_t>(PeerType::kSwitch)) return;
  const uint64_t w = s.arn_link[at(static_cast<int64_t>(v.net.peer[gp]) * D + rslot, t, T)];
  if (!((w >> 31) & 1u)) return;
  const ArnInfo msg = iso_arn_info(w);
  int64_t stride = 0;
  const int32_t* credits = iso_credits(v, base, iso_choice_vc(m, msg.vc), t, &stride);
  const Draw4 d = philox(v.trial.seed[t], 1u, static_cast<uint32_t>(gp), c, Stream::kIsolation);
  const ArnProcessResult r =
      arn_received(iso_table(v, sw, t), msg, static_cast<uint8_t>(p), v.net.sw_stage[sw],
                   iso_alternatives(v, sw, msg.destination, p), credits, stride, d.v[0], c, m.iso.arn);
  if (r.outcome == ArnOutcome::kDropped) s.st_arn_refused[at(sw, t, T)] += 1;
}

// The VC a packet was injected in (the scheme's, from source and destination: iso_message_vc):
// an adapted packet's header holds the AFC from the hop after the one that adapted it.
SATURN_INLINE uint8_t iso_original_vc(const IsolationParams& ip, const Packet& pk) {
  if (!(pk.flags() & kFlagAdapted)) return static_cast<uint8_t>(pk.vc());
  return static_cast<uint8_t>(iso_message_vc(ip, pk.src(), pk.dst(), 0));
}

// sendARN(inputPortID, info): entry i of switch sw's table goes upstream out of port gp.
SATURN_INLINE void iso_send_arn(const EngineView& v, const ArnTable& tab, int i, int gp, int t, uint32_t c) {
  if (v.net.peer_type[gp] != static_cast<uint8_t>(PeerType::kSwitch)) return;
  const int T = v.model.trials, D = v.model.link_depth;
  const int wslot = static_cast<int>(c % static_cast<uint32_t>(D));
  v.state.arn_link[at(static_cast<int64_t>(gp) * D + wslot, t, T)] = iso_arn_word(arn_message(tab, i));
  v.state.st_arn_sent[at(gp, t, T)] += 1;
}

// Routing of a data packet arriving at port p (global gp) of switch sw for trial t. Returns the
// output; *pk gains kFlagAdapted where AFI adapts it; *next_vc = the VOQ's VC (the downstream VC).
SATURN_INLINE int iso_route(const EngineView& v, int sw, int base, int p, Packet* pk, int t, uint32_t c, int* next_vc) {
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const IsolationParams& ip = m.iso;
  const int T = m.trials;
  const int gp = base + p;
  const uint32_t dst = pk->dst();
  const int64_t entry = static_cast<int64_t>(sw) * v.net.num_endpoints + dst;
  const int det = v.net.route_det[entry];
  const bool adapted = (pk->flags() & kFlagAdapted) != 0;
  const int vc = static_cast<int>(pk->vc());
  *next_vc = vc;  // an adapted packet arrives in the AFC and stays there
  if (adapted && ip.afi && iso_arn(ip) && ip.arn.adapted_creates_entries) {
    // §P1.9-6, the text's reading: routed deterministically, but it propagates a stored entry.
    const ArnTable tab = iso_table(v, sw, t);
    const ArnRoute r = arn_route_packet(tab, dst, iso_original_vc(ip, *pk), true, p, c, ip.arn);
    if (r.send_arn >= 0) iso_send_arn(v, tab, r.send_arn, gp, t, c);
    return det;
  }
  if (ip.technique == IsoTechnique::kDmodk || (adapted && ip.afi)) return det;
  const uint64_t minimal = v.net.choice_masks[v.net.route_choice[entry]];
  if (popcount64(minimal) < 2 && ip.technique != IsoTechnique::kArn) return det;
  bool reroute = false;
  int o = det;
  if (ip.technique != IsoTechnique::kArn) {
    const auto draw = [&](int k) {
      return philox(v.trial.seed[t], 0u, static_cast<uint32_t>(gp), c, Stream::kIsolation).v[k];
    };
    if (ip.technique == IsoTechnique::kOblivious) return oblivious_port(minimal, draw(0));
    int64_t stride = 0;
    const int32_t* own = iso_credits(v, base, vc, t, &stride);
    const int32_t* choice = iso_credits(v, base, iso_choice_vc(m, vc), t, &stride);
    // Each candidate on the VC the packet would use there: the deterministic port on its own VC
    // (it stays unadapted), the others on the AFC under AFI (else its own VC as well).
    const AdaptiveChoice a = adaptive_th_pick(
        det, minimal, own[det * stride], m.vc_flits, ip.adaptive_th_pct,
        [&](int q) { return q == det ? own[q * stride] : choice[q * stride]; }, [&] { return draw(1); }, adapted,
        ip.afi);
    o = a.port;
    reroute = a.adapted;
  } else {  // ARN / ARN + AFI: Pseudo-code 4 for a data packet
    const ArnTable tab = iso_table(v, sw, t);
    const ArnRoute r = arn_route_packet(tab, dst, static_cast<uint8_t>(vc), adapted, p, c, ip.arn);
    if (r.port != kNoPort) {
      o = r.port;
      reroute = true;
    }
    if (r.send_arn >= 0) iso_send_arn(v, tab, r.send_arn, gp, t, c);
  }
  if (reroute) {
    s.st_adapted[at(gp, t, T)] += 1;
    if (ip.afi) {
      pk->add_flags(kFlagAdapted);
      *next_vc = afc_vc(m.vcs);
    }
  }
  return o;
}

SATURN_INLINE void iso_enqueued(const EngineView& v, int gp, int o, int vc, int t) {
  if (iso_arn(v.model.iso)) v.state.voq_packets[at(voq_index(v.model, gp, o, vc), t, v.model.trials)] += 1;
}

// A packet of VOQ (gpi, o, vc) departs: the count, and its header VC becomes the VOQ's (the AFC
// at the hop that adapted it).
SATURN_INLINE void iso_departed(const EngineView& v, int gpi, int o, int vc, int t, Packet* pk) {
  if (iso_arn(v.model.iso)) v.state.voq_packets[at(voq_index(v.model, gpi, o, vc), t, v.model.trials)] -= 1;
  pk->set_vc(static_cast<uint32_t>(vc));
}

// The congestion detector of every output of switch sw (ARN techniques), every detector_period
// cycles (docs/model/isolation.md): per input the fullest of its VOQs to the output (the AFC's too,
// unless isolation.detector_vcs = "regular") against the VC buffer; the responsible packet is the
// head of the fullest VOQ over HCDTh (lowest input on a tie); FCTh on the free credits of its
// VOQ's VC at the next switch (an endpoint sinks every packet: all free). A declared root enters
// the switch's own table (Pseudo-code 1) under the responsible packet's original VC (an adapted
// one's header holds the AFC); while it stays a root, the same ARNid is re-announced every period,
// which refreshes the entry.
SATURN_INLINE void iso_detect(const EngineView& v, int sw, int t, uint32_t c) {
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const IsolationParams& ip = m.iso;
  if (c % ip.detector_period != 0) return;
  const int T = m.trials, V = m.vcs;
  const int base = v.net.sw_port_base[sw];
  const int radix = v.net.sw_port_base[sw + 1] - base;
  const uint32_t cap = static_cast<uint32_t>(ip.vc_packets);
  for (int o = 0; o < radix; ++o) {
    const int go = base + o;
    const uint8_t type = v.net.peer_type[go];
    if (type == static_cast<uint8_t>(PeerType::kNone)) continue;
    DetectorState& ds = s.det_state[at(go, t, T)];
    bool hcd_now = false;
    uint32_t best = 0;
    int best_i = -1, best_vc = 0;
    for (int i = 0; i < radix; ++i) {
      const int gpi = base + i;
      if (v.net.peer_type[gpi] == static_cast<uint8_t>(PeerType::kNone)) continue;
      int occ_vc = 0;
      const uint32_t occ = detector_fullest_voq(
          [&](int vc) { return s.voq_packets[at(voq_index(m, gpi, o, vc), t, T)]; }, V, ip.detector_skips_afc, &occ_vc);
      if (occ == 0 && !((ds.over_mask >> i) & 1u)) continue;
      const bool over = detector_observe_voq(ds, i, occ, cap, ip.detector);
      if (over && occ > best) {
        best = occ;
        best_i = i;
        best_vc = occ_vc;
      }
      hcd_now |= over;
    }
    if (!hcd_now && ds.over_mask == 0 && !ds.root && ds.crt_start == kNoTimer) continue;
    const uint32_t next_cap = static_cast<uint32_t>(m.vc_flits);
    uint32_t free_credits = next_cap;
    if (best_i >= 0 && type == static_cast<uint8_t>(PeerType::kSwitch)) {
      const int32_t f = s.out_credits[at(static_cast<int64_t>(go) * V + best_vc, t, T)];
      free_credits = f > 0 ? static_cast<uint32_t>(f) : 0u;
    }
    const DetectorEvent ev = detector_step(ds, hcd_now, free_credits, next_cap, c, ip.detector);
    if (best_i < 0 || !(ev == DetectorEvent::kRootDeclared || (ev == DetectorEvent::kNone && ds.root))) continue;
    uint16_t& count = s.det_arn_count[at(go, t, T)];
    if (ev == DetectorEvent::kRootDeclared) count = static_cast<uint16_t>(count + 1);
    const int head = voq_head(v, voq_index(m, base + best_i, o, best_vc), t);
    const Packet hp = s.ent_pkt[at(entry_index(v, base + best_i, head), t, T)];
    int64_t stride = 0;
    const int32_t* credits = iso_credits(v, base, iso_choice_vc(m, static_cast<int>(hp.vc())), t, &stride);
    const Draw4 d = philox(v.trial.seed[t], 2u, static_cast<uint32_t>(go), c, Stream::kIsolation);
    const int stage = v.net.sw_stage[sw];
    const ArnProcessResult r = congestion_root_detected(
        iso_table(v, sw, t), hp.dst(), iso_original_vc(ip, hp), (hp.flags() & kFlagAdapted) != 0,
        static_cast<uint8_t>(o), v.net.port_up[go] != 0, stage,
        arn_make_id(static_cast<uint32_t>(sw), static_cast<uint32_t>(o), static_cast<uint32_t>(count - 1u)),
        iso_alternatives(v, sw, hp.dst(), o), credits, stride, d.v[0], c, ip.arn);
    if (r.outcome == ArnOutcome::kDropped) s.st_arn_refused[at(sw, t, T)] += 1;
  }
}

}  // namespace saturn
