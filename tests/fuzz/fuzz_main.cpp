// saturn_fuzz: the portable mutation fuzzer (any compiler) and the replayer of tests/fuzz/regressions.
//
//   saturn_fuzz --corpus DIR [--iterations N] [--seed S] [--max-seconds T] [--save DIR]
//       mutates the corpus (DIR/config/*.toml, DIR/edge_list/*.topo) N times, each mutant run in a
//       forked child under a time and address-space limit; exit 1 if any mutant is a finding.
//   saturn_fuzz --replay PATH... [--saturn BINARY]
//       runs each file (or each file of a directory) once, checks its "# fuzz-expect:" line, and
//       with --saturn also runs `BINARY validate` on it (exit 0 or 2, at most one stderr line).
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tests/fuzz/fuzz_guard.hpp"
#include "tests/fuzz/fuzz_mutator.hpp"
#include "tests/fuzz/fuzz_target.hpp"

namespace fs = std::filesystem;
using namespace saturn::fuzz;

namespace {

struct Args {
  std::vector<std::string> corpus, replay;
  std::string save, saturn;
  long iterations = 1000;
  uint64_t seed = 1;
  double max_seconds = 0;  // 0 = no time cap (CI uses a fixed iteration count: same inputs every run)
  GuardOptions guard;
  Limits limits;
  bool verbose = false;
};

[[noreturn]] void usage(const std::string& why) {
  std::cerr << "saturn_fuzz: " << why
            << "\nusage: saturn_fuzz --corpus DIR [--iterations N] [--seed S] [--max-seconds T] [--save DIR]"
               " [--hang-seconds H] [--memory-mb M]\n"
               "                   [--max-endpoints N] [--max-sweep-points N] [--verbose]\n"
               "       saturn_fuzz --replay PATH... [--saturn BINARY]\n";
  std::exit(2);
}

Args parse_args(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(flag + " needs a value");
      return argv[++i];
    };
    try {
      if (flag == "--corpus") a.corpus.push_back(value());
      else if (flag == "--replay") a.replay.push_back(value());
      else if (flag == "--save") a.save = value();
      else if (flag == "--saturn") a.saturn = value();
      else if (flag == "--iterations") a.iterations = std::stol(value());
      else if (flag == "--seed") a.seed = std::stoull(value());
      else if (flag == "--max-seconds") a.max_seconds = std::stod(value());
      else if (flag == "--hang-seconds") a.guard.hang_seconds = static_cast<unsigned>(std::stoul(value()));
      else if (flag == "--memory-mb") a.guard.address_space_mb = std::stoul(value());
      else if (flag == "--max-endpoints") a.limits.max_endpoints = std::stoll(value());
      else if (flag == "--max-sweep-points") a.limits.max_sweep_points = std::stoll(value());
      else if (flag == "--verbose") a.verbose = true;
      else if (!flag.empty() && flag[0] != '-') a.replay.push_back(flag);
      else usage("unknown option " + flag);
    } catch (const std::logic_error&) {
      usage("bad value for " + flag);
    }
  }
  if (a.corpus.empty() == a.replay.empty()) usage("give --corpus or --replay");
  return a;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

// Regular files under `path` (or `path` itself) that belong to a target, sorted for a stable order.
std::vector<std::string> files_of(const std::string& path) {
  std::vector<std::string> out;
  Target t;
  if (fs::is_directory(path)) {
    for (const auto& e : fs::recursive_directory_iterator(path))
      if (e.is_regular_file() && target_of_path(e.path().string(), t)) out.push_back(e.path().string());
  } else if (target_of_path(path, t)) {
    out.push_back(path);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> seed_dirs(const std::vector<std::string>& paths) {
  std::vector<std::string> dirs;
  for (const auto& p : paths) {
    if (!fs::is_directory(p)) {
      dirs.push_back(fs::path(p).parent_path().string());
      continue;
    }
    dirs.push_back(p);
    for (const auto& e : fs::recursive_directory_iterator(p))
      if (e.is_directory()) dirs.push_back(e.path().string());
  }
  return dirs;
}

// `saturn validate` on a regression: the CLI's side of the contract (exit 0 or 2, one stderr line).
bool check_cli(const std::string& saturn, const std::string& file, Target target, const Sandbox& sandbox,
               std::string& why) {
  std::string cmd;
  if (target == Target::kConfig) {
    const std::string copy = sandbox.dir + "/replay.toml";  // topology files resolve in the sandbox
    fs::copy_file(file, copy, fs::copy_options::overwrite_existing);
    cmd = "'" + saturn + "' validate '" + copy + "'";
    std::string text = read_file(file);
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);)
      if (line.rfind(kSetDirective, 0) == 0) {
        std::string v = line.substr(kSetDirective.size());
        std::string quoted;
        for (char c : v) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
        cmd += " --set '" + quoted + "'";
      }
  } else {
    cmd = "'" + saturn + "' validate /dev/stdin --set topology.kind=file --set 'topology.file=" +
          fs::absolute(file).string() + "' --set routing.algorithm=table --set simulation.trials=2 </dev/null";
  }
  // The same memory budget as the in-process target (fuzz_target.hpp): the verdict must not depend
  // on how much memory this machine has free.
  cmd += " --max-memory " + std::to_string(kFuzzMemoryBudgetMb) + "MiB 2>&1 >/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) {
    why = "cannot run " + saturn;
    return false;
  }
  std::string err;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) err.append(buf, n);
  const int status = pclose(p);
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  const size_t newlines = std::count(err.begin(), err.end(), '\n');
  if ((code != 0 && code != 2) || newlines > 1 || (code == 2 && newlines != 1)) {
    why = "saturn validate exit " + std::to_string(code) + ", stderr: " + err.substr(0, 400);
    return false;
  }
  return true;
}

int replay(const Args& a) {
  const Sandbox sandbox = make_sandbox(seed_dirs(a.replay));
  int failures = 0, count = 0;
  for (const auto& root : a.replay) {
    for (const auto& file : files_of(root)) {
      Target target;
      target_of_path(file, target);
      const std::string input = read_file(file);
      const bool unbounded = input.find("# fuzz-unbounded") != std::string::npos;
      // An unbounded regression may build a large network's tables in process (k = 32, n = 3:
      // 300 MB of routes), which AddressSanitizer makes several times slower: 20 s became 21-25 s.
      GuardOptions guard = a.guard;
      if (unbounded && built_with_asan()) guard.hang_seconds *= 4;
      const Result r = run_guarded(target, input, sandbox, unbounded ? unbounded_limits() : a.limits, guard);
      Outcome expected;
      std::string why;
      if (r.outcome == Outcome::kFinding) why = r.detail;
      else if (expected_outcome(input, expected) && expected != r.outcome)
        why = std::string("expected ") + outcome_name(expected) + ", got " + outcome_name(r.outcome) + ": " + r.detail;
      else if (!a.saturn.empty() && r.outcome != Outcome::kSkipped) check_cli(a.saturn, file, target, sandbox, why);
      ++count;
      if (!why.empty()) {
        ++failures;
        std::cout << "FAIL " << file << ": " << why << "\n";
      } else if (!r.warning.empty()) {
        std::cout << "warn " << file << ": " << r.warning << "\n";
      } else if (a.verbose) {
        std::cout << "ok   " << file << ": " << outcome_name(r.outcome) << " " << r.detail.substr(0, 160) << "\n";
      }
    }
  }
  remove_sandbox(sandbox);
  std::cout << "saturn_fuzz: replayed " << count << " files, " << failures << " failed\n";
  if (count == 0) std::cout << "saturn_fuzz: nothing to replay (files end in .toml or .topo)\n";
  return failures == 0 && count > 0 ? 0 : 1;
}

int campaign(const Args& a) {
  std::map<Target, std::vector<std::string>> seeds;
  for (const auto& root : a.corpus)
    for (const auto& file : files_of(root)) {
      Target t;
      target_of_path(file, t);
      seeds[t].push_back(read_file(file));
    }
  if (seeds.empty()) usage("no .toml or .topo files in the corpus");
  const Sandbox sandbox = make_sandbox(seed_dirs(a.corpus));
  Rng rng(a.seed);
  std::map<Outcome, long> tally;
  std::map<std::pair<Target, Outcome>, long> by_target;
  std::map<std::string, long> skips;
  long findings = 0, done = 0, warnings = 0;
  const auto start = std::chrono::steady_clock::now();
  const std::vector<Target> targets = [&] {
    std::vector<Target> v;
    for (const auto& kv : seeds) v.push_back(kv.first);
    return v;
  }();
  for (long i = 0; i < a.iterations; ++i) {
    if (a.max_seconds > 0 &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > a.max_seconds)
      break;
    const Target target = targets[static_cast<size_t>(i) % targets.size()];
    const std::vector<std::string>& pool = seeds[target];
    const std::string input = mutate(pool[rng.below(pool.size())], target, pool, rng);
    const Result r = run_guarded(target, input, sandbox, a.limits, a.guard);
    ++tally[r.outcome];
    ++by_target[{target, r.outcome}];
    ++done;
    if (r.outcome == Outcome::kSkipped) ++skips[r.detail.substr(0, r.detail.find(" of "))];
    if (!r.warning.empty() && ++warnings <= 3) std::cout << "warning, iteration " << i << ": " << r.warning << "\n";
    if (r.outcome == Outcome::kFinding) {
      ++findings;
      std::cout << "FINDING iteration " << i << " (" << (target == Target::kConfig ? "config" : "edge list")
                << "): " << r.detail.substr(0, 400) << "\n";
      if (!a.save.empty()) {
        fs::create_directories(a.save);
        const std::string name = a.save + "/finding-" + std::to_string(a.seed) + "-" + std::to_string(i) +
                                 (target == Target::kConfig ? ".toml" : ".topo");
        std::ofstream(name, std::ios::binary) << input;
        std::cout << "  saved " << name << "\n";
      }
    } else if (a.verbose) {
      std::cout << i << " " << outcome_name(r.outcome) << ": " << r.detail.substr(0, 160) << "\n";
    }
  }
  remove_sandbox(sandbox);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "saturn_fuzz: " << done << " mutants in " << secs << " s (seed " << a.seed << "): "
            << tally[Outcome::kAccepted] << " accepted, " << tally[Outcome::kRejected] << " rejected, "
            << tally[Outcome::kSkipped] << " skipped, " << findings << " findings, " << warnings << " warnings\n";
  for (Target t : targets)
    std::cout << "  " << (t == Target::kConfig ? "config" : "edge list") << ": "
              << by_target[{t, Outcome::kAccepted}] << " accepted, " << by_target[{t, Outcome::kRejected}]
              << " rejected\n";
  for (const auto& [why, n] : skips) std::cout << "  skipped " << n << ": " << why << "\n";
  return findings == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const Args a = parse_args(argc, argv);
  return a.replay.empty() ? campaign(a) : replay(a);
}
