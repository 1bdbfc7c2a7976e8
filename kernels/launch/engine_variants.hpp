// The compiled variants of the packet step, one translation unit each (kernels/launch/engine_variant_*.cu):
// a model has one VC or many (kVcs = 1 or 0) and uses congestion control or not (kCc), and on the
// CPU the 16-trial packs and the one-trial paths (scalar phases, fused step) are separate units.
// They are split so that a build's cores share the work: as one file, the engine took 797 s to
// compile under clang with ASan at -O1 (scripts/sanitize.sh), the longest step of CI.
// engine_launch.cu chooses the variant; engine_variant_program.hpp defines the bodies.
#pragma once
#include <cstdint>

#include "kernels/launch/engine_launch.hpp"

namespace saturn::variant {

#if defined(SATURN_BACKEND_CUDA)
// The most threads a block of the block program has (fewer where the kernel's registers say so).
constexpr int kMaxBlockThreads = 1024;

// Cycles [first, last) on the GPU: the block program, or phase kernels replayed from a CUDA graph
// (`step`; kAuto chooses as engine_variant_program.hpp says, from measurements on an H200).
template <int kVcs, bool kCc>
void run_gpu(const EngineView& v, uint32_t first, uint32_t last, const LaunchOptions& options, GpuStep step);
#else
// Cycles [first, last) for the 16 trials [b0, b0 + 16) as one SIMD pack.
template <int kVcs, bool kCc>
void run_block_pack16(const EngineView& v, int b0, uint32_t first, uint32_t last, bool check);
// Cycles [first, last) for trials [b0, b1), one trial at a time: the scalar phases, or the fused step.
template <int kVcs, bool kCc>
void run_block_one_by_one(const EngineView& v, int b0, int b1, uint32_t first, uint32_t last, bool check, bool fused);
// Cycles [first, last) for trials [t0, t1), one at a time through the staged block program
// (GpuStep::kSharedTrial's program, with one thread): the tests' check of the staging.
template <int kVcs, bool kCc>
void run_trials_staged(const EngineView& v, const TrialStage& n, int t0, int t1, uint32_t first, uint32_t last, bool check);
// Cycles [first, last) for trials [t0, t1), one at a time, the switches through the team program
// over 32 emulated lanes (GpuStep::kWarpSwitch's, kernels/phases/switch_team_step.hpp): the tests' check of it.
template <int kVcs, bool kCc>
void run_trials_team(const EngineView& v, int t0, int t1, uint32_t first, uint32_t last, bool check);
// Fewer trials than threads on a large network: every thread takes part of each phase's
// (element, trial) pairs, with a barrier after each phase (the generic VC-and-CC build only).
void run_element_split(const EngineView& v, uint32_t first, uint32_t last, const LaunchOptions& options, bool fused);
#endif

}  // namespace saturn::variant
