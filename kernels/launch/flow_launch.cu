// The only backend-specific code of the flow engine. CUDA: one warp per trial (flow_trial_team with
// a WarpTeam), four trials per block, each trial's scratch contiguous. CPU: an OpenMP loop over
// trials where each thread reuses one tile of scratch and runs flow_trial() on one core, or, for the
// parity tests, the GPU's team program with its lanes emulated (cpu_team_width > 0).
#include "kernels/launch/flow_launch.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "kernels/flow/flow_trial.hpp"
#include "kernels/flow/flow_trial_team.hpp"

#if defined(SATURN_BACKEND_CUDA)
#include <cuda_runtime.h>

#include "kernels/launch/warp_team.cuh"
#else
#include <omp.h>

#include "kernels/flow/team.hpp"
#endif

namespace saturn {

#if defined(SATURN_BACKEND_CUDA)

// Only indexes: warp w of the grid runs trial w; its scratch is tile w (tile = 1 trial, so the 32
// lanes' loads of consecutive elements are consecutive addresses).
__global__ void __launch_bounds__(32 * kFlowWarpsPerBlock) flow_trial_warp_kernel(FlowView v) {
  const int warp = static_cast<int>(threadIdx.x) / 32;
  const int t = static_cast<int>(blockIdx.x) * kFlowWarpsPerBlock + warp;
  if (t >= v.p.trials) return;  // whole warps only: every lane of a running warp takes part
  const WarpTeam team{static_cast<int>(threadIdx.x) % 32, warp};
  const FlowSlot s{t, 0, v.tile};
  flow_trial_team(team, v, t, s);
}

FlowTiling flow_tiling(int trials, int) { return FlowTiling{1, std::max(1, trials)}; }

void run_flow_trials(const FlowView& v, int, int) {
  const int blocks = (v.p.trials + kFlowWarpsPerBlock - 1) / kFlowWarpsPerBlock;
  flow_trial_warp_kernel<<<blocks, 32 * kFlowWarpsPerBlock>>>(v);
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

namespace {

template <class Run>
void for_trials(const FlowView& v, int threads, const Run& run) {
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
      for (int t = g * tile; t < std::min(T, (g + 1) * tile); ++t) run(t, FlowSlot{id, t - g * tile, tile});
  }
}

template <int W>
void run_team(const FlowView& v, int threads) {
  const SequentialTeam<W> team;
  for_trials(v, threads, [&](int t, const FlowSlot& s) { flow_trial_team(team, v, t, s); });
}

}  // namespace

void run_flow_trials(const FlowView& v, int threads, int cpu_team_width) {
  switch (cpu_team_width) {
    case 0: for_trials(v, threads, [&](int t, const FlowSlot& s) { flow_trial(v, t, s); }); break;
    case 1: run_team<1>(v, threads); break;
    case 5: run_team<5>(v, threads); break;
    case 32: run_team<32>(v, threads); break;
    default:
      throw std::invalid_argument("flow engine: cpu_team_width must be 0, 1, 5 or 32 (got " + std::to_string(cpu_team_width) + ")");
  }
}

#endif

}  // namespace saturn
