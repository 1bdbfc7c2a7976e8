// Fuzz targets: one input through the whole config path up to validation, judged by the CLI's contract.
//
// The contract (COMMON.md, docs/development.md "Fuzzing and sanitizers"): every input either validates or is
// rejected with ONE line naming the problem (a ConfigError, which `saturn` turns into exit 2).
// Anything else is a finding: another exception type (exit 1: std::bad_alloc, std::logic_error,
// std::out_of_range, ...), a message with a line break, an empty message. Crashes and hangs are
// caught one level up (fuzz_guard.hpp for the portable driver, libFuzzer itself otherwise).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace saturn {
namespace fuzz {

enum class Target { kConfig, kEdgeList };

enum class Outcome {
  kAccepted,  // validated
  kRejected,  // one-line ConfigError
  kSkipped,   // outside what the fuzzer may build (see Limits); not run
  kFinding,   // broke the contract
};

const char* outcome_name(Outcome outcome);

struct Result {
  Outcome outcome = Outcome::kAccepted;
  std::string detail;   // the error line, the reason for a skip, or what the finding is
  std::string warning;  // a rejection that kept the contract but not the spirit (an over-long line)
};

// What the fuzzer refuses to build, so that one input can never take the machine's memory.
// Huge topologies are a known open problem (issue 9 item 2: sizes are not checked before
// allocation); inputs past these bounds are skipped and counted, not run.
struct Limits {
  int64_t max_endpoints = 4096;          // k^n of a k-ary n-tree
  int64_t max_sweep_points = 4096;       // product of the sweep axis lengths
  int64_t max_route_entries = 1 << 22;   // switches x endpoints of an edge-list topology
  size_t max_message_chars = 1000;       // a longer error line is a warning (issue 9 item 7: cut values)
  bool sandbox_files_only = true;        // topology.file must name a file in the sandbox
};

// No bounds: for regression files marked "# fuzz-unbounded" (inputs past the bounds that the
// code now rejects or handles cheaply; each still runs under the guard's limits).
Limits unbounded_limits();

// The memory budget of every validation the fuzzer makes (the --max-memory of its `saturn
// validate` runs and of the in-process target), equal to the forked child's address-space limit:
// then whether an input is accepted does not depend on the machine's free memory, or on whether
// the build has AddressSanitizer (which leaves the address-space limit off).
constexpr size_t kFuzzMemoryBudgetMb = 4096;

// Where topology files live: relative topology.file names resolve here, and the edge-list
// target writes its input here. Holds copies of the corpus edge lists.
struct Sandbox {
  std::string dir;
};

// The directives that turn a config input's comment lines into --set overrides:
//   #@set KEY=VALUE      (one per line; TOML ignores them, the target passes them on)
inline constexpr std::string_view kSetDirective = "#@set ";

// Config target: load_config_string (+ overrides), expand_sweep, validate_study with the
// sandbox as the config directory (what `saturn validate` does), then for packet mode the engine
// spec (per-trial inputs) of two trials of the first sweep points, as a run would build it.
Result run_config(std::string_view input, const Sandbox& sandbox, const Limits& limits = {});

// Edge-list target: the input becomes a topology file read by load_edge_list, checked by
// check_topology, then validated inside a small packet-mode config (table routing).
Result run_edge_list(std::string_view input, const Sandbox& sandbox, const Limits& limits = {});

Result run_target(Target target, std::string_view input, const Sandbox& sandbox, const Limits& limits = {});

// The target a corpus or regression file belongs to, from its name (.toml or .topo).
bool target_of_path(const std::string& path, Target& target);

// The expectation a regression file may state in a comment line: "# fuzz-expect: rejected"
// (or accepted, skipped). Returns false when there is none.
bool expected_outcome(std::string_view input, Outcome& expected);

// A fresh sandbox under $TMPDIR holding copies of the .topo files found in `seed_dirs`.
Sandbox make_sandbox(const std::vector<std::string>& seed_dirs);
void remove_sandbox(const Sandbox& sandbox);

}  // namespace fuzz
}  // namespace saturn
