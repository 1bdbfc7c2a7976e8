// Log-linear latency histogram: exact below 8 cycles, then 4 bins per octave up to 2^32 cycles.
// Percentiles from merged histograms are within one bin (< 19% of the value; interpolated inside).
#pragma once
#include <cstdint>
#include "kernels/common/bits.hpp"
#include "kernels/state/engine_view.hpp"

namespace saturn {

// Where endpoint e's count of bin `bin` lives in the per-endpoint histogram columns (st_net_hist,
// st_msg_hist; times the trials, trial-minor): bin by bin, every endpoint's count of one bin
// together. An endpoint's deliveries fall in a few bins, so a cycle's deliveries touch a few
// lines of the whole network, in endpoint order, instead of a line of every endpoint's own row,
// each a cache miss on a large network (the increment was 10% of one trial of the 4096-node tree).
SATURN_INLINE int64_t hist_slot(int64_t endpoints, int e, int bin) { return static_cast<int64_t>(bin) * endpoints + e; }

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
