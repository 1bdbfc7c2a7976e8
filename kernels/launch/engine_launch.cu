// The only backend-specific code of the engine: CUDA kernels (one thin __global__ per phase) or
// OpenMP loops over the same flat index space. Both call the same per-element functions.
#include "kernels/launch/engine_launch.hpp"

#include <algorithm>
#include <stdexcept>

#include "kernels/phases/endpoint_lanes.hpp"
#include "kernels/phases/endpoint_step.hpp"
#include "kernels/phases/invariants.hpp"
#include "kernels/phases/switch_grant.hpp"
#include "kernels/phases/switch_grant_cc.hpp"
#include "kernels/phases/switch_inputs.hpp"
#include "kernels/phases/switch_step.hpp"

#if defined(SATURN_BACKEND_CUDA)
#include <cuda_runtime.h>
#include <stdexcept>
#include <string>
#else
#include <omp.h>
#endif

namespace saturn {

// FIFO inputs and the separable allocator exist only in the phases: a model with them must not run on
// the fused step (which would silently give VOQs and the greedy allocator), and their phase code
// has no congestion-control version yet (the CC candidate search ignores the FIFO-head rule).
static void check_step_choice(const ModelParams& m, const LaunchOptions& options) {
  if (!model_needs_phases(m)) return;
  if (model_uses_cc(m) && (m.input_queue != InputQueue::kVoq || m.allocator != Allocator::kGreedy))
    throw std::invalid_argument(
        "switch.input_queue = fifo and switch.allocator = separable_input_first have no congestion-control version yet");
  if (options.cpu_step == CpuStep::kFused)
    throw std::invalid_argument(
        "the fused CPU step has no FIFO inputs, separable allocator, per-class links or dragonfly routing: use the "
        "phases (step auto, phases or phases16)");
}

// One switch for one cycle and a lane of trials starting at t0, as phases over lanes (kCc: with
// the congestion-control paths compiled in).
template <class L, int kVcs, bool kCc>
SATURN_INLINE void step_switch(const EngineView& v, int sw, int t0, uint32_t c) {
  switch_inputs<L, kVcs, kCc>(v, sw, t0, c);
  switch_grant<L, kVcs, kCc>(v, sw, t0, c);
}

#if defined(SATURN_BACKEND_CUDA)

// The GPU driver. Two programs run the same per-element functions in the same phase order as
// the CPU (switches, then endpoints, then the optional invariant check), so every path gives the
// same bits:
//   - the block program (a persistent kernel): one thread block owns a group of trials and runs
//     them through every cycle of the call, with __syncthreads() between phases. Trials never
//     read each other's state, so blocks need no grid-wide barrier. Used whenever one trial's
//     largest phase (switches or endpoints) fits in a block.
//   - phase kernels: one kernel per phase over every (element, trial), for networks too large for
//     a block; kGraphCycles cycles are captured once as a CUDA graph and replayed, so the launch
//     cost is paid once per graph and not twice per cycle. The kernels read the cycle from a
//     device counter that the graph's last node advances, so one graph serves every replay.
// Both run the phases over the scalar lane (one thread = one element of one trial, as the CPU's
// --step phases). Neither has run on a GPU yet (none here); tests/parity and scripts/gpu_check.sh check them
// against the CPU golden files where one exists.

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

template <int kVcs, bool kCc>
__global__ void switch_kernel(EngineView v, const uint32_t* cycle, uint32_t offset) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= static_cast<int64_t>(v.net.num_switches) * v.model.trials) return;
  step_switch<ScalarLanes, kVcs, kCc>(v, static_cast<int>(i / v.model.trials), static_cast<int>(i % v.model.trials),
                                      *cycle + offset);
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

namespace {
constexpr int kBlock = 128;           // phase kernels: threads per block
constexpr int kMaxBlockThreads = 1024;
constexpr uint32_t kGraphCycles = 64;  // cycles per captured graph
int blocks_for(int64_t n) { return static_cast<int>((n + kBlock - 1) / kBlock); }
void check(cudaError_t err) {
  if (err != cudaSuccess) throw std::runtime_error(std::string("CUDA error: ") + cudaGetErrorString(err));
}

// The four compiled variants of a model (one VC or many, congestion control or not).
template <template <int, bool> class Body, class... Args>
void dispatch(const ModelParams& m, Args&&... args) {
  const bool one_vc = m.vcs == 1, cc = model_uses_cc(m);
  if (one_vc && !cc) Body<1, false>::run(args...);
  else if (one_vc) Body<1, true>::run(args...);
  else if (!cc) Body<0, false>::run(args...);
  else Body<0, true>::run(args...);
}

int multiprocessors() {
  int device = 0, sms = 0;
  check(cudaGetDevice(&device));
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms > 0 ? sms : 1;
}

// Trials per block of the block program: enough blocks for two per multiprocessor where T allows
// (a block's trials run in step, so fewer trials per block means more blocks in flight), at
// most 32 (a warp across one element's trials), and no more than the block's threads can cover.
// A guess to be tuned on a GPU (LaunchOptions::gpu_trials_per_block overrides it).
int auto_trials_per_block(int trials, int largest_phase) {
  const int by_grid = trials / (2 * multiprocessors());
  const int by_threads = kMaxBlockThreads / largest_phase;
  return std::max(1, std::min({32, by_grid, by_threads}));
}

template <int kVcs, bool kCc>
struct BlockProgram {
  static void run(const EngineView& v, uint32_t first, uint32_t last, const LaunchOptions& options) {
    const int largest = std::max(v.net.num_switches, v.net.num_endpoints);
    const int tpb = options.gpu_trials_per_block > 0 ? options.gpu_trials_per_block
                                                     : auto_trials_per_block(v.model.trials, largest);
    const int threads = static_cast<int>(std::min<int64_t>(kMaxBlockThreads, ((largest * int64_t{tpb} + 31) / 32) * 32));
    const int blocks = (v.model.trials + tpb - 1) / tpb;
    block_program_kernel<kVcs, kCc><<<blocks, threads>>>(v, first, last, tpb, options.check_invariants);
  }
};

// One cycle of phase kernels at cycle *cycle + offset.
template <int kVcs, bool kCc>
void launch_phases(const EngineView& v, const uint32_t* cycle, uint32_t offset, bool invariants, cudaStream_t stream) {
  const int64_t sw = static_cast<int64_t>(v.net.num_switches) * v.model.trials;
  const int64_t ep = static_cast<int64_t>(v.net.num_endpoints) * v.model.trials;
  switch_kernel<kVcs, kCc><<<blocks_for(sw), kBlock, 0, stream>>>(v, cycle, offset);
  endpoint_kernel<kVcs, kCc><<<blocks_for(ep), kBlock, 0, stream>>>(v, cycle, offset);
  if (invariants) invariant_kernel<<<blocks_for(v.model.trials), kBlock, 0, stream>>>(v, cycle, offset);
}

template <int kVcs, bool kCc>
struct PhaseGraph {
  static void run(const EngineView& v, uint32_t first, uint32_t last, const LaunchOptions& options) {
    uint32_t* cycle = nullptr;
    check(cudaMalloc(&cycle, sizeof(uint32_t)));
    check(cudaMemcpy(cycle, &first, sizeof(uint32_t), cudaMemcpyHostToDevice));
    cudaStream_t stream;
    check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    uint32_t c = first;
    if (last - first >= kGraphCycles) {
      cudaGraph_t graph;
      cudaGraphExec_t exec;
      check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
      for (uint32_t k = 0; k < kGraphCycles; ++k) launch_phases<kVcs, kCc>(v, cycle, k, options.check_invariants, stream);
      advance_cycle_kernel<<<1, 1, 0, stream>>>(cycle, kGraphCycles);
      check(cudaStreamEndCapture(stream, &graph));
      check(cudaGraphInstantiate(&exec, graph, 0));
      for (; last - c >= kGraphCycles; c += kGraphCycles) check(cudaGraphLaunch(exec, stream));
      check(cudaGraphExecDestroy(exec));
      check(cudaGraphDestroy(graph));
    }
    for (uint32_t k = 0; c + k < last; ++k) launch_phases<kVcs, kCc>(v, cycle, k, options.check_invariants, stream);
    check(cudaStreamSynchronize(stream));
    check(cudaStreamDestroy(stream));
    check(cudaFree(cycle));
  }
};
}  // namespace

void run_cycles(const EngineView& v, uint32_t first, uint32_t last, const LaunchOptions& options) {
  if (last <= first) return;
  check_step_choice(v.model, options);
  const bool fits = std::max(v.net.num_switches, v.net.num_endpoints) <= kMaxBlockThreads;
  const bool block_program = options.gpu_step == GpuStep::kBlockProgram ||
                             (options.gpu_step == GpuStep::kAuto && fits);
  if (block_program) dispatch<BlockProgram>(v.model, v, first, last, options);
  else dispatch<PhaseGraph>(v.model, v, first, last, options);
  check(cudaGetLastError());
  check(cudaDeviceSynchronize());  // results are read at sample points only
}

const char* cpu_split_mode(int, int, int) { return "cuda"; }
CpuStep auto_cpu_step(bool) { return CpuStep::kFused; }  // the GPU runs its own drivers
bool cpu_build_has_wide_vectors() { return false; }

#else

bool cpu_build_has_wide_vectors() {
#if defined(__AVX2__) || defined(__AVX512F__)
  return true;
#else
  return false;
#endif
}

// Every model runs through the phases, congestion control included (same bits as the fused step).
CpuStep auto_cpu_step(bool) { return cpu_build_has_wide_vectors() ? CpuStep::kPhasesPack16 : CpuStep::kFused; }

const char* cpu_split_mode(int trials, int threads, int switches) {
  return trials >= threads || switches < kElementSplitSwitches ? "trials" : "elements";
}

namespace {

// Trials a CPU thread advances together through all cycles of a call, a multiple of 16 so blocks
// never share a cache line of trial-minor columns. (Measured: 8 to 64 make no difference on the
// 64-node benchmark; a block keeps the working set of a large network's trials bounded.)
constexpr int kCpuBlockTrials = 16;

template <int kVcs, bool kCc>
void run_trial_chunk_vcs(const EngineView& shared_view, int t0, int t1, uint32_t first, uint32_t last, bool check,
                         CpuStep step) {
  // A private copy: the compiler then knows no store into the state arrays (uint8_t stores may
  // alias anything) can change the view's pointers and sizes, and keeps them in registers.
  const EngineView v = shared_view;
  const int block = kCpuBlockTrials;
  for (int b0 = t0; b0 < t1; b0 += block) {
    const int b1 = std::min(t1, b0 + block);
    const bool pack = step == CpuStep::kPhasesPack16 && b1 - b0 == PackLanes16::kWidth;
    const bool phases = step != CpuStep::kFused;
    for (uint32_t c = first; c < last; ++c) {
      for (int s = 0; s < v.net.num_switches; ++s) {
        if (pack) {
          if (s + 1 < v.net.num_switches) prefetch_switch_inputs<PackLanes16>(v, s + 1, b0, c);
          step_switch<PackLanes16, kVcs, kCc>(v, s, b0, c);
        } else if (phases) {
          for (int t = b0; t < b1; ++t) step_switch<ScalarLanes, kVcs, kCc>(v, s, t, c);
        } else {
          for (int t = b0; t < b1; ++t) switch_step<kVcs, kCc>(v, s, t, c);
        }
      }
      for (int e = 0; e < v.net.num_endpoints; ++e) {
        if (pack) {
          endpoint_lanes<PackLanes16, kVcs, kCc>(v, e, b0, c);
        } else if (phases) {
          for (int t = b0; t < b1; ++t) endpoint_lanes<ScalarLanes, kVcs, kCc>(v, e, t, c);
        } else {
          for (int t = b0; t < b1; ++t) endpoint_step<kVcs, kCc>(v, e, t, c);
        }
      }
      if (check)
        for (int t = b0; t < b1; ++t) check_invariants(v, t, c);
    }
  }
}

// The single-VC model is compiled separately (its per-VC loops disappear), and so is the model
// without congestion control (its checks disappear). The generic build serves everything else.
void run_trial_chunk(const EngineView& v, int t0, int t1, uint32_t first, uint32_t last, bool check, CpuStep step) {
  if (step == CpuStep::kAuto) step = auto_cpu_step(model_uses_cc(v.model));
  if (step == CpuStep::kFused && model_needs_phases(v.model)) step = CpuStep::kPhases;  // auto without wide vectors
  const bool cc = model_uses_cc(v.model);
  if (v.model.vcs == 1 && !cc) run_trial_chunk_vcs<1, false>(v, t0, t1, first, last, check, step);
  else if (v.model.vcs == 1) run_trial_chunk_vcs<1, true>(v, t0, t1, first, last, check, step);
  else if (!cc) run_trial_chunk_vcs<0, false>(v, t0, t1, first, last, check, step);
  else run_trial_chunk_vcs<0, true>(v, t0, t1, first, last, check, step);
}

}  // namespace

void run_cycles(const EngineView& v, uint32_t first, uint32_t last, const LaunchOptions& options) {
  check_step_choice(v.model, options);
  const int T = v.model.trials;
  const int threads = std::max(1, options.threads);
  if (threads == 1) {
    run_trial_chunk(v, 0, T, first, last, options.check_invariants, options.cpu_step);
    return;
  }
  if (cpu_split_mode(T, threads, v.net.num_switches)[0] == 't') {
    // Trials are independent: each thread runs every phase of every cycle for its own chunk,
    // with no barrier. Chunk bounds are multiples of 16 trials where T allows (no false sharing).
#pragma omp parallel num_threads(std::min(threads, T))
    {
      const int n = omp_get_num_threads(), id = omp_get_thread_num();
      const int granule = T >= 16 * n ? 16 : 1;
      const int units = (T + granule - 1) / granule;
      const int t0 = std::min(T, (units * id / n) * granule);
      const int t1 = std::min(T, (units * (id + 1) / n) * granule);
      if (t0 < t1) run_trial_chunk(v, t0, t1, first, last, options.check_invariants, options.cpu_step);
    }
    return;
  }
  // Too few trials to split: split elements, with a barrier after each phase. One (element, trial)
  // at a time: the phases over the scalar lane, or the fused step where asked for (A/B).
  const int64_t sw = static_cast<int64_t>(v.net.num_switches) * T;
  const int64_t ep = static_cast<int64_t>(v.net.num_endpoints) * T;
  const bool fused = !model_needs_phases(v.model) &&
                     (options.cpu_step == CpuStep::kFused ||
                      (options.cpu_step == CpuStep::kAuto && auto_cpu_step(model_uses_cc(v.model)) == CpuStep::kFused));
#pragma omp parallel num_threads(threads)
  for (uint32_t c = first; c < last; ++c) {
#pragma omp for schedule(static)
    for (int64_t i = 0; i < sw; ++i) {
      if (fused) switch_step<0, true>(v, static_cast<int>(i / T), static_cast<int>(i % T), c);
      else step_switch<ScalarLanes, 0, true>(v, static_cast<int>(i / T), static_cast<int>(i % T), c);
    }
#pragma omp for schedule(static)
    for (int64_t i = 0; i < ep; ++i) {
      if (fused) endpoint_step<0, true>(v, static_cast<int>(i / T), static_cast<int>(i % T), c);
      else endpoint_lanes<ScalarLanes, 0, true>(v, static_cast<int>(i / T), static_cast<int>(i % T), c);
    }
    if (options.check_invariants) {
#pragma omp for schedule(static)
      for (int t = 0; t < T; ++t) check_invariants(v, t, c);
    }
  }
}

#endif

const char* cpu_step_name(CpuStep step) {
  switch (step) {
    case CpuStep::kFused: return "fused";
    case CpuStep::kPhases: return "phases";
    case CpuStep::kPhasesPack16: return "phases16";
    case CpuStep::kAuto: return "auto";
  }
  return "?";
}

}  // namespace saturn
