// How many of a study's batches the CUDA backend runs at once. A paper figure is one study of
// many narrow batches (3-50 trials of 432-4096 nodes per point): one such batch keeps a few
// multiprocessors busy and leaves the rest of the device idle, and its kernels are bound by the
// latency of their dependent loads, not by the device's bandwidth. So batches run side by side,
// each from a host thread of its own (study.cpp), whose kernels, copies and reductions go to that
// thread's own stream (nvcc --default-stream per-thread; the engine waits on its own stream only),
// and the device overlaps them. Batches are independent, so results never depend on this number.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace saturn {

// resident_threads: what the device holds at once (gpu_resident_threads); widest_pairs: the most
// (element, trial) pairs of any batch, max(switches, endpoints) x trials, the threads its phase
// kernels launch; fit: how many of the largest batch the memory budget holds; host_threads: the
// run's --threads (each side-by-side batch is a host thread that waits on its stream).
// As many batches as fill the device without oversubscribing it, at least 1.
inline int gpu_side_by_side(int64_t resident_threads, int64_t widest_pairs, size_t fit, size_t batches,
                            int host_threads) {
  if (resident_threads <= 0 || batches < 2) return 1;
  const int64_t fill = resident_threads / std::max<int64_t>(1, widest_pairs);
  const int64_t n = std::min<int64_t>({fill, static_cast<int64_t>(fit), static_cast<int64_t>(batches),
                                       static_cast<int64_t>(std::max(1, host_threads))});
  return static_cast<int>(std::max<int64_t>(1, n));
}

}  // namespace saturn
