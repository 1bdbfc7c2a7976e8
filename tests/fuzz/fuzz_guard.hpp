// Runs one fuzz input in a forked child with a time limit and an address-space limit.
//
// A crash (signal, sanitizer report) or hang then ends only the child and becomes a finding of
// the driver, and an allocation past the limit fails fast (std::bad_alloc, a finding) instead
// of swapping the machine. Under AddressSanitizer, which reserves terabytes of shadow address
// space, the address-space limit is left off; the Limits of the target still bound the inputs.
#pragma once
#include <functional>
#include <string>
#include <string_view>

#include "tests/fuzz/fuzz_target.hpp"

namespace saturn {
namespace fuzz {

struct GuardOptions {
  unsigned hang_seconds = 20;      // wall-clock budget per input; validate should need well under 1 s
  size_t address_space_mb = 4096;  // RLIMIT_AS of the child (0 = none)
};

// True when this binary was built with AddressSanitizer (RLIMIT_AS is then not applied).
bool built_with_asan();

// body()'s Result, or a finding "crash: signal N (name)", "hang: over N s", "crash: exit N".
Result run_guarded(const std::function<Result()>& body, const GuardOptions& options);

// run_target in a guarded child.
Result run_guarded(Target target, std::string_view input, const Sandbox& sandbox, const Limits& limits,
                   const GuardOptions& options);

}  // namespace fuzz
}  // namespace saturn
