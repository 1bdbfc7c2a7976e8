// The packet engine's launch layer: checks the step asked for, picks the compiled variant of the
// model (kernels/launch/engine_variants.hpp) and splits the work over OpenMP threads on the CPU.
// The variants' bodies (CPU block loops, CUDA kernels) are in engine_variant_program.hpp.
#include "kernels/launch/engine_launch.hpp"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "kernels/launch/engine_variants.hpp"
#include "kernels/common/lanes.hpp"

#if defined(SATURN_BACKEND_CUDA)
#include <cuda_runtime.h>
#else
#include <omp.h>
#endif

namespace saturn {

// The fused step runs only the models its endpoint (endpoint_step.hpp) was built for
// (model_needs_phases); FIFO inputs and the separable allocator have no congestion-control version
// yet (the CC candidate search ignores the FIFO-head rule).
static void check_step_choice(const ModelParams& m, const LaunchOptions& options) {
  if (!model_needs_phases(m)) return;
  if (model_uses_cc(m) && (m.input_queue != InputQueue::kVoq || m.allocator != Allocator::kGreedy || iso_on(m.iso)))
    throw std::invalid_argument(
        "switch.input_queue = fifo, switch.allocator = separable_input_first and isolation.technique have no "
        "congestion-control version yet");
  if (options.cpu_step == CpuStep::kFused)
    throw std::invalid_argument(
        "the fused CPU step has no FIFO inputs, separable allocator, trace replay, injection schedulers, "
        "congestion isolation, per-class links or dragonfly routing: use the phases (step auto, phases or phases16)");
}

// SATURN_GPU_STEP=block|graph|shared|warp forces one GPU program for a whole process where the caller
// left the choice to kAuto (saturn run does): the parity tier runs each golden case under each, and
// networks small enough for a block would otherwise never exercise the phase graph. On the CPU only
// "shared" and "warp" mean something (the staged block program, one thread per trial; the switch
// team over emulated lanes: the golden cases' check of each); the others leave the CPU's choice.
static GpuStep gpu_step_from_environment() {
  static const GpuStep step = [] {
    const char* env = std::getenv("SATURN_GPU_STEP");
    GpuStep parsed = GpuStep::kAuto;
    if (env != nullptr && *env != '\0' && !parse_gpu_step(env, &parsed))
      throw std::invalid_argument(std::string("SATURN_GPU_STEP: '") + env + "' is not one of " + gpu_step_choices());
    return parsed;
  }();
  return step;
}

static GpuStep gpu_step_asked(const LaunchOptions& options) {
  return options.gpu_step == GpuStep::kAuto ? gpu_step_from_environment() : options.gpu_step;
}

#if defined(SATURN_BACKEND_CUDA)

namespace {
void check(cudaError_t err) {
  if (err != cudaSuccess) throw std::runtime_error(std::string("CUDA error: ") + cudaGetErrorString(err));
}
}  // namespace

// The GPU driver (engine_variant_program.hpp): the block program, a persistent kernel in which
// each block runs its trials through every cycle of a call, or phase kernels replayed from a CUDA
// graph. Both give the CPU's bits on every golden case (tests/parity, first run on an H200 on
// 2026-11-26: bench/RESULTS.md).
void run_cycles(const EngineView& v, uint32_t first, uint32_t last, const LaunchOptions& options) {
  if (last <= first) return;
  check_step_choice(v.model, options);
  const GpuStep step = gpu_step_asked(options);
  const bool one_vc = v.model.vcs == 1, cc = model_uses_cc(v.model);
  if (one_vc && !cc) variant::run_gpu<1, false>(v, first, last, options, step);
  else if (one_vc) variant::run_gpu<1, true>(v, first, last, options, step);
  else if (!cc) variant::run_gpu<0, false>(v, first, last, options, step);
  else variant::run_gpu<0, true>(v, first, last, options, step);
  check(cudaGetLastError());
  check(cudaStreamSynchronize(cudaStreamPerThread));  // results are read at sample points only
}

int64_t gpu_resident_threads() {
  int device = 0, sms = 0, per_sm = 0;
  check(cudaGetDevice(&device));
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  check(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device));
  return static_cast<int64_t>(std::max(sms, 1)) * std::max(per_sm, 1);
}

const char* cpu_split_mode(int, int, int) { return "cuda"; }
CpuStep auto_cpu_step(bool) { return CpuStep::kFused; }  // the GPU runs its own drivers
CpuStep auto_cpu_step_for(const ModelParams&) { return CpuStep::kFused; }
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
CpuStep auto_cpu_step_for(const ModelParams& m) {
  const CpuStep step = auto_cpu_step(model_uses_cc(m));
  return step == CpuStep::kPhasesPack16 && m.allocator == Allocator::kSeparableInputFirst ? CpuStep::kPhases : step;
}

int64_t gpu_resident_threads() { return 0; }

const char* cpu_split_mode(int trials, int threads, int switches) {
  return trials >= threads || switches < kElementSplitSwitches ? "trials" : "elements";
}

namespace {

// Trials a CPU thread advances together through all cycles of a call, a multiple of 16 so blocks
// never share a cache line of trial-minor columns. (Measured: 8 to 64 make no difference on the
// 64-node benchmark; a block keeps the working set of a large network's trials bounded.)
constexpr int kCpuBlockTrials = 16;

template <int kVcs, bool kCc>
void run_trial_chunk_vcs(const EngineView& v, int t0, int t1, uint32_t first, uint32_t last, bool check, CpuStep step) {
  for (int b0 = t0; b0 < t1; b0 += kCpuBlockTrials) {
    const int b1 = std::min(t1, b0 + kCpuBlockTrials);
    if (step == CpuStep::kPhasesPack16 && b1 - b0 == PackLanes16::kWidth)
      variant::run_block_pack16<kVcs, kCc>(v, b0, first, last, check);
    else
      variant::run_block_one_by_one<kVcs, kCc>(v, b0, b1, first, last, check, step == CpuStep::kFused);
  }
}

// The single-VC model is compiled separately (its per-VC loops disappear), and so is the model
// without congestion control (its checks disappear). The generic build serves everything else.
void run_trial_chunk(const EngineView& v, int t0, int t1, uint32_t first, uint32_t last, bool check, CpuStep step) {
  if (step == CpuStep::kAuto) step = auto_cpu_step_for(v.model);
  if (step == CpuStep::kFused && model_needs_phases(v.model)) step = CpuStep::kPhases;  // auto without wide vectors
  const bool cc = model_uses_cc(v.model);
  if (v.model.vcs == 1 && !cc) run_trial_chunk_vcs<1, false>(v, t0, t1, first, last, check, step);
  else if (v.model.vcs == 1) run_trial_chunk_vcs<1, true>(v, t0, t1, first, last, check, step);
  else if (!cc) run_trial_chunk_vcs<0, false>(v, t0, t1, first, last, check, step);
  else run_trial_chunk_vcs<0, true>(v, t0, t1, first, last, check, step);
}

// The CPU's runs of a GPU program one trial at a time: each thread takes a contiguous range of
// trials, and run(vcs, cc, t0, t1) calls the program's compiled variant (vcs, cc: integral_constants).
template <class Run>
void trial_ranges_per_thread(const EngineView& v, const LaunchOptions& options, Run&& run) {
  const bool cc = model_uses_cc(v.model);
  const int T = v.model.trials;
#pragma omp parallel num_threads(std::max(1, std::min(options.threads, T)))
  {
    const int threads = omp_get_num_threads(), id = omp_get_thread_num();
    const int t0 = T * id / threads, t1 = T * (id + 1) / threads;
    if (t0 < t1) {
      using One = std::integral_constant<int, 1>;
      using Any = std::integral_constant<int, 0>;
      if (v.model.vcs == 1 && !cc) run(One{}, std::false_type{}, t0, t1);
      else if (v.model.vcs == 1) run(One{}, std::true_type{}, t0, t1);
      else if (!cc) run(Any{}, std::false_type{}, t0, t1);
      else run(Any{}, std::true_type{}, t0, t1);
    }
  }
}

// The staged block program (GpuStep::kSharedTrial on the CPU): a thread stages its trials one after
// another in one buffer.
void run_trials_staged(const EngineView& v, uint32_t first, uint32_t last, const LaunchOptions& options) {
  if (options.stage == nullptr) throw std::invalid_argument("the staged program needs the engine's TrialStage");
  const TrialStage& n = *options.stage;
  trial_ranges_per_thread(v, options, [&](auto vcs, auto cc, int t0, int t1) {
    variant::run_trials_staged<decltype(vcs)::value, decltype(cc)::value>(v, n, t0, t1, first, last,
                                                                          options.check_invariants);
  });
}

// The switch team over emulated lanes (GpuStep::kWarpSwitch on the CPU).
void run_trials_team(const EngineView& v, uint32_t first, uint32_t last, const LaunchOptions& options) {
  trial_ranges_per_thread(v, options, [&](auto vcs, auto cc, int t0, int t1) {
    variant::run_trials_team<decltype(vcs)::value, decltype(cc)::value>(v, t0, t1, first, last,
                                                                        options.check_invariants);
  });
}

}  // namespace

void run_cycles(const EngineView& v, uint32_t first, uint32_t last, const LaunchOptions& options) {
  check_step_choice(v.model, options);
  if (gpu_step_asked(options) == GpuStep::kSharedTrial) {
    run_trials_staged(v, first, last, options);
    return;
  }
  if (gpu_step_asked(options) == GpuStep::kWarpSwitch) {
    run_trials_team(v, first, last, options);
    return;
  }
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
  const bool fused = !model_needs_phases(v.model) &&
                     (options.cpu_step == CpuStep::kFused ||
                      (options.cpu_step == CpuStep::kAuto && auto_cpu_step(model_uses_cc(v.model)) == CpuStep::kFused));
  variant::run_element_split(v, first, last, options, fused);
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

const char* gpu_step_name(GpuStep step) {
  switch (step) {
    case GpuStep::kAuto: return "auto";
    case GpuStep::kBlockProgram: return "block";
    case GpuStep::kPhaseGraph: return "graph";
    case GpuStep::kSharedTrial: return "shared";
    case GpuStep::kWarpSwitch: return "warp";
  }
  return "?";
}

static constexpr GpuStep kGpuSteps[] = {GpuStep::kAuto, GpuStep::kBlockProgram, GpuStep::kPhaseGraph,
                                        GpuStep::kSharedTrial, GpuStep::kWarpSwitch};

bool parse_gpu_step(const char* name, GpuStep* step) {
  for (const GpuStep s : kGpuSteps)
    if (std::string(name) == gpu_step_name(s)) {
      *step = s;
      return true;
    }
  return false;
}

std::vector<std::string> gpu_step_names() {
  std::vector<std::string> names;
  for (const GpuStep s : kGpuSteps) names.emplace_back(gpu_step_name(s));
  return names;
}

std::string gpu_step_choices() {
  std::string list;
  for (const std::string& name : gpu_step_names()) list += (list.empty() ? "" : ", ") + name;
  return list;
}

}  // namespace saturn
