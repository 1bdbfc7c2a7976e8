// The few transcendental functions the per-cycle code needs, written once here so that g++ and
// nvcc produce the same bits: only IEEE +, -, *, / on doubles (no libm, no FMA contraction).
#pragma once
#include <cstdint>

#include "kernels/common/bits.hpp"
#include "kernels/common/macros.hpp"

namespace saturn {

constexpr double kLn2 = 0.69314718055994530942;
constexpr double kSqrt2 = 1.41421356237309504880;

// ln(2^e * m) for m in [sqrt(1/2), sqrt(2)): ln(m) = 2 atanh(s), s = (m - 1) / (m + 1),
// |s| < 0.172, series to s^17 (error < 1e-14). F is double, or a vector of doubles
// (kernels/common/rng_lanes.hpp: the same operations in the same order, so the same bits per lane).
template <class F>
SATURN_INLINE F ln_reduced(F e, F m) {
  const F s = (m - 1.0) / (m + 1.0);
  const F s2 = s * s;
  F series = F{} + 1.0 / 17.0;
  series = series * s2 + 1.0 / 15.0;
  series = series * s2 + 1.0 / 13.0;
  series = series * s2 + 1.0 / 11.0;
  series = series * s2 + 1.0 / 9.0;
  series = series * s2 + 1.0 / 7.0;
  series = series * s2 + 1.0 / 5.0;
  series = series * s2 + 1.0 / 3.0;
  series = series * s2 + 1.0;
  return e * kLn2 + 2.0 * s * series;
}

// ln(x) for x = word + 0.5 in [0.5, 2^32): x = 2^e * m with m in [sqrt(1/2), sqrt(2)).
SATURN_INLINE double ln_half_offset(uint32_t word) {
  const double x = static_cast<double>(word) + 0.5;
  int e = word == 0 ? -1 : log2_floor(word);
  double m = word == 0 ? 1.0 : x / static_cast<double>(1ull << e);  // exact: power-of-two scale
  if (m >= kSqrt2) {
    m = m * 0.5;
    e += 1;
  }
  return ln_reduced(static_cast<double>(e), m);
}

// Cycles until the next success of a Bernoulli process with per-cycle probability p, given
// ln(1 - p) (host-computed) and a uniform 32-bit word: geometric on {1, 2, ...}, saturating.
// Exactly the per-cycle Bernoulli process, at one draw per event instead of one per cycle.
SATURN_INLINE uint32_t geometric_gap(uint32_t word, double log1m_p) {
  if (!(log1m_p < 0.0)) return 0xFFFFFFFFu;                      // p = 0: never
  const double ln_u = ln_half_offset(word) - 32.0 * kLn2;         // ln(u), u = (word + 0.5) / 2^32
  const double k = ln_u / log1m_p;                                // >= 0; 0 when p = 1 (log1m_p = -inf)
  if (!(k < 2.0e9)) return 0x7FFFFFFFu;
  return static_cast<uint32_t>(k) + 1u;
}

}  // namespace saturn
