// The source side of the speculative protocols of Jiang, Dennison & Dally 2015 in the packet engine:
// what a NIC does with the control packets it receives (ACKs, NACKs, Res, Gnt), and SRP's message
// records (§2.2, M32; cc.protocol = srp, and the large messages of the comprehensive protocol, §6.4,
// M36). The switch side and the retransmission FIFO are lhrp_engine.hpp's; the rules (the
// register's grant) are protocol.hpp's and scheduler.hpp's.
//
// SRP per message (a ring of message records per source: srp_dst, srp_birth, srp_grant, srp_spec,
// srp_mode; the send queue holding the message's unsent packets points at its record, act_srp):
//   - as the message enters service, the NIC queues a 1-flit Res n (n = the message's flits) ahead
//     of the message's data, and the message speculates: its packets leave speculatively on the
//     data class, each counted in srp_spec until its ACK or NACK;
//   - the first NACK stops the speculation (kSrpHalted) and the NACKed packet waits in the
//     retransmission FIFO for the grant; the grant Gnt t (from the destination NIC under srp, from
//     the last-hop switch under comprehensive) stops it too (kSrpGranted): the rest of the message,
//     and every NACKed packet, leaves non-speculatively on the control class from t on (a NACK that
//     comes after the grant: at max(t, now));
//   - the send queue is free once the message is sent; its record stays until the message is
//     settled (sent, granted, every speculative packet answered) and every older one is: a source
//     holds at most cc.srp_messages records and takes no new message while they are all in use (a
//     NIC's finite state; 001's are unbounded). ACKs and NACKs name their message by destination
//     and birth cycle (an ACK's birth_cycle is its packet's; births increase strictly along the
//     ring: a binary search); a Gnt answers the oldest message to that destination still waiting
//     for one (Res and Gnt of one pair may overtake each other on adaptive routes: the two messages
//     then swap booked slots);
//   - the booked slot is not given back when the speculative packets got through (U16's
//     suggestion: the slot is wasted).
// Under the comprehensive protocol a message below cc.comprehensive_split_flits runs LHRP (no
// message state: kOff), and an SRP message's NACK with a time is handled as SRP's (the grant is
// authoritative, protocol.hpp's choice).
#pragma once
#include <cstdint>

#include "kernels/common/index.hpp"
#include "kernels/common/packet.hpp"
#include "kernels/phases/control_queue.hpp"
#include "kernels/reservation/lhrp_engine.hpp"
#include "kernels/reservation/scheduler.hpp"
#include "kernels/state/engine_view.hpp"

namespace saturn {

enum SrpMode : uint8_t { kSrpSpeculating = 1, kSrpHalted = 2, kSrpGranted = 3 };
constexpr uint8_t kSrpModeMask = 3, kSrpAllSent = 4;  // srp_mode: the mode | all packets sent once
constexpr uint32_t kNoRecord = 0xFFFFFFFFu;             // act_srp of a message without SRP (comprehensive: LHRP)

SATURN_INLINE int64_t srp_record(const EngineView& v, int e, int t, uint32_t k) {
  return at(static_cast<int64_t>(e) * v.model.cc.srp_messages + k, t, v.model.trials);
}

// Whether source e can take a new message: a free record, and room in the control FIFO for its Res.
SATURN_INLINE bool srp_room(const EngineView& v, int e, int t) {
  const int64_t ei = at(e, t, v.model.trials);
  return v.state.cc.srp_count[ei] < static_cast<uint32_t>(v.model.cc.srp_messages) &&
         v.state.cc.ackq_count[ei] < v.model.cc.ack_queue;
}

// A message of `flits` to dst, born at `birth`, enters service in queue ai of source e at cycle c
// (srp_room holds): under SRP it takes a record and its Res leaves ahead of its data.
SATURN_INLINE void srp_message_begins(const EngineView& v, int e, int t, int64_t ai, uint32_t dst, uint32_t flits,
                                      uint32_t birth, uint32_t c) {
  const ModelParams& m = v.model;
  const CcState& s = v.state.cc;
  if (flits < m.cc.srp_from_flits) {
    s.act_srp[ai] = kNoRecord;
    return;
  }
  const int64_t ei = at(e, t, m.trials);
  const uint32_t k = (s.srp_head[ei] + s.srp_count[ei]) % static_cast<uint32_t>(m.cc.srp_messages);
  s.srp_count[ei] += 1;
  const int64_t r = srp_record(v, e, t, k);
  s.srp_dst[r] = dst;
  s.srp_birth[r] = birth;
  s.srp_grant[r] = 0;
  s.srp_spec[r] = 0;
  s.srp_mode[r] = kSrpSpeculating;
  s.act_srp[ai] = k;
  cc_queue_control(v, e, t, dst, kFlagReservation, c, flits);
}

// Frees the settled records at the ring's head (sent, granted, nothing unanswered).
SATURN_INLINE void srp_retire(const EngineView& v, int e, int t) {
  const CcState& s = v.state.cc;
  const int64_t ei = at(e, t, v.model.trials);
  while (s.srp_count[ei] > 0) {
    const int64_t r = srp_record(v, e, t, s.srp_head[ei]);
    if (s.srp_mode[r] != (kSrpGranted | kSrpAllSent) || s.srp_spec[r] != 0) return;
    s.srp_head[ei] = (s.srp_head[ei] + 1u) % static_cast<uint32_t>(v.model.cc.srp_messages);
    s.srp_count[ei] -= 1;
  }
}

// Whether queue ai (of source e) may send its next packet at cycle c, and how: *speculative and
// *vc (the data class as given, or the control class from the grant on).
SATURN_INLINE bool srp_may_send(const EngineView& v, int e, int t, int64_t ai, uint32_t c, bool* speculative,
                                uint32_t* vc) {
  const CcState& s = v.state.cc;
  if (s.act_srp[ai] == kNoRecord) return true;
  const int64_t r = srp_record(v, e, t, s.act_srp[ai]);
  const uint8_t mode = s.srp_mode[r] & kSrpModeMask;
  if (mode == kSrpSpeculating) return true;
  if (mode == kSrpHalted || s.srp_grant[r] > c) return false;
  *speculative = false;
  *vc = static_cast<uint32_t>(v.model.cc.ack_vc);
  return true;
}

// Queue ai sent a packet (speculative or not; `tail`: the message's last).
SATURN_INLINE void srp_sent(const EngineView& v, int e, int t, int64_t ai, bool speculative, bool tail) {
  const CcState& s = v.state.cc;
  if (s.act_srp[ai] == kNoRecord) return;
  const int64_t r = srp_record(v, e, t, s.act_srp[ai]);
  if (speculative) s.srp_spec[r] += 1;
  if (!tail) return;
  s.srp_mode[r] |= kSrpAllSent;
  srp_retire(v, e, t);
}

// The record of source e's SRP message to `peer` born at `birth`; -1 if none (births increase
// strictly from the ring's head: ages c - birth decrease).
SATURN_INLINE int64_t srp_find(const EngineView& v, int e, int t, uint32_t c, uint32_t peer, uint32_t birth) {
  const CcState& s = v.state.cc;
  const int64_t ei = at(e, t, v.model.trials);
  const uint32_t S = static_cast<uint32_t>(v.model.cc.srp_messages), head = s.srp_head[ei];
  const uint32_t age = c - birth;
  uint32_t lo = 0, hi = s.srp_count[ei];  // the first record no older than `birth` is in [lo, hi]
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (c - s.srp_birth[srp_record(v, e, t, (head + mid) % S)] > age) lo = mid + 1;
    else hi = mid;
  }
  if (lo == s.srp_count[ei]) return -1;
  const int64_t r = srp_record(v, e, t, (head + lo) % S);
  return s.srp_birth[r] == birth && s.srp_dst[r] == peer ? r : -1;
}

// Gnt t from `peer` reached source e at cycle c: the oldest SRP message to peer still waiting for
// its grant takes it, and so do its NACKed packets waiting in the FIFO. False if none waits.
SATURN_INLINE bool srp_granted(const EngineView& v, int e, int t, uint32_t c, uint32_t peer, uint32_t time) {
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials;
  const int64_t ei = at(e, t, T);
  const uint32_t S = static_cast<uint32_t>(m.cc.srp_messages);
  int64_t r = -1;
  for (uint32_t k = 0; k < s.cc.srp_count[ei] && r < 0; ++k) {
    const int64_t i = srp_record(v, e, t, (s.cc.srp_head[ei] + k) % S);
    if ((s.cc.srp_mode[i] & kSrpModeMask) != kSrpGranted && s.cc.srp_dst[i] == peer) r = i;
  }
  if (r < 0) return false;
  s.cc.srp_mode[r] = static_cast<uint8_t>((s.cc.srp_mode[r] & kSrpAllSent) | kSrpGranted);
  s.cc.srp_grant[r] = time;
  const uint32_t K = static_cast<uint32_t>(m.cc.lhrp_outstanding);
  for (uint32_t k = 0; k < s.cc.rx_count[ei]; ++k) {
    Packet& w = s.cc.rx_pkt[at(static_cast<int64_t>(e) * K + (s.cc.rx_head[ei] + k) % K, t, T)];
    if (w.inject_cycle == kNoRetxTime && w.dst() == peer && w.birth_cycle == s.cc.srp_birth[r])
      w.inject_cycle = time > c ? time : c;
  }
  srp_retire(v, e, t);
  return true;
}

// The ACK or NACK of a speculative packet of SRP message record r (to `peer`) reached its source:
// counted off; a NACK stops the speculation and puts the packet into the FIFO, timed by the grant
// if it has come, else waiting for it.
SATURN_INLINE void srp_answered(const EngineView& v, int e, int t, uint32_t c, int64_t r, uint32_t peer,
                                const Packet& in) {
  const ModelParams& m = v.model;
  const CcState& s = v.state.cc;
  s.srp_spec[r] -= 1;
  if ((in.flags() & kFlagNack) != 0) {
    s.st_nacks[at(e, t, m.trials)] += 1;
    const uint8_t mode = s.srp_mode[r] & kSrpModeMask;
    if (mode == kSrpSpeculating) s.srp_mode[r] = static_cast<uint8_t>((s.srp_mode[r] & kSrpAllSent) | kSrpHalted);
    const uint32_t grant = s.srp_grant[r];
    const uint32_t when = mode != kSrpGranted ? kNoRetxTime : (grant > c ? grant : c);
    spec_push_retransmission(v, e, t,
                             Packet::make(static_cast<uint32_t>(e), peer, lhrp_nack_size(in.inject_cycle),
                                          static_cast<uint32_t>(m.cc.ack_vc), in.flags() & kFlagMessageTail, when,
                                          in.birth_cycle));
  }
  srp_retire(v, e, t);
}

// A control packet reached endpoint e (after cc_control_arrived counted it). When it answers a
// speculative packet sent from one of e's send queues (an ACK of one, or a NACK), returns that
// packet's destination, and the caller counts it off the queue (cc_control_received); else
// kNoRetxTime (ACKs of retransmissions concern no send queue). A Res is answered with a Gnt from
// e's register (SMSRP, SRP); a Gnt goes to the SRP message waiting for it (srp_granted), else
// (SMSRP) sets the time of the first packet to that destination waiting for one.
SATURN_INLINE uint32_t spec_control_arrived(const EngineView& v, int e, int t, uint32_t c, const Packet& in) {
  const ModelParams& m = v.model;
  const StateView& s = v.state;
  const int T = m.trials;
  const int64_t ei = at(e, t, T);
  const uint32_t flags = in.flags();
  if (flags & kFlagReservation) {
    if (flags & kFlagGrantBit) {  // Gnt t
      s.cc.st_gnt[ei] += 1;
      if (m.cc.srp_on() && srp_granted(v, e, t, c, in.src(), in.birth_cycle)) return kNoRetxTime;
      const uint32_t K = static_cast<uint32_t>(m.cc.lhrp_outstanding);
      for (uint32_t k = 0; k < s.cc.rx_count[ei]; ++k) {
        Packet& w = s.cc.rx_pkt[at(static_cast<int64_t>(e) * K + (s.cc.rx_head[ei] + k) % K, t, T)];
        if (w.inject_cycle == kNoRetxTime && w.dst() == in.src()) {
          w.inject_cycle = in.birth_cycle > c ? in.birth_cycle : c;
          break;
        }
      }
    } else {  // Res n at the destination NIC: book n flits, grant the slot's start
      s.cc.st_res[ei] += 1;
      const ReservationGrant g = reservation_grant(s.cc.lh_next_free[ei], c, in.birth_cycle,
                                                   m.cc.lhrp_params.nack_lead_cycles,
                                                   m.cc.lhrp_params.reservation_overhead_flits);
      cc_queue_control(v, e, t, in.src(), kFlagReservation | kFlagGrantBit, c + 1u, g.start);
    }
    return kNoRetxTime;
  }
  if ((flags & (kFlagNack | kFlagSpeculative)) == 0) return kNoRetxTime;  // the ACK of a retransmission
  s.cc.spec_out[ei] -= 1;
  const bool timeless = (flags & (kFlagNack | kFlagNackNoTime)) == (kFlagNack | kFlagNackNoTime);
  const uint32_t peer = timeless ? in.inject_cycle & kLhrpTimeMask : in.src();
  if (m.cc.srp_on()) {
    const int64_t r = srp_find(v, e, t, c, peer, in.birth_cycle);
    if (r >= 0) {
      srp_answered(v, e, t, c, r, peer, in);
      return peer;
    }
  }
  if ((flags & kFlagNack) == 0) return peer;
  s.cc.st_nacks[ei] += 1;
  const uint32_t tail = flags & kFlagMessageTail;
  const uint32_t size = lhrp_nack_size(in.inject_cycle);
  if (!timeless) {  // LHRP: resend non-speculatively at the booked time
    spec_push_retransmission(v, e, t,
                             Packet::make(static_cast<uint32_t>(e), peer, size, static_cast<uint32_t>(m.cc.ack_vc), tail,
                                          lhrp_nack_decode_time(in.inject_cycle, c), in.birth_cycle));
  } else if (m.cc.nic_grants) {  // SMSRP: reserve at the destination, resend non-speculatively when granted
    spec_push_retransmission(v, e, t,
                             Packet::make(static_cast<uint32_t>(e), peer, size, static_cast<uint32_t>(m.cc.ack_vc),
                                          tail, kNoRetxTime, in.birth_cycle));
    cc_queue_control(v, e, t, peer, kFlagReservation, c + 1u, size);
  } else {  // fabric drop under LHRP: speculatively again, at once
    spec_push_retransmission(v, e, t,
                             Packet::make(static_cast<uint32_t>(e), peer, size, static_cast<uint32_t>(m.data_vc),
                                          tail | kFlagSpeculative, c, in.birth_cycle));
  }
  return peer;
}

}  // namespace saturn
