// The bodies of the packet step's compiled variants (declared in engine_variants.hpp): the CPU's
// loops over a block of trials and the CUDA drivers. Included only by the variant translation units
// (kernels/launch/engine_variant_*.cu), each of which instantiates one variant, so that no one file
// compiles them all.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "kernels/launch/engine_variants.hpp"
#include "kernels/phases/endpoint_lanes.hpp"
#include "kernels/phases/endpoint_step.hpp"
#include "kernels/phases/invariants.hpp"
#include "kernels/phases/switch_grant.hpp"
#include "kernels/phases/switch_grant_cc.hpp"
#include "kernels/phases/switch_inputs.hpp"
#include "kernels/phases/switch_team.hpp"
#include "kernels/phases/switch_team_step.hpp"
#include "kernels/state/trial_stage.hpp"

#if defined(SATURN_BACKEND_CUDA)
#include <cuda_runtime.h>
#include <stdexcept>
#include <string>
#endif

namespace saturn::variant {

// One switch for one cycle and a lane of trials starting at t0, as phases over lanes (kCc: with
// the congestion-control paths compiled in).
template <class L, int kVcs, bool kCc>
SATURN_INLINE void step_switch(const EngineView& v, int sw, int t0, uint32_t c) {
  switch_inputs<L, kVcs, kCc>(v, sw, t0, c);
  switch_grant<L, kVcs, kCc>(v, sw, t0, c);
}

// The staged block program (GpuStep::kSharedTrial; kernels/state/trial_stage.hpp): trial t's state
// copied into a stage at `base`, advanced there through cycles [first, last) by thread `lane` of
// `lanes` with sync() between phases (the phases, their order and the scalar lane of the block
// program below), and copied back. The GPU runs it with a thread block per trial and the stage in
// shared memory; the CPU runs it with one thread on a heap buffer, in the tests (SATURN_GPU_STEP=
// shared), so that its staging is checked on every build. `view_slot`: room for the staged view,
// which lane 0 builds and every lane reads.
struct NoSync {
  SATURN_INLINE void operator()() const {}
};

template <int kVcs, bool kCc, class Sync>
SATURN_INLINE void staged_trial_program(const EngineView& v, const TrialStage& n, int t, char* base, void* view_slot,
                                        uint32_t first, uint32_t last, bool check, int lane, int lanes, Sync sync) {
  if (lane == 0) stage_view(v, n, base, view_slot);
  sync();
  const EngineView& s = *static_cast<const EngineView*>(view_slot);
  stage_in(v, s, n, t, lane, lanes);
  sync();
  for (uint32_t c = first; c < last; ++c) {
    for (int i = lane; i < s.net.num_switches; i += lanes) step_switch<ScalarLanes, kVcs, kCc>(s, i, 0, c);
    sync();
    for (int i = lane; i < s.net.num_endpoints; i += lanes) endpoint_lanes<ScalarLanes, kVcs, kCc>(s, i, 0, c);
    sync();
    if (check) {
      if (lane == 0) check_invariants(s, 0, c);
      sync();
    }
  }
  stage_out(v, s, n, t, lane, lanes);
}

#if defined(SATURN_BACKEND_CUDA)

namespace {  // each variant's unit has its own copy of the kernels

// The GPU driver. Two programs run the same per-element functions in the same phase order as
// the CPU (switches, then endpoints, then the optional invariant check), so every path gives the
// same bits:
//   - the block program (a persistent kernel): one thread block owns a group of trials and runs
//     them through every cycle of the call, with __syncthreads() between phases. Trials never
//     read each other's state, so blocks need no grid-wide barrier.
//   - phase kernels: one kernel per phase over every (element, trial); kGraphCycles cycles are
//     captured once as a CUDA graph and replayed, so the launch cost is paid once per graph and
//     not twice per cycle. The kernels read the cycle from a device counter that the graph's last
//     node advances, so one graph serves every replay.
// Both run the phases over the scalar lane (one thread = one element of one trial, as the CPU's
// --step phases). run_gpu below chooses between them. Both gave the CPU's bits on every golden
// case on an H200 (tests/parity, 2026-11-26).

// Element e of trial t0 + k for a flat index over a block's (element, trial) pairs: consecutive
// threads take consecutive trials of one element, which are adjacent in the trial-minor columns.
template <int kVcs, bool kCc>
__global__ void block_program_kernel(EngineView v, uint32_t first, uint32_t last, int trials_per_block,
                                     bool check_invariants_each_cycle) {
  const int T = v.model.trials;
  const int t0 = blockIdx.x * trials_per_block;
  const int nt = min(trials_per_block, T - t0);
  if (nt <= 0) return;  // uniform over the block: no thread of it reaches a barrier
  const int64_t sw_items = static_cast<int64_t>(v.net.num_switches) * nt;
  const int64_t ep_items = static_cast<int64_t>(v.net.num_endpoints) * nt;
  for (uint32_t c = first; c < last; ++c) {
    for (int64_t i = threadIdx.x; i < sw_items; i += blockDim.x)
      step_switch<ScalarLanes, kVcs, kCc>(v, static_cast<int>(i / nt), t0 + static_cast<int>(i % nt), c);
    __syncthreads();
    for (int64_t i = threadIdx.x; i < ep_items; i += blockDim.x)
      endpoint_lanes<ScalarLanes, kVcs, kCc>(v, static_cast<int>(i / nt), t0 + static_cast<int>(i % nt), c);
    __syncthreads();
    if (check_invariants_each_cycle) {
      for (int k = threadIdx.x; k < nt; k += blockDim.x) check_invariants(v, t0 + k, c);
      __syncthreads();
    }
  }
}

// The staged block program: a block per trial, its stage in dynamic shared memory (SharedTrial below).
struct BlockSync {
  SATURN_INLINE void operator()() const {
#if defined(__CUDA_ARCH__)
    __syncthreads();
#endif
  }
};

template <int kVcs, bool kCc>
__global__ void shared_trial_kernel(EngineView v, TrialStage n, uint32_t first, uint32_t last, bool check_invariants_each_cycle) {
  extern __shared__ __align__(16) char stage[];
  __shared__ __align__(16) char view_slot[sizeof(EngineView)];
  staged_trial_program<kVcs, kCc>(v, n, static_cast<int>(blockIdx.x), stage, view_slot, first, last,
                                  check_invariants_each_cycle, static_cast<int>(threadIdx.x),
                                  static_cast<int>(blockDim.x), BlockSync{});
}

template <int kVcs, bool kCc>
__global__ void switch_kernel(EngineView v, const uint32_t* cycle, uint32_t offset) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= static_cast<int64_t>(v.net.num_switches) * v.model.trials) return;
  step_switch<ScalarLanes, kVcs, kCc>(v, static_cast<int>(i / v.model.trials), static_cast<int>(i % v.model.trials),
                                      *cycle + offset);
}

// The switch phases over a warp per (switch, trial) (GpuStep::kWarpSwitch; switch_team_step.hpp):
// a lane per port or input, no radix-long arrays per thread. kBlock is a whole number of warps, so
// a warp is wholly in range or wholly out. Never run on a GPU yet (bench/RESULTS.md).
template <int kVcs, bool kCc, bool kSplit>
__global__ void switch_team_kernel(EngineView v, const uint32_t* cycle, uint32_t offset) {
  const int64_t w = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kTeamLanes;
  if (w >= static_cast<int64_t>(v.net.num_switches) * v.model.trials) return;
  const SwitchTeam team{static_cast<int>(threadIdx.x % kTeamLanes)};
  switch_team_step<kVcs, kCc, kSplit>(team, v, static_cast<int>(w / v.model.trials),
                                      static_cast<int>(w % v.model.trials), *cycle + offset);
}

template <int kVcs, bool kCc>
__global__ void endpoint_kernel(EngineView v, const uint32_t* cycle, uint32_t offset) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= static_cast<int64_t>(v.net.num_endpoints) * v.model.trials) return;
  endpoint_lanes<ScalarLanes, kVcs, kCc>(v, static_cast<int>(i / v.model.trials), static_cast<int>(i % v.model.trials),
                                         *cycle + offset);
}

__global__ void invariant_kernel(EngineView v, const uint32_t* cycle, uint32_t offset) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < v.model.trials) check_invariants(v, t, *cycle + offset);
}

__global__ void advance_cycle_kernel(uint32_t* cycle, uint32_t cycles) { *cycle += cycles; }

constexpr int kBlock = 128;           // phase kernels: threads per block
constexpr uint32_t kGraphCycles = 64;  // cycles per captured graph
int blocks_for(int64_t n) { return static_cast<int>((n + kBlock - 1) / kBlock); }
void check(cudaError_t err) {
  if (err != cudaSuccess) throw std::runtime_error(std::string("CUDA error: ") + cudaGetErrorString(err));
}

int multiprocessors() {
  int device = 0, sms = 0;
  check(cudaGetDevice(&device));
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms > 0 ? sms : 1;
}

// Trials per block of the block program: one block per multiprocessor's share of the trials, at
// most 32. Measured on an H200 (132 SMs; fat_tree_64, bench/RESULTS.md): at 4,096 trials 32 per
// block gave 733 M node-cycles/s against 526 M at 8 and 356 M at 1; at 128 trials 1 to 8 per
// block gave 100-104 M and 32 gave 47 M (fewer blocks than SMs). A block loops over its
// (element, trial) pairs with a stride, so it need not have a thread for each.
int auto_trials_per_block(int trials) { return std::max(1, std::min(32, trials / multiprocessors())); }

// The most threads a block of the block program can have: its registers cap it (100-114 a thread
// on sm_90 with nvcc 13.0, so 1,024 threads would ask for more than the 65,536 registers of a
// multiprocessor and the launch would fail with "too many resources requested").
template <int kVcs, bool kCc>
int block_program_max_threads() {
  cudaFuncAttributes attributes;
  check(cudaFuncGetAttributes(&attributes, block_program_kernel<kVcs, kCc>));
  return std::max(32, std::min(kMaxBlockThreads, attributes.maxThreadsPerBlock) / 32 * 32);
}

template <int kVcs, bool kCc>
struct BlockProgram {
  // max_threads: block_program_max_threads (run_gpu has asked the runtime once already).
  static void run(const EngineView& v, uint32_t first, uint32_t last, const LaunchOptions& options, int max_threads) {
    const int largest = std::max(v.net.num_switches, v.net.num_endpoints);
    const int tpb = options.gpu_trials_per_block > 0 ? options.gpu_trials_per_block : auto_trials_per_block(v.model.trials);
    const int threads = static_cast<int>(std::min<int64_t>(max_threads, ((largest * int64_t{tpb} + 31) / 32) * 32));
    const int blocks = (v.model.trials + tpb - 1) / tpb;
    block_program_kernel<kVcs, kCc><<<blocks, threads>>>(v, first, last, tpb, options.check_invariants);
  }
};

// The staged block program on the GPU: one block per trial, the trial's state in shared memory for
// every cycle of the call, so that after the first copy its loads and stores never leave the
// multiprocessor (issue 62: the Santos and Zdornov two-switch scenarios hold 15-65 KiB a trial, a
// 64-node tree 222 KiB). A block has a thread per switch or endpoint (the larger count, in warps).
// Never run on a GPU yet (bench/RESULTS.md): the CPU runs the same program in the tests.
template <int kVcs, bool kCc>
struct SharedTrial {
  // Whether a trial's stage and the kernel's own shared memory fit one block on this device.
  static bool fits(const TrialStage& n) {
    int device = 0, optin = 0;
    check(cudaGetDevice(&device));
    check(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    cudaFuncAttributes attributes;
    check(cudaFuncGetAttributes(&attributes, shared_trial_kernel<kVcs, kCc>));
    return n.bytes + static_cast<int64_t>(attributes.sharedSizeBytes) <= optin;
  }
  static void run(const EngineView& v, const TrialStage& n, uint32_t first, uint32_t last, const LaunchOptions& options) {
    const auto kernel = shared_trial_kernel<kVcs, kCc>;
    check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(n.bytes)));
    cudaFuncAttributes attributes;
    check(cudaFuncGetAttributes(&attributes, kernel));
    const int max_threads = std::max(32, std::min(kMaxBlockThreads, attributes.maxThreadsPerBlock) / 32 * 32);
    const int largest = std::max(v.net.num_switches, v.net.num_endpoints);
    const int threads = std::min(max_threads, (largest + 31) / 32 * 32);
    kernel<<<v.model.trials, threads, static_cast<size_t>(n.bytes)>>>(v, n, first, last, options.check_invariants);
  }
};

// One cycle of phase kernels at cycle *cycle + offset (team: the switches over warps).
template <int kVcs, bool kCc>
void launch_phases(const EngineView& v, const uint32_t* cycle, uint32_t offset, bool invariants, bool team,
                   cudaStream_t stream) {
  const int64_t sw = static_cast<int64_t>(v.net.num_switches) * v.model.trials;
  const int64_t ep = static_cast<int64_t>(v.net.num_endpoints) * v.model.trials;
  if (team && team_arrivals_split(v.model))
    switch_team_kernel<kVcs, kCc, true><<<blocks_for(sw * kTeamLanes), kBlock, 0, stream>>>(v, cycle, offset);
  else if (team)
    switch_team_kernel<kVcs, kCc, false><<<blocks_for(sw * kTeamLanes), kBlock, 0, stream>>>(v, cycle, offset);
  else
    switch_kernel<kVcs, kCc><<<blocks_for(sw), kBlock, 0, stream>>>(v, cycle, offset);
  endpoint_kernel<kVcs, kCc><<<blocks_for(ep), kBlock, 0, stream>>>(v, cycle, offset);
  if (invariants) invariant_kernel<<<blocks_for(v.model.trials), kBlock, 0, stream>>>(v, cycle, offset);
}

template <int kVcs, bool kCc>
struct PhaseGraph {
  static void run(const EngineView& v, uint32_t first, uint32_t last, const LaunchOptions& options, bool team) {
    // Stream-ordered allocation: cudaFree would wait for the whole device, the batches other host
    // threads run side by side included (host/packet/gpu_side_by_side.hpp).
    cudaStream_t stream;
    check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    uint32_t* cycle = nullptr;
    check(cudaMallocAsync(reinterpret_cast<void**>(&cycle), sizeof(uint32_t), stream));
    check(cudaMemcpyAsync(cycle, &first, sizeof(uint32_t), cudaMemcpyHostToDevice, stream));
    uint32_t c = first;
    if (last - first >= kGraphCycles) {
      cudaGraph_t graph;
      cudaGraphExec_t exec;
      check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
      for (uint32_t k = 0; k < kGraphCycles; ++k) launch_phases<kVcs, kCc>(v, cycle, k, options.check_invariants, team, stream);
      advance_cycle_kernel<<<1, 1, 0, stream>>>(cycle, kGraphCycles);
      check(cudaStreamEndCapture(stream, &graph));
      check(cudaGraphInstantiate(&exec, graph, 0));
      for (; last - c >= kGraphCycles; c += kGraphCycles) check(cudaGraphLaunch(exec, stream));
      check(cudaGraphExecDestroy(exec));
      check(cudaGraphDestroy(graph));
    }
    for (uint32_t k = 0; c + k < last; ++k) launch_phases<kVcs, kCc>(v, cycle, k, options.check_invariants, team, stream);
    check(cudaFreeAsync(cycle, stream));
    check(cudaStreamSynchronize(stream));
    check(cudaStreamDestroy(stream));
  }
};
}  // namespace

// kAuto: the block program only where the whole batch fits in one block (every (element, trial)
// pair a thread of its own: no launches and no stride), else the phase graph. Measured on an H200
// (fat_tree_64, bench/RESULTS.md): at 1 trial the block program gave 1.79 M node-cycles/s against
// the graph's 1.26 M; at 128 and 1,024 trials the graph gave 144 M and 510 M against 103 M and
// 311 M. (At 4,096 trials the block program with 32 trials per block gave 733 M against the
// graph's 665 M: saturn-bench --gpu-step block reaches it; one network is too little to rule on.)
template <int kVcs, bool kCc>
void run_gpu(const EngineView& v, uint32_t first, uint32_t last, const LaunchOptions& options, GpuStep step) {
  if (step == GpuStep::kSharedTrial) {
    // Where a trial does not fit a block's shared memory, the block program runs it instead.
    if (options.stage != nullptr && SharedTrial<kVcs, kCc>::fits(*options.stage)) {
      SharedTrial<kVcs, kCc>::run(v, *options.stage, first, last, options);
      return;
    }
    step = GpuStep::kBlockProgram;
  }
  if (step == GpuStep::kWarpSwitch) {
    // The phase graph with the switches over warps where the team covers the model (the others:
    // the phase graph as it is).
    PhaseGraph<kVcs, kCc>::run(v, first, last, options, team_grant_covers(v.model));
    return;
  }
  const int max_threads = block_program_max_threads<kVcs, kCc>();
  if (step == GpuStep::kAuto) {
    const int64_t pairs = int64_t{std::max(v.net.num_switches, v.net.num_endpoints)} * v.model.trials;
    step = pairs <= max_threads ? GpuStep::kBlockProgram : GpuStep::kPhaseGraph;
  }
  if (step == GpuStep::kBlockProgram) BlockProgram<kVcs, kCc>::run(v, first, last, options, max_threads);
  else PhaseGraph<kVcs, kCc>::run(v, first, last, options, false);
}

#define SATURN_ENGINE_VARIANT_ONE_BY_ONE(VCS, CC) \
  template void run_gpu<VCS, CC>(const EngineView&, uint32_t, uint32_t, const LaunchOptions&, GpuStep);
#define SATURN_ENGINE_VARIANT_PACK16(VCS, CC)

#else

template <int kVcs, bool kCc>
void run_block_pack16(const EngineView& shared_view, int b0, uint32_t first, uint32_t last, bool check) {
  // A private copy: the compiler then knows no store into the state arrays (uint8_t stores may
  // alias anything) can change the view's pointers and sizes, and keeps them in registers.
  const EngineView v = shared_view;
  for (uint32_t c = first; c < last; ++c) {
    for (int s = 0; s < v.net.num_switches; ++s) {
      if (s + 1 < v.net.num_switches) prefetch_switch_inputs<PackLanes16>(v, s + 1, b0, c);
      step_switch<PackLanes16, kVcs, kCc>(v, s, b0, c);
    }
    for (int e = 0; e < v.net.num_endpoints; ++e) endpoint_lanes<PackLanes16, kVcs, kCc>(v, e, b0, c);
    if (check) check_invariants_block(v, b0, b0 + PackLanes16::kWidth, c);
  }
}

template <int kVcs, bool kCc>
void run_block_one_by_one(const EngineView& shared_view, int b0, int b1, uint32_t first, uint32_t last, bool check,
                          bool fused) {
  const EngineView v = shared_view;  // as above
  const bool one = b1 - b0 == 1;
  for (uint32_t c = first; c < last; ++c) {
    for (int s = 0; s < v.net.num_switches; ++s) {  // the fused step differs at the endpoints only
      // One trial: the next switch's arriving packets, as a pack does (the load of an arriving
      // packet from its link ring was a fifth of the input phase on the 4096-node tree).
      if (one && s + 1 < v.net.num_switches) prefetch_switch_inputs<ScalarLanes>(v, s + 1, b0, c);
      for (int t = b0; t < b1; ++t) step_switch<ScalarLanes, kVcs, kCc>(v, s, t, c);
    }
    for (int e = 0; e < v.net.num_endpoints; ++e) {
      if (fused) {
        for (int t = b0; t < b1; ++t) endpoint_step<kVcs, kCc>(v, e, t, c);
      } else {
        for (int t = b0; t < b1; ++t) endpoint_lanes<ScalarLanes, kVcs, kCc>(v, e, t, c);
      }
    }
    if (check) check_invariants_block(v, b0, b1, c);
  }
}

template <int kVcs, bool kCc>
void run_trials_staged(const EngineView& v, const TrialStage& n, int t0, int t1, uint32_t first, uint32_t last, bool check) {
  // One stage for every trial of the call (operator new's alignment: 16 bytes).
  std::vector<Packet> stage(static_cast<size_t>((n.bytes + sizeof(Packet) - 1) / sizeof(Packet)) + 1);
  alignas(EngineView) char view_slot[sizeof(EngineView)];
  for (int t = t0; t < t1; ++t)
    staged_trial_program<kVcs, kCc>(v, n, t, reinterpret_cast<char*>(stage.data()), view_slot, first, last, check, 0, 1,
                                    NoSync{});
}

template <int kVcs, bool kCc>
void run_trials_team(const EngineView& shared_view, int t0, int t1, uint32_t first, uint32_t last, bool check) {
  const EngineView v = shared_view;  // as run_block_pack16
  const SwitchTeam team{};
  const bool covered = team_grant_covers(v.model);  // else the one-thread phases, as the GPU's kernels
  const bool split = team_arrivals_split(v.model);
  for (int t = t0; t < t1; ++t)
    for (uint32_t c = first; c < last; ++c) {
      for (int s = 0; s < v.net.num_switches; ++s) {
        if (covered && split) switch_team_step<kVcs, kCc, true>(team, v, s, t, c);
        else if (covered) switch_team_step<kVcs, kCc, false>(team, v, s, t, c);
        else step_switch<ScalarLanes, kVcs, kCc>(v, s, t, c);
      }
      for (int e = 0; e < v.net.num_endpoints; ++e) endpoint_lanes<ScalarLanes, kVcs, kCc>(v, e, t, c);
      if (check) check_invariants_block(v, t, t + 1, c);
    }
}

#define SATURN_ENGINE_VARIANT_ONE_BY_ONE(VCS, CC)                                                              \
  template void run_block_one_by_one<VCS, CC>(const EngineView&, int, int, uint32_t, uint32_t, bool, bool);   \
  template void run_trials_staged<VCS, CC>(const EngineView&, const TrialStage&, int, int, uint32_t, uint32_t, bool); \
  template void run_trials_team<VCS, CC>(const EngineView&, int, int, uint32_t, uint32_t, bool);
#define SATURN_ENGINE_VARIANT_PACK16(VCS, CC) \
  template void run_block_pack16<VCS, CC>(const EngineView&, int, uint32_t, uint32_t, bool);

#endif

}  // namespace saturn::variant
