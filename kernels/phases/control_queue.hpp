// A NIC's FIFO of the control packets it sends (ACKs, BECNs; the speculative protocols' Res and
// Gnt): one push for every kind (endpoint_cc.hpp, kernels/reservation/lhrp_engine.hpp). The packets
// leave before data through cc_take_answer (endpoint_cc.hpp).
#pragma once
#include <cstdint>

#include "kernels/common/index.hpp"
#include "kernels/common/packet.hpp"
#include "kernels/state/engine_view.hpp"

namespace saturn {

// The first send queue a of endpoint e in trial t whose column index ai = at(e * A + a, t) passes
// pred(ai), or -1 (the control protocols find a flow's queue by its state and destination).
template <class Pred>
SATURN_INLINE int first_send_queue(const EngineView& v, int e, int t, Pred pred) {
  const int A = v.model.active_queues;
  for (int a = 0; a < A; ++a)
    if (pred(at(static_cast<int64_t>(e) * A + a, t, v.model.trials))) return a;
  return -1;
}

// Whether endpoint e may start a protocol exchange of its own (SAA's packets, a route setup or
// teardown): the control FIFO keeps its last place for the packets the destination side turns back.
SATURN_INLINE bool control_room_for_own(const EngineView& v, int e, int t) {
  return v.state.cc.ackq_count[at(e, t, v.model.trials)] + 1u < static_cast<uint32_t>(v.model.cc.ack_queue);
}

// Queues a control packet from endpoint e to dst with `flags` (kFlagControl added), leaving no
// earlier than cycle `ready`; `arg` rides in its birth_cycle where the model keeps it (the
// speculative protocols: the flits of a Res, the time of a Gnt; SAA's packets: the running
// maximum; route setup: the cycle it was sent). vc >= 0: the packet leaves on that VC instead of
// cc.ack_vc (a route teardown keeps behind its flow's data; bits 20-23 of the word, 0 = the ACK
// class). False when the FIFO is full: the packet is lost and counted in acks_dropped.
SATURN_INLINE bool cc_queue_control(const EngineView& v, int e, int t, uint32_t dst, uint32_t flags, uint32_t ready,
                                    uint32_t arg = 0, int vc = -1) {
  const ModelParams& m = v.model;
  const CcState& s = v.state.cc;
  const int64_t ei = at(e, t, m.trials);
  const uint32_t count = s.ackq_count[ei];
  if (count >= static_cast<uint32_t>(m.cc.ack_queue)) {
    s.st_acks_dropped[ei] += 1;
    return false;
  }
  const uint32_t slot = (s.ackq_head[ei] + count) % static_cast<uint32_t>(m.cc.ack_queue);
  const int64_t qi = at(static_cast<int64_t>(e) * m.cc.ack_queue + slot, t, m.trials);
  s.ackq_word[qi] = dst | (static_cast<uint32_t>(vc + 1) << 20) | ((kFlagControl | flags) << 24);
  s.ackq_ready[qi] = ready;
  if (m.cc.control_arg()) s.ackq_arg[qi] = arg;  // (allocated only for them)
  s.ackq_count[ei] = static_cast<uint16_t>(count + 1);
  return true;
}

}  // namespace saturn
