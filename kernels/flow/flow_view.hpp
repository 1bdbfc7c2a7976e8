// Flow engine state: the closed-form (modified) k-ary n-tree with its directed link ids, the
// per-batch parameters, and a plain view (raw pointers + extents) of the per-trial scratch.
#pragma once
#include <cstdint>

#include "kernels/common/index.hpp"
#include "kernels/common/macros.hpp"

namespace saturn {

constexpr int kFlowMaxLevels = 8;

// Directed unit links of the (modified) k-ary n-tree, numbered in closed form (no tables):
//   [0, N)            injection link of node p               id = p
//   [N, 2N)           ejection link to node p                id = N + p
//   up                switch <w,lvl> (lvl = 1..n-1), port a  id = up_base + ((lvl-1)*S + w)*k + a
//   down              switch <w,l> (l = 0..n-2), child j     id = down_base + (l*S + w)*k + j
//   horizontal        switch <w,l>, direction, lane h        id = hz_base + ((l*S + w)*2 + right)*width + h
// N = k^n nodes, S = k^(n-1) switches per level, w = base-k integer of (w_0..w_{n-2}). Up port a
// of <w,lvl> reaches <w with digit lvl-1 := a, lvl-1>; down port j of <w,l> reaches <w with digit
// l := j, l+1>; horizontal "right" goes to w+1 and "left" to w-1 inside the level-l chain (the
// k^(n-1-l) switches with the same w_0..w_{l-1}). The ids of chain-end horizontal slots exist but
// are never used. Matches build_kary_ntree's wiring (tested link by link).
struct FlowTree {
  int k = 0, n = 0, width = 0;
  int32_t nodes = 0, per_level = 0;      // N, S
  int32_t place[kFlowMaxLevels] = {};    // place[i] = k^(n-2-i): weight of digit i of w
  int64_t up_base = 0, down_base = 0, hz_base = 0, num_links = 0;

  SATURN_INLINE int64_t inj(int64_t p) const { return p; }
  SATURN_INLINE int64_t ej(int64_t p) const { return nodes + p; }
  SATURN_INLINE int64_t up(int lvl, int64_t w, int a) const { return up_base + ((lvl - 1) * int64_t{per_level} + w) * k + a; }
  SATURN_INLINE int64_t down(int l, int64_t w, int j) const { return down_base + (l * int64_t{per_level} + w) * k + j; }
  SATURN_INLINE int64_t hz(int l, int64_t w, int right, int h) const {
    return hz_base + ((l * int64_t{per_level} + w) * 2 + right) * width + h;
  }
  SATURN_INLINE int digit(int64_t w, int i) const { return static_cast<int>((w / place[i]) % k); }
};

enum class FlowRouting : uint8_t { kDmodK = 0, kRandom = 1, kAdaptive = 2, kCount };
enum class FlowHeuristic : uint8_t { kFlowCount = 0, kFlowWeight = 1, kCount };

// Per-trial results, one column each: out[at(metric, trial, T)].
enum FlowMetric : int {
  kFmContentionMax = 0,
  kFmContentionMean,
  kFmLinkLoadMax,
  kFmHopsMean,
  kFmHorizontalHopsMean,
  kFmCompletionLowerBound,
  kFmSaaCompletion,
  kFmSaaRateMin,
  kFmSaaLinkUtilMax,
  kFmMaxminCompletion,
  kFmMaxminRateMin,
  kFmSaaProtocolMismatches,  // distributed SAA (Algorithm 1), with flow.saa_protocol only
  kFmSaaProtocolAnnounceMismatches,
  kFmSaaProtocolLateChanges,
  kFmSaaProtocolProbesToFinal,
  kFmSaaProtocolConvergedSteps,
  kFmSaaProtocolResidual,
  kFmSaaProtocolAcks,
  kFmSaaProtocolSteps,
  kFmCount
};

struct FlowParams {
  FlowRouting routing = FlowRouting::kDmodK;
  FlowHeuristic heuristic = FlowHeuristic::kFlowCount;
  int route_cache = 0;        // PRC entries per input port; 0 = unlimited
  int permutations = 0;       // P superposed permutations; 0 = the explicit flow list
  int32_t num_flows = 0;      // F per trial (<= 65535: link counts are uint16)
  bool random_sizes = false;  // w_f uniform on (0, 2) instead of 1
  bool maxmin = false;
  bool saa_protocol = false;       // simulate Algorithm 1's control packets (saa_protocol.hpp)
  int saa_stagger_steps = 0;       // flow starts: one every this many steps, in the random flow order
  int saa_flow_time_steps = 0;     // time steps per flow-time (ends at t0 + W_f flow-times)
  int64_t path_slots = 0;     // capacity of a trial's path pool (link ids)
  int trials = 0;             // T of the batch (result columns)
};

// Everything a trial's kernel touches. Scratch columns are tiled (at_tile): `tile` trials per tile,
// `tiles` tiles in flight; the launcher gives each running trial its (tile_index, lane).
struct FlowView {
  FlowTree tree;
  FlowParams p;
  int tile = 1;
  const uint64_t* seed = nullptr;        // [t]
  const uint32_t* fixed_src = nullptr;   // [f] explicit flows (permutations = 0)
  const uint32_t* fixed_dst = nullptr;   // [f]
  // per-link scratch [tree.num_links]
  uint16_t* count = nullptr;   // flows on the link
  double* weight = nullptr;    // sum of their sizes (random sizes only; else = count)
  uint16_t* prc = nullptr;     // PRC entries used at the input port the link feeds (route_cache > 0)
  double* fluid = nullptr;     // fluid models: per-link weight, rate sum, residual capacity
  uint16_t* live = nullptr;    // max-min: unfrozen flows on the link
  uint32_t* csr_begin = nullptr;  // max-min: link -> flows index [num_links + 1]
  uint32_t* heap = nullptr;       // max-min: links by fair share
  int32_t* heap_pos = nullptr;
  uint32_t* csr_flow = nullptr;   // max-min: [p.path_slots]
  // per-flow scratch [p.num_flows]
  uint32_t* flow_dst = nullptr;
  uint32_t* order = nullptr;
  uint32_t* path_off = nullptr;
  uint16_t* path_len = nullptr;
  double* size = nullptr;      // random sizes only
  double* rate = nullptr;
  // distributed SAA (p.saa_protocol): W_l in weight units [tree.num_links], per-flow state [p.num_flows]
  int64_t* saa_link_w = nullptr;
  int64_t* saa_start = nullptr;
  int64_t* saa_known = nullptr;
  int64_t* saa_carried = nullptr;
  int64_t* saa_changed_at = nullptr;
  int32_t* saa_hop = nullptr;
  int32_t* saa_probes = nullptr;
  int32_t* saa_final_probe = nullptr;
  uint8_t* saa_packet = nullptr;
  uint8_t* saa_flags = nullptr;
  // path pool [p.path_slots]
  uint32_t* pool = nullptr;
  // results
  double* out = nullptr;       // [at(metric, t, T)]
  uint8_t* overflow = nullptr; // [t] 1 = the path pool was too small (the host reruns with more)
};

// Where one running trial's scratch lives.
struct FlowSlot {
  int64_t tile_index;
  int lane;
  int tile;
  SATURN_INLINE int64_t ix(int64_t element, int64_t elements) const { return at_tile(element, elements, tile_index, lane, tile); }
};

}  // namespace saturn
