// A team of 32 lanes that runs one switch of one trial (issue 62 item 1): a warp on the GPU, a
// loop over the lanes on the CPU, the same source for both (kernels/phases/switch_team_step.hpp).
//
// The program is written as steps: team.each(f) runs f(lane) for every lane (on the GPU each
// thread its own lane, then __syncwarp, so a step's stores are seen by the next step's loads);
// team.one(f) runs f once (lane 0, then __syncwarp); code outside a step is uniform: every lane
// computes the same values from the same loads, and stores nothing. A value that differs per lane
// lives in a LaneVar: a register of its thread on the GPU, an element of an array of 32 on the CPU.
// The reductions (or_all, argmin) and shfl exchange LaneVars between lanes: warp shuffles on the
// GPU, loops on the CPU, with the same result (argmin breaks ties to the lowest lane, which is
// what an ascending scan with a strict comparison chooses).
#pragma once
#include <cstdint>

#include "kernels/common/macros.hpp"

namespace saturn {

constexpr int kTeamLanes = 32;
constexpr uint64_t kNoKey = ~0ull;  // argmin: a lane with nothing to offer

#if defined(__CUDA_ARCH__)

template <class T>
struct LaneVar {
  T x;
  SATURN_INLINE T& operator[](int) { return x; }
  SATURN_INLINE const T& operator[](int) const { return x; }
};

struct SwitchTeam {
  int lane;  // threadIdx.x % 32

  template <class F>
  SATURN_INLINE void each(F&& f) const {
    f(lane);
    __syncwarp();
  }
  template <class F>
  SATURN_INLINE void one(F&& f) const {
    if (lane == 0) f();
    __syncwarp();
  }
  SATURN_INLINE uint64_t or_all(const LaneVar<uint64_t>& x) const {
    uint64_t r = x.x;
    for (int d = 16; d > 0; d >>= 1) r |= __shfl_xor_sync(0xffffffffu, r, d);
    return r;
  }
  // The lane of the smallest key, the lowest lane among equal keys; -1 if every key is kNoKey.
  SATURN_INLINE int argmin(const LaneVar<uint64_t>& key) const {
    uint64_t k = key.x;
    int l = lane;
    for (int d = 16; d > 0; d >>= 1) {
      const uint64_t ok = __shfl_xor_sync(0xffffffffu, k, d);
      const int ol = __shfl_xor_sync(0xffffffffu, l, d);
      if (ok < k || (ok == k && ol < l)) {
        k = ok;
        l = ol;
      }
    }
    return k == kNoKey ? -1 : l;
  }
  template <class T>
  SATURN_INLINE T shfl(const LaneVar<T>& x, int from) const {
    return __shfl_sync(0xffffffffu, x.x, from);
  }
};

#else

template <class T>
struct LaneVar {
  T x[kTeamLanes];
  SATURN_INLINE T& operator[](int l) { return x[l]; }
  SATURN_INLINE const T& operator[](int l) const { return x[l]; }
};

struct SwitchTeam {
  template <class F>
  SATURN_INLINE void each(F&& f) const {
    for (int l = 0; l < kTeamLanes; ++l) f(l);
  }
  template <class F>
  SATURN_INLINE void one(F&& f) const {
    f();
  }
  SATURN_INLINE uint64_t or_all(const LaneVar<uint64_t>& x) const {
    uint64_t r = 0;
    for (int l = 0; l < kTeamLanes; ++l) r |= x[l];
    return r;
  }
  SATURN_INLINE int argmin(const LaneVar<uint64_t>& key) const {
    int best = -1;
    for (int l = 0; l < kTeamLanes; ++l)
      if (key[l] != kNoKey && (best < 0 || key[l] < key[best])) best = l;
    return best;
  }
  template <class T>
  SATURN_INLINE T shfl(const LaneVar<T>& x, int from) const {
    return x[from];
  }
};

#endif

}  // namespace saturn
