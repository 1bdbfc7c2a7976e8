// Project-wide macros: one function attribute that is __host__ __device__ only under nvcc.
#pragma once

#if defined(__CUDACC__)
#define SATURN_HD __host__ __device__
#define SATURN_INLINE __host__ __device__ __forceinline__
#define SATURN_INLINE_HOT __host__ __device__ __forceinline__
#else
#define SATURN_HD
// The CPU default lets g++ choose what to inline: forcing every kernel function inline
// (SATURN_FORCE_INLINE, CMake option of that name) made the congestion-control variants take
// 165-260 s each to compile (10 s without) and ASan builds over 12 min per variant, for up to 6%
// of run time (bench/RESULTS.md, "Inlining policy"). Results are the same bits either way.
#if defined(SATURN_PROFILE)
#define SATURN_INLINE inline __attribute__((noinline))
#define SATURN_INLINE_HOT inline __attribute__((noinline))
#elif defined(SATURN_FORCE_INLINE)
#define SATURN_INLINE inline __attribute__((always_inline))
#define SATURN_INLINE_HOT inline __attribute__((always_inline))
#else
#define SATURN_INLINE inline
// The few per-packet functions whose call g++ keeps but costs more than their body: every live
// vector register is spilled around a call (bench/RESULTS.md, "Lanes from arrays").
#define SATURN_INLINE_HOT inline __attribute__((always_inline))
#endif
#endif

// Random123 must know how to mark its functions for device code.
#ifndef R123_CUDA_DEVICE
#if defined(__CUDACC__)
#define R123_CUDA_DEVICE __host__ __device__
#else
#define R123_CUDA_DEVICE
#endif
#endif

namespace saturn {
// The backend this build runs on, for host code whose budgets and plans differ between them (CMake
// defines SATURN_BACKEND_CUDA for the cuda build; SATURN_BACKEND_NAME names it for output).
#if defined(SATURN_BACKEND_CUDA)
inline constexpr bool kCpuBackend = false;
#else
inline constexpr bool kCpuBackend = true;
#endif
}  // namespace saturn
