// ARN+AFI decisions, Rocher-Gonzalez et al. 2021 §2.4, §3.1-3.4, Pseudo-codes 1-4 (PAPERS-SPEC
// M37, M39): what a switch does when its detector declares a root, when an ARN arrives, and when a
// data packet arrives at an input port; the Adapted-Flow Channel (AFC = the last VC).
// Pure functions over one switch's ARN table (arn_table.hpp) and the credit counts the caller
// points to; the caller moves packets and ARN messages (wiring plan: docs/model/isolation.md).
//
// The open point of M39 / §P1.9-14 (an incast root sits on a leaf -> endnode port, so its ARN has
// congestionRootInfo = 0 and the literal rule never lets a switch consume it):
//   R1 kLiteral        the pseudo-code as printed: only Stage == congestionRootInfo consumes; an
//                      incast ARN travels back to the sources' leaves and dies at the endnodes, so
//                      a pure incast is never adapted (expect ARN+AFI ~ D-mod-K on H10/H25).
//   R2 kEarlyDetection consumption as R1, but the detector tests FCTh only when the CRT starts
//                      (detector_params_for); with a short CRT the merge points inside the tree
//                      (shared up ports, the top switch's down port to the hot pod) are declared
//                      roots before back-pressure turns them into branches, and those ARNs have
//                      congestionRootInfo >= 1, which switches consume.
//   R3 kFirstStage     an ARN with congestionRootInfo = 0 is consumed by the first switch on the
//                      upward path that has an alternative (a source leaf, stage 1): hot flows
//                      still reach the root, but adapted, in the AFC, leaving the regular VCs to
//                      the background traffic.
#pragma once
#include <cstdint>

#include "kernels/common/bits.hpp"
#include "kernels/common/macros.hpp"
#include "kernels/isolation/arn_table.hpp"
#include "kernels/isolation/detector.hpp"

namespace saturn {

// Packet flag bits this mechanism needs (free bits of kernels/common/packet.hpp's PacketFlag;
// they belong there once the phases carry them).
constexpr uint32_t kFlagAdapted = 32u;  // AFI: re-routed once, now in the AFC, routed deterministically
constexpr uint32_t kFlagArn = 64u;      // control: an ARN message (carries an ArnInfo)

enum class IncastReading : uint8_t { kLiteral = 0, kEarlyDetection, kFirstStage, kCount };

struct ArnParams {
  bool afi = true;                  // ARN+AFI; false = plain ARN (adapted packets keep their VC)
  IncastReading incast = IncastReading::kLiteral;
  uint32_t ttl_cycles = 1;          // entry time-to-live (U18: ~1 ms, or 2 x CRT)
  uint32_t arn_gap_cycles = 0;      // ARN rate limit per (entry, input port); 0 = one per packet
  ArnFullPolicy full_policy = ArnFullPolicy::kDropNew;
  // §P1.9-6, the text's reading (false: the pseudo-code's): a root whose responsible packet is
  // adapted creates or refreshes an entry under that packet's original VC, and an adapted packet that
  // matches a stored (unconsumed) entry sends an ARN upstream, so the entries of a congestion tree
  // whose flows are all isolated in the AFC stay alive ("keep updated ... for longer", 003 §3.4).
  bool adapted_creates_entries = false;
};

// The detector settings a reading implies: R2 tests FCTh when the CRT starts, not at expiry.
SATURN_INLINE DetectorParams detector_params_for(DetectorParams base, IncastReading r) {
  if (r == IncastReading::kEarlyDetection) base.fc_at_expiry = false;
  return base;
}

// AFC = the last VC of `vcs` (§3.2). A packet's buffer VC: the AFC when adapted under AFI, else
// the VC in its header (an adapted packet keeps its original VC there for the ARN tables, §3.4).
SATURN_INLINE int afc_vc(int vcs) { return vcs - 1; }
SATURN_INLINE int buffer_vc(int header_vc, bool adapted, bool afi, int vcs) {
  return adapted && afi ? afc_vc(vcs) : header_vc;
}

// Pseudo-code 3, selectAlternativeOport: among `candidates` (bit p = local output p; U18: the
// minimal up ports for the destination except the deterministic one), the output with the most
// free credits in VCinNextSwitch. free_credits[p * stride] holds output p's free credits for that
// VC (the AFC under AFI). Ties: the (tie_draw mod ties)-th of them. kNoPort when no candidate.
SATURN_INLINE uint8_t select_alternative_oport(uint64_t candidates, const int32_t* free_credits, int64_t stride,
                                               uint32_t tie_draw) {
  if (candidates == 0) return kNoPort;
  int32_t best = INT32_MIN;
  uint64_t ties = 0;
  for (uint64_t r = candidates; r != 0; r &= r - 1) {
    const int p = lowest_bit(r);
    const int32_t c = free_credits[p * stride];
    if (c > best) {
      best = c;
      ties = 0;
    }
    if (c == best) ties |= 1ull << p;
  }
  return static_cast<uint8_t>(nth_set_bit(ties, static_cast<int>(tie_draw % static_cast<uint32_t>(popcount64(ties)))));
}

// Does a switch at `stage` consume an ARN with this root info? Equality (§P1.9-7), and only where
// an alternative exists; R3 adds incast ARNs (info 0) at the first upward switch (stage 1).
SATURN_INLINE bool arn_consumes(int stage, uint8_t root_info, bool has_alternative, IncastReading r) {
  if (!has_alternative) return false;
  if (stage == root_info) return true;
  return r == IncastReading::kFirstStage && root_info == 0 && stage == 1;
}

enum class ArnOutcome : uint8_t { kRefreshed = 0, kConsumed, kStored, kIgnoredAdapted, kDropped, kCount };

struct ArnProcessResult {
  ArnOutcome outcome;
  int slot;          // the entry, -1 when none
  uint8_t alt_port;  // the alternative chosen when consumed, else kNoPort
};

// Pseudo-code 2, processARN(info, AdaptedBit). `alternatives` = the candidate set for
// info.destination at this switch (0 where none exists: no consumption possible); free_credits /
// stride: each output's free credits in VCinNextSwitch (AFC under AFI, else info.vc).
SATURN_INLINE ArnProcessResult process_arn(const ArnTable& t, ArnInfo info, bool adapted, int stage,
                                           uint64_t alternatives, const int32_t* free_credits, int64_t stride,
                                           uint32_t tie_draw, uint32_t now, const ArnParams& p) {
  const int found = arn_find(t, info, now);
  if (found >= 0) {
    arn_refresh(t, found, now, p.ttl_cycles);
    return ArnProcessResult{ArnOutcome::kRefreshed, found, t[found].alt_port};
  }
  arn_remove(t, info.destination, info.port, info.vc);  // a moved root (same key, other ARNid)
  if (adapted && !p.adapted_creates_entries) return ArnProcessResult{ArnOutcome::kIgnoredAdapted, -1, kNoPort};
  uint8_t alt = kNoPort;
  info.consumed = 0;
  if (arn_consumes(stage, info.root_info, alternatives != 0, p.incast)) {
    alt = select_alternative_oport(alternatives, free_credits, stride, tie_draw);
    info.consumed = 1;
  }
  int slot = -1;
  const ArnInsert ins = arn_add(t, info, alt, now, p.ttl_cycles, p.full_policy, &slot);
  if (ins == ArnInsert::kDropped) return ArnProcessResult{ArnOutcome::kDropped, -1, kNoPort};
  return ArnProcessResult{info.consumed ? ArnOutcome::kConsumed : ArnOutcome::kStored, slot, alt};
}

// Pseudo-code 1, congestionRootDetected(Pckt, ARNid): the head packet of the VOQ that passed
// HCDTh (destination, original VC, adapted bit) goes to output `oport` of this switch.
SATURN_INLINE ArnProcessResult congestion_root_detected(const ArnTable& t, uint32_t destination, uint8_t vc,
                                                        bool adapted, uint8_t oport, bool oport_upward, int stage,
                                                        uint32_t arn_id, uint64_t alternatives,
                                                        const int32_t* free_credits, int64_t stride,
                                                        uint32_t tie_draw, uint32_t now, const ArnParams& p) {
  ArnInfo info;
  info.destination = destination;
  info.vc = vc;
  info.port = oport;
  info.arn_id = arn_id;
  info.root_info = arn_root_info(stage, oport_upward);
  return process_arn(t, info, adapted, stage, alternatives, free_credits, stride, tie_draw, now, p);
}

// Pseudo-code 4, first branch: an ARN message arrives on local port `arrival_port` (Table 2: Port
// = the port it was received on). ARN messages are processed with AdaptedBit = FALSE.
SATURN_INLINE ArnProcessResult arn_received(const ArnTable& t, ArnInfo msg, uint8_t arrival_port, int stage,
                                            uint64_t alternatives, const int32_t* free_credits, int64_t stride,
                                            uint32_t tie_draw, uint32_t now, const ArnParams& p) {
  msg.port = arrival_port;
  return process_arn(t, msg, false, stage, alternatives, free_credits, stride, tie_draw, now, p);
}

// What Pseudo-code 4 decides for a data packet at an input port.
struct ArnRoute {
  uint8_t port;      // kNoPort = the deterministic (D-mod-K) output
  bool set_adapted;  // AFI: mark the packet adapted (buffer VC = AFC from the next switch on)
  int send_arn;      // entry whose ArnInfo goes upstream out of the arrival port; -1 = none
};

// Pseudo-code 4 for a data packet to `destination` in header VC `vc` arriving on input `input`.
// A consumed entry whose alternative is the deterministic port itself still adapts (the packet
// was "re-routed" by the table); send_arn is subject to the rate limit.
// An adapted packet (vc = its original VC) is routed deterministically; under the text's reading
// of §P1.9-6 it still propagates a stored entry it matches (never a consumed one: it adapts no more).
SATURN_INLINE ArnRoute arn_route_packet(const ArnTable& t, uint32_t destination, uint8_t vc, bool adapted, int input,
                                        uint32_t now, const ArnParams& p) {
  if (adapted) {
    if (!p.adapted_creates_entries) return ArnRoute{kNoPort, false, -1};
    const int i = arn_match_stored(t, destination, vc, now);
    const bool send = i >= 0 && arn_rate_ok(t, i, input, now, p.arn_gap_cycles);
    return ArnRoute{kNoPort, false, send ? i : -1};
  }
  bool consumed = false;
  const int i = arn_match(t, destination, vc, now, &consumed);
  if (i >= 0 && consumed) return ArnRoute{t[i].alt_port, p.afi, -1};
  if (i >= 0 && arn_rate_ok(t, i, input, now, p.arn_gap_cycles)) return ArnRoute{kNoPort, false, i};
  return ArnRoute{kNoPort, false, -1};
}

// The ARN message for entry i (what sendARN carries): the receiver overwrites port and consumed.
SATURN_INLINE ArnInfo arn_message(const ArnTable& t, int i) {
  ArnInfo m = t[i].info;
  m.consumed = 0;
  return m;
}

}  // namespace saturn
