// The `saturn` command line: run, validate, params, list, response, merge, plot, reproduce. Bad input: one line on stderr, exit code 2.
#include "host/cli/cli.hpp"

#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <new>
#include <tuple>

#include <CLI/CLI.hpp>

#include "host/cc/recovery.hpp"
#include "host/cli/script_tools.hpp"
#include "host/config/catalog.hpp"
#include "host/config/config.hpp"
#include "host/engine/memory_estimate.hpp"
#include "host/study/study.hpp"
#include "host/io/manifest.hpp"
#include "host/io/merge.hpp"
#include "host/io/output_dir.hpp"
#include "host/io/results_io.hpp"
#include "host/io/resume.hpp"
#include "host/packet/batch_state.hpp"
#include "host/io/run_output.hpp"
#include "kernels/common/macros.hpp"
#include "kernels/launch/engine_launch.hpp"
#include "kernels/state/trial_stage.hpp"

namespace saturn {

namespace {

std::atomic<bool> g_stop{false};
volatile std::sig_atomic_t g_signal = 0;

// SIGINT (Ctrl-C), SIGTERM and SIGHUP (what batch schedulers and closed terminals send) all stop
// the run at the next sample point; finished work is written and marked partial.
extern "C" void on_stop_signal(int sig) {
  g_signal = sig;
  g_stop.store(true);
}
constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP};

struct RunArgs {
  std::string config;
  std::vector<std::string> sets;
  int trials = 0;
  std::string seed;        // as typed: checked here, so that errors quote it and give the real range
  std::string max_memory;  // as typed, e.g. "8GiB"
  int threads = 0;
  std::string backend;
  std::string out;
  bool out_given = false;
  bool quiet = false;
  std::string progress = "auto";  // --progress: auto, bar, lines or off
  bool force = false, resume = false;
  double checkpoint_seconds = 300;  // run --checkpoint
  double save_state_seconds = 600;  // run --save-state
  bool memory = false;  // validate --memory
  int shard = -1, shards = 0;  // -1/0: from the MPI or Slurm environment, else unsharded
  // Given on the command line: --seed '' or --max-memory '' is bad input, not "not given".
  const CLI::Option* seed_option = nullptr;
  const CLI::Option* max_memory_option = nullptr;
};

constexpr int kMaxShards = 1 << 20;

bool env_set(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0';
}

// A launcher variable that is set must be a whole number in [lo, kMaxShards]: a wrong one would
// otherwise run the whole study in every process, or none of it.
int env_int(const char* name, int lo) {
  const char* v = std::getenv(name);
  const std::string text = v == nullptr ? "" : v;
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos || text.size() > 9 ||
      std::stol(text) < lo || std::stol(text) > kMaxShards)
    throw ConfigError(std::string(name) + "='" + clip_for_message(text) + "': expected a whole number in " +
                      std::to_string(lo) + ".." + std::to_string(kMaxShards) + " (or pass --shard and --shards)");
  return static_cast<int>(std::stol(text));
}

// (shard, shards) from the launcher: Open MPI, PMI (MPICH, srun --mpi), a Slurm array, Slurm tasks.
// The first source whose rank variable is set decides; inconsistent values are an error.
std::pair<int, int> shard_from_environment() {
  const std::pair<const char*, const char*> sources[] = {{"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
                                                        {"PMI_RANK", "PMI_SIZE"},
                                                        {"SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT"},
                                                        {"SLURM_PROCID", "SLURM_NTASKS"}};
  for (const auto& [rank, size] : sources) {
    if (!env_set(rank)) continue;
    int i = env_int(rank, 0);
    const int n = env_int(size, 1);
    std::string shown = std::string(rank) + "=" + std::to_string(i);
    if (std::string(rank) == "SLURM_ARRAY_TASK_ID" && env_set("SLURM_ARRAY_TASK_MIN")) {
      const int min = env_int("SLURM_ARRAY_TASK_MIN", 0);
      if (i < min)
        throw ConfigError(shown + " is below SLURM_ARRAY_TASK_MIN=" + std::to_string(min));
      i -= min;
      shown += " - SLURM_ARRAY_TASK_MIN=" + std::to_string(min);
    }
    if (i >= n)
      throw ConfigError(shown + " is not below " + size + "=" + std::to_string(n) +
                        (std::string(size) == "SLURM_ARRAY_TASK_COUNT" ? " (an array with a step? " : " (") +
                        "pass --shard and --shards)");
    return {i, n};
  }
  return {0, 1};
}

// --seed: the range of simulation.seed (a TOML integer, so signed 64-bit).
int64_t parse_seed(const std::string& text) {
  const std::string digits = text.size() > 1 && text[0] == '+' ? text.substr(1) : text;
  const std::string max = std::to_string(std::numeric_limits<int64_t>::max());
  const bool ok = !digits.empty() && digits.find_first_not_of("0123456789") == std::string::npos &&
                  (digits.size() < max.size() || (digits.size() == max.size() && digits <= max));
  if (!ok) throw ConfigError("--seed '" + clip_for_message(text) + "': expected a whole number in 0.." + max);
  return std::stoll(digits);
}

void add_config_options(CLI::App* cmd, RunArgs& a) {
  cmd->add_option("config", a.config, "Study configuration (TOML)")->required();
  cmd->add_option("--set", a.sets, "Override a config value: section.key=VALUE (repeatable; VALUE in TOML syntax)")
      ->allow_extra_args(false);
  cmd->add_option("--trials", a.trials, "Trials (seeds) per sweep point (= simulation.trials)")->check(CLI::Range(1, 1000000));
  a.seed_option = cmd->add_option("--seed", a.seed, "Run seed (= simulation.seed), 0..9223372036854775807");
  a.max_memory_option =
      cmd->add_option("--max-memory", a.max_memory,
                      "Memory the study may use, e.g. 8GiB (default: MemAvailable); larger studies are refused");
}

bool given(const CLI::Option* option) { return option != nullptr && option->count() > 0; }

size_t max_memory_of(const RunArgs& a) {
  return given(a.max_memory_option) ? parse_byte_size(a.max_memory, "--max-memory") : 0;
}

// CLI11's Range lets NaN through (every comparison with it is false): a number option must be finite.
void check_finite(double value, const std::string& option, const std::string& allowed) {
  if (!std::isfinite(value))
    throw ConfigError(option + " " + (std::isnan(value) ? "nan" : "inf") + ": expected " + allowed);
}

// --out before anything is written: a device, a file, or a path the system refuses (a name over
// 255 bytes, a parent that is a file) is one line, not a filesystem exception (exit 1) later.
void check_out_path(const std::string& out) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(out, ec);
  const std::string shown = "--out '" + clip_for_message(out) + "'";
  if (ec && ec != std::errc::no_such_file_or_directory)
    throw ConfigError(shown + ": " + ec.message() + " (expected a directory for the results)");
  if (fs::exists(st) && !fs::is_directory(st))
    throw ConfigError(shown + " is not a directory (expected a directory for the results, existing or new)");
}

Config load(const RunArgs& a) {
  std::vector<std::string> sets = a.sets;
  if (a.trials > 0) sets.push_back("simulation.trials=" + std::to_string(a.trials));
  if (given(a.seed_option)) sets.push_back("simulation.seed=" + std::to_string(parse_seed(a.seed)));
  return load_config_file(a.config, sets);
}

std::string config_dir(const std::string& path) {
  const std::filesystem::path p(path);
  return p.has_parent_path() ? p.parent_path().string() : std::string(".");
}

// The stdout table shows every metric but the per-link utilizations (those go to the CSVs only).
std::vector<std::string> table_metrics(const std::vector<TrialResult>& trials) {
  std::vector<std::string> names;
  if (trials.empty()) return names;
  for (const auto& m : trials.front().metrics)
    if (m.name.rfind("link_util[", 0) != 0) names.push_back(m.name);
  return names;
}

// --threads when given, else OMP_NUM_THREADS when set (its first, outermost level: "4,2" is 4), as
// OpenMP tools honour it, so a script can give each of several runs one core; else every online core.
int default_threads(int given) {
  if (given > 0) return given;
  // main.cpp renamed a bad value before libgomp could print its own line about it.
  const char* refused = std::getenv(kRefusedOmpNumThreads);
  const char* env = refused != nullptr ? refused : std::getenv("OMP_NUM_THREADS");
  if (env != nullptr && *env != '\0') {
    const int n = omp_num_threads_value(env);
    if (n == 0)
      throw ConfigError("OMP_NUM_THREADS=" + clip_for_message(env) +
                        ": expected a thread count from 1 to 4096 (or unset it)");
    return n;
  }
  return static_cast<int>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
}

int cmd_run(const RunArgs& a, const std::string& command_line) {
  // SATURN_GPU_STEP (kernels/launch/engine_launch.cu): refused here, before any output, not at the
  // first batch's launch.
  if (const char* env = std::getenv("SATURN_GPU_STEP"); env != nullptr && *env != '\0') {
    GpuStep step;
    if (!parse_gpu_step(env, &step))
      throw ConfigError("SATURN_GPU_STEP=" + clip_for_message(env) +
                        ": expected one of " + gpu_step_choices() + " (or unset it)");
  }
  if (a.force && a.resume)
    throw ConfigError("--force and --resume exclude each other: --resume keeps the finished trials in --out, "
                      "--force replaces them (give one)");
  check_finite(a.checkpoint_seconds, "--checkpoint", "seconds from 0 to 1e9");
  check_finite(a.save_state_seconds, "--save-state", "seconds from 0 to 1e9");
  const Config config = load(a);
  const std::string backend = a.backend.empty() ? SATURN_BACKEND_NAME : a.backend;
  if (backend != SATURN_BACKEND_NAME)
    throw ConfigError(std::string("--backend ") + backend + ": this build has only the " + SATURN_BACKEND_NAME +
                      " backend (rebuild with -DSATURN_BACKEND=" + backend + ")");
  const int threads = default_threads(a.threads);
  if (a.out_given && a.out.empty())
    throw ConfigError("--out '': expected a directory (leave --out out for results/<config name>)");
  std::string out = a.out;
  if (out.empty()) out = "results/" + std::filesystem::path(a.config).stem().string();
  check_out_path(out);
  const size_t max_memory = max_memory_of(a);
  int shard = 0, shards = 1;
  if (a.shards == 0 && a.shard < 0) std::tie(shard, shards) = shard_from_environment();
  if (a.shards > 0 || a.shard >= 0) {
    shards = a.shards > 0 ? a.shards : 1;
    shard = a.shard >= 0 ? a.shard : 0;
    if (shard >= shards)
      throw ConfigError("--shard " + std::to_string(shard) + ": must be below --shards " + std::to_string(shards));
  }
  const std::string suffix = shard_suffix(shard, shards);

  // A run to resume: the trials it finished are skipped.
  ResumeState resume;
  if (a.resume) resume = load_resume(out, suffix, config, config.sweeps.size());
  if (resume.complete) {
    std::cerr << "saturn: " << out << " already holds the complete run; nothing to resume\n";
    std::cerr << "saturn: checksum: trials" << suffix << ".csv fnv1a64="
              << file_fnv1a64(out + "/trials" + suffix + ".csv") << "\n";
    return 0;
  }

  g_stop.store(false);
  g_signal = 0;
  const ProgressStyle style = a.progress == "off"   ? ProgressStyle::kOff
                              : a.progress == "bar"   ? ProgressStyle::kBar
                              : a.progress == "lines" ? ProgressStyle::kLines
                              : isatty(STDERR_FILENO) ? ProgressStyle::kBar
                                                      : ProgressStyle::kLines;
  ProgressBar bar(std::cerr, style, std::filesystem::path(a.config).stem().string());
  StudyOptions options;
  options.threads = threads;
  options.config_dir = config_dir(a.config);
  options.stop = &g_stop;
  options.progress = [&bar](double f) { bar.update(f); };
  options.shard = shard;
  options.shards = shards;
  options.max_memory = max_memory;
  if (resume.found) options.skip = &resume.done;
  // Once the config has passed every check, and before any work: a complete run in the directory
  // is replaced only with --force.
  options.planned = [&] {
    // Stop requests are taken from here on: while the sweep is expanded and checked (seconds for
    // 10^5 points) nothing is written, so a signal ends the process at once, as by default.
    for (int sig : kStopSignals) std::signal(sig, on_stop_signal);
    refuse_to_replace_complete_run(out, suffix, a.force, resume.found ? resume.manifest_path : "");
    try {
      std::filesystem::create_directories(out);
      if (!config.get_list("stats.state_dump_ns").empty()) std::filesystem::create_directories(out + "/state");
    } catch (const std::filesystem::filesystem_error& e) {  // a parent that is a file, no permission
      throw ConfigError("--out '" + clip_for_message(out) + "': cannot create the directory: " + e.code().message());
    }
    if (!resume.found) prune_batch_states(out + "/batch_state", suffix, nullptr);  // another run's
  };
  options.state_dir = out + "/state";
  // Saved batch states (host/packet/batch_state.hpp): a stopped or killed run's batches go on
  // from their last saved cycle with --resume; each file goes once the run's files hold its trials.
  options.batch_state_dir = out + "/batch_state";
  options.batch_state_seconds = a.save_state_seconds;
  options.config_hash = config_hash(config);
  options.earlier_config_hash = resume.earlier_hash;
  const auto prune_states = [&](const StudyResult& r) {
    if (!r.partial) return prune_batch_states(options.batch_state_dir, suffix, nullptr);
    std::set<std::pair<int, int>> done;
    for (const TrialResult& t : r.trials) done.insert({t.point, t.trial});
    for (const auto& u : r.unfinished) done.erase(u);
    prune_batch_states(options.batch_state_dir, suffix, &done);
  };
  RunContext ctx{a.config, backend, threads, command_line, nlohmann::json::object(),
                 static_cast<int64_t>(resume.trials.size())};
  // The finished trials so far, with the kept ones, as a stopped run writes them (resumable).
  const auto with_kept = [&resume](StudyResult& r) {
    if (resume.trials.empty()) return;
    r.trials.insert(r.trials.end(), resume.trials.begin(), resume.trials.end());
    r.series.insert(r.series.end(), resume.series.begin(), resume.series.end());
    sort_results(r);
  };
  options.checkpoint_seconds = a.checkpoint_seconds;
  options.checkpoint = [&](StudyResult r) {
    with_kept(r);
    write_run_outputs(out, suffix, config, r, ctx);
    prune_states(r);
  };
  StudyResult result = run_study(config, options);
  bar.finish(!result.partial);
  // Kept trials join the new ones: per-trial values do not depend on batching, so the files
  // come out as an uninterrupted run's.
  with_kept(result);
  const std::string checksum = write_run_outputs(out, suffix, config, result, ctx);
  prune_states(result);
  // Signals stay handled until the files are in place: a second one must not cut a write short.
  for (int sig : kStopSignals) std::signal(sig, SIG_DFL);
  if (shards > 1) {
    std::cerr << "saturn: shard " << shard << " of " << shards << " done; when all are, run: saturn merge " << out
              << "\n";
  } else if (!a.quiet) {
    print_summary_table(std::cout, result.points, result.swept_keys, summarize(result.trials),
                        table_metrics(result.trials));
  }
  const bool flow = config.get_string("simulation.mode") == "flow";
  std::cerr << "saturn: " << result.trials.size() << " trials"
            << (resume.trials.empty() ? "" : " (" + std::to_string(resume.trials.size()) + " kept from the resumed run)")
            << ", " << (flow ? std::string("flow mode") : std::to_string(result.simulated_cycles) + " cycles") << " in "
            << result.wall_seconds << " s; results in " << out
            << (result.partial ? " (partial: stopped; finish it with --resume)" : "") << "\n";
  std::cerr << "saturn: checksum: " << checksum << "\n";
  return result.partial ? 128 + (g_signal != 0 ? static_cast<int>(g_signal) : SIGINT) : 0;
}

// saturn validate --memory: what the study needs, item by item, against what it may use, then one
// trial's engine state column by column (kernels/state/state_columns.def says what each column
// holds); columns under 1% of it are summed on one line.
void print_memory_report(std::ostream& os, const MemoryReport& r) {
  double total = 0, state = 0;
  for (const auto& item : r.items) total += item.second;
  for (const auto& column : r.state_columns) state += column.second;
  os << "memory: about " << human_bytes(total) << " needed, "
     << (r.limit.bytes > 0 ? human_bytes(r.limit.bytes) + " available (" + r.limit.source + ")" : "no limit known")
     << "\n";
  char line[160];
  const auto row = [&](const std::string& what, double bytes, bool share) {
    if (share)
      std::snprintf(line, sizeof line, "  %-36s %12s %6.1f%%\n", what.c_str(), human_bytes(bytes).c_str(),
                    100.0 * bytes / state);
    else
      std::snprintf(line, sizeof line, "  %-36s %12s\n", what.c_str(), human_bytes(bytes).c_str());
    os << line;
  };
  for (const auto& [what, bytes] : r.items) row(what, bytes, false);
  if (r.state_columns.empty()) return;
  os << "engine state of one trial (point " << r.state_point << ", the largest shape"
     << (!kCpuBackend ? ", in GPU memory" : "") << "): " << human_bytes(state)
     << ", by column:\n";
  double rest = 0;
  int rest_columns = 0;
  for (const auto& [name, bytes] : r.state_columns) {
    if (bytes < 0.01 * state) {
      rest += bytes;
      ++rest_columns;
      continue;
    }
    row(name, bytes, true);
  }
  if (rest_columns > 0) row(std::to_string(rest_columns) + " smaller columns", rest, true);
  os << "packet entries: at most " << r.port_entries << " per input port (switch.packet_descriptors); its buffers hold up to "
     << r.buffer_packets << " packets of the smallest size\n";
  int64_t stage = 0;  // each column from a 16-byte boundary, as the stage lays them out
  for (const auto& column : r.state_columns) stage += stage_aligned(static_cast<int64_t>(column.second));
  os << "one trial's stage for the GPU's shared program (SATURN_GPU_STEP=shared): " << human_bytes(static_cast<double>(stage))
     << "; it runs where that fits a block's shared memory (227 KB on an H100 or H200), else the block program\n";
}

}  // namespace

int omp_num_threads_value(const char* text) {
  // By hand, not strtol: main.cpp calls this before the C library has run its initializers.
  const char* c = text;
  while (*c == ' ' || *c == '\t') ++c;
  if (*c == '+') ++c;
  long n = 0;
  const char* digits = c;
  while (*c >= '0' && *c <= '9' && n <= 4096) n = n * 10 + (*c++ - '0');
  if (c == digits || (*c != '\0' && *c != ',') || n < 1 || n > 4096) return 0;
  return static_cast<int>(n);
}

int saturn_main(int argc, char** argv) {
  CLI::App app{"Saturn: batched simulator of lossless HPC interconnects (CPU and CUDA backends)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("saturn ") + SATURN_VERSION + " (" + SATURN_BACKEND_NAME + ")");
  RunArgs run_args, validate_args;
  CLI::App* run = app.add_subcommand("run", "Run a study and write summary.csv, trials.csv, manifest.json");
  add_config_options(run, run_args);
  run->add_option("--threads", run_args.threads, "CPU threads (default: OMP_NUM_THREADS if set, else all cores)")
      ->check(CLI::Range(1, 4096));
  run->add_option("--backend", run_args.backend, "cpu or cuda (must match the build)")->check(CLI::IsMember({"cpu", "cuda"}));
  CLI::Option* out_option = run->add_option("--out", run_args.out, "Output directory (default: results/<config name>)");
  run->add_flag("--quiet", run_args.quiet, "Do not print the summary table");
  run->add_option("--progress", run_args.progress,
                  "How progress shows on stderr: bar (redrawn in place), lines (one line a minute, for logs), "
                  "off; default auto: bar on a terminal, else lines")
      ->check(CLI::IsMember({"auto", "bar", "lines", "off"}));
  run->add_flag("--force", run_args.force, "Overwrite a complete run in the output directory");
  run->add_flag("--resume", run_args.resume,
                "Keep the finished trials of an interrupted run in the output directory; run the rest");
  run->add_option("--checkpoint", run_args.checkpoint_seconds,
                  "Write the finished trials at most every SECONDS while the study runs, so that --resume can "
                  "go on from there even after a kill (default 300; 0 = after every batch)")
      ->check(CLI::Range(0.0, 1e9));
  run->add_option("--save-state", run_args.save_state_seconds,
                  "Save each running batch's whole state under OUT/batch_state at most every SECONDS, and always "
                  "when stopped, so that --resume goes on from that cycle instead of the batch's start (default "
                  "600; 0 = only when stopped)")
      ->check(CLI::Range(0.0, 1e9));
  CLI::App* validate = app.add_subcommand("validate", "Check a configuration without running it");
  add_config_options(validate, validate_args);
  validate->add_flag("--memory", validate_args.memory,
                     "Also print the memory the study needs, item by item, and one trial's engine state by column");
  run->add_option("--shard", run_args.shard, "Run only this shard of the study's trials (0-based)")->check(CLI::NonNegativeNumber);
  run->add_option("--shards", run_args.shards, "Number of shards (default: MPI/Slurm rank and size, else 1)")
      ->check(CLI::Range(1, 1 << 20));
  CLI::App* params = app.add_subcommand("params", "Print every configuration key (Markdown table)");
  std::string list_family;
  CLI::App* list = app.add_subcommand(
      "list", "Print what Saturn models: topologies, switches, routing, congestion control, traffic, metrics");
  list->add_option("family", list_family, "Only this family (e.g. routing, metrics)");
  // plot and reproduce hand their arguments to the Python tools (their own --help); listed here for
  // saturn --help and the subcommand check.
  app.add_subcommand("plot", "Plot a results directory into DIR/plots (PNG and SVG; saturn plot --help)")->allow_extras();
  app.add_subcommand("reproduce", "Run a paper figure and check it against the paper (saturn reproduce --list)")
      ->allow_extras();
  std::string response_out = "results/response";
  double response_packet_bytes = 2048, response_gbps = 8;
  CLI::App* response = app.add_subcommand(
      "response", "Write the AIMD / FIMD / LIPD recovery from R_min to R_max (Santos et al. Fig. 6) as CSV");
  response->add_option("--out", response_out, "Output directory (default: results/response)");
  response->add_option("--packet-bytes", response_packet_bytes, "Packet size that sets the time unit (default 2048)")
      ->check(CLI::Range(1.0, 1e9));
  response->add_option("--bandwidth-gbps", response_gbps, "Link bandwidth (default 8 = 1 GB/s)")->check(CLI::Range(1e-3, 1e6));
  std::string merge_dir;
  bool merge_quiet = false;
  CLI::App* merge = app.add_subcommand("merge", "Merge the shards in DIR into trials.csv, summary.csv, manifest.json");
  merge->add_option("dir", merge_dir, "Output directory of the sharded run")->required();
  merge->add_flag("--quiet", merge_quiet, "Do not print the summary table");

  std::string command_line;
  for (int i = 0; i < argc; ++i) command_line += (i ? " " : "") + std::string(argv[i]);
  if (argc > 1 && (std::string(argv[1]) == "plot" || std::string(argv[1]) == "reproduce")) {
    const std::vector<std::string> rest(argv + 2, argv + argc);
    if (std::string(argv[1]) == "plot") return exec_script("saturn_plot.py", rest);
    std::vector<std::string> with_binary{"--saturn", self_executable()};
    with_binary.insert(with_binary.end(), rest.begin(), rest.end());
    return exec_script("reproduce.py", with_binary);
  }
  // CLI11 says only "A subcommand is required" for a mistyped one: name the word.
  if (argc > 1 && argv[1][0] != '-') {
    const std::string word = argv[1];
    bool known = false;
    for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
      known = known || sub->check_name(word);
    if (!known) {
      std::cerr << "saturn: unknown subcommand '" << clip_for_message(word)
                << "' (expected run, validate, params, list, response, merge, plot or reproduce; see saturn --help)\n";
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    std::cout << app.help("", CLI::AppFormatMode::All);
    return 0;
  } catch (const CLI::CallForVersion&) {
    std::cout << std::string("saturn ") + SATURN_VERSION + " (" + SATURN_BACKEND_NAME + ")\n";
    return 0;
  } catch (const CLI::ParseError& e) {
    std::cerr << "saturn: " << clip_for_message(e.what(), 300) << " (see saturn --help)\n";
    return 2;
  }
  run_args.out_given = out_option->count() > 0;
  try {
    if (run->parsed()) return cmd_run(run_args, command_line);
    if (validate->parsed()) {
      const Config config = load(validate_args);
      // Building every distinct shape checks the cross-key constraints too.
      StudyOptions options;
      options.config_dir = config_dir(validate_args.config);
      options.max_memory = max_memory_of(validate_args);
      options.check_only = true;  // sizes every table, builds no routing table: validate stays fast
      MemoryReport report;
      if (validate_args.memory) options.memory_report = &report;
      try {
        validate_study(config, options);
      } catch (const ConfigError&) {
        if (!report.items.empty()) print_memory_report(std::cout, report);  // too large: show where it goes
        throw;
      }
      size_t points = 1;  // validate_study expanded the sweep, so the product is within its limit
      for (const SweepAxis& axis : config.sweeps) points *= axis.values.size();
      std::cout << validate_args.config << ": ok (" << points << " point" << (points == 1 ? "" : "s")
                << " x " << config.get_int("simulation.trials") << " trials)\n";
      if (validate_args.memory) print_memory_report(std::cout, report);
      return 0;
    }
    if (merge->parsed()) {
      MergedRun run = merge_shards(merge_dir);
      const std::string checksum = write_merged_outputs(merge_dir, run);
      if (!merge_quiet)
        print_summary_table(std::cout, run.points, run.swept_keys, summarize(run.trials), table_metrics(run.trials));
      std::cerr << "saturn: merged " << run.trials.size() << " trials into " << merge_dir
                << (run.manifest.value("complete", false) ? "" : " (partial: some shards were stopped)") << "\n";
      std::cerr << "saturn: checksum: " << checksum << "\n";
      return 0;
    }
    if (response->parsed()) {
      check_finite(response_packet_bytes, "--packet-bytes", "bytes from 1 to 1e9");
      check_finite(response_gbps, "--bandwidth-gbps", "Gb/s from 0.001 to 1e6");
      check_out_path(response_out);
      const double packet_time_us = response_packet_bytes * 8.0 / response_gbps / 1000.0;
      write_recovery_files(response_out, packet_time_us);
      std::ifstream summary(response_out + "/recovery.csv");
      std::cout << summary.rdbuf() << std::flush;
      std::cerr << "saturn: recovery curves in " << response_out << "\n";
      return 0;
    }
    if (params->parsed()) {
      std::cout << params_markdown();
      return 0;
    }
    if (list->parsed()) {
      std::cout << catalog_text(list_family);
      return 0;
    }
  } catch (const ConfigError& e) {
    // Values quoted in messages are clipped where they are quoted; this bounds the rest.
    std::cerr << "saturn: " << clip_for_message(e.what(), 1000) << "\n";
    return 2;
  } catch (const std::bad_alloc&) {
    // The estimates before allocation (memory_estimate.hpp) missed this one: still one line.
    std::cerr << "saturn: out of memory (an allocation failed past the estimate); use fewer trials, points "
                 "or a smaller network, or raise --max-memory / ulimit -v\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "saturn: error: " << e.what() << "\n";
    return 1;
  }
  return 2;
}

}  // namespace saturn
