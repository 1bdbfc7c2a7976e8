// libFuzzer entry points (clang, SATURN_FUZZ=ON): fuzz_config and fuzz_edge_list, built from this one file.
//
// The same targets and contract as the portable driver; a finding aborts so that libFuzzer saves
// the input (crash-<sha1>). Half the mutations are ours (structure-aware: keys and values of the
// parameter table), half libFuzzer's own byte-level ones, so coverage guidance sees both.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "tests/fuzz/fuzz_mutator.hpp"
#include "tests/fuzz/fuzz_target.hpp"

#ifndef SATURN_FUZZ_TARGET_EDGE_LIST
#define SATURN_FUZZ_TARGET_KIND saturn::fuzz::Target::kConfig
#else
#define SATURN_FUZZ_TARGET_KIND saturn::fuzz::Target::kEdgeList
#endif

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace {

saturn::fuzz::Sandbox* g_sandbox = nullptr;

void remove_sandbox_at_exit() {
  if (g_sandbox) saturn::fuzz::remove_sandbox(*g_sandbox);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // Relative topology.file names resolve to copies of the corpus edge lists.
  g_sandbox = new saturn::fuzz::Sandbox(
      saturn::fuzz::make_sandbox({SATURN_FUZZ_CORPUS_DIR "/edge_list", SATURN_FUZZ_CORPUS_DIR "/config"}));
  std::atexit(remove_sandbox_at_exit);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  const saturn::fuzz::Result r = saturn::fuzz::run_target(SATURN_FUZZ_TARGET_KIND, input, *g_sandbox);
  if (r.outcome == saturn::fuzz::Outcome::kFinding) {
    std::fprintf(stderr, "saturn fuzz finding: %s\n", r.detail.substr(0, 2000).c_str());
    std::abort();
  }
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed) {
  saturn::fuzz::Rng rng(seed);
  if (rng.chance(50)) return LLVMFuzzerMutate(data, size, max_size);
  saturn::fuzz::MutatorOptions options;
  options.max_size = max_size;
  const std::string out = saturn::fuzz::mutate(std::string(reinterpret_cast<const char*>(data), size),
                                               SATURN_FUZZ_TARGET_KIND, {}, rng, options);
  std::copy(out.begin(), out.end(), data);
  return out.size();
}
