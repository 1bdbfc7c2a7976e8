// saturn-bench: simulated node-cycles per second of the packet engine (nodes x cycles x trials
// per wall second, warm-up excluded) and state bytes per trial, for fat trees of two sizes.
// Setting: uniform random traffic at load 0.5 (--load for others), 1-flit packets (flit = MTU = 2 KB), 8-packet input
// buffers, D-mod-K routing, FCFS, unlimited speedup (the usual BookSim fat-tree setting).
// The papers' fabrics, each from its committed config at the load the paper runs it (--load does
// not apply): rlft_432 (Rocher-Gonzalez Fig. 6's 432-node RLFT, RND, 1Q, D-mod-K, load 1.0),
// dragonfly_1056 (Jiang et al.'s 1056-node dragonfly, minimal routing, 4-flit messages, load 0.5)
// and zdornov_fig6 (Zdornov Fig. 6's modified 16-ary 3-tree, 4096 nodes, AR: flow-level adaptive
// routes, greedy sources, P = 4 permutations of flows too long to end while timed).
// Flow-engine cases: the whole Zdornov Fig. 5 study at one width (16-ary 3-tree, 4096 nodes, 1000
// random permutations routed flow by flow), as wall seconds per study and routed flows per second.
// --config FILE [--set KEY=VALUE ...]: instead, a study config's first sweep point (e.g. a Santos
// config with congestion control), its flows or traffic as the file says, with --trials/--step.
// --batch: the T trials as saturn run runs them on the CPU (runner: a batch of two 16-trial packs
// or more as one single-threaded engine per pack, `threads` at a time; host/packet/cpu_parts.hpp)
// or as one engine whose trials the threads split (whole, what this tool timed before).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "host/config/config.hpp"
#include "host/engine/engine.hpp"
#include "host/engine/model_setup.hpp"
#include "host/engine/omp_team.hpp"
#include "host/flow/flow_engine.hpp"
#include "host/packet/cpu_parts.hpp"
#include "kernels/common/macros.hpp"

using namespace saturn;

namespace {

struct Case {
  std::string name;
  int k, n;
};

// The CUDA build's program choice (--gpu-step, --gpu-trials-per-block), the same for every case.
GpuStep g_gpu_step = GpuStep::kAuto;
int g_gpu_trials_per_block = 0;

// Node-cycles per second (`node_trials` = nodes x trials) of `advance(cycles)` after 200 warm-up
// cycles (buffers reach their steady occupancy): fixed_cycles if given, else doubling until a
// run lasts min_seconds.
template <class Advance>
double time_cycles(double node_trials, const Advance& advance, double min_seconds, uint32_t fixed_cycles) {
  advance(200);
  uint32_t cycles = fixed_cycles > 0 ? fixed_cycles : 16;
  for (;;) {
    const auto t0 = std::chrono::steady_clock::now();
    advance(cycles);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (s >= min_seconds || fixed_cycles > 0) return node_trials * cycles / s;
    cycles = s > 0.01 ? static_cast<uint32_t>(cycles * (min_seconds / s) * 1.1) + 1 : cycles * 8;
  }
}

// One engine of all the trials (--batch whole, and wherever the runner would not cut the batch).
double time_engine(const ModelSetup& setup, const EngineSpec& spec, int trials, int threads, CpuStep step,
                   double min_seconds, uint32_t fixed_cycles) {
  Engine engine(spec);
  LaunchOptions opt;
  opt.threads = threads;
  opt.cpu_step = step;
  opt.gpu_step = g_gpu_step;
  opt.gpu_trials_per_block = g_gpu_trials_per_block;
  return time_cycles(static_cast<double>(setup.topology.num_endpoints) * trials,
                     [&](uint32_t cycles) { engine.advance(cycles, opt); }, min_seconds, fixed_cycles);
}

bool g_runner_batch = true;  // --batch runner (else whole)

// The parts of plan_cpu_parts as the study runner runs them: one single-threaded engine per part,
// the parts taken by `threads` workers in turn, every part advanced by the same cycles.
double time_parts(const ModelSetup& setup, const std::vector<TrialSpec>& specs, const std::vector<CpuPart>& parts,
                  int threads, CpuStep step, double min_seconds, uint32_t fixed_cycles) {
  std::vector<std::unique_ptr<Engine>> engines;
  for (const CpuPart& p : parts)
    engines.push_back(std::make_unique<Engine>(build_engine_spec(setup, part_trials(specs, p))));
  LaunchOptions opt;
  opt.threads = 1;
  opt.cpu_step = step;
  opt.gpu_step = g_gpu_step;  // shared: the staged program (on the CPU, one trial at a time)
  const auto advance_all = [&](uint32_t cycles) {
    for_each_on_workers(engines.size(), threads, [&](size_t i) { engines[i]->advance(cycles, opt); });
  };
  return time_cycles(static_cast<double>(setup.topology.num_endpoints) * static_cast<double>(specs.size()), advance_all,
                     min_seconds, fixed_cycles);
}

// The runner's parts of T trials where they are more than one (CPU, packs), else none. (By the
// model family's estimate: saturn run also runs one a part the trials that fit the last-level cache
// in packs that do not, host/packet/cpu_parts.hpp; here --step phases16 measures the pack.)
std::vector<CpuPart> runner_parts(const ModelSetup& setup, int trials, int threads, CpuStep step) {
  if (!kCpuBackend || !g_runner_batch || step != CpuStep::kPhasesPack16) return {};
  std::vector<CpuPart> parts = plan_cpu_parts(static_cast<size_t>(trials), threads, pack_speedup_estimate(setup.model),
                                              static_cast<size_t>(trials) + kPackTrials);
  if (parts.size() < 2) return {};
  return parts;
}

double measure(const Case& c, double load, int trials, int threads, CpuStep step, double min_seconds, uint32_t fixed_cycles,
               size_t* bytes_per_trial) {
  const std::string toml = "[topology]\nk = " + std::to_string(c.k) + "\nn = " + std::to_string(c.n) +
                           "\n[link]\nflit_bytes = 2048\n[endpoint]\nmtu_bytes = 2048\n"
                           "[switch]\nbuffer_bytes = 16384\n[traffic]\nload = " + std::to_string(load) +
                           "\nmessage_bytes = [2048]\n";
  const Config cfg = load_config_string(toml, "bench");
  const ModelSetup setup = build_model(cfg, "");
  std::vector<TrialSpec> specs;
  for (int t = 0; t < trials; ++t) specs.push_back(TrialSpec{0, t, trial_seed(1, 0, t), load, 0.0});
  *bytes_per_trial = setup.bytes_per_trial();
  const std::vector<CpuPart> parts = runner_parts(setup, trials, threads, step);
  if (!parts.empty()) return time_parts(setup, specs, parts, threads, step, min_seconds, fixed_cycles);
  const EngineSpec spec = build_engine_spec(setup, specs);
  return time_engine(setup, spec, trials, threads, step, min_seconds, fixed_cycles);
}

// A config file's first sweep point: node-cycles per second like measure().
double measure_config(const std::string& path, const std::vector<std::string>& sets, int trials, int threads,
                      CpuStep* step, double min_seconds, uint32_t fixed_cycles, size_t* bytes_per_trial) {
  const Config cfg = expand_sweep(load_config_file(path, sets)).front().config;
  const std::string dir = path.find('/') == std::string::npos ? "." : path.substr(0, path.rfind('/'));
  const ModelSetup setup = build_model(cfg, dir);
  const double load = cfg.get_float("traffic.load");
  std::vector<TrialSpec> specs;
  for (int t = 0; t < trials; ++t) specs.push_back(TrialSpec{0, t, trial_seed(1, 0, t), load, 0.0});
  *bytes_per_trial = setup.bytes_per_trial();
  // (The cuda backend runs its own GPU programs: a CPU step resolved to "fused" there would refuse
  // the phases-only models, such as the dragonfly, although the GPU runs them.)
  if (*step == CpuStep::kAuto && kCpuBackend) *step = auto_cpu_step_for(setup.model);
  const std::vector<CpuPart> parts = runner_parts(setup, trials, threads, *step);
  if (!parts.empty()) return time_parts(setup, specs, parts, threads, *step, min_seconds, fixed_cycles);
  const EngineSpec spec = build_engine_spec(setup, specs);
  return time_engine(setup, spec, trials, threads, *step, min_seconds, fixed_cycles);
}

// A case read from a committed config (source tree relative), with overrides.
struct ConfigCase {
  std::string name;
  std::string config;
  std::vector<std::string> sets;
};

const std::vector<ConfigCase>& config_cases() {
  static const std::vector<ConfigCase> cases = {
      {"rlft_432", "configs/papers/rocher2021/fig6_rnd_1q_dmodk.toml", {"traffic.load=1.0"}},
      {"dragonfly_1056", "configs/papers/jiang2015/uniform_minimal.toml", {"sweep.traffic.load=[0.5]"}},
      {"zdornov_fig6", "configs/papers/zdornov2009/fig6_packet_adaptive.toml",
       {"injection.scheduler=\"round_robin\"", "sweep.traffic.permutations=[4]", "traffic.phase_bytes=1000000000000"}},
  };
  return cases;
}

struct FlowCase {
  std::string name;
  const char* routing;
  int width;
  bool maxmin;
};

// Seconds for the whole study (best of `repeats`, after one untimed warm-up run).
double measure_flow(const FlowCase& c, int trials, int threads, int repeats) {
  const std::string toml = std::string("[simulation]\nmode = \"flow\"\n[topology]\nk = 16\nn = 3\nhorizontal_width = ") +
                           std::to_string(c.width) + "\n[routing]\nalgorithm = \"" + c.routing +
                           "\"\n[traffic]\npattern = \"permutation\"\n[flow]\nmaxmin = " + (c.maxmin ? "true" : "false") + "\n";
  const FlowSetup setup = build_flow_setup(load_config_string(toml, "bench"), "");
  std::vector<uint64_t> seeds;
  for (int t = 0; t < trials; ++t) seeds.push_back(trial_seed(1, 0, t));
  double best = 1e300;
  run_flow_batch(setup, seeds, threads);
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    run_flow_batch(setup, seeds, threads);
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

}  // namespace

int run_cases(const std::vector<std::string>& only, const std::vector<int>& trial_counts, const std::vector<double>& loads,
              int threads, const std::string& step_name, double min_seconds, uint32_t fixed_cycles, int flow_trials,
              int flow_repeats);

int main(int argc, char** argv) {
  CLI::App app{"saturn-bench: packet-engine throughput in simulated node-cycles per second"};
  int threads = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  double min_seconds = 1.0;
  std::vector<int> trial_counts = {1, 16, 128};
  std::vector<std::string> only;
  uint32_t fixed_cycles = 0;
  std::string step_name = "auto";
  std::vector<double> loads = {0.5};
  app.add_option("--threads", threads, "CPU threads")->check(CLI::Range(1, 4096));
  app.add_option("--seconds", min_seconds, "Minimum timed seconds per case")->check(CLI::Range(0.01, 3600.0));
  app.add_option("--trials", trial_counts, "Trial counts to run")->check(CLI::Range(1, 100000));
  app.add_option("--load", loads, "Offered loads (uniform traffic) to run")->check(CLI::Range(0.0, 1.0));
  app.add_option("--step", step_name, "CPU step: auto (this build's default, printed as what it runs), fused, phases (one trial at a time) or "
                 "phases16 (16-trial SIMD packs)")
      ->check(CLI::IsMember({"auto", "fused", "phases", "phases16"}));
  std::string batch_name = "runner";
  app.add_option("--batch", batch_name,
                 "CPU: runner (the trials as saturn run runs them: two 16-trial packs or more as one engine per pack, "
                 "threads at a time) or whole (one engine, its trials split between the threads)")
      ->check(CLI::IsMember({"runner", "whole"}));
  app.add_option("--cycles", fixed_cycles, "Time exactly this many cycles (for profilers); 0 = adaptive");
  app.add_option("--case", only,
                 "Run only these cases (fat_tree_64, fat_tree_4096, rlft_432, dragonfly_1056, zdornov_fig6, "
                 "flow_fig5_dmodk, flow_fig5_adaptive_w2, flow_fig5_adaptive_w2_maxmin)");
  std::string gpu_step_name = "auto";
  app.add_option("--gpu-step", gpu_step_name,
                 "CUDA build: auto (the block program where the whole batch fits one block, else the graph), block "
                 "(the persistent block program), graph (phase kernels replayed from a CUDA graph), shared (a block per "
                 "trial with its state in shared memory, where it fits; on a cpu build the same program one trial a thread) "
                 "or warp (the graph with each switch's phases over a warp; on a cpu build over 32 emulated lanes)")
      ->check(CLI::IsMember(gpu_step_names()));
  app.add_option("--gpu-trials-per-block", g_gpu_trials_per_block,
                 "CUDA block program: trials per block (0 = chosen from the GPU)")
      ->check(CLI::Range(0, 1024));
  int flow_trials = 1000, flow_repeats = 3;
  std::string config_path;
  std::vector<std::string> sets;
  app.add_option("--config", config_path, "Time this study config's first sweep point instead of the built-in cases");
  app.add_option("--set", sets, "--config: override KEY=VALUE (as saturn run --set)");
  app.add_option("--flow-trials", flow_trials, "Permutations per flow-engine study")->check(CLI::Range(1, 1000000));
  app.add_option("--flow-repeats", flow_repeats, "Timed repetitions per flow case (best is reported)")->check(CLI::Range(1, 100));
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return 0;
  } catch (const CLI::ParseError& e) {
    std::cerr << "saturn-bench: " << e.what() << "\n";
    return 2;
  }
  parse_gpu_step(gpu_step_name.c_str(), &g_gpu_step);  // CLI11 has checked the name
  g_runner_batch = batch_name == "runner";
  const OmpTeam team(threads);  // the engines' set-up too: no idle team of every core spinning beside the timed step
  try {
    if (!config_path.empty()) {
      CpuStep step = step_name == "phases"     ? CpuStep::kPhases
                     : step_name == "phases16" ? CpuStep::kPhasesPack16
                     : step_name == "fused"    ? CpuStep::kFused
                                               : CpuStep::kAuto;
      size_t bytes = 0;
      const int trials = trial_counts.front();
      const double rate = measure_config(config_path, sets, trials, threads, &step, min_seconds, fixed_cycles, &bytes);
      std::printf("config=%s trials=%d node_cycles_per_s=%.4g bytes_per_trial=%zu step=%s\n", config_path.c_str(), trials,
                  rate, bytes, cpu_step_name(step));
      return 0;
    }
    return run_cases(only, trial_counts, loads, threads, step_name, min_seconds, fixed_cycles, flow_trials, flow_repeats);
  } catch (const std::exception& e) {  // e.g. a cuda build on a machine without a usable GPU
    std::fprintf(stderr, "saturn-bench: %s\n", e.what());
    return 1;
  }
}

int run_cases(const std::vector<std::string>& only, const std::vector<int>& trial_counts, const std::vector<double>& loads,
              int threads, const std::string& step_name, double min_seconds, uint32_t fixed_cycles, int flow_trials,
              int flow_repeats) {
  const CpuStep requested = step_name == "phases"     ? CpuStep::kPhases
                            : step_name == "phases16" ? CpuStep::kPhasesPack16
                            : step_name == "fused"    ? CpuStep::kFused
                                                      : CpuStep::kAuto;
  const CpuStep step = requested == CpuStep::kAuto ? auto_cpu_step(false) : requested;  // the cases use no CC
  const std::vector<Case> cases = {{"fat_tree_64", 4, 3}, {"fat_tree_4096", 16, 3}};
  std::printf("# backend=%s threads=%d version=%s gpu_step=%s gpu_trials_per_block=%d batch=%s\n", SATURN_BACKEND_NAME,
              threads, SATURN_VERSION, gpu_step_name(g_gpu_step), g_gpu_trials_per_block,
              g_runner_batch ? "runner" : "whole");
  for (const Case& c : cases) {
    if (!only.empty() && std::find(only.begin(), only.end(), c.name) == only.end()) continue;
    for (double load : loads)
      for (int trials : trial_counts) {
        size_t bytes = 0;
        const double rate = measure(c, load, trials, threads, step, min_seconds, fixed_cycles, &bytes);
        std::printf("case=%s trials=%d node_cycles_per_s=%.4g bytes_per_trial=%zu load=%g step=%s\n", c.name.c_str(),
                    trials, rate, bytes, load, cpu_step_name(step));
        std::fflush(stdout);
      }
  }
  for (const ConfigCase& c : config_cases()) {
    if (!only.empty() && std::find(only.begin(), only.end(), c.name) == only.end()) continue;
    for (int trials : trial_counts) {
      size_t bytes = 0;
      CpuStep case_step = requested;  // auto: as saturn run would choose for this model (CC or not)
      const std::string path = std::string(SATURN_SOURCE_DIR) + "/" + c.config;
      const double rate = measure_config(path, c.sets, trials, threads, &case_step, min_seconds, fixed_cycles, &bytes);
      const Config cfg = expand_sweep(load_config_file(path, c.sets)).front().config;
      std::printf("case=%s trials=%d node_cycles_per_s=%.4g bytes_per_trial=%zu load=%g step=%s\n", c.name.c_str(),
                  trials, rate, bytes, cfg.get_float("traffic.load"), cpu_step_name(case_step));
      std::fflush(stdout);
    }
  }
  const std::vector<FlowCase> flow_cases = {{"flow_fig5_dmodk", "dmodk", 0, false},
                                            {"flow_fig5_adaptive_w2", "adaptive", 2, false},
                                            {"flow_fig5_adaptive_w2_maxmin", "adaptive", 2, true}};
  for (const FlowCase& c : flow_cases) {
    if (!only.empty() && std::find(only.begin(), only.end(), c.name) == only.end()) continue;
    const double s = measure_flow(c, flow_trials, threads, flow_repeats);
    std::printf("case=%s trials=%d seconds=%.4f flows_per_s=%.4g\n", c.name.c_str(), flow_trials, s,
                4096.0 * flow_trials / s);
    std::fflush(stdout);
  }
  return 0;
}
