// The CUDA form of a team (kernels/flow/team.hpp has the contract and the CPU form): one warp runs
// one trial. Reductions and scans are CUB's warp primitives; scatter_add groups lanes that hit one
// address with __match_any_sync and lets them add one after another, so no atomics are used and
// integer (or exactly representable) sums come out the same in any order. CUDA builds only.
#pragma once
#if !defined(__CUDACC__)
#error "warp_team.cuh is CUDA-only (CUB does not compile for the host)"
#endif
#include <cstdint>
#include <type_traits>

#include <cub/warp/warp_reduce.cuh>
#include <cub/warp/warp_scan.cuh>
#include <cub/util_ptx.cuh>
#include <cuda/functional>

namespace saturn {

// Warps per block of the flow kernel (one trial per warp); the shared scratch of CUB's warp
// primitives is laid out per warp.
constexpr int kFlowWarpsPerBlock = 4;

struct WarpTeam {
  static constexpr int kWidth = 32;
  static constexpr unsigned kAll = 0xffffffffu;
  int lane;  // 0..31
  int warp;  // warp within the block

  template <class T>
  __device__ __forceinline__ T broadcast(T x) const {
    return cub::ShuffleIndex<32>(x, 0, kAll);
  }

  template <class F>
  __device__ __forceinline__ void for_each(int64_t n, F&& f) const {
    for (int64_t i = lane; i < n; i += kWidth) f(i);
    __syncwarp();
  }

  template <class T, class Op>
  __device__ __forceinline__ T reduce(T part, Op op) const {
    using R = cub::WarpReduce<T>;
    __shared__ typename R::TempStorage storage[kFlowWarpsPerBlock];
    const T r = R(storage[warp]).Reduce(part, op);  // valid in lane 0
    __syncwarp();
    return broadcast(r);
  }
  template <class T, class F>
  __device__ __forceinline__ T reduce_max(int64_t n, T init, F&& f) const {
    T part = init;
    for (int64_t i = lane; i < n; i += kWidth) {
      const T x = f(i);
      part = x > part ? x : part;
    }
    return reduce(part, ::cuda::maximum<T>{});
  }
  template <class T, class F>
  __device__ __forceinline__ T reduce_min(int64_t n, T init, F&& f) const {
    T part = init;
    for (int64_t i = lane; i < n; i += kWidth) {
      const T x = f(i);
      part = x < part ? x : part;
    }
    return reduce(part, ::cuda::minimum<T>{});
  }
  template <class T, class F>
  __device__ __forceinline__ T reduce_sum(int64_t n, F&& f) const {
    static_assert(std::is_integral<T>::value, "team sums are integer sums (order-independent)");
    T part = 0;
    for (int64_t i = lane; i < n; i += kWidth) part += f(i);
    using R = cub::WarpReduce<T>;
    __shared__ typename R::TempStorage storage[kFlowWarpsPerBlock];
    const T r = R(storage[warp]).Sum(part);
    __syncwarp();
    return broadcast(r);
  }

  template <class Len, class F>
  __device__ __forceinline__ int64_t scan(int64_t n, Len&& len, F&& f) const {
    using S = cub::WarpScan<long long>;
    __shared__ typename S::TempStorage storage[kFlowWarpsPerBlock];
    int64_t base = 0;
    for (int64_t c = 0; c < n; c += kWidth) {  // uniform trip count: every lane scans
      const int64_t i = c + lane;
      const long long x = i < n ? static_cast<long long>(len(i)) : 0;
      long long off = 0, total = 0;
      S(storage[warp]).ExclusiveSum(x, off, total);
      __syncwarp();
      if (i < n) f(i, base + off);
      base += total;
    }
    __syncwarp();
    return base;
  }

  template <class Len, class Ref, class Val>
  __device__ __forceinline__ void scatter_add(int64_t n, Len&& len, Ref&& ref, Val&& val) const {
    for (int64_t c = 0; c < n; c += kWidth) {
      const int64_t i = c + lane;
      const int my_len = i < n ? len(i) : 0;
      const int max_len = static_cast<int>(__reduce_max_sync(kAll, static_cast<unsigned>(my_len)));
      for (int h = 0; h < max_len; ++h) {
        const bool active = h < my_len;
        auto* p = active ? &ref(i, h) : nullptr;
        // Lanes on one address form a group; the k-th lane of a group adds in round k.
        const unsigned group = __match_any_sync(kAll, reinterpret_cast<unsigned long long>(p));
        const unsigned rank = static_cast<unsigned>(__popc(group & ((1u << lane) - 1u)));
        const unsigned rounds = __reduce_max_sync(kAll, active ? rank + 1u : 0u);
        for (unsigned r = 0; r < rounds; ++r) {
          if (active && rank == r) *p += val(i, h);
          __syncwarp();
        }
      }
    }
    __syncwarp();
  }

  __device__ __forceinline__ bool leader() const { return lane == 0; }
  __device__ __forceinline__ void sync() const { __syncwarp(); }

  template <class F>
  __device__ __forceinline__ auto single(F&& f) const -> decltype(f()) {
    using R = decltype(f());
    if constexpr (std::is_void<R>::value) {
      if (lane == 0) f();
      __syncwarp();
    } else {
      R r{};
      if (lane == 0) r = f();
      __syncwarp();
      return broadcast(r);
    }
  }
};

}  // namespace saturn
