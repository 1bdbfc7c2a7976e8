// Lane types: the phases of a step are written once, generic over a lane type L, and run either
// one trial at a time (ScalarLanes: the GPU thread and the CPU reference path) or a pack of W
// consecutive trials at once (PackLanes16: GCC vector extensions, one AVX-512 register per 16
// 32-bit lanes, two AVX2 registers where that is all the machine has).
//
// Trial-minor state (at(element, t, T) = element * T + t) makes the W trials of one element
// contiguous, so a pack loads and stores whole vectors. Values that vary per lane are L::U32,
// L::U64 and L::I32; masks are L::M (one word per lane: all ones = true). Values uniform across
// lanes stay plain integers. Code branches only on whole masks (L::any / L::none); per-lane
// index work (a slot number that differs by trial) goes through L::get / L::set, which a pack
// implements as a short loop over its lanes.
//
// Both lane types give the same bits by construction: every operation is an integer operation
// applied lane by lane. tests/unit/test_lanes.cpp holds the two to that.
#pragma once
#include <cstdint>
#include <cstring>

#include "kernels/common/macros.hpp"

#if !defined(__CUDACC__) && (defined(__AVX512F__) || defined(__AVX2__))
#include <immintrin.h>
#endif

namespace saturn {

// One trial: plain integers and bool, so nvcc compiles the same phase code for a GPU thread.
struct ScalarLanes {
  static constexpr int kWidth = 1;
  using U32 = uint32_t;
  using I32 = int32_t;
  using U64 = uint64_t;
  using M = bool;

  SATURN_INLINE static M mask(bool b) { return b; }
  SATURN_INLINE static M mask64(bool b) { return b; }
  SATURN_INLINE static bool any(M m) { return m; }
  SATURN_INLINE static bool none(M m) { return !m; }
  SATURN_INLINE static M mnot(M m) { return !m; }
  SATURN_INLINE static M mand(M a, M b) { return a && b; }
  SATURN_INLINE static M mor(M a, M b) { return a || b; }
  SATURN_INLINE static U32 u32(uint32_t x) { return x; }
  SATURN_INLINE static I32 i32(int32_t x) { return x; }
  SATURN_INLINE static U64 u64(uint64_t x) { return x; }
  SATURN_INLINE static U32 sel(M m, U32 a, U32 b) { return m ? a : b; }
  SATURN_INLINE static I32 sel(M m, I32 a, I32 b) { return m ? a : b; }
  SATURN_INLINE static U64 sel(M m, U64 a, U64 b) { return m ? a : b; }
  SATURN_INLINE static U64 widen(U32 x) { return x; }
  SATURN_INLINE static U32 narrow(U64 x) { return static_cast<uint32_t>(x); }
  SATURN_INLINE static I32 as_i32(U32 x) { return static_cast<int32_t>(x); }
  SATURN_INLINE static U32 as_u32(I32 x) { return static_cast<uint32_t>(x); }
  SATURN_INLINE static M m64(bool b) { return b; }  // comparisons of U64 already give M

  // Contiguous W-lane load/store of a column at one element (p = column + at(element, t0, T)).
  template <class T>
  SATURN_INLINE static U32 load(const T* p) { return static_cast<U32>(*p); }
  SATURN_INLINE static I32 load_i32(const int32_t* p) { return *p; }
  SATURN_INLINE static U64 load64(const uint64_t* p) { return *p; }
  template <class T>
  SATURN_INLINE static void store(T* p, U32 v) { *p = static_cast<T>(v); }
  SATURN_INLINE static void store_i32(int32_t* p, I32 v) { *p = v; }
  SATURN_INLINE static void store64(uint64_t* p, U64 v) { *p = v; }
  template <class T>
  SATURN_INLINE static void store_if(M m, T* p, U32 v) { if (m) *p = static_cast<T>(v); }
  SATURN_INLINE static void store_i32_if(M m, int32_t* p, I32 v) { if (m) *p = v; }
  SATURN_INLINE static void store64_if(M m, uint64_t* p, U64 v) { if (m) *p = v; }

  // Per-lane access.
  SATURN_INLINE static uint32_t get(U32 v, int) { return v; }
  SATURN_INLINE static int32_t get(I32 v, int) { return v; }
  SATURN_INLINE static uint64_t get(U64 v, int) { return v; }
  SATURN_INLINE static bool get_mask(M m, int) { return m; }
  SATURN_INLINE static void set_mask(M& m, int, bool b) { m = b; }
  SATURN_INLINE static void set(U32& v, int, uint32_t x) { v = x; }
  SATURN_INLINE static void set(I32& v, int, int32_t x) { v = x; }
  SATURN_INLINE static void set(U64& v, int, uint64_t x) { v = x; }

  // Lanes whose mask is true, as bits (lane l = bit l).
  SATURN_INLINE static uint32_t bits(M m) { return m ? 1u : 0u; }
  // The mask whose lane l is bit l of b (the inverse of bits).
  SATURN_INLINE static M from_bits(uint32_t b) { return (b & 1u) != 0u; }
  // Bitwise OR over the lanes (the union of per-lane bit sets).
  SATURN_INLINE static uint64_t or_lanes(U64 v) { return v; }
  SATURN_INLINE static uint32_t or_lanes(U32 v) { return v; }
};

#if !defined(__CUDACC__)

// 16 consecutive trials (CPU only). GCC lowers each operation to the widest vectors the target
// has. (The vector types are concrete: g++ 12 fails on a vector_size that depends on a template
// parameter.)
namespace pack16 {
typedef uint8_t u8 __attribute__((vector_size(16)));
typedef uint16_t u16 __attribute__((vector_size(32)));
typedef uint32_t u32 __attribute__((vector_size(64)));
typedef int32_t i32 __attribute__((vector_size(64)));
typedef uint64_t u64 __attribute__((vector_size(128)));
typedef int64_t i64 __attribute__((vector_size(128)));
template <class T> struct Narrow;
template <> struct Narrow<uint8_t> { using type = u8; };
template <> struct Narrow<uint16_t> { using type = u16; };
}  // namespace pack16

struct PackLanes16 {
  static constexpr int kWidth = 16;
  static constexpr int W = 16;
  using U32 = pack16::u32;
  using I32 = pack16::i32;
  using U64 = pack16::u64;
  using M64 = pack16::i64;
  using M = pack16::i32;  // -1 = true, 0 = false

  static M mask(bool b) { return M{} - static_cast<int32_t>(b); }
  static bool any(M m) { return bits(m) != 0; }
  static bool none(M m) { return !any(m); }
  static M mnot(M m) { return ~m; }
  static M mand(M a, M b) { return a & b; }
  static M mor(M a, M b) { return a | b; }
  static U32 u32(uint32_t x) { return U32{} + x; }
  static I32 i32(int32_t x) { return I32{} + x; }
  static U64 u64(uint64_t x) { return U64{} + x; }
  static U32 sel(M m, U32 a, U32 b) { return m ? a : b; }
  static I32 sel(M m, I32 a, I32 b) { return m ? a : b; }
  static U64 sel(M m, U64 a, U64 b) { return __builtin_convertvector(m, M64) ? a : b; }
  static U64 widen(U32 x) { return __builtin_convertvector(x, U64); }
  static U32 narrow(U64 x) { return __builtin_convertvector(x, U32); }
  static I32 as_i32(U32 x) { return reinterpret_cast<I32>(x); }
  static U32 as_u32(I32 x) { return reinterpret_cast<U32>(x); }
  static M m64(M64 m) { return __builtin_convertvector(m, M); }  // a U64 comparison's mask as M

  template <class T>
  static U32 load(const T* p) {
    if constexpr (sizeof(T) == 4) {
      U32 v;
      std::memcpy(&v, p, sizeof(v));
      return v;
    } else {
      typename pack16::Narrow<T>::type v;
      std::memcpy(&v, p, sizeof(v));
      return __builtin_convertvector(v, U32);
    }
  }
  static I32 load_i32(const int32_t* p) {
    I32 v;
    std::memcpy(&v, p, sizeof(v));
    return v;
  }
  static U64 load64(const uint64_t* p) {
    U64 v;
    std::memcpy(&v, p, sizeof(v));
    return v;
  }
  template <class T>
  static void store(T* p, U32 v) {
    if constexpr (sizeof(T) == 4) {
      std::memcpy(p, &v, sizeof(v));
    } else {
      using N = typename pack16::Narrow<T>::type;
      const N n = __builtin_convertvector(v, N);
      std::memcpy(p, &n, sizeof(n));
    }
  }
  static void store_i32(int32_t* p, I32 v) { std::memcpy(p, &v, sizeof(v)); }
  static void store64(uint64_t* p, U64 v) { std::memcpy(p, &v, sizeof(v)); }
  // Masked stores as read-blend-write: the lanes belong to this owner, nobody else writes them.
  template <class T>
  static void store_if(M m, T* p, U32 v) { store(p, sel(m, v, load(p))); }
  static void store_i32_if(M m, int32_t* p, I32 v) { store_i32(p, sel(m, v, load_i32(p))); }
  static void store64_if(M m, uint64_t* p, U64 v) { store64(p, sel(m, v, load64(p))); }

  static uint32_t get(U32 v, int i) { return v[i]; }
  static int32_t get(I32 v, int i) { return v[i]; }
  static uint64_t get(U64 v, int i) { return v[i]; }
  static void set(U32& v, int i, uint32_t x) { v[i] = x; }
  static void set(I32& v, int i, int32_t x) { v[i] = x; }
  static void set(U64& v, int i, uint64_t x) { v[i] = x; }
  static bool get_mask(M m, int i) { return m[i] != 0; }
  static void set_mask(M& m, int i, bool b) { m[i] = -static_cast<int32_t>(b); }

  // The horizontal operations, with the instructions GCC does not find by itself. (g++ 12's
  // _mm512_reduce_or_* trips -Wmaybe-uninitialized inside its own header.)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
  // The mask whose lane l is bit l of b (the inverse of bits): a per-lane loop collects its results
  // as bits and turns them into a mask once, rather than setting mask lanes one by one.
  static M from_bits(uint32_t b) {
    const U32 lane_bit = {1u << 0, 1u << 1, 1u << 2,  1u << 3,  1u << 4,  1u << 5,  1u << 6,  1u << 7,
                          1u << 8, 1u << 9, 1u << 10, 1u << 11, 1u << 12, 1u << 13, 1u << 14, 1u << 15};
    return (u32(b) & lane_bit) != 0u;
  }
  static uint32_t bits(M m) {
#if defined(__AVX512F__)
    return static_cast<uint32_t>(_mm512_movepi32_mask(reinterpret_cast<__m512i>(m)));
#elif defined(__AVX2__)
    const __m256i* h = reinterpret_cast<const __m256i*>(&m);
    return static_cast<uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(h[0]))) |
           static_cast<uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(h[1]))) << 8;
#else
    uint32_t r = 0;
    for (int i = 0; i < W; ++i) r |= static_cast<uint32_t>(m[i] & 1) << i;
    return r;
#endif
  }
  static uint64_t or_lanes(U64 v) {
#if defined(__AVX512F__)
    const __m512i* h = reinterpret_cast<const __m512i*>(&v);
    return static_cast<uint64_t>(_mm512_reduce_or_epi64(_mm512_or_si512(h[0], h[1])));
#else
    uint64_t r = 0;
    for (int i = 0; i < W; ++i) r |= v[i];
    return r;
#endif
  }
  static uint32_t or_lanes(U32 v) {
#if defined(__AVX512F__)
    return static_cast<uint32_t>(_mm512_reduce_or_epi32(reinterpret_cast<__m512i>(v)));
#else
    uint32_t r = 0;
    for (int i = 0; i < W; ++i) r |= v[i];
    return r;
#endif
  }
#pragma GCC diagnostic pop
};

#endif

}  // namespace saturn
