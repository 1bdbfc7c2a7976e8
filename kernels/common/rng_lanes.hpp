// The generation draw of a 16-trial pack at once (CPU only): Philox4x32-10 and the geometric gap
// of fastmath.hpp, lane by lane the same integer and IEEE double operations in the same order, so
// every lane gets the bits of rng.hpp's philox and fastmath.hpp's geometric_gap
// (tests/unit/test_lanes.cpp holds them to that). Where most endpoints of a pack start a message
// every few cycles, the scalar draws were a sixth of the step (bench/RESULTS.md).
#pragma once
#include <cstdint>

#include "kernels/common/fastmath.hpp"
#include "kernels/common/lanes.hpp"
#include "kernels/common/rng.hpp"

#if !defined(__CUDACC__)
namespace saturn {

struct Draw4Lanes {
  PackLanes16::U32 v[4];
};

// philox(seed[l], trial, element, cycle, purpose) in every lane l: one key per lane, one counter.
inline Draw4Lanes philox_lanes(PackLanes16::U64 seed, uint32_t trial, uint32_t element, uint32_t cycle,
                               Stream purpose) {
  using P = PackLanes16;
  using U32 = P::U32;
  using U64 = P::U64;
  U32 c0 = P::u32(element), c1 = P::u32(cycle), c2 = P::u32(static_cast<uint32_t>(purpose)), c3 = P::u32(trial);
  U32 k0 = P::narrow(seed), k1 = P::narrow(seed >> 32);
  for (int round = 0; round < 10; ++round) {  // Random123's philox4x32 round and key schedule
    if (round > 0) {
      k0 = k0 + 0x9E3779B9u;
      k1 = k1 + 0xBB67AE85u;
    }
    const U64 p0 = P::widen(c0) * 0xD2511F53ull;
    const U64 p1 = P::widen(c2) * 0xCD9E8D57ull;
    const U32 hi0 = P::narrow(p0 >> 32), lo0 = P::narrow(p0), hi1 = P::narrow(p1 >> 32), lo1 = P::narrow(p1);
    c0 = hi1 ^ c1 ^ k0;
    c1 = lo1;
    c2 = hi0 ^ c3 ^ k1;
    c3 = lo0;
  }
  return Draw4Lanes{{c0, c1, c2, c3}};
}

// geometric_gap(word[l], log1m_p[l]) for 8 lanes (one 512-bit register of doubles; g++ lowers the
// 16-lane double vectors to scalar code): ln_half_offset's range reduction through the double's
// exponent field (exact: a 32-bit word converts exactly), then its series (ln_reduced).
namespace pack16 {
typedef double f64x8 __attribute__((vector_size(64)));
typedef int64_t i64x8 __attribute__((vector_size(64)));
typedef uint64_t u64x8 __attribute__((vector_size(64)));
}  // namespace pack16

inline pack16::u64x8 geometric_gap_8(pack16::u64x8 word, pack16::f64x8 log1m_p) {
  using F = pack16::f64x8;
  using I = pack16::i64x8;
  using U = pack16::u64x8;
  const F w = __builtin_convertvector(word, F);
  const F x = w + 0.5;
  const I zero_word = word == 0u;  // -1 where word == 0
  const U wbits = reinterpret_cast<U>(w);
  I e = reinterpret_cast<I>((wbits >> 52) & 0x7FFu) - 1023;  // log2_floor(word) for word >= 1
  const F scale = reinterpret_cast<F>(reinterpret_cast<U>(e + 1023) << 52);  // 2^e
  F m = x / scale;
  m = zero_word ? F{} + 1.0 : m;
  e = zero_word ? I{} - 1 : e;
  const I big = m >= kSqrt2;
  m = big ? m * 0.5 : m;
  e = big ? e + 1 : e;
  const F ln_x = ln_reduced(__builtin_convertvector(e, F), m);  // fastmath.hpp's series
  const F k = (ln_x - 32.0 * kLn2) / log1m_p;
  const I never = (log1m_p < 0.0) == 0;  // p = 0 (or NaN): never
  const I huge = (k < 2.0e9) == 0;
  const F k_in_range = (never | huge) ? F{} : k;
  const U gap = reinterpret_cast<U>(__builtin_convertvector(k_in_range, I)) + 1u;
  return never ? U{} + 0xFFFFFFFFu : huge ? U{} + 0x7FFFFFFFu : gap;
}

// The 16 lanes' gaps: gaps[l] = geometric_gap(words[l], log1m_p[l]).
inline void geometric_gap_lanes(const uint32_t* words, const double* log1m_p, uint32_t* gaps) {
  for (int h = 0; h < 16; h += 8) {
    pack16::u64x8 w;
    pack16::f64x8 lp;
    for (int l = 0; l < 8; ++l) w[l] = words[h + l];
    __builtin_memcpy(&lp, log1m_p + h, sizeof(lp));
    const pack16::u64x8 g = geometric_gap_8(w, lp);
    for (int l = 0; l < 8; ++l) gaps[h + l] = static_cast<uint32_t>(g[l]);
  }
}

}  // namespace saturn
#endif
