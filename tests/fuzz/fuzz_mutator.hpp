// Structure-aware mutations of configs and edge lists for the portable fuzz driver (and libFuzzer's custom mutator).
//
// Deterministic: the same seed and inputs give the same mutants on every platform (own
// generator, no std distributions, whose output is implementation-defined).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tests/fuzz/fuzz_target.hpp"

namespace saturn {
namespace fuzz {

// splitmix64: small, fast, and the same sequence everywhere.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  size_t below(size_t n) { return n == 0 ? 0 : static_cast<size_t>(next() % n); }
  bool chance(unsigned percent) { return below(100) < percent; }

 private:
  uint64_t state_;
};

// Tokens the mutator splices in: every key of the parameter table (and its sweep form), the
// values each key allows and the values just outside, numbers at the edges of the integer and
// float types, TOML oddities, and the edge-list directives.
struct Dictionary {
  std::vector<std::string> keys;      // "topology.k", "sweep.traffic.load", "traffic.flows", ...
  std::vector<std::string> headers;   // "[topology]", "[sweep]", "[[traffic.flows]]", ...
  std::vector<std::string> values;    // "\"uniform\"", "65", "9223372036854775808", "[0.1, 0.2]", ...
  std::vector<std::string> numbers;   // number tokens only
  std::vector<std::string> edge_tokens;  // "switch", "endpoint", "link", counts, names
  // Per key: values it allows (edges of its range, its choices) and a few just outside, so that a
  // mutant often gets past parsing into the cross-key checks.
  std::map<std::string, std::vector<std::string>> key_values;
};

const Dictionary& dictionary();

struct MutatorOptions {
  size_t max_size = 1 << 16;  // longer mutants are cut (libFuzzer's -max_len has the same role)
  int max_stack = 4;          // mutations applied on top of each other
};

// One mutant of `input`. `others` are inputs of the same target to splice lines from (may be empty).
std::string mutate(const std::string& input, Target target, const std::vector<std::string>& others, Rng& rng,
                   const MutatorOptions& options = {});

}  // namespace fuzz
}  // namespace saturn
