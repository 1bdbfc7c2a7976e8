// Zdornov & Birk 2009 Algorithm 1 (000 §5.1, PAPERS-SPEC M29, reproduction item 7): the distributed
// SAA protocol as a discrete-time simulation of its control packets. AnnounceStart, ProbeLinks and
// AnnounceEnd each send one packet that visits the flow's links in path order, one link per time
// step, then takes path_len steps back to the source without touching state (at most one
// outstanding packet per flow). Link weights W_l are integers (weight units), so additions and
// removals are exact and AnnounceEnd leaves exactly 0.
//
// Timing (the choices, docs/model/flow-engine.md):
//   * A packet launched at step t visits link i at step t + i and is back at the end of step
//     t + 2 len - 1; the source launches its next packet at the next step.
//   * Within a step flows act in index order (one hop each): the same bits on every backend.
//   * Flow f starts (launches AnnounceStart) at start(f); afterwards it probes back to back.
//   * Data: every flow sends w_f at its SAA rate w_f / W_f, so it finishes W_f flow-times after the
//     data phase starts (Theorem 1's per-flow completion). The data phase starts when the last flow
//     has started (t0 = max start), and a flow-time is flow_time_steps() steps: flow f ends at the
//     first step t >= t0 + W_f * flow_time_steps() with W_f its current value, then launches
//     AnnounceEnd once no packet is outstanding. A probe that returns at or after the flow's end
//     is discarded (the flow has no data left to rate).
//
// An instance I provides, besides the fluid-model accessors num_flows(), num_links(), path_len(f),
// link(f, i), size(f), rate(f) (rate(f) must hold the central SAA rates from saa_rates()):
//   int64_t units(f)       w_f in integer weight units; size(f) == units(f) / scale() exactly
//   int64_t scale()        weight units per flow-time (a power of two, so W / scale is exact)
//   int64_t start(f)       step of f's AnnounceStart
//   int64_t flow_time_steps()
//   scratch: int64_t& link_w(l) [num_links]; per flow int64_t& known(f) (the source's W_f),
//   int64_t& carried(f) (the packet's running max), int64_t& changed_at(f), int32_t& hop(f),
//   int32_t& probes(f), int32_t& final_probe(f), uint8_t& packet(f), uint8_t& flags(f).
#pragma once
#include <cstdint>

#include "kernels/common/macros.hpp"

namespace saturn {

struct SaaProtocolResult {
  int32_t mismatches = 0;           // flows whose W_f after the first probe launched once every
                                    // AnnounceStart had returned differs from the central W_f (or
                                    // that ended without such a probe); must be 0
  int32_t announce_mismatches = 0;  // flows whose AnnounceStart value differs from the central W_f
  int32_t late_changes = 0;         // probes that changed W_f after that check, before the flow's end
  int32_t probes_to_final = 0;      // max over flows: probes after AnnounceStart until W_f last changed
  int64_t converged_steps = 0;      // steps from the last flow's start until no W_f changes any more
  int64_t residual_units = 0;       // max_l |W_l| after every AnnounceEnd, in weight units
  int64_t acks = 0;                 // piggy-back variant: probes with W_f^u != W_f^c (weight ACKs sent)
  int64_t probes = 0;               // probes completed
  int64_t steps = 0;                // time steps simulated
};

enum : uint8_t { kSaaPacketNone = 0, kSaaPacketAnnounce = 1, kSaaPacketProbe = 2, kSaaPacketEnd = 3 };
enum : uint8_t {
  kSaaFlagStarted = 1,   // AnnounceStart launched
  kSaaFlagRunning = 2,   // AnnounceStart returned: the flow has a rate
  kSaaFlagOver = 4,      // data done: AnnounceEnd launched or due
  kSaaFlagDone = 8,      // AnnounceEnd returned
  kSaaFlagChecked = 16,  // the post-announce probe has returned
  kSaaFlagPost = 32,     // the probe in flight was launched after every AnnounceStart had returned
};

// Step at which a flow with weight W (units) ends: t0 + ceil(W / scale * flow_time_steps).
SATURN_INLINE int64_t saa_end_step(int64_t t0, int64_t w, int64_t scale, int64_t flow_time) {
  const int64_t q = w / scale, r = w % scale;
  return t0 + q * flow_time + (r * flow_time + scale - 1) / scale;
}

// Whether W (units) gives flow f exactly the central SAA rate (the same division saa_rates does).
template <class I>
SATURN_HD bool saa_is_central(I& in, int32_t f, int64_t w) {
  const double wf = static_cast<double>(w) / static_cast<double>(in.scale());
  return in.size(f) / wf == in.rate(f);
}

template <class I>
SATURN_HD SaaProtocolResult saa_protocol(I& in) {
  SaaProtocolResult res;
  const int64_t L = in.num_links();
  const int32_t F = in.num_flows();
  const int64_t scale = in.scale(), flow_time = in.flow_time_steps();
  int64_t t0 = 0;
  for (int32_t f = 0; f < F; ++f) {
    const int64_t s = in.start(f);
    t0 = s > t0 ? s : t0;
    in.known(f) = 0;
    in.carried(f) = 0;
    in.changed_at(f) = 0;
    in.hop(f) = 0;
    in.probes(f) = 0;
    in.final_probe(f) = 0;
    in.packet(f) = kSaaPacketNone;
    in.flags(f) = 0;
  }
  for (int64_t l = 0; l < L; ++l) in.link_w(l) = 0;

  int32_t announced = 0, done = 0;
  int64_t all_announced = -1;  // step at which the last AnnounceStart returned
  int64_t t = 0;
  for (; done < F; ++t) {
    for (int32_t f = 0; f < F; ++f) {
      uint8_t fl = in.flags(f);
      if (fl & kSaaFlagDone) continue;
      if (in.packet(f) == kSaaPacketNone) {  // launch the next packet, if any
        uint8_t kind = kSaaPacketNone;
        if (!(fl & kSaaFlagStarted)) {
          if (t >= in.start(f)) {
            kind = kSaaPacketAnnounce;
            fl |= kSaaFlagStarted;
          }
        } else if ((fl & kSaaFlagOver) || t >= saa_end_step(t0, in.known(f), scale, flow_time)) {
          kind = kSaaPacketEnd;
          fl |= kSaaFlagOver;
        } else {
          kind = kSaaPacketProbe;
          fl = static_cast<uint8_t>(all_announced >= 0 ? fl | kSaaFlagPost : fl & ~kSaaFlagPost);
        }
        in.flags(f) = fl;
        if (kind == kSaaPacketNone) continue;
        in.packet(f) = kind;
        in.hop(f) = 0;
        in.carried(f) = 0;
      }
      // One hop: on the way out, the link's state; on the way back, nothing.
      const uint8_t kind = in.packet(f);
      const int len = in.path_len(f);
      const int h = in.hop(f);
      if (h < len) {
        int64_t& wl = in.link_w(in.link(f, h));
        if (kind == kSaaPacketAnnounce) wl += in.units(f);
        else if (kind == kSaaPacketEnd) wl -= in.units(f);
        if (kind != kSaaPacketEnd && wl > in.carried(f)) in.carried(f) = wl;
      }
      in.hop(f) = h + 1;
      if (h + 1 < 2 * len) continue;
      // Back at the source at the end of step t.
      in.packet(f) = kSaaPacketNone;
      const int64_t w = in.carried(f);
      if (kind == kSaaPacketAnnounce) {
        in.known(f) = w;
        in.changed_at(f) = t;
        in.flags(f) = fl | kSaaFlagRunning;
        if (!saa_is_central(in, f, w)) ++res.announce_mismatches;
        if (++announced == F) all_announced = t;
      } else if (kind == kSaaPacketProbe) {
        ++res.probes;
        if (t >= saa_end_step(t0, in.known(f), scale, flow_time)) continue;  // the flow has ended
        const int32_t n = ++in.probes(f);
        if (w != in.known(f)) {  // the destination would send a weight ACK (W_f^u != W_f^c)
          ++res.acks;
          if (fl & kSaaFlagChecked) ++res.late_changes;
          in.known(f) = w;
          in.changed_at(f) = t;
          in.final_probe(f) = n;
        }
        if ((fl & kSaaFlagPost) && !(fl & kSaaFlagChecked)) {
          in.flags(f) = fl | kSaaFlagChecked;
          if (!saa_is_central(in, f, w)) ++res.mismatches;
        }
      } else {
        in.flags(f) = fl | kSaaFlagDone;
        ++done;
      }
    }
  }
  res.steps = t;
  for (int32_t f = 0; f < F; ++f) {
    if (!(in.flags(f) & kSaaFlagChecked)) ++res.mismatches;  // ended before a post-announce probe
    if (in.final_probe(f) > res.probes_to_final) res.probes_to_final = in.final_probe(f);
    const int64_t c = in.changed_at(f) + 1 - t0;
    if (c > res.converged_steps) res.converged_steps = c;
  }
  for (int64_t l = 0; l < L; ++l) {
    const int64_t a = in.link_w(l) < 0 ? -in.link_w(l) : in.link_w(l);
    if (a > res.residual_units) res.residual_units = a;
  }
  return res;
}

}  // namespace saturn
