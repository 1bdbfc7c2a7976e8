// Log-linear latency histogram: exact below 8 cycles, then 4 bins per octave up to 2^32 cycles.
// Percentiles from merged histograms are within one bin (< 19% of the value; interpolated inside).
#pragma once
#include <cstdint>
#include "kernels/common/bits.hpp"
#include "kernels/state/engine_view.hpp"

namespace saturn {

SATURN_INLINE int latency_bin(uint32_t cycles) {
  if (cycles < 8) return static_cast<int>(cycles);
  const int octave = log2_floor(cycles);                           // 3..31
  const int sub = static_cast<int>((cycles >> (octave - 2)) & 3u);  // next two bits
  const int bin = 8 + (octave - 3) * 4 + sub;
  return bin < kHistBins ? bin : kHistBins - 1;
}

// [low, high) cycle range a bin covers (host-side percentile interpolation).
inline void latency_bin_range(int bin, double* low, double* high) {
  if (bin < 8) {
    *low = bin;
    *high = bin + 1.0;
    return;
  }
  const int octave = 3 + (bin - 8) / 4;
  const int sub = (bin - 8) % 4;
  const double step = static_cast<double>(1ull << (octave - 2));
  *low = static_cast<double>(1ull << octave) + sub * step;
  *high = *low + step;
}

}  // namespace saturn
