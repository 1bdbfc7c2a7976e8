// The CPU step modes give the same bits: the fused per-trial step, the phases over lanes one trial
// at a time (the GPU thread's code), and the phases over 16-trial SIMD packs. Every counter of
// every trial is compared after a run with the invariants checked in every cycle, on models that
// exercise each branch of the phases: FCFS with hashed ties, round-robin, speedup 1, VC classes
// under priority and round-robin, multi-flit packets, oblivious routing, an edge-list topology,
// input buffers of more than 64 packets, and packets of several sizes behind short-of-credit heads;
// and for the endpoint phase (endpoint_lanes.hpp): explicit flows with start and stop times, finite
// sizes, rate limits, start jitter and a second VC, and hot spots with background traffic, several
// message sizes and a short source queue (refusals). Congestion control runs through the same
// phases (kCc): every marking mode, both output triggers, FIFO with bounded bypass, CCA, windows
// and the three response functions with continuous and discrete rates, a separate ACK VC, dynamic
// ON / OFF flows, per-link full-buffer statistics, and every Santos 2002 config with its flows
// started 250 times closer together (CcStepIdentity). Flow-level adaptive routing: PRC lookups with
// unlimited and one-entry caches on modified trees. Trace replay, phases only: TraceStepIdentity.
// The injection schedulers (ipd, svc, ps) run
// only on the phases: scalar against packs (InjectionStepIdentity); so does a shared VC buffer
// (PoolStepIdentity).
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "host/config/config.hpp"
#include "host/engine/engine.hpp"
#include "host/engine/model_setup.hpp"
#include "tests/support/engine_helpers.hpp"

namespace saturn {
namespace {

Counters run_config(const Config& cfg, const std::string& dir, int trials, CpuStep step, int threads,
                    uint32_t cycles, double background_load) {
  std::vector<TrialSpec> specs;
  for (int t = 0; t < trials; ++t) specs.push_back(TrialSpec{0, t, trial_seed(7, 0, t), 0.45 + 0.02 * (t % 5), background_load});
  return test::run_engine(cfg, dir, specs, step, threads, cycles);
}

Counters run_mode(const std::string& toml, int trials, CpuStep step, int threads, uint32_t cycles,
                  double background_load) {
  return run_config(load_config_string(toml, "identity"), SATURN_SOURCE_DIR "/configs/examples", trials, step, threads,
                    cycles, background_load);
}

uint64_t total(const std::vector<uint64_t>& x) {
  uint64_t sum = 0;
  for (uint64_t v : x) sum += v;
  return sum;
}

// The three CPU steps on one model: fused, phases one trial at a time, 16-trial packs (two threads).
// cc_events: the model must also mark, answer or fill buffers (congestion control at work).
void expect_steps_agree(const std::function<Counters(CpuStep, int)>& run, const std::string& name,
                        uint64_t min_delivered, bool cc_events = false) {
  const Counters fused = run(CpuStep::kFused, 1);
  const Counters phases = run(CpuStep::kPhases, 1);
  const Counters packs = run(CpuStep::kPhasesPack16, 2);
  ASSERT_GT(fused.del_packets.size(), 0u);
  uint64_t delivered = 0;
  for (uint64_t d : fused.del_packets) delivered += d;
  EXPECT_GT(delivered, min_delivered) << "the model must carry traffic for the comparison to mean anything";
  if (cc_events) EXPECT_GT(total(fused.marked) + total(fused.ctrl_delivered) + total(fused.full_cycles), 0u) << name;
  for (uint64_t x : fused.violations) EXPECT_EQ(x, 0u);
  for (uint64_t x : packs.violations) EXPECT_EQ(x, 0u);
  test::expect_same_counters(fused, phases, name + ": fused vs phases");
  test::expect_same_counters(fused, packs, name + ": fused vs 16-lane packs");
}

struct Model {
  const char* name;
  const char* toml;
  double background_load = 0.0;  // hot spots' uniform background (per trial)
};

const Model kModels[] = {
    {"fcfs_one_vc", "[topology]\nk = 4\nn = 2\n[traffic]\nload = 0.5\n"},
    {"oblivious_multi_flit",
     "[topology]\nk = 4\nn = 2\n[routing]\nalgorithm = \"random\"\n[traffic]\nload = 0.8\n"
     "message_bytes = [2048, 8192]\n[endpoint]\nmtu_bytes = 4096\n[link]\nflit_bytes = 512\n"},
    {"round_robin_speedup_1",
     "[topology]\nk = 4\nn = 2\n[switch]\narbitration = \"round_robin\"\nspeedup = \"1\"\n[traffic]\nload = 0.9\n"},
    {"vc_classes_priority",
     "[topology]\nk = 2\nn = 3\n[switch]\nvcs = 2\nrouter_delay_ns = 50\n[traffic]\nload = 0.7\n"
     "message_bytes = [512, 4096]\n[endpoint]\nmtu_bytes = 2048\n[link]\nflit_bytes = 256\nlatency_ns = 100\n"},
    {"vc_classes_round_robin",
     "[topology]\nk = 2\nn = 3\n[switch]\nvcs = 3\nvc_arbitration = \"round_robin\"\n[traffic]\nload = 0.7\n"},
    // 256 entries per input (more than the old 64-slot limit) and packets of 1 and 8 flits: VOQ
    // heads short of credits with a smaller packet behind them (voq_find_fit).
    {"big_buffer_mixed_sizes",
     "[topology]\nk = 4\nn = 2\n[switch]\nbuffer_bytes = 65536\n[traffic]\nload = 0.9\n"
     "message_bytes = [256, 4096]\n[endpoint]\nmtu_bytes = 2048\n[link]\nflit_bytes = 256\n"},
    {"small_buffer_mixed_sizes_speedup_2",
     "[topology]\nk = 4\nn = 2\n[switch]\nbuffer_bytes = 4096\nspeedup = \"2\"\n[traffic]\nload = 0.9\n"
     "message_bytes = [256, 768, 4096]\n[endpoint]\nmtu_bytes = 2048\n[link]\nflit_bytes = 256\n"},
    {"edge_list_leaf_spine", "[topology]\nkind = \"file\"\nfile = \"leaf_spine.topo\"\n[routing]\nalgorithm = \"table\"\n[traffic]\nload = 0.6\n"},
    // More flows than send queues (later ones wait for a free queue), finite and greedy flows,
    // stop times, rate limits, a hot destination, VC 1, per-trial start jitter.
    {"flows_start_stop_jitter",
     "[topology]\nk = 4\nn = 2\n[switch]\nvcs = 2\n[link]\nflit_bytes = 256\n[endpoint]\nmtu_bytes = 1024\n"
     "active_queues = 2\n[traffic]\npattern = \"flows\"\nstart_jitter_ns = 400\n"
     "[[traffic.flows]]\nsrc = 0\ndst = 5\nbytes = 20000\n"
     "[[traffic.flows]]\nsrc = 0\ndst = 6\nbytes = 0\nstart_ns = 100\nstop_ns = 9000\n"
     "[[traffic.flows]]\nsrc = 0\ndst = 9\nbytes = 8192\nstart_ns = 2000\nrate = 0.5\nvc = 1\n"
     "[[traffic.flows]]\nsrc = 1\ndst = 5\nbytes = 0\nstart_ns = 500\nrate = 0.7\n"
     "[[traffic.flows]]\nsrc = 2\ndst = 5\nbytes = 60000\nstart_ns = 50\n"
     "[[traffic.flows]]\nsrc = 7\ndst = 12\nbytes = 3000\nstart_ns = 1000\nvc = 1\n"
     "[[traffic.flows]]\nsrc = 7\ndst = 13\nbytes = 0\nstart_ns = 1200\nstop_ns = 6000\nrate = 0.3\n"
     "[[traffic.flows]]\nsrc = 7\ndst = 14\nbytes = 5000\nstart_ns = 1300\n"
     "[[traffic.flows]]\nsrc = 12\ndst = 3\nbytes = 0\nstart_ns = 3000\nvc = 1\n"
     // Two greedy flows hold both queues until they stop; two finite ones wait for the queues.
     "[[traffic.flows]]\nsrc = 3\ndst = 8\nbytes = 0\nstop_ns = 3000\n"
     "[[traffic.flows]]\nsrc = 3\ndst = 10\nbytes = 0\nstop_ns = 5000\nrate = 0.9\n"
     "[[traffic.flows]]\nsrc = 3\ndst = 11\nbytes = 10000\nstart_ns = 100\n"
     "[[traffic.flows]]\nsrc = 3\ndst = 4\nbytes = 4000\nstart_ns = 200\n"
     "[[traffic.flows]]\nsrc = 15\ndst = 0\nbytes = 100000\nstart_ns = 0\nstop_ns = 12000\n"},
    // Flow-level adaptive routing (route.hpp, kFlowAdaptive): PRC lookups at every input, horizontal
    // hops on the modified tree, one-entry caches (most flows on their default ports).
    {"adaptive_routes_modified_tree",
     "[topology]\nk = 4\nn = 3\nhorizontal_width = 2\n[routing]\nalgorithm = \"adaptive\"\n[switch]\nbuffer_bytes = 4096\n"
     "[link]\nflit_bytes = 256\n[endpoint]\nmtu_bytes = 1024\n"
     "[traffic]\npattern = \"permutation\"\npermutations = 3\nphase_bytes = 20480\n"},
    {"adaptive_routes_one_entry_caches",
     "[topology]\nk = 2\nn = 4\nhorizontal_width = 1\n[routing]\nalgorithm = \"adaptive\"\nroute_cache_entries = 1\n"
     "[link]\nflit_bytes = 256\n[endpoint]\nmtu_bytes = 1024\n"
     "[traffic]\npattern = \"permutation\"\npermutations = 4\nphase_bytes = 20480\n"},
    {"hotspot_background_multi_size",
     "[topology]\nk = 4\nn = 2\n[link]\nflit_bytes = 512\n[endpoint]\nmtu_bytes = 2048\nactive_queues = 2\n"
     "queue_messages = 4\n[traffic]\npattern = \"hotspot\"\nhotspot_sources = 6\nhotspot_destinations = 2\n"
     "background = \"uniform\"\nmessage_bytes = [512, 4096, 16384]\nmessage_weights = [3, 2, 1]\n",
     0.3},
};

class StepIdentity : public ::testing::TestWithParam<Model> {};

TEST_P(StepIdentity, FusedScalarPhasesAndPacksAgree) {
  const Model& model = GetParam();
  // 37 trials: two 16-trial packs and a remainder that runs one trial at a time.
  expect_steps_agree([&](CpuStep step, int threads) { return run_mode(model.toml, 37, step, threads, 800, model.background_load); },
                     model.name, 1000u);
}

// The default step: packs where the build has wide vectors, with or without congestion control,
// the fused step otherwise. Runs through it are held to the fused step's bits by the golden tests,
// which use the default.
TEST(StepIdentity, AutoStepPicksPacksWhereTheBuildHasWideVectors) {
  const CpuStep wide = cpu_build_has_wide_vectors() ? CpuStep::kPhasesPack16 : CpuStep::kFused;
  EXPECT_EQ(auto_cpu_step(true), wide);
  EXPECT_EQ(auto_cpu_step(false), wide);
#if defined(__x86_64__) && !defined(SATURN_BACKEND_CUDA)
  // A build for wide vectors runs where it was built (-march=native): this machine has them.
  if (cpu_build_has_wide_vectors()) EXPECT_TRUE(__builtin_cpu_supports("avx2"));
#endif
  EXPECT_EQ(LaunchOptions{}.cpu_step, CpuStep::kAuto);
  EXPECT_STREQ(cpu_step_name(CpuStep::kPhasesPack16), "phases16");
}

INSTANTIATE_TEST_SUITE_P(Models, StepIdentity, ::testing::ValuesIn(kModels),
                         [](const ::testing::TestParamInfo<Model>& info) { return std::string(info.param.name); });

// Trace replay (kernels/traffic/trace_replay.hpp) runs on the phases only: the scalar lane and the
// 16-lane packs give the same bits (with oblivious routing, so that the trials differ, and the
// incast streams of configs/examples/trace_small.trace), and the fused step refuses it.
const Model kTraceModels[] = {
    {"trace_small_streams_oblivious",
     "[topology]\nk = 4\nn = 2\n[routing]\nalgorithm = \"random\"\n[link]\nflit_bytes = 256\n[endpoint]\n"
     "mtu_bytes = 2048\nactive_queues = 2\n[traffic]\npattern = \"trace\"\ntrace_file = \"trace_small.trace\"\n"},
    // One send queue (trace sends wait behind the streams), small packets, two VCs, traffic on VC 1.
    {"trace_one_queue_vc1_small_mtu",
     "[topology]\nk = 4\nn = 2\n[routing]\nalgorithm = \"random\"\n[switch]\nvcs = 2\nbuffer_bytes = 4096\n[link]\n"
     "flit_bytes = 256\n[endpoint]\nmtu_bytes = 1024\nactive_queues = 1\n[traffic]\npattern = \"trace\"\nvc = 1\n"
     "trace_file = \"trace_small.trace\"\n"},
};

class TraceStepIdentity : public ::testing::TestWithParam<Model> {};

TEST_P(TraceStepIdentity, ScalarPhasesAndPacksAgree) {
  const Model& model = GetParam();
  const Counters scalar = run_mode(model.toml, 37, CpuStep::kPhases, 1, 2500, 0.0);
  const Counters packs = run_mode(model.toml, 37, CpuStep::kPhasesPack16, 2, 2500, 0.0);
  EXPECT_GT(total(scalar.del_packets), 37u * 50u) << "the trace and its streams must carry traffic";
  for (uint64_t x : scalar.violations) EXPECT_EQ(x, 0u);
  for (uint64_t x : packs.violations) EXPECT_EQ(x, 0u);
  ASSERT_FALSE(scalar.trace_done.empty());
  test::expect_same_counters(scalar, packs, std::string(model.name) + ": phases vs 16-lane packs");
  EXPECT_THROW(run_mode(model.toml, 2, CpuStep::kFused, 1, 10, 0.0), std::invalid_argument);
}

INSTANTIATE_TEST_SUITE_P(Models, TraceStepIdentity, ::testing::ValuesIn(kTraceModels),
                         [](const ::testing::TestParamInfo<Model>& info) { return std::string(info.param.name); });

// The explicit-rate injection schedulers (injection.scheduler = ipd, svc, ps;
// kernels/phases/endpoint_injection.hpp) exist only in the phases: scalar phases on one thread
// against 16-trial packs on two threads and the scalar phases on three threads (elements split).
// Phase flows of 3 superposed permutations with SAA rates (per trial), and explicit flows with
// their own rates, start times, a stop time and more flows than send queues.
const Model kInjectionModels[] = {
    {"ps_saa_permutations",
     "[topology]\nk = 4\nn = 2\n[switch]\nbuffer_bytes = 4096\n[link]\nflit_bytes = 256\n[endpoint]\nmtu_bytes = 1024\n"
     "[traffic]\npattern = \"permutation\"\npermutations = 3\nphase_bytes = 40960\n"
     "[injection]\nscheduler = \"ps\"\nrates = \"saa\"\n"},
    {"svc_saa_permutations",
     "[topology]\nk = 4\nn = 2\n[switch]\nbuffer_bytes = 2048\n[link]\nflit_bytes = 256\n[endpoint]\nmtu_bytes = 1024\n"
     "[traffic]\npattern = \"permutation\"\npermutations = 2\nphase_bytes = 40960\n"
     "[injection]\nscheduler = \"svc\"\nrates = \"saa\"\n"},
    {"ps_saa_adaptive_routes",
     "[topology]\nk = 4\nn = 3\nhorizontal_width = 2\n[routing]\nalgorithm = \"adaptive\"\n[switch]\nbuffer_bytes = 4096\n"
     "[link]\nflit_bytes = 256\n[endpoint]\nmtu_bytes = 1024\n"
     "[traffic]\npattern = \"permutation\"\npermutations = 2\nphase_bytes = 40960\n"
     "[injection]\nscheduler = \"ps\"\nrates = \"saa\"\n"},
    {"ps_saa_probes_permutations",
     "[topology]\nk = 4\nn = 2\n[switch]\nbuffer_bytes = 4096\n[link]\nflit_bytes = 256\n[endpoint]\nmtu_bytes = 1024\n"
     "[traffic]\npattern = \"permutation\"\npermutations = 3\nphase_bytes = 40960\n"
     "[injection]\nscheduler = \"ps\"\nrates = \"saa_probes\"\n"},
    {"svc_saa_probes_interval",
     "[topology]\nk = 4\nn = 2\n[switch]\nbuffer_bytes = 2048\n"
     "[link]\nflit_bytes = 256\n[endpoint]\nmtu_bytes = 1024\n"
     "[traffic]\npattern = \"permutation\"\npermutations = 2\nphase_bytes = 40960\n"
     "[injection]\nscheduler = \"svc\"\nrates = \"saa_probes\"\nsaa_probe_interval_ns = 300\nsaa_first_rate = \"probe\"\n"},
    {"ipd_flows_own_rates",
     "[topology]\nk = 4\nn = 2\n[link]\nflit_bytes = 256\n[endpoint]\nmtu_bytes = 1024\nactive_queues = 2\n"
     "[traffic]\npattern = \"flows\"\n"
     "[[traffic.flows]]\nsrc = 0\ndst = 5\nbytes = 20000\nrate = 0.3\n"
     "[[traffic.flows]]\nsrc = 0\ndst = 6\nbytes = 0\nstart_ns = 100\nstop_ns = 9000\nrate = 0.5\n"
     "[[traffic.flows]]\nsrc = 0\ndst = 9\nbytes = 8192\nstart_ns = 2000\n"
     "[[traffic.flows]]\nsrc = 1\ndst = 5\nbytes = 0\nstart_ns = 500\nrate = 0.7\n"
     "[[traffic.flows]]\nsrc = 2\ndst = 5\nbytes = 60000\nstart_ns = 50\n"
     "[[traffic.flows]]\nsrc = 7\ndst = 12\nbytes = 3000\nstart_ns = 1000\nrate = 0.25\n"
     "[[traffic.flows]]\nsrc = 7\ndst = 13\nbytes = 0\nstart_ns = 1200\nstop_ns = 6000\nrate = 0.3\n"
     "[[traffic.flows]]\nsrc = 7\ndst = 14\nbytes = 5000\nstart_ns = 1300\n"
     "[injection]\nscheduler = \"ipd\"\n"},
    {"ps_flows_own_rates",
     "[topology]\nk = 4\nn = 2\n[link]\nflit_bytes = 256\n[endpoint]\nmtu_bytes = 1024\nactive_queues = 2\n"
     "[traffic]\npattern = \"flows\"\n"
     "[[traffic.flows]]\nsrc = 0\ndst = 5\nbytes = 20000\nrate = 0.3\n"
     "[[traffic.flows]]\nsrc = 0\ndst = 6\nbytes = 0\nstart_ns = 100\nstop_ns = 9000\nrate = 0.5\n"
     "[[traffic.flows]]\nsrc = 0\ndst = 9\nbytes = 8192\nstart_ns = 2000\n"
     "[[traffic.flows]]\nsrc = 2\ndst = 5\nbytes = 60000\nstart_ns = 50\n"
     "[[traffic.flows]]\nsrc = 3\ndst = 5\nbytes = 0\nrate = 0.6\n"
     "[injection]\nscheduler = \"ps\"\n"},
    // route setup and teardown packets (kernels/routing/route_setup.hpp): greedy sources on the
    // modified tree, and explicit flows that start later, on 1-entry caches
    {"round_robin_route_setup_packets",
     "[topology]\nk = 4\nn = 3\nhorizontal_width = 2\n[routing]\nalgorithm = \"adaptive\"\nroute_setup = \"packets\"\n"
     "[switch]\nbuffer_bytes = 4096\n[link]\nflit_bytes = 256\n[endpoint]\nmtu_bytes = 1024\nactive_queues = 3\n"
     "[traffic]\npattern = \"permutation\"\npermutations = 3\nphase_bytes = 20480\n"},
    {"ipd_route_setup_packets_later_flows",
     "[topology]\nk = 4\nn = 3\nhorizontal_width = 1\n[routing]\nalgorithm = \"adaptive\"\nroute_setup = \"packets\"\n"
     "route_cache_entries = 1\n[link]\nflit_bytes = 256\n[endpoint]\nmtu_bytes = 1024\nactive_queues = 3\n"
     "[traffic]\npattern = \"flows\"\n"
     "[[traffic.flows]]\nsrc = 0\ndst = 60\nbytes = 20000\n"
     "[[traffic.flows]]\nsrc = 0\ndst = 59\nbytes = 8192\nstart_ns = 2000\n"
     "[[traffic.flows]]\nsrc = 1\ndst = 61\nbytes = 30000\nstart_ns = 50\n"
     "[[traffic.flows]]\nsrc = 2\ndst = 61\nbytes = 30000\nstart_ns = 60\n"
     "[[traffic.flows]]\nsrc = 3\ndst = 44\nbytes = 12000\nstart_ns = 1000\nrate = 0.5\n"
     "[[traffic.flows]]\nsrc = 17\ndst = 62\nbytes = 40000\n"
     "[injection]\nscheduler = \"ipd\"\n"},
};

class InjectionStepIdentity : public ::testing::TestWithParam<Model> {};

// A model with no fused-step version: the scalar phases on one thread against 16-trial packs on two
// and the scalar phases on three (elements split), 37 trials for `cycles`; the fused step refuses it
// (`fused_lacks`: what it has no version of).
void expect_phases_packs_and_threads_agree(const Model& model, uint32_t cycles, const char* fused_lacks) {
  auto run = [&](CpuStep step, int threads) { return run_mode(model.toml, 37, step, threads, cycles, 0.0); };
  const Counters phases = run(CpuStep::kPhases, 1);
  const Counters packs = run(CpuStep::kPhasesPack16, 2);
  const Counters split = run(CpuStep::kPhases, 3);
  EXPECT_GT(total(phases.del_packets), 1000u) << "the model must carry traffic for the comparison to mean anything";
  for (uint64_t x : phases.violations) EXPECT_EQ(x, 0u);
  for (uint64_t x : packs.violations) EXPECT_EQ(x, 0u);
  test::expect_same_counters(phases, packs, std::string(model.name) + ": phases vs 16-lane packs");
  test::expect_same_counters(phases, split, std::string(model.name) + ": one thread vs three");
  EXPECT_THROW(run(CpuStep::kFused, 1), std::invalid_argument) << "the fused step has no " << fused_lacks;
}

TEST_P(InjectionStepIdentity, ScalarPhasesAndPacksAgree) {
  expect_phases_packs_and_threads_agree(GetParam(), 3000, "injection schedulers");
}

INSTANTIATE_TEST_SUITE_P(Models, InjectionStepIdentity, ::testing::ValuesIn(kInjectionModels),
                         [](const ::testing::TestParamInfo<Model>& info) { return std::string(info.param.name); });

// A shared VC buffer (switch.vc_buffer = "shared", kernels/state/credit_pool.hpp) runs on the
// phases only: its credit books are kept per lane in the packs. Packets of 1, 2 and 8 flits on two of
// three VCs (a greedy flow on VC 2 beside uniform traffic on VC 0), the minimum one MTU packet or 3
// of them, oblivious routing so that the trials differ.
const Model kPoolModels[] = {
    {"shared_vcs_mixed_sizes",
     "[topology]\nk = 2\nn = 3\n[routing]\nalgorithm = \"random\"\n[switch]\nvcs = 3\nbuffer_bytes = 16384\n"
     "vc_buffer = \"shared\"\nvc_arbitration = \"round_robin\"\n[link]\nflit_bytes = 256\n[endpoint]\nmtu_bytes = 2048\n"
     "[traffic]\nload = 0.9\nmessage_bytes = [256, 512, 4096]\n"},
    {"shared_vcs_min_three_packets_two_classes",
     "[topology]\nk = 4\nn = 2\n[routing]\nalgorithm = \"random\"\n[switch]\nvcs = 3\nbuffer_bytes = 32768\n"
     "vc_buffer = \"shared\"\nvc_min_bytes = 6144\n[link]\nflit_bytes = 256\n[endpoint]\nmtu_bytes = 2048\n"
     "active_queues = 2\n[traffic]\npattern = \"flows\"\n"
     "[[traffic.flows]]\nsrc = 0\ndst = 9\nbytes = 0\nvc = 2\n[[traffic.flows]]\nsrc = 1\ndst = 9\nbytes = 0\n"
     "[[traffic.flows]]\nsrc = 4\ndst = 9\nbytes = 0\nvc = 2\n[[traffic.flows]]\nsrc = 5\ndst = 12\nbytes = 80000\n"},
};

class PoolStepIdentity : public ::testing::TestWithParam<Model> {};

TEST_P(PoolStepIdentity, ScalarPhasesAndPacksAgree) {
  expect_phases_packs_and_threads_agree(GetParam(), 2000, "shared VC buffer");
}

INSTANTIATE_TEST_SUITE_P(Models, PoolStepIdentity, ::testing::ValuesIn(kPoolModels),
                         [](const ::testing::TestParamInfo<Model>& info) { return std::string(info.param.name); });

// Congestion control on a 4-ary 2-tree (64-byte flits: 4-flit packets, 1-flit ACKs; small buffers
// so that inputs fill), 1500 cycles. (The models add no [endpoint] table: TOML allows one.)
const char* const kCcTree =
    "[topology]\nk = 4\nn = 2\n[link]\nflit_bytes = 64\n[endpoint]\nmtu_bytes = 256\n";
const Model kCcModels[] = {
    {"naive_window_fimd",
     "[switch]\nbuffer_bytes = 1024\n[traffic]\nload = 0.9\npattern = \"hotspot\"\nhotspot_sources = 8\n"
     "hotspot_destinations = 1\nbackground = \"uniform\"\n[cc]\nmarking = \"naive\"\nwindow = 4\nresponse = \"fimd\"\n",
     0.3},
    {"input_aimd_continuous_per_link",
     "[switch]\nbuffer_bytes = 1024\n[traffic]\nload = 0.9\nmessage_bytes = [128, 1024]\n[stats]\nper_link = true\n"
     "[cc]\nmarking = \"input\"\nresponse = \"aimd\"\n"},
    {"input_output_edge_lipd_discrete_persistent",
     "[switch]\nbuffer_bytes = 2048\nvcs = 2\n[traffic]\nload = 0.8\npattern = \"hotspot\"\nhotspot_sources = 10\n"
     "hotspot_destinations = 2\nbackground = \"uniform\"\n"
     "[cc]\nmarking = \"input_output\"\noutput_threshold = 2\noutput_trigger = \"edge\"\nresponse = \"lipd\"\n"
     "rates = \"discrete\"\npersistent = true\nwindow = 2\n",
     0.4},
    {"input_fimd_discrete_nearest",
     "[switch]\nbuffer_bytes = 1024\n[traffic]\nload = 0.9\npattern = \"hotspot\"\nhotspot_sources = 8\n"
     "hotspot_destinations = 1\nbackground = \"uniform\"\n[cc]\nmarking = \"input\"\nresponse = \"fimd\"\n"
     "rates = \"discrete_nearest\"\n",
     0.3},
    {"fifo_bypass_input_output_level",
     "[switch]\nbuffer_bytes = 1024\narbitration = \"fifo_bypass\"\nbypass_limit = 2\nspeedup = \"1\"\n"
     "[traffic]\nload = 0.9\n[cc]\nmarking = \"input_output\"\noutput_threshold = 1\nresponse = \"lipd\"\n"},
    {"fifo_bypass_reading_wait",
     "[switch]\nbuffer_bytes = 1024\narbitration = \"fifo_bypass\"\nbypass_limit = 2\nbypass_reading = \"wait\"\n"
     "speedup = \"1\"\n[traffic]\nload = 0.9\n[cc]\nmarking = \"input_output\"\noutput_threshold = 1\nresponse = \"lipd\"\n"},
    {"fifo_bypass_reading_eager",
     "[switch]\nbuffer_bytes = 1024\narbitration = \"fifo_bypass\"\nbypass_limit = 4\nbypass_reading = \"eager\"\n"
     "speedup = \"1\"\n[traffic]\nload = 0.9\n[cc]\nmarking = \"input_output\"\noutput_threshold = 1\nresponse = \"lipd\"\n"},
    {"fifo_bypass_mixed_sizes_vc_round_robin_speedup_2",
     "[switch]\nbuffer_bytes = 2048\narbitration = \"fifo_bypass\"\nbypass_limit = 1\nspeedup = \"2\"\nvcs = 3\n"
     "vc_arbitration = \"round_robin\"\n[traffic]\nload = 0.9\nmessage_bytes = [64, 192, 1024]\n"},
    {"cca_mixed_sizes",
     "[switch]\nbuffer_bytes = 1024\n[traffic]\nload = 0.9\npattern = \"hotspot\"\nhotspot_sources = 8\n"
     "hotspot_destinations = 1\nbackground = \"uniform\"\nmessage_bytes = [64, 256, 1024]\n"
     "[cca]\nenabled = true\nthreshold = 0.25\nmarking_period = 2\nipd_step_flits = 4\ntimer_flits = 40\nmax_index = 16\n",
     0.3},
    {"cca_fifo_bypass_ack_window",
     "[switch]\nbuffer_bytes = 1024\narbitration = \"fifo_bypass\"\nvcs = 2\n[traffic]\nload = 0.9\n"
     "pattern = \"hotspot\"\nhotspot_sources = 8\nhotspot_destinations = 1\nbackground = \"uniform\"\n"
     "[cc]\nwindow = 3\n[cca]\nenabled = true\nthreshold = 0.25\nipd_step_flits = 8\ntimer_flits = 30\n",
     0.3},
    {"dynamic_flows_lipd_ack_vc",
     "[switch]\nbuffer_bytes = 1024\nvcs = 2\n[traffic]\npattern = \"flows\"\non_off_mean_ns = 300\n"
     "[cc]\nmarking = \"input\"\nresponse = \"lipd\"\nwindow = 2\n"
     "[[traffic.flows]]\nsrc = 0\ndst = 15\ndynamic = true\n[[traffic.flows]]\nsrc = 1\ndst = 15\ndynamic = true\n"
     "[[traffic.flows]]\nsrc = 2\ndst = 15\n[[traffic.flows]]\nsrc = 4\ndst = 15\ndynamic = true\n"
     "[[traffic.flows]]\nsrc = 5\ndst = 14\nbytes = 20000\n[[traffic.flows]]\nsrc = 8\ndst = 15\ndynamic = true\n"
     "[[traffic.flows]]\nsrc = 9\ndst = 13\nrate = 0.5\ndynamic = true\n[[traffic.flows]]\nsrc = 12\ndst = 15\n"},
};

class CcStepIdentity : public ::testing::TestWithParam<Model> {};

TEST_P(CcStepIdentity, FusedScalarPhasesAndPacksAgree) {
  const Model& model = GetParam();
  const std::string toml = std::string(kCcTree) + model.toml;
  expect_steps_agree([&](CpuStep step, int threads) { return run_mode(toml, 37, step, threads, 1500, model.background_load); },
                     model.name, 1000u, std::string(model.name).find("mixed_sizes_vc") == std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Models, CcStepIdentity, ::testing::ValuesIn(kCcModels),
                         [](const ::testing::TestParamInfo<Model>& info) { return std::string(info.param.name); });

// Every Santos 2002 config (the first point of its sweep), its flows started 250 times closer
// together (one every 400 ns, the jitter under 2 us, ON / OFF periods of 4 us on average) so that
// the root congests, marks and answers within the run.
class SantosStepIdentity : public ::testing::TestWithParam<const char*> {};

TEST_P(SantosStepIdentity, FusedScalarPhasesAndPacksAgree) {
  const std::string dir = SATURN_SOURCE_DIR "/configs/papers/santos2002";
  std::ifstream in(dir + "/" + GetParam() + ".toml");
  ASSERT_TRUE(in.good()) << GetParam();
  std::stringstream text;
  text << in.rdbuf();
  std::string toml = text.str();
  std::smatch match;
  std::string shortened;
  const std::regex start("start_ns = ([0-9.e+]+)");
  for (std::string rest = toml; std::regex_search(rest, match, start); rest = match.suffix()) {
    shortened += match.prefix().str() + "start_ns = " + std::to_string(std::stod(match[1].str()) / 250.0);
    toml = match.suffix();
  }
  shortened += toml;
  const Config base = load_config_string(shortened, GetParam(),
                                         {"traffic.start_jitter_ns=2000", "traffic.on_off_mean_ns=4000"});
  const Config cfg = expand_sweep(base).front().config;
  // 33 trials: two packs and one trial on its own.
  expect_steps_agree([&](CpuStep step, int threads) { return run_config(cfg, dir, 33, step, threads, 6000, 0.0); },
                     GetParam(), 100u, true);
}

INSTANTIATE_TEST_SUITE_P(Configs, SantosStepIdentity,
                         ::testing::Values("fig2a", "fig2b", "fig3a", "fig3b", "fig4a", "fig4b", "fig4c", "fig4d", "fig5",
                                           "fig5_l5", "fig5_l15", "fig5_l20", "fig7", "fig8a", "fig8b"),
                         [](const ::testing::TestParamInfo<const char*>& info) { return std::string(info.param); });

// Models that exist only in the phases (no fused step): the dragonfly fabric of 001 with link
// delays and VC buffers per class and dragonfly routing (kernels/routing/dragonfly_engine.hpp).
// The phases one trial at a time, 16-trial packs and the default step give the same bits.
const char* const kDragonflyFabric =
    "[topology]\nkind = \"dragonfly\"\ndragonfly_p = 2\ndragonfly_a = 4\ndragonfly_h = 2\ndragonfly_g = 9\n"
    "[link]\nflit_bytes = 100\nbandwidth_gbps = 800\nlocal_latency_ns = 5\nglobal_latency_ns = 20\n"
    "[endpoint]\nmtu_bytes = 2400\n";
const Model kPhasesOnlyModels[] = {
    {"dragonfly_par_acks_mixed_sizes",
     "[switch]\nvcs = 8\nbuffer_bytes = 19200\nglobal_buffer_bytes = 40000\nspeedup = \"2\"\n[routing]\nalgorithm = \"par\"\n"
     "[cc]\nacks = true\nack_bytes = 100\nack_vc = 4\n[traffic]\nload = 0.9\nmessage_bytes = [400, 4800]\n"},
    {"dragonfly_ugal_worst_case_round_robin",
     "[switch]\nvcs = 3\nbuffer_bytes = 7200\nglobal_buffer_bytes = 9600\narbitration = \"round_robin\"\n"
     "[routing]\nalgorithm = \"ugal\"\nugal_threshold = 8\n[traffic]\npattern = \"worst_case\"\nload = 0.8\n"
     "message_bytes = [400]\n"},
    {"dragonfly_valiant_hotspot",
     "[switch]\nvcs = 3\nbuffer_bytes = 7200\nglobal_buffer_bytes = 9600\n[routing]\nalgorithm = \"valiant\"\n"
     "[traffic]\npattern = \"hotspot\"\nhotspot_sources = 20\nhotspot_destinations = 3\nbackground = \"uniform\"\n"
     "message_bytes = [400, 2400]\n",
     0.3},
    // LHRP (kernels/reservation/lhrp_engine.hpp) with a low threshold, so that its last hops drop,
    // NACK and book retransmissions within the run, and a small limit that the sources reach.
    {"dragonfly_par_lhrp_hotspot",
     "[switch]\nvcs = 8\nbuffer_bytes = 19200\nglobal_buffer_bytes = 40000\nspeedup = \"2\"\n[routing]\nalgorithm = \"par\"\n"
     "[cc]\nacks = true\nack_bytes = 100\nack_vc = 4\nprotocol = \"lhrp\"\nlhrp_threshold_flits = 24\nlhrp_outstanding = 24\n"
     "[traffic]\npattern = \"hotspot\"\nhotspot_sources = 24\nhotspot_destinations = 2\nbackground = \"uniform\"\n"
     "load = 0.8\nmessage_bytes = [400, 2400]\n",
     0.2},
    // SMSRP: fabric-timeout drops (a low timeout), reservations at the destination NICs, grants.
    {"dragonfly_par_smsrp_hotspot",
     "[switch]\nvcs = 8\nbuffer_bytes = 19200\nglobal_buffer_bytes = 40000\nspeedup = \"2\"\n[routing]\nalgorithm = \"par\"\n"
     "[cc]\nacks = true\nack_bytes = 100\nack_vc = 4\nprotocol = \"smsrp\"\nspec_timeout_ns = 40\nlhrp_outstanding = 24\n"
     "[traffic]\npattern = \"hotspot\"\nhotspot_sources = 24\nhotspot_destinations = 2\nbackground = \"uniform\"\n"
     "load = 0.8\nmessage_bytes = [400, 2400]\n",
     0.2},
    // SRP (kernels/reservation/spec_source.hpp): a Res per message, drops, halted and granted
    // messages, non-speculative remainders of multi-packet messages; a small record ring the
    // sources fill.
    {"dragonfly_par_srp_hotspot",
     "[switch]\nvcs = 8\nbuffer_bytes = 19200\nglobal_buffer_bytes = 40000\nspeedup = \"2\"\n[routing]\nalgorithm = \"par\"\n"
     "[cc]\nacks = true\nack_bytes = 100\nack_vc = 4\nprotocol = \"srp\"\nspec_timeout_ns = 40\nlhrp_outstanding = 24\n"
     "srp_messages = 16\n[traffic]\npattern = \"hotspot\"\nhotspot_sources = 24\nhotspot_destinations = 2\n"
     "background = \"uniform\"\nload = 0.8\nmessage_bytes = [400, 7200]\n",
     0.2},
    // The comprehensive protocol: LHRP below 48 flits, SRP above, Res answered at the last hop; the
    // messages' size classes counted apart (stats.size_split_bytes).
    {"dragonfly_par_comprehensive_hotspot",
     "[switch]\nvcs = 8\nbuffer_bytes = 19200\nglobal_buffer_bytes = 40000\nspeedup = \"2\"\n[routing]\nalgorithm = \"par\"\n"
     "[cc]\nacks = true\nack_bytes = 100\nack_vc = 4\nprotocol = \"comprehensive\"\nlhrp_threshold_flits = 24\n"
     "lhrp_outstanding = 24\n[traffic]\npattern = \"hotspot\"\nhotspot_sources = 24\nhotspot_destinations = 2\n"
     "background = \"uniform\"\nload = 0.8\nmessage_bytes = [400, 7200]\n[stats]\nsize_split_bytes = 4800\n",
     0.2},
    // 001's ECN (kernels/cc/ib_ecn.hpp): marks by input VC occupancy, per-pair delays at the sources.
    {"dragonfly_par_ecn_hotspot",
     "[switch]\nvcs = 8\nbuffer_bytes = 19200\nglobal_buffer_bytes = 40000\nspeedup = \"2\"\n[routing]\nalgorithm = \"par\"\n"
     "[cc]\nacks = true\nack_bytes = 100\nack_vc = 4\nprotocol = \"ecn\"\n[traffic]\npattern = \"hotspot\"\n"
     "hotspot_sources = 24\nhotspot_destinations = 2\nbackground = \"uniform\"\nload = 0.8\nmessage_bytes = [400, 2400]\n",
     0.2},
    // The transient of 001 Fig. 6 with the victims' latency counted apart (stats.victim_latency).
    {"dragonfly_lhrp_victims",
     "[switch]\nvcs = 8\nbuffer_bytes = 19200\nglobal_buffer_bytes = 40000\nspeedup = \"2\"\n[routing]\nalgorithm = \"par\"\n"
     "[cc]\nacks = true\nack_bytes = 100\nack_vc = 4\nprotocol = \"lhrp\"\nlhrp_threshold_flits = 24\n"
     "[traffic]\npattern = \"hotspot_window\"\nhotspot_background = \"victims\"\nload = 0.4\nmessage_bytes = [400]\n"
     "hotspot_nodes = [27]\nhotspot_fraction = 0.1111\nhotspot_start_ns = 300\n[stats]\nvictim_latency = true\n"},
};

class PhasesOnlyStepIdentity : public ::testing::TestWithParam<Model> {};

TEST_P(PhasesOnlyStepIdentity, ScalarPhasesPacksAndTheDefaultAgree) {
  const Model& model = GetParam();
  const std::string toml = std::string(kDragonflyFabric) + model.toml;
  // 19 trials: one full 16-lane pack and a partial one (the dragonfly's per-cycle invariant walk is
  // what makes these runs long).
  const auto run = [&](CpuStep step, int threads) { return run_mode(toml, 19, step, threads, 1500, model.background_load); };
  const Counters phases = run(CpuStep::kPhases, 1);
  const Counters packs = run(CpuStep::kPhasesPack16, 2);
  const Counters chosen = run(CpuStep::kAuto, 1);
  EXPECT_GT(total(phases.del_packets), 500u) << model.name;
  if (!phases.drops.empty()) EXPECT_GT(total(phases.drops), 20u) << model.name << ": LHRP's drops are exercised";
  if (!phases.victim_msg_done.empty()) EXPECT_GT(total(phases.victim_msg_done), 200u) << model.name;
  for (uint64_t x : phases.violations) EXPECT_EQ(x, 0u);
  for (uint64_t x : packs.violations) EXPECT_EQ(x, 0u);
  test::expect_same_counters(phases, packs, std::string(model.name) + ": phases vs 16-lane packs");
  test::expect_same_counters(phases, chosen, std::string(model.name) + ": phases vs the default step");
  // The fused step has none of this: it refuses.
  EXPECT_THROW(run(CpuStep::kFused, 1), std::invalid_argument);
}

INSTANTIATE_TEST_SUITE_P(Models, PhasesOnlyStepIdentity, ::testing::ValuesIn(kPhasesOnlyModels),
                         [](const ::testing::TestParamInfo<Model>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace saturn
