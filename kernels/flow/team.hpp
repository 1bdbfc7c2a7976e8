// A team of lanes that runs one trial together, and its CPU form: the few collective patterns the
// flow engine's parallel program (flow_trial_team.hpp) is written in. The CUDA form, one warp, is
// kernels/launch/warp_team.cuh; this one runs the lanes one after another on one CPU thread, so CI
// executes the very program the GPU runs and can hold it to the sequential engine's bits.
//
// The contract every team form keeps (all calls are collective: every lane calls them with the same
// arguments, and each returns only when every lane's part is done and visible to all lanes):
//   for_each(n, f)            f(i) for i in [0, n) in any order; f writes only what item i owns.
//   reduce_max/min(n, init, f) the max/min of init and every f(i); returned to every lane.
//   reduce_sum(n, f)          the sum of every f(i) (integers only: any order gives the same sum).
//   scan(n, len, f)           f(i, offset) with offset = len(0) + ... + len(i-1), in any order; returns the total.
//   scatter_add(n, len, ref, val)  ref(i, h) += val(i, h) for every i < n, h < len(i), in any order,
//                             never two lanes on one address at once. Only for values whose sums are
//                             exact (integers, or doubles that are multiples of one power of two and
//                             stay below 2^53 of it): then the order cannot show in the bits.
//   single(f)                 f() once (lane 0); its result, if any, is returned to every lane.
//   leader()                  true on lane 0 only (its plain stores become visible at the next collective).
//   sync()                    makes every lane's earlier stores visible to all lanes.
// Items are handed out in an order unlike index order on purpose (last lane first, strided), so a
// phase that depends on the order fails the parity tests on the CPU, not on somebody's GPU.
#pragma once
#include <cstdint>
#include <type_traits>

#include "kernels/common/macros.hpp"

namespace saturn {

template <int W>
struct SequentialTeam {
  static_assert(W >= 1, "a team has at least one lane");
  static constexpr int kWidth = W;

  template <class F>
  void for_each(int64_t n, F&& f) const {
    for (int lane = W - 1; lane >= 0; --lane)
      for (int64_t i = lane; i < n; i += W) f(i);
  }

  // Partials per lane, then combined in lane order (as a warp's tree would combine them: for max,
  // min and integer sums the order cannot show).
  template <class T, class F>
  T reduce_max(int64_t n, T init, F&& f) const {
    T acc = init;
    for (int lane = W - 1; lane >= 0; --lane) {
      T part = init;
      for (int64_t i = lane; i < n; i += W) {
        const T x = f(i);
        part = x > part ? x : part;
      }
      acc = part > acc ? part : acc;
    }
    return acc;
  }
  template <class T, class F>
  T reduce_min(int64_t n, T init, F&& f) const {
    T acc = init;
    for (int lane = W - 1; lane >= 0; --lane) {
      T part = init;
      for (int64_t i = lane; i < n; i += W) {
        const T x = f(i);
        part = x < part ? x : part;
      }
      acc = part < acc ? part : acc;
    }
    return acc;
  }
  template <class T, class F>
  T reduce_sum(int64_t n, F&& f) const {
    static_assert(std::is_integral<T>::value, "team sums are integer sums (order-independent)");
    T acc = 0;
    for (int lane = W - 1; lane >= 0; --lane)
      for (int64_t i = lane; i < n; i += W) acc += f(i);
    return acc;
  }

  // Chunks of W items: offsets from the chunk's exclusive scan, items visited last lane first.
  template <class Len, class F>
  int64_t scan(int64_t n, Len&& len, F&& f) const {
    int64_t base = 0;
    for (int64_t c = 0; c < n; c += W) {
      int64_t off[W];
      int64_t run = base;
      for (int lane = 0; lane < W; ++lane) {
        off[lane] = run;
        if (c + lane < n) run += len(c + lane);
      }
      for (int lane = W - 1; lane >= 0; --lane)
        if (c + lane < n) f(c + lane, off[lane]);
      base = run;
    }
    return base;
  }

  template <class Len, class Ref, class Val>
  void scatter_add(int64_t n, Len&& len, Ref&& ref, Val&& val) const {
    for (int lane = W - 1; lane >= 0; --lane)
      for (int64_t i = lane; i < n; i += W)
        for (int h = 0, e = len(i); h < e; ++h) ref(i, h) += val(i, h);
  }

  template <class F>
  auto single(F&& f) const -> decltype(f()) {
    return f();
  }
  bool leader() const { return true; }
  void sync() const {}
};

}  // namespace saturn
