// Project-wide macros: one function attribute that is __host__ __device__ only under nvcc.
#pragma once

#if defined(__CUDACC__)
#define SATURN_HD __host__ __device__
#define SATURN_INLINE __host__ __device__ __forceinline__
#else
#define SATURN_HD
#ifdef SATURN_PROFILE
#define SATURN_INLINE inline __attribute__((noinline))
#else
#define SATURN_INLINE inline __attribute__((always_inline))
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
