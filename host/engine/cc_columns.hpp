// The congestion-control columns of a batch (kernels/state/engine_view.hpp CcState): full size
// only where the configured feature uses them, one element otherwise (a valid pointer no kernel
// path reads). Included only by engine.cu (it needs Thrust's device system).
#pragma once
#include <cstddef>
#include <cstdint>

#include "host/engine/column.hpp"
#include "kernels/state/engine_view.hpp"

namespace saturn {

struct CcColumns {
  Column<uint16_t> in_flits, out_cnt1, out_cnt2, out_head, out_mark_count, act_inflight, act_index, act_last_size,
      ackq_head, ackq_count;
  Column<uint32_t> in_tail_at, act_timer, act_last_start, act_phase_end, ackq_word, ackq_ready, ctrl_word, ctrl_at;
  Column<uint8_t> in_tail_vc, out_bypass, out_stalled, act_off;
  Column<uint64_t> st_full_cycles, st_ctrl_injected, st_ctrl_delivered, st_acks_dropped, st_marked;
  Column<double> act_rate;

  // Which groups a model needs; ports, endpoints and send queues per trial.
  static bool switch_group(const ModelParams& m) { return m.cc.track_occupancy; }
  static bool bypass_group(const ModelParams& m) { return m.arbitration == Arbitration::kFifoBypass; }
  static bool queue_group(const ModelParams& m) { return m.cc.endpoint_state; }
  static bool answer_group(const ModelParams& m) { return m.cc.answers(); }

  // Bytes per trial (mirrors build).
  static size_t bytes(const ModelParams& m, int64_t ports, int64_t endpoints) {
    size_t b = static_cast<size_t>(endpoints) * 4 * 8;  // control and marking statistics
    if (switch_group(m)) b += ports * (m.vcs * 2 + 4 + 1 + 2 + 2 + 1 + 2 + 8);
    if (bypass_group(m)) b += ports * 3;
    if (queue_group(m)) b += endpoints * m.active_queues * (2 + 8 + 2 + 4 + 4 + 2 + 4 + 1);
    if (answer_group(m)) b += endpoints * (m.cc.ack_queue * 8 + 4 + 8);
    return b;
  }

  void build(const ModelParams& m, int64_t ports, int64_t endpoints, ColumnStagger& stagger) {
    const int64_t T = m.trials;
    const auto n = [&](bool on, int64_t elements) { return static_cast<size_t>(on ? elements * T : 1); };
    const bool sw = switch_group(m), by = bypass_group(m), q = queue_group(m), ans = answer_group(m);
    const int64_t queues = endpoints * m.active_queues;
    in_flits.assign(n(sw, ports * m.vcs), 0, stagger);
    in_tail_at.assign(n(sw, ports), kUnlimited, stagger);
    in_tail_vc.assign(n(sw, ports), 0, stagger);
    out_cnt1.assign(n(sw, ports), 0, stagger);
    out_cnt2.assign(n(sw, ports), 0, stagger);
    out_stalled.assign(n(sw, ports), 0, stagger);
    out_mark_count.assign(n(sw, ports), 0, stagger);
    st_full_cycles.assign(n(sw, ports), 0, stagger);
    out_head.assign(n(by, ports), 0, stagger);
    out_bypass.assign(n(by, ports), 0, stagger);
    act_inflight.assign(n(q, queues), 0, stagger);
    act_rate.assign(n(q, queues), 1.0, stagger);
    act_index.assign(n(q, queues), 0, stagger);
    act_timer.assign(n(q, queues), 0, stagger);
    act_last_start.assign(n(q, queues), 0, stagger);
    act_last_size.assign(n(q, queues), 0, stagger);
    act_phase_end.assign(n(q, queues), kUnlimited, stagger);
    act_off.assign(n(q, queues), 0, stagger);
    ackq_word.assign(n(ans, endpoints * m.cc.ack_queue), 0, stagger);
    ackq_ready.assign(n(ans, endpoints * m.cc.ack_queue), 0, stagger);
    ackq_head.assign(n(ans, endpoints), 0, stagger);
    ackq_count.assign(n(ans, endpoints), 0, stagger);
    ctrl_word.assign(n(ans, endpoints), 0, stagger);
    ctrl_at.assign(n(ans, endpoints), 0, stagger);
    for (auto* c : {&st_ctrl_injected, &st_ctrl_delivered, &st_acks_dropped, &st_marked})
      c->assign(static_cast<size_t>(endpoints * T), 0, stagger);
  }

  CcState view() {
    CcState s;
    s.in_flits = in_flits.data();
    s.in_tail_at = in_tail_at.data();
    s.in_tail_vc = in_tail_vc.data();
    s.out_cnt1 = out_cnt1.data();
    s.out_cnt2 = out_cnt2.data();
    s.out_head = out_head.data();
    s.out_bypass = out_bypass.data();
    s.out_stalled = out_stalled.data();
    s.out_mark_count = out_mark_count.data();
    s.st_full_cycles = st_full_cycles.data();
    s.act_inflight = act_inflight.data();
    s.act_rate = act_rate.data();
    s.act_index = act_index.data();
    s.act_timer = act_timer.data();
    s.act_last_start = act_last_start.data();
    s.act_last_size = act_last_size.data();
    s.act_phase_end = act_phase_end.data();
    s.act_off = act_off.data();
    s.ackq_word = ackq_word.data();
    s.ackq_ready = ackq_ready.data();
    s.ackq_head = ackq_head.data();
    s.ackq_count = ackq_count.data();
    s.ctrl_word = ctrl_word.data();
    s.ctrl_at = ctrl_at.data();
    s.st_ctrl_injected = st_ctrl_injected.data();
    s.st_ctrl_delivered = st_ctrl_delivered.data();
    s.st_acks_dropped = st_acks_dropped.data();
    s.st_marked = st_marked.data();
    return s;
  }
};

}  // namespace saturn
