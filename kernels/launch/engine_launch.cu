// The only backend-specific code of the engine: CUDA kernels (one thin __global__ per phase) or
// OpenMP loops over the same flat index space. Both call the same per-element functions.
#include "kernels/launch/engine_launch.hpp"

#include <algorithm>

#include "kernels/phases/endpoint_lanes.hpp"
#include "kernels/phases/endpoint_step.hpp"
#include "kernels/phases/invariants.hpp"
#include "kernels/phases/switch_grant.hpp"
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

// One switch for one cycle and a lane of trials starting at t0, as phases over lanes. Congestion
// control has no phases yet: it runs in the fused per-trial step (switch_step.hpp), one trial at a time.
template <class L, int kVcs, bool kCc>
SATURN_INLINE void step_switch(const EngineView& v, int sw, int t0, uint32_t c) {
  if (kCc) {
    for (int l = 0; l < L::kWidth; ++l) switch_step<kVcs, kCc>(v, sw, t0 + l, c);
  } else {
    switch_inputs<L, kVcs>(v, sw, t0, c);
    switch_grant<L, kVcs>(v, sw, t0, c);
  }
}

#if defined(SATURN_BACKEND_CUDA)

template <int kVcs, bool kCc>
__global__ void switch_kernel(EngineView v, uint32_t c) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= static_cast<int64_t>(v.net.num_switches) * v.model.trials) return;
  switch_step<kVcs, kCc>(v, static_cast<int>(i / v.model.trials), static_cast<int>(i % v.model.trials), c);
}

template <int kVcs, bool kCc>
__global__ void endpoint_kernel(EngineView v, uint32_t c) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= static_cast<int64_t>(v.net.num_endpoints) * v.model.trials) return;
  endpoint_step<kVcs, kCc>(v, static_cast<int>(i / v.model.trials), static_cast<int>(i % v.model.trials), c);
}

__global__ void invariant_kernel(EngineView v, uint32_t c) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < v.model.trials) check_invariants(v, t, c);
}

namespace {
constexpr int kBlock = 128;
int blocks_for(int64_t n) { return static_cast<int>((n + kBlock - 1) / kBlock); }
void check(cudaError_t err) {
  if (err != cudaSuccess) throw std::runtime_error(std::string("CUDA error: ") + cudaGetErrorString(err));
}
}  // namespace

void run_cycles(const EngineView& v, uint32_t first, uint32_t last, const LaunchOptions& options) {
  // Stream-ordered: no host synchronization inside a step or between steps.
  const int64_t sw = static_cast<int64_t>(v.net.num_switches) * v.model.trials;
  const int64_t ep = static_cast<int64_t>(v.net.num_endpoints) * v.model.trials;
  const bool one_vc = v.model.vcs == 1, cc = model_uses_cc(v.model);
  for (uint32_t c = first; c < last; ++c) {
    if (one_vc && !cc) {
      switch_kernel<1, false><<<blocks_for(sw), kBlock>>>(v, c);
      endpoint_kernel<1, false><<<blocks_for(ep), kBlock>>>(v, c);
    } else if (one_vc) {
      switch_kernel<1, true><<<blocks_for(sw), kBlock>>>(v, c);
      endpoint_kernel<1, true><<<blocks_for(ep), kBlock>>>(v, c);
    } else if (!cc) {
      switch_kernel<0, false><<<blocks_for(sw), kBlock>>>(v, c);
      endpoint_kernel<0, false><<<blocks_for(ep), kBlock>>>(v, c);
    } else {
      switch_kernel<0, true><<<blocks_for(sw), kBlock>>>(v, c);
      endpoint_kernel<0, true><<<blocks_for(ep), kBlock>>>(v, c);
    }
    if (options.check_invariants) invariant_kernel<<<blocks_for(v.model.trials), kBlock>>>(v, c);
  }
  check(cudaGetLastError());
  check(cudaDeviceSynchronize());  // results are read at sample points only
}

const char* cpu_split_mode(int, int, int) { return "cuda"; }

#else

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
          if (!kCc && s + 1 < v.net.num_switches) prefetch_switch_inputs<PackLanes16>(v, s + 1, b0, c);
          step_switch<PackLanes16, kVcs, kCc>(v, s, b0, c);
        } else if (phases) {
          for (int t = b0; t < b1; ++t) step_switch<ScalarLanes, kVcs, kCc>(v, s, t, c);
        } else {
          for (int t = b0; t < b1; ++t) switch_step<kVcs, kCc>(v, s, t, c);
        }
      }
      for (int e = 0; e < v.net.num_endpoints; ++e) {
        if (!kCc && pack) {
          endpoint_lanes<PackLanes16, kVcs>(v, e, b0, c);
        } else if (!kCc && phases) {
          for (int t = b0; t < b1; ++t) endpoint_lanes<ScalarLanes, kVcs>(v, e, t, c);
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
  const bool cc = model_uses_cc(v.model);
  if (v.model.vcs == 1 && !cc) run_trial_chunk_vcs<1, false>(v, t0, t1, first, last, check, step);
  else if (v.model.vcs == 1) run_trial_chunk_vcs<1, true>(v, t0, t1, first, last, check, step);
  else if (!cc) run_trial_chunk_vcs<0, false>(v, t0, t1, first, last, check, step);
  else run_trial_chunk_vcs<0, true>(v, t0, t1, first, last, check, step);
}

}  // namespace

void run_cycles(const EngineView& v, uint32_t first, uint32_t last, const LaunchOptions& options) {
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
  // Too few trials to split: split elements, with a barrier after each phase.
  const int64_t sw = static_cast<int64_t>(v.net.num_switches) * T;
  const int64_t ep = static_cast<int64_t>(v.net.num_endpoints) * T;
#pragma omp parallel num_threads(threads)
  for (uint32_t c = first; c < last; ++c) {
#pragma omp for schedule(static)
    for (int64_t i = 0; i < sw; ++i) switch_step<0, true>(v, static_cast<int>(i / T), static_cast<int>(i % T), c);
#pragma omp for schedule(static)
    for (int64_t i = 0; i < ep; ++i) endpoint_step<0, true>(v, static_cast<int>(i / T), static_cast<int>(i % T), c);
    if (options.check_invariants) {
#pragma omp for schedule(static)
      for (int t = 0; t < T; ++t) check_invariants(v, t, c);
    }
  }
}

#endif

}  // namespace saturn
