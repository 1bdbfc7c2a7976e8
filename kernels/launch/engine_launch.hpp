// The launch layer's plain C++ API: advance a batch by whole cycles on the compiled backend.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/state/engine_view.hpp"

namespace saturn {

enum class CpuStep : uint8_t { kFused = 0, kPhases = 1, kPhasesPack16 = 2, kAuto = 3 };
// CUDA: the block program (a persistent kernel, each block running its trials through every
// cycle of a call), or one kernel per phase replayed from a CUDA graph; kAuto takes the block
// program only where the whole batch fits in one block (run_gpu, engine_variant_program.hpp).
// kSharedTrial: the staged block program, a block per trial with the trial's state in shared
// memory (kernels/state/trial_stage.hpp), where a trial fits a block's shared memory, else the
// block program; never chosen by kAuto (not yet measured on a GPU). On the CPU, kSharedTrial runs
// the same program with one thread per trial (the tests' check of its staging); the other values
// are CUDA only. kWarpSwitch: the phase graph with each switch's phases spread over a warp (a lane
// per port; kernels/phases/switch_team_step.hpp) where the model is one the team covers
// (team_grant_covers: the greedy allocator, switches of at most 32 ports, no FIFO with bypass or
// CCA), else the phase graph; never chosen by kAuto either. On the CPU it runs the same team program over 32 emulated lanes,
// one thread per trial (the tests' check of its bits).
enum class GpuStep : uint8_t { kAuto = 0, kBlockProgram = 1, kPhaseGraph = 2, kSharedTrial = 3, kWarpSwitch = 4 };

struct TrialStage;  // kernels/state/trial_stage.hpp

struct LaunchOptions {
  int threads = 1;                // CPU: OpenMP threads (ignored on CUDA)
  bool check_invariants = false;  // run the invariant check after every cycle
  // CPU: the fused per-trial step (the switch phases on one trial, then the per-trial endpoint step,
  // endpoint_step.hpp; kept for A/B), or the
  // phases over lanes (switch_inputs.hpp, switch_grant.hpp, endpoint_lanes.hpp; congestion control
  // included) one trial at a time or 16 trials per SIMD pack. All three give the same bits.
  // kAuto: auto_cpu_step below.
  CpuStep cpu_step = CpuStep::kAuto;
  GpuStep gpu_step = GpuStep::kAuto;  // CUDA, and kSharedTrial on the CPU (above)
  int gpu_trials_per_block = 0;       // CUDA block program: trials per block, 0 = chosen from the GPU
  const TrialStage* stage = nullptr;  // kSharedTrial: the per-trial rows to stage (Engine::advance sets it)
};

// What kAuto runs on this build: the 16-trial packs, with or without congestion control, where
// the build targets AVX2 or AVX-512 (SATURN_NATIVE, the default: there the packs are 1.4-1.5x
// faster than the fused step before VOQs, bench/RESULTS.md), else the fused step (16-lane vectors
// lowered to SSE2 are slower than it). The argument (whether the model uses congestion control)
// no longer changes the answer; it stays so that a later rule may.
CpuStep auto_cpu_step(bool uses_cc);
// What kAuto runs for model m: auto_cpu_step, except where a model's phases are slower in packs
// than one trial at a time: the separable allocator (switch.allocator = separable_input_first),
// whose input and output stages run lane by lane, 2.6-2.8x slower per trial in a pack than scalar
// (bench/RESULTS.md, "VC allocation per hop"). Those models run scalar trials.
CpuStep auto_cpu_step_for(const ModelParams& m);
bool cpu_build_has_wide_vectors();  // the engine was compiled for AVX2 or AVX-512
const char* cpu_step_name(CpuStep step);
// "auto", "block", "graph", "shared", "warp": the names SATURN_GPU_STEP and saturn-bench --gpu-step take.
const char* gpu_step_name(GpuStep step);
bool parse_gpu_step(const char* name, GpuStep* step);  // false for any other name
std::vector<std::string> gpu_step_names();           // every name parse_gpu_step takes, in order
std::string gpu_step_choices();                      // the same, as "auto, block, ..." for a message

// CUDA: the threads the device holds resident at once (multiprocessors x threads per
// multiprocessor), what batches side by side may fill (host/packet/gpu_side_by_side.hpp); 0 on the CPU.
int64_t gpu_resident_threads();

// Runs cycles [first, last). The view's pointers are device pointers on the CUDA backend. On CUDA
// the work goes to the calling host thread's default stream (nvcc --default-stream per-thread), and
// the call waits for that stream only: batches run side by side from several host threads overlap.
void run_cycles(const EngineView& view, uint32_t first, uint32_t last, const LaunchOptions& options);

// How the CPU backend splits work (for tests and the manifest): "trials" (each thread owns a
// chunk of trials, no barriers; used whenever every thread gets a trial, or the network is too
// small to be worth a barrier per phase) or "elements" (fewer trials than threads on a network of
// at least kElementSplitSwitches switches: a barrier after each phase).
constexpr int kElementSplitSwitches = 32;
const char* cpu_split_mode(int trials, int threads, int switches);

}  // namespace saturn
