// Fuzz targets over the config and edge-list parsers (see fuzz_target.hpp for the contract).
#include "tests/fuzz/fuzz_target.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <new>
#include <stdexcept>
#include <typeinfo>

#include "host/config/config.hpp"
#include "host/engine/model_setup.hpp"
#include "host/study/study.hpp"
#include "host/topology/topology.hpp"

namespace saturn {
namespace fuzz {

namespace {

namespace fs = std::filesystem;

Result accepted() { return {Outcome::kAccepted, "", ""}; }
Result skipped(const std::string& why) { return {Outcome::kSkipped, why, ""}; }
Result finding(const std::string& what) { return {Outcome::kFinding, what, ""}; }

// A ConfigError is the only allowed failure, and its message must fit on one line.
Result judge_rejection(const std::string& message, const Limits& limits) {
  if (message.empty()) return finding("empty error message");
  if (message.find_first_of("\n\r") != std::string::npos)
    return finding("error message spans lines: " + message.substr(0, 300));
  Result r{Outcome::kRejected, message, ""};
  if (message.size() > limits.max_message_chars)
    r.warning = "error line of " + std::to_string(message.size()) + " characters: " + message.substr(0, 120) + "...";
  return r;
}

// Runs `body` and classifies how it ended.
template <typename Body>
Result guarded(const Limits& limits, Body&& body) {
  try {
    return body();
  } catch (const ConfigError& e) {
    return judge_rejection(e.what(), limits);
  } catch (const std::bad_alloc& e) {
    return finding(std::string("std::bad_alloc (memory not checked before allocation): ") + e.what());
  } catch (const std::exception& e) {
    return finding(std::string("exception other than ConfigError (exit 1, not 2): ") + typeid(e).name() + ": " +
                   e.what());
  } catch (...) {
    return finding("non-std exception");
  }
}

// Splits "#@set KEY=VALUE" lines out of a config input; TOML sees them as comments anyway.
std::vector<std::string> overrides_of(std::string_view input) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < input.size()) {
    size_t end = input.find('\n', pos);
    if (end == std::string_view::npos) end = input.size();
    const std::string_view line = input.substr(pos, end - pos);
    if (line.substr(0, kSetDirective.size()) == kSetDirective) out.emplace_back(line.substr(kSetDirective.size()));
    pos = end + 1;
  }
  return out;
}

// Skips a point the fuzzer must not build (see Limits), or whose topology file lies outside
// the sandbox (a path could name /dev/zero, a known hang: issue 9 item 2).
std::string why_skip(const Config& point, const Limits& limits) {
  const std::string& kind = point.get_string("topology.kind");
  if (kind == "kary_ntree") {
    const double endpoints = std::pow(static_cast<double>(point.get_int("topology.k")),
                                      static_cast<double>(point.get_int("topology.n")));
    if (endpoints > static_cast<double>(limits.max_endpoints))
      return "k-ary n-tree of " + std::to_string(static_cast<int64_t>(endpoints)) + " endpoints";
  }
  const std::string& file = point.get_string("topology.file");
  if (limits.sandbox_files_only && kind == "file" && file.find('/') != std::string::npos)
    return "topology.file outside the sandbox";
  return "";
}

constexpr size_t kSpecPoints = 4;  // sweep points whose engine spec is built after validation

Result validate(const Config& config, const Sandbox& sandbox, const Limits& limits) {
  double points = 1;
  for (const auto& axis : config.sweeps) points *= static_cast<double>(axis.values.size());
  if (points > static_cast<double>(limits.max_sweep_points))
    return skipped("sweep of " + std::to_string(static_cast<int64_t>(points)) + " points");
  StudyOptions options;
  options.config_dir = sandbox.dir;
  options.max_memory = kFuzzMemoryBudgetMb << 20;
  // Bounded inputs skip what the bounds exclude before anything is built; an unbounded regression
  // goes through validation first, which sizes the sweep before expanding it, as the CLI does.
  const bool bounded = limits.max_sweep_points != INT64_MAX;
  std::vector<SweepPoint> expanded;
  if (bounded) {
    expanded = expand_sweep(config);
    for (const auto& p : expanded) {
      const std::string why = why_skip(p.config, limits);
      if (!why.empty()) return skipped(why);
    }
  }
  validate_study(config, options);
  if (!bounded) expanded = expand_sweep(config);
  // validate stops at the model; a run then builds each batch's per-trial inputs (permutations,
  // hot spots, flows, loads). Build them for two trials of the first points too, without running.
  if (config.get_string("simulation.mode") == "packet") {
    for (size_t i = 0; i < expanded.size() && i < kSpecPoints; ++i) {
      const Config& pc = expanded[i].config;
      const ModelSetup setup = build_model(pc, sandbox.dir);
      const uint64_t seed = static_cast<uint64_t>(pc.get_int("simulation.seed"));
      std::vector<TrialSpec> trials;
      for (int t = 0; t < 2; ++t)
        trials.push_back(TrialSpec{static_cast<int>(i), t, trial_seed(seed, static_cast<int>(i), t),
                                   pc.get_float("traffic.load"), pc.get_float("traffic.background_load")});
      build_engine_spec(setup, trials);
    }
  }
  return accepted();
}

}  // namespace

Limits unbounded_limits() {
  Limits l;
  l.max_endpoints = l.max_sweep_points = l.max_route_entries = INT64_MAX;
  l.sandbox_files_only = false;
  return l;
}

const char* outcome_name(Outcome outcome) {
  switch (outcome) {
    case Outcome::kAccepted: return "accepted";
    case Outcome::kRejected: return "rejected";
    case Outcome::kSkipped: return "skipped";
    case Outcome::kFinding: return "finding";
  }
  return "?";
}

Result run_config(std::string_view input, const Sandbox& sandbox, const Limits& limits) {
  return guarded(limits, [&] {
    const Config config = load_config_string(std::string(input), "fuzz.toml", overrides_of(input));
    return validate(config, sandbox, limits);
  });
}

Result run_edge_list(std::string_view input, const Sandbox& sandbox, const Limits& limits) {
  // One file per process: the portable driver runs inputs in forked children at the same time.
  const std::string name = "fuzz_input_" + std::to_string(getpid()) + ".topo";
  const std::string path = sandbox.dir + "/" + name;
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(input.data(), static_cast<std::streamsize>(input.size()));
    if (!out) return finding("harness: cannot write " + path);
  }
  Result result = guarded(limits, [&] {
    const Topology topo = load_edge_list(path);
    check_topology(topo);  // std::logic_error here means the parser built an inconsistent graph
    const double entries = static_cast<double>(topo.num_switches()) * topo.num_endpoints;
    if (entries > static_cast<double>(limits.max_route_entries))
      return skipped("edge list of " + std::to_string(topo.num_switches()) + " switches x " +
                     std::to_string(topo.num_endpoints) + " endpoints");
    const std::string toml = "[topology]\nkind = \"file\"\nfile = \"" + name +
                             "\"\n[routing]\nalgorithm = \"table\"\n[simulation]\ntrials = 2\n";
    return validate(load_config_string(toml, "edge_list.toml"), sandbox, limits);
  });
  std::remove(path.c_str());
  return result;
}

Result run_target(Target target, std::string_view input, const Sandbox& sandbox, const Limits& limits) {
  return target == Target::kConfig ? run_config(input, sandbox, limits) : run_edge_list(input, sandbox, limits);
}

bool target_of_path(const std::string& path, Target& target) {
  const std::string ext = fs::path(path).extension().string();
  if (ext == ".toml") target = Target::kConfig;
  else if (ext == ".topo") target = Target::kEdgeList;
  else return false;
  return true;
}

bool expected_outcome(std::string_view input, Outcome& expected) {
  const std::string_view tag = "# fuzz-expect: ";
  const size_t at = input.find(tag);
  if (at == std::string_view::npos) return false;
  const std::string_view rest = input.substr(at + tag.size());
  for (Outcome o : {Outcome::kAccepted, Outcome::kRejected, Outcome::kSkipped}) {
    const std::string_view name = outcome_name(o);
    if (rest.substr(0, name.size()) == name) {
      expected = o;
      return true;
    }
  }
  return false;
}

Sandbox make_sandbox(const std::vector<std::string>& seed_dirs) {
  const char* base = std::getenv("TMPDIR");
  std::string templ = std::string(base && *base ? base : "/tmp") + "/saturn_fuzz_XXXXXX";
  if (mkdtemp(templ.data()) == nullptr) throw std::runtime_error("cannot create a sandbox from " + templ);
  Sandbox sandbox{templ};
  for (const auto& dir : seed_dirs) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec))
      if (entry.is_regular_file() && entry.path().extension() == ".topo")
        fs::copy_file(entry.path(), fs::path(sandbox.dir) / entry.path().filename(),
                      fs::copy_options::overwrite_existing);
  }
  return sandbox;
}

void remove_sandbox(const Sandbox& sandbox) {
  std::error_code ec;
  fs::remove_all(sandbox.dir, ec);
}

}  // namespace fuzz
}  // namespace saturn
