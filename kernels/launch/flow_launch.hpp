// The flow engine's launch API (plain C++): run every trial of a batch once, start to finish.
#pragma once

#include "kernels/flow/flow_view.hpp"

namespace saturn {

// Trials per tile of the flow engine's scratch on the CPU: 1 keeps each running trial's columns
// contiguous (one trial's whole working set, ~0.6 MB for 4096 nodes, stays in L2). Measured
// against 16 in bench/RESULTS.md. CUDA runs a trial on a warp and also gives each trial its own
// tile (tile = 1, T tiles): the lanes then read consecutive elements of one trial.
constexpr int kCpuFlowTile = 1;

// Scratch layout the backend needs for T trials and `threads` CPU threads: trials per tile and
// tiles in flight.
struct FlowTiling {
  int tile = 1;
  int tiles = 1;
};
FlowTiling flow_tiling(int trials, int threads);

// Runs all v.p.trials trials. The view's pointers are device pointers on the CUDA backend.
// cpu_team_width (CPU backend, tests): 0 runs flow_trial() per trial (the fast CPU path); 1, 5 or
// 32 runs the GPU's team program (flow_trial_team.hpp) with that many lanes emulated, which must
// give the same bits. Ignored on CUDA (always one warp per trial).
void run_flow_trials(const FlowView& v, int threads, int cpu_team_width = 0);

}  // namespace saturn
