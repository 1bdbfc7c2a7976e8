// The only backend-specific code of the flow engine: one CUDA thread per trial, or an OpenMP loop
// over trials where each thread reuses one tile of scratch. Both call flow_trial().
#include "kernels/launch/flow_launch.hpp"

#include <algorithm>

#include "kernels/flow/flow_trial.hpp"

#if defined(SATURN_BACKEND_CUDA)
#include <cuda_runtime.h>
#include <stdexcept>
#include <string>
#else
#include <omp.h>
#endif

namespace saturn {

#if defined(SATURN_BACKEND_CUDA)

__global__ void flow_trial_kernel(FlowView v) {
  const int t = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (t >= v.p.trials) return;
  const FlowSlot s{0, t, v.tile};
  flow_trial(v, t, s);
}

FlowTiling flow_tiling(int trials, int) { return FlowTiling{std::max(1, trials), 1}; }

void run_flow_trials(const FlowView& v, int) {
  constexpr int kBlock = 64;
  flow_trial_kernel<<<(v.p.trials + kBlock - 1) / kBlock, kBlock>>>(v);
  cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  if (err != cudaSuccess) throw std::runtime_error(std::string("CUDA error: ") + cudaGetErrorString(err));
}

#else

FlowTiling flow_tiling(int trials, int threads) {
  const int tile = kCpuFlowTile;
  const int groups = (trials + tile - 1) / tile;
  return FlowTiling{tile, std::max(1, std::min(std::max(1, threads), groups))};
}

void run_flow_trials(const FlowView& v, int threads) {
  const int T = v.p.trials;
  const FlowTiling tiling = flow_tiling(T, threads);
  const int tile = v.tile;
  const int groups = (T + tile - 1) / tile;
  // Thread i owns scratch tile i; groups of `tile` trials are handed out dynamically (trials of a
  // group share the tile, one lane each). Results depend only on the trial, not on the thread.
#pragma omp parallel num_threads(tiling.tiles)
  {
    const int id = omp_get_thread_num();
#pragma omp for schedule(dynamic, 1)
    for (int g = 0; g < groups; ++g)
      for (int t = g * tile; t < std::min(T, (g + 1) * tile); ++t) {
        const FlowSlot s{id, t - g * tile, tile};
        flow_trial(v, t, s);
      }
  }
}

#endif

}  // namespace saturn
